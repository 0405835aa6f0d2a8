package tools

import (
	"encoding/json"
	"testing"

	"github.com/mindvault/mcp-endpoint/internal/clients/registry"
)

// TestRegistryWriteNoOpSendsNothing: a write whose value the chain already holds, asked by
// its creator, sends no transaction; a different value is sent once.
func TestRegistryWriteNoOpSendsNothing(t *testing.T) {
	for _, tc := range []struct {
		name   string
		listed bool
		writes int
	}{
		{name: "already listed", listed: true, writes: 0},
		{name: "delist", listed: false, writes: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, kp := fakeDeps(t)
			reg := &fakeRegistry{cur: &registry.Resource{ID: "guide", Creator: kp.Address(), Listed: true}}
			d.Registry = reg
			var tool *Tool
			for _, tl := range All(d).Tools() {
				if tl.Definition().Name == "mindvault_set_listed" {
					tool = tl
				}
			}
			args, _ := json.Marshal(map[string]any{"resourceId": "guide", "listed": tc.listed})
			res := callTool(t, tool, string(args))
			if res.IsError {
				t.Fatalf("failed: %+v", res.Content)
			}
			if reg.writes != tc.writes {
				t.Fatalf("registry saw %d writes, want %d", reg.writes, tc.writes)
			}
		})
	}
}
