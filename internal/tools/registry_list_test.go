package tools

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/clients/registry"
)

// TestRegistryList: a full page points at the next one, the last page does not, and an empty
// page is a normal answer whose message depends on where it starts.
func TestRegistryList(t *testing.T) {
	entries := make([]registry.Resource, 5)
	for i := range entries {
		entries[i] = registry.Resource{ID: fmt.Sprintf("r%d", i), Creator: "GC", Price: priceUnits("2")}
	}
	next := func(n uint32) *uint32 { return &n }
	for _, tc := range []struct {
		name, args string
		list       []registry.Resource
		listErr    error
		ids        string
		nextStart  *uint32
		message    string
		fail       *failureWant
	}{
		{name: "full page", args: `{"start":1,"limit":2}`, list: entries, ids: "r1 r2", nextStart: next(3)},
		{name: "last page", args: `{"start":3,"limit":20}`, list: entries, ids: "r3 r4"},
		{name: "nothing registered", args: `{}`, message: "No resources are registered on chain yet."},
		{name: "past the end", args: `{"start":9,"limit":5}`, list: entries, message: "No on-chain resources in range [9, 14)"},
		{name: "RPC fails", args: `{}`, listErr: fakeFailure(errmap.SourceRPC, 502, ""),
			fail: &failureWant{code: errmap.CodeServerError, category: "server", state: "no", started: &startedYes}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, _ := fakeDeps(t)
			reg := &contractRegistry{list: tc.list, listErr: tc.listErr}
			d.Registry = reg
			res := callTool(t, registryList.Define(d), tc.args)
			var out RegistryListOutput
			if !decodeOrFail(t, res, tc.fail, &out) {
				return
			}
			var ids []string
			for _, r := range out.Resources {
				ids = append(ids, r.ID)
				if r.Price != "2.0000000" {
					t.Fatalf("price %q", r.Price)
				}
			}
			if strings.Join(ids, " ") != tc.ids || out.Count != len(ids) {
				t.Fatalf("ids %v (count %d), want %q", ids, out.Count, tc.ids)
			}
			if (out.NextStart == nil) != (tc.nextStart == nil) || out.NextStart != nil && *out.NextStart != *tc.nextStart {
				t.Fatalf("nextStart %v, want %v", out.NextStart, tc.nextStart)
			}
			if !strings.Contains(out.Message, tc.message) || (tc.message == "") != (out.Message == "") {
				t.Fatalf("message %q, want %q", out.Message, tc.message)
			}
		})
	}
}
