package config

import (
	"fmt"
	"slices"
	"strings"
)

// The toolsets an operator enables (MINDVAULT_TOOLSETS): every tool belongs to exactly one.
const (
	ToolsetCatalog        = "catalog"
	ToolsetWallet         = "wallet"
	ToolsetPayments       = "payments"
	ToolsetPublishing     = "publishing"
	ToolsetRegistry       = "registry"
	ToolsetRegistryWrites = "registry-writes"
	ToolsetOps            = "ops"
)

// Toolsets lists every toolset in the documented order (docs/operations.md "Toolsets and
// read-only"); lists of toolsets are kept in this order.
var Toolsets = []string{ToolsetCatalog, ToolsetWallet, ToolsetPayments, ToolsetPublishing,
	ToolsetRegistry, ToolsetRegistryWrites, ToolsetOps}

// ParseToolsets reads a comma-separated list of toolset names (any case, duplicates once) into
// Toolsets order; an unknown name, or none, is an error naming the valid ones.
func ParseToolsets(s string) ([]string, error) {
	want := map[string]bool{}
	for _, part := range strings.Split(s, ",") {
		name := strings.ToLower(strings.TrimSpace(part))
		if name == "" {
			continue
		}
		if !slices.Contains(Toolsets, name) {
			return nil, fmt.Errorf("unknown toolset %q; the toolsets are %s", bounded(name), strings.Join(Toolsets, ", "))
		}
		want[name] = true
	}
	if len(want) == 0 {
		return nil, fmt.Errorf("names no toolset; list one or more of %s", strings.Join(Toolsets, ", "))
	}
	return slices.DeleteFunc(slices.Clone(Toolsets), func(t string) bool { return !want[t] }), nil
}
