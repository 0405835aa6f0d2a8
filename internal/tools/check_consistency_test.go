package tools

import (
	"strings"
	"testing"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/clients/mindvault"
	"github.com/mindvault/mcp-endpoint/internal/clients/registry"
)

// TestCheckConsistency: price, listed and creator are compared in 7-decimal units; a field the
// API does not say is unknown, a side that does not know the resource is a normal answer, and
// a failing read of either side is an error.
func TestCheckConsistency(t *testing.T) {
	const creator = "GCREATOR"
	meta := func(price string) *mindvault.Meta {
		return &mindvault.Meta{Listing: mindvault.Listing{ID: "guide", Price: mindvault.Decimal(price)}, PublisherWallet: creator}
	}
	onchain := &registry.Resource{ID: "guide", Creator: creator, Price: priceUnits("1.5"), Listed: true}
	listed := &mindvault.Verification{Status: "verified", Listed: &startedYes}
	for _, tc := range []struct {
		name, id                 string
		meta                     *mindvault.Meta
		metaErr, getErr          error
		ver                      *mindvault.Verification
		cur                      *registry.Resource
		matches, mismatches, unk string
		summary                  string
		gets                     int
		fail                     *failureWant
	}{
		{name: "agree", id: "guide", meta: meta("1.50"), ver: listed, cur: onchain, gets: 1,
			matches: "creator listed price", summary: "API and chain agree on price, listing and creator."},
		{name: "price differs", id: "guide", meta: meta("2"), ver: listed, cur: onchain, gets: 1,
			matches: "creator listed", mismatches: "price", summary: "Found 1 mismatched field(s): price. The chain is authoritative."},
		{name: "listed unknown", id: "guide", meta: meta("1.5"), cur: onchain, gets: 1,
			matches: "creator price", unk: "listed", summary: "the API did not say listed, so that is unknown"},
		{name: "only on chain", id: "guide", metaErr: fakeFailure(errmap.SourceAPI, 404, ""), cur: onchain, gets: 1,
			summary: "Registered on chain but unknown to the API."},
		{name: "id that cannot be on chain", id: "res_0123456789abcdefghijklmnop", meta: meta("1.5"),
			summary: "Listed in the API but not registered on chain"},
		{name: "API fails", id: "guide", metaErr: fakeFailure(errmap.SourceAPI, 500, ""), cur: onchain, gets: 1,
			fail: &failureWant{code: errmap.CodeServerError, category: "server", state: "no", started: &startedYes}},
		{name: "contract fails", id: "guide", meta: meta("1.5"), getErr: fakeFailure(errmap.SourceRegistry, 0, errmap.CodeStateArchived), gets: 1,
			fail: &failureWant{code: errmap.CodeStateArchived, state: "no", started: &startedYes}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, _ := fakeDeps(t)
			reg := &contractRegistry{cur: tc.cur, getErr: tc.getErr}
			d.API, d.Registry = &publishAPI{meta: tc.meta, metaErr: tc.metaErr, ver: tc.ver, verErr: fakeFailure(errmap.SourceAPI, 404, "")}, reg
			if tc.ver != nil {
				d.API.(*publishAPI).verErr = nil
			}
			res := callTool(t, checkConsistency.Define(d), `{"resourceId":"`+tc.id+`"}`)
			if reg.gets != tc.gets {
				t.Fatalf("contract read %d times, want %d", reg.gets, tc.gets)
			}
			var out ConsistencyOutput
			if !decodeOrFail(t, res, tc.fail, &out) {
				return
			}
			keys := func(m map[string]Compared) string { return strings.Join(sortedKeys(m), " ") }
			if keys(out.Matches) != tc.matches || keys(out.Mismatches) != tc.mismatches || keys(out.Unknown) != tc.unk {
				t.Fatalf("matches %v mismatches %v unknown %v", out.Matches, out.Mismatches, out.Unknown)
			}
			if out.APIFound != (tc.meta != nil) || out.OnchainFound != (tc.cur != nil && tc.gets > 0) || !strings.Contains(out.Summary, tc.summary) {
				t.Fatalf("apiFound %v onchainFound %v summary %q, want %q", out.APIFound, out.OnchainFound, out.Summary, tc.summary)
			}
		})
	}
}
