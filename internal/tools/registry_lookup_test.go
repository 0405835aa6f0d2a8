package tools

import (
	"strings"
	"testing"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/clients/registry"
)

// TestRegistryLookup: an entry is reported as the chain holds it; an id the contract does not
// hold, or cannot hold, is found: false with the next step; a contract failure is an error.
func TestRegistryLookup(t *testing.T) {
	state := "active"
	entry := &registry.Resource{ID: "guide", Creator: "GCREATOR", Price: priceUnits("1.5"), Metadata: "ipfs://x",
		Listed: true, Tags: []string{"ai"}, State: &state, Verified: &startedYes}
	for _, tc := range []struct {
		name, id string
		cur      *registry.Resource
		getErr   error
		found    bool
		message  string
		gets     int
		fail     *failureWant
	}{
		{name: "found", id: "guide", cur: entry, found: true, gets: 1},
		{name: "not on chain", id: "guide", message: "is not registered in contract", gets: 1},
		{name: "not an on-chain id", id: "res_0123456789abcdefghijklmnop", message: "the contract was not called"},
		{name: "contract error", id: "guide", getErr: fakeFailure(errmap.SourceRegistry, 0, errmap.CodeContractError), gets: 1,
			fail: &failureWant{code: errmap.CodeContractError, category: "contract", state: "no", started: &startedYes}},
		{name: "RPC rate limited", id: "guide", getErr: fakeFailure(errmap.SourceRPC, 429, ""), gets: 1,
			fail: &failureWant{code: errmap.CodeRateLimited, category: "rate_limit", state: "no"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, _ := fakeDeps(t)
			reg := &contractRegistry{cur: tc.cur, getErr: tc.getErr}
			d.Registry = reg
			res := callTool(t, registryLookup.Define(d), `{"resourceId":"`+tc.id+`"}`)
			if reg.gets != tc.gets {
				t.Fatalf("contract read %d times, want %d", reg.gets, tc.gets)
			}
			var out LookupOutput
			if !decodeOrFail(t, res, tc.fail, &out) {
				return
			}
			if out.Found != tc.found || out.ResourceID != tc.id || out.ContractID != d.Config.RegistryContract {
				t.Fatalf("found %v for %q in %q: %+v", out.Found, out.ResourceID, out.ContractID, out)
			}
			if tc.found {
				if out.Price != "1.5000000" || out.Creator != "GCREATOR" || out.Listed == nil || !*out.Listed || out.State != "active" || len(out.Tags) != 1 {
					t.Fatalf("entry misreported: %+v", out)
				}
				return
			}
			if !strings.Contains(out.Message, tc.message) || out.Next != notOnchainNext {
				t.Fatalf("message %q next %q, want %q and the recovery step", out.Message, out.Next, tc.message)
			}
		})
	}
}
