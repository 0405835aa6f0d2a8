package tools

import (
	"net/http"
	"testing"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/clients/mindvault"
)

// TestBuy: a dry run states what would be paid and pays nothing; every refusal the buy
// workflow makes from what it read comes before the payer is asked for anything; a failed
// read is mapped. The control row proves the counter sees a call.
func TestBuy(t *testing.T) {
	bought := []mindvault.Payment{{PaymentID: "p1", ResourceID: "guide", Amount: "2"}}
	for _, tc := range []struct {
		name, args, usdc string
		history          []mindvault.Payment
		metaErr          error
		paid             int
		want             readWant
	}{
		{name: "dry run", args: `{"resourceId":"guide","dryRun":true}`, usdc: "100", want: readWant{out: map[string]any{
			"resourceId": "guide", "dryRun": true, "settlement": "none", "priceUsdc": "2.0000000", "amountUsdc": "0.0000000",
			"usdcBalance": "100.0000000", "payee": "GPUB", "receipt": nil, "txHash": nil}}},
		{name: "price above cap", args: `{"resourceId":"guide","maxPriceUsdc":"1"}`, usdc: "100",
			want: readWant{code: errmap.CodePriceAboveCap, category: "payment", state: "no", next: "Nothing was paid"}},
		{name: "insufficient USDC", args: `{"resourceId":"guide"}`, usdc: "1.5",
			want: readWant{code: errmap.CodeInsufficientUSDC, category: "payment", state: "no"}},
		{name: "repeat purchase", args: `{"resourceId":"guide"}`, usdc: "100", history: bought,
			want: readWant{code: errmap.CodeAlreadyPurchased, category: "conflict", state: "no"}},
		{name: "unknown id", args: `{"resourceId":"nope"}`, usdc: "100", metaErr: fakeFailure(errmap.SourceAPI, http.StatusNotFound, ""),
			want: readWant{code: errmap.CodeNotFound, category: "not_found", state: "no", next: "mindvault_browse"}},
		{name: "control: pays", args: `{"resourceId":"guide","allowRepeat":true}`, usdc: "100", paid: 1, history: bought,
			want: readWant{code: errmap.CodeUnknown, category: "unknown", state: "no"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, _ := fakeDeps(t)
			d.Config.MaxAutoPayUSDC = "5"
			payer := &fakePayer{}
			meta := &mindvault.Meta{Listing: mindvault.Listing{ID: "guide", Title: "Guide", Price: "2", ResourceType: "link"}, PublisherWallet: "GPUB"}
			d.API = &fakeAPI{meta: meta, payments: tc.history}
			if tc.metaErr != nil {
				d.API = &readAPI{err: tc.metaErr}
			}
			d.Horizon = &fakeHorizon{issuer: d.Config.USDCIssuer, usdc: tc.usdc}
			d.X402 = payer
			checkRead(t, callTool(t, buy.Define(d), tc.args), tc.want)
			if payer.calls != tc.paid {
				t.Fatalf("payer saw %d calls, want %d", payer.calls, tc.paid)
			}
		})
	}
}
