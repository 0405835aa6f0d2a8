package e2e_test

import (
	"strings"
	"testing"
)

// TestBuyTellsTheAgentWhatItMissed: buying a resource the paying wallet published says so
// (the payment would go from the wallet to itself), and a price above the cap names the cap
// that applied: the endpoint's MINDVAULT_MAX_AUTO_PAY_USDC when the call passed none, the
// caller's maxPriceUsdc when it did.
func TestBuyTellsTheAgentWhatItMissed(t *testing.T) {
	e := newEnv(t, nil)
	t.Run("own resource", func(t *testing.T) {
		e := e.in(t)
		// llmprompts (0.10 USDC) is published by the demo wallet, which pays by default.
		out := e.ok("mindvault_buy", e.call("mindvault_buy", `{"resourceId":"llmprompts","dryRun":true}`))
		warnings, _ := out["warnings"].([]any)
		if len(warnings) != 1 || !strings.Contains(warnings[0].(string), "This wallet published llmprompts") ||
			!strings.Contains(warnings[0].(string), e.sb.Demo.Address) {
			t.Fatalf("want a warning that the wallet buys its own resource: %v", out)
		}
	})
	t.Run("someone else's resource", func(t *testing.T) {
		e := e.in(t)
		out := e.ok("mindvault_buy", e.call("mindvault_buy", `{"resourceId":"stellarcheatsheet","maxPriceUsdc":"30","dryRun":true}`))
		if out["warnings"] != nil {
			t.Fatalf("a customer's dry run carries no warning: %v", out)
		}
	})
	t.Run("the endpoint's cap", func(t *testing.T) {
		e := e.in(t)
		// stellarcheatsheet costs 25 USDC, above the default cap of 10.
		r := e.call("mindvault_buy", `{"resourceId":"stellarcheatsheet"}`)
		e.fails("mindvault_buy", r, failure{category: "payment", code: "PRICE_ABOVE_CAP", source: "x402"})
		text := r.Content[0].Text
		if !strings.Contains(text, "above the endpoint's cap of 10.0000000 USDC (MINDVAULT_MAX_AUTO_PAY_USDC") || strings.Contains(text, "above maxPriceUsdc") {
			t.Fatalf("a call without maxPriceUsdc must be told the endpoint's cap applied: %s", text)
		}
	})
	t.Run("the caller's cap", func(t *testing.T) {
		e := e.in(t)
		r := e.call("mindvault_buy", `{"resourceId":"stellarcheatsheet","maxPriceUsdc":"7"}`)
		e.fails("mindvault_buy", r, failure{category: "payment", code: "PRICE_ABOVE_CAP", source: "x402"})
		if !strings.Contains(r.Content[0].Text, "above maxPriceUsdc 7.0000000") {
			t.Fatalf("the caller's own cap: %s", r.Content[0].Text)
		}
	})
}
