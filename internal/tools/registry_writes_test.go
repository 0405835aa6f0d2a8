package tools

import (
	"cmp"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stellar/go-stellar-sdk/keypair"

	"github.com/mindvault/mcp-endpoint/errmap"
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

// TestRegistryWrites: each creator write sends one transaction and reports the value now on
// chain; a value the chain already holds sends nothing; the contract's refusals come back
// with the recovery the write needs (the creator's wallet, XLM for the fee).
func TestRegistryWrites(t *testing.T) {
	other := keypair.MustRandom().Address()
	for _, tc := range []struct {
		name, tool, args string
		creator          string // "" is the profile's wallet
		getErr           error
		invokeErr        error
		writes           int
		check            func(t *testing.T, out WriteOutput)
		fail             *failureWant
		next             string
	}{
		{name: "set price", tool: "mindvault_set_price", args: `"price":"2.5"`, writes: 1, check: func(t *testing.T, o WriteOutput) {
			if o.Price != "2.5000000" || o.CatalogSync == "" {
				t.Fatalf("price %q catalogSync %q", o.Price, o.CatalogSync)
			}
		}},
		{name: "same price", tool: "mindvault_set_price", args: `"price":"1.0"`},
		{name: "update metadata", tool: "mindvault_update_metadata", args: `"metadata":"ar://new"`, writes: 1, check: func(t *testing.T, o WriteOutput) {
			if o.Metadata != "ar://new" {
				t.Fatalf("metadata %q", o.Metadata)
			}
		}},
		{name: "set tags", tool: "mindvault_set_tags", args: `"tags":["go","ai","go"]`, writes: 1, check: func(t *testing.T, o WriteOutput) {
			if o.Tags == nil || strings.Join(*o.Tags, ",") != "go,ai" {
				t.Fatalf("tags %v", o.Tags)
			}
		}},
		{name: "same tags in another order", tool: "mindvault_set_tags", args: `"tags":["a","b"]`},
		{name: "transfer", tool: "mindvault_transfer_ownership", args: `"newCreator":"` + other + `"`, writes: 1, check: func(t *testing.T, o WriteOutput) {
			if o.NewCreator != other || o.CatalogSync == "" {
				t.Fatalf("newCreator %q catalogSync %q", o.NewCreator, o.CatalogSync)
			}
		}},
		{name: "transfer already done, asked by the old creator", tool: "mindvault_transfer_ownership", args: `"newCreator":"` + other + `"`, creator: other},
		{name: "listed, asked by another wallet", tool: "mindvault_set_listed", args: `"listed":true`, creator: other, writes: 1,
			invokeErr: fakeFailure(errmap.SourceRegistry, 0, errmap.CodeContractUnauthorized),
			fail:      &failureWant{code: errmap.CodeContractUnauthorized, category: "auth", state: "no"}, next: other},
		{name: "no XLM for the fee", tool: "mindvault_set_listed", args: `"listed":false`, writes: 1,
			invokeErr: fakeFailure(errmap.SourceRPC, 0, errmap.CodeInsufficientBalance),
			fail:      &failureWant{code: errmap.CodeInsufficientBalance, category: "payment"}, next: "friendbot"},
		{name: "entry unreadable", tool: "mindvault_set_price", args: `"price":"3"`, getErr: fakeFailure(errmap.SourceRPC, 503, ""),
			fail: &failureWant{code: errmap.CodeServerError, category: "server", state: "no"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, kp := fakeDeps(t)
			creator := cmp.Or(tc.creator, kp.Address())
			reg := &contractRegistry{getErr: tc.getErr, invokeErr: tc.invokeErr, cur: &registry.Resource{ID: "guide", Creator: creator,
				Price: priceUnits("1"), Metadata: "ipfs://old", Listed: true, Tags: []string{"b", "a"}}}
			d.Registry = reg
			var tool *Tool
			for _, tl := range All(d).Tools() {
				if tl.Definition().Name == tc.tool {
					tool = tl
				}
			}
			res := callTool(t, tool, `{"resourceId":"guide",`+tc.args+`}`)
			if reg.writes != tc.writes {
				t.Fatalf("registry saw %d writes, want %d", reg.writes, tc.writes)
			}
			if tc.fail != nil {
				tc.fail.check(t, res)
				if !strings.Contains(strings.ToLower(res.Content[0].Text), strings.ToLower(tc.next)) {
					t.Fatalf("text lacks %q: %s", tc.next, res.Content[0].Text)
				}
				return
			}
			var out WriteOutput
			decodeOut(t, res, &out)
			if out.Status != "success" || out.ResourceID != "guide" || out.Changed != (tc.writes > 0) {
				t.Fatalf("changed %v, want %v: %+v", out.Changed, tc.writes > 0, out)
			}
			if !out.Changed {
				if out.TxHash != "" || !strings.Contains(out.Message, "Nothing was sent") {
					t.Fatalf("a no-op reports %+v", out)
				}
				return
			}
			if out.TxHash != "ab12" || out.Ledger != 7 || out.ExplorerURL == "" || reg.fn != strings.TrimPrefix(tc.tool, "mindvault_") {
				t.Fatalf("write %s reported %+v", reg.fn, out)
			}
			tc.check(t, out)
		})
	}
}
