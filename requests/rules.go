package requests

import (
	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/validate"
)

// Issue is one argument problem found by a cross-field rule.
type Issue = errmap.Issue

// onchainID reports an id the registry contract cannot hold (it would answer #11).
func onchainID(id string) []Issue {
	if validate.OnchainID(id) {
		return nil
	}
	return []Issue{{Path: "/resourceId", Rule: "onchainid", Expected: "1-24 lowercase letters and digits",
		Message: "must be 1-24 lowercase letters and digits to exist on chain"}}
}
