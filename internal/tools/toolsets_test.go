package tools

import (
	"slices"
	"strings"
	"testing"

	"github.com/mindvault/mcp-endpoint/internal/config"
)

// toolsetMembers is the documented membership (docs/operations.md "Toolsets and read-only"),
// written out once more so that a tool moved to another toolset is a visible change.
var toolsetMembers = map[string][]string{
	config.ToolsetCatalog:        {"browse", "search", "preview"},
	config.ToolsetWallet:         {"wallet_info", "list_profiles", "setup_wallet"},
	config.ToolsetPayments:       {"buy", "purchase_history"},
	config.ToolsetPublishing:     {"register", "publish", "publish_status", "agent_status", "register_onchain"},
	config.ToolsetRegistry:       {"registry_info", "registry_lookup", "registry_list", "check_consistency"},
	config.ToolsetRegistryWrites: {"set_price", "set_listed", "set_tags", "update_metadata", "transfer_ownership"},
	config.ToolsetOps:            {"health", "network_profile", "tx_status"},
}

// TestEveryToolHasOneKnownToolset: each registered tool declares exactly one toolset, a known
// one, the one the docs give; every toolset has a tool; and a tool that declares none (or an
// unknown one) cannot be defined.
func TestEveryToolHasOneKnownToolset(t *testing.T) {
	want := map[string]string{}
	for ts, names := range toolsetMembers {
		if !slices.Contains(config.Toolsets, ts) {
			t.Fatalf("the table names toolset %q, which config does not know", ts)
		}
		for _, n := range names {
			if prev, dup := want["mindvault_"+n]; dup {
				t.Fatalf("mindvault_%s listed in %s and %s", n, prev, ts)
			}
			want["mindvault_"+n] = ts
		}
	}
	used := map[string]bool{}
	reg := toolRegistry(t)
	for _, tool := range reg.Tools() {
		ts := tool.Toolset()
		if ts != want[tool.Name()] {
			t.Errorf("%s: toolset %q, want %q", tool.Name(), ts, want[tool.Name()])
		}
		used[ts] = true
		delete(want, tool.Name())
	}
	for name := range want {
		t.Errorf("%s is documented but not registered", name)
	}
	for _, ts := range config.Toolsets {
		if !used[ts] {
			t.Errorf("toolset %s has no tool", ts)
		}
	}
	for _, bad := range []string{"", "Catalog", "everything"} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(r.(string), "is not one of") {
					t.Errorf("toolset %q: Define panicked with %v, want a refusal", bad, r)
				}
			}()
			spec := search
			spec.Toolset = bad
			defineReflected(&Deps{Config: testConfig(t, nil)}, spec)
		}()
	}
}
