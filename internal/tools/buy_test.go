package tools

import (
	"testing"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/clients/mindvault"
)

// TestBuyRefusesBeforePaying: every refusal the buy workflow makes from what it read comes
// before the payer is asked for anything; the control row proves the counter sees a call.
func TestBuyRefusesBeforePaying(t *testing.T) {
	for _, tc := range []struct {
		name, args, usdc, code string
		history                []mindvault.Payment
		paid                   int
	}{
		{name: "price above cap", args: `{"resourceId":"guide","maxPriceUsdc":"1"}`, usdc: "100", code: errmap.CodePriceAboveCap},
		{name: "insufficient USDC", args: `{"resourceId":"guide"}`, usdc: "1.5", code: errmap.CodeInsufficientUSDC},
		{name: "repeat purchase", args: `{"resourceId":"guide"}`, usdc: "100", code: errmap.CodeAlreadyPurchased,
			history: []mindvault.Payment{{PaymentID: "p1", ResourceID: "guide", Amount: "2"}}},
		{name: "control: pays", args: `{"resourceId":"guide","allowRepeat":true}`, usdc: "100", paid: 1,
			history: []mindvault.Payment{{PaymentID: "p1", ResourceID: "guide", Amount: "2"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, _ := fakeDeps(t)
			d.Config.MaxAutoPayUSDC = "5"
			payer := &fakePayer{}
			d.API = &fakeAPI{meta: &mindvault.Meta{Listing: mindvault.Listing{ID: "guide", Title: "Guide", Price: "2", ResourceType: "link"}}, payments: tc.history}
			d.Horizon = &fakeHorizon{issuer: d.Config.USDCIssuer, usdc: tc.usdc}
			d.X402 = payer
			res := callTool(t, Define(d, buy), tc.args)
			if payer.calls != tc.paid {
				t.Fatalf("payer saw %d calls, want %d", payer.calls, tc.paid)
			}
			if tc.code != "" && (!res.IsError || res.Code != tc.code) {
				t.Fatalf("got isError %v code %q, want %s: %+v", res.IsError, res.Code, tc.code, res.Content)
			}
		})
	}
}
