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

// TestFirstWriteNeedsXLM: the sandbox charges contract writes their fee as the network does,
// so a wallet without XLM above its minimum balance cannot send one (sendTransaction ERROR
// txINSUFFICIENT_BALANCE, nothing changed), and the answer says how to get XLM; once funded
// the same write applies and its fee leaves the wallet's XLM.
func TestFirstWriteNeedsXLM(t *testing.T) {
	e := newEnv(t, nil)
	demo := e.sb.Demo.Address
	id := ownedBy(e, demo)
	if err := e.sb.SetXLM(demo, 0); err != nil { // demo is sponsored: it owes no reserve of its own
		t.Fatal(err)
	}
	r := e.call("mindvault_set_price", `{"resourceId":"`+id+`","price":"4.5"}`)
	e.fails("mindvault_set_price", r, failure{category: "payment", code: "INSUFFICIENT_BALANCE", source: "rpc"})
	text := r.Content[0].Text
	for _, want := range []string{"too little XLM", demo, "friendbot.stellar.org", "mindvault_wallet_info"} {
		if !strings.Contains(text, want) {
			t.Fatalf("the answer must say how to get XLM (%q): %s", want, text)
		}
	}
	if e.sb.Count("rpc", "sendTransaction") != 1 {
		t.Fatalf("sendTransaction sent %d times", e.sb.Count("rpc", "sendTransaction"))
	}
	if err := e.sb.FundXLM(demo, 10_000_000); err != nil {
		t.Fatal(err)
	}
	e.ok("mindvault_set_price", e.call("mindvault_set_price", `{"resourceId":"`+id+`","price":"4.5"}`))
	if xlm, _ := e.sb.XLMBalance(demo); xlm >= 10_000_000 || xlm <= 0 {
		t.Fatalf("after the write the wallet holds %d stroops; want 1 XLM less the fee", xlm)
	}
}
