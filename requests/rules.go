package requests

import (
	"math/big"

	"github.com/mindvault/mcp-endpoint/errmap"
)

// Issue is one argument problem found by a cross-field rule.
type Issue = errmap.Issue

// priceRange reports minPrice > maxPrice. Both are already valid decimal strings.
func priceRange(min, max *string) []Issue {
	if min == nil || max == nil {
		return nil
	}
	lo, ok1 := new(big.Rat).SetString(*min)
	hi, ok2 := new(big.Rat).SetString(*max)
	if ok1 && ok2 && lo.Cmp(hi) > 0 {
		return []Issue{{Path: "/minPrice", Rule: "ltefield", Expected: "at most maxPrice", Message: "must not be greater than maxPrice"}}
	}
	return nil
}
