package requests

import (
	"math/big"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/validate"
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

// onchainID reports an id the registry contract cannot hold (it would answer #11).
func onchainID(id string) []Issue {
	if validate.OnchainID(id) {
		return nil
	}
	return []Issue{{Path: "/resourceId", Rule: "onchainid", Expected: "1-24 lowercase letters and digits",
		Message: "must be 1-24 lowercase letters and digits to exist on chain"}}
}
