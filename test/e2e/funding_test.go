package e2e_test

import (
	"encoding/json"
	"strings"
	"testing"
)

// fundingURL is the MINDVAULT_FUNDING_URL of the funding tests: a faucet page template.
const fundingURL = "https://faucet.example.org/fund?address={address}&network={network}"

const (
	capsFormURL = `{"elicitation":{"form":{},"url":{}}}`
	acceptURL   = `{"action":"accept"}`
	buyBroke    = `{"resourceId":"rustguide","profile":"broke"}`
)

// fundingEnv is an endpoint with a funding page and a "broke" profile on the sandbox's
// zero-USDC wallet; link is that wallet's funding page.
func fundingEnv(t *testing.T, vars map[string]string) (e *env, address, link string) {
	all := map[string]string{"MINDVAULT_FUNDING_URL": fundingURL}
	for k, v := range vars {
		all[k] = v
	}
	e = newEnv(t, all)
	addProfile(e, "broke", "zero", "")
	zero, _ := e.sb.Account("zero")
	e.faults("")
	return e, zero.Address, "https://faucet.example.org/fund?address=" + zero.Address + "&network=sandbox"
}

// askedToFund asserts an InputRequiredResult with one url elicitation to link under "fund".
func askedToFund(t *testing.T, a modernAnswer, link string) string {
	t.Helper()
	ir, ok := a.Result.InputRequests["fund"]
	if a.Error != nil || a.Result.ResultType != "input_required" || a.Result.RequestState == "" || !ok || len(a.Result.InputRequests) != 1 ||
		ir.Method != "elicitation/create" || ir.Params.Mode != "url" || ir.Params.URL != link || ir.Params.ElicitationID == "" ||
		len(ir.Params.RequestedSchema) != 0 || !strings.Contains(ir.Params.Message, "1.5000000 short") {
		t.Fatalf("want one url elicitation to %s under fund, got %s", link, a.raw)
	}
	return a.Result.RequestState
}

// answerFund is the params of round 2 of a funding question: the state and the user's answer.
func answerFund(state, answer string) string {
	s, _ := json.Marshal(state)
	return `"requestState":` + string(s) + `,"inputResponses":{"fund":` + answer + `}`
}

// TestFundingURLElicitation: on the modern era a client that declares url elicitation is sent
// to the configured funding page, with the wallet's address filled in, when the wallet cannot
// pay; nothing is signed before it holds enough. Accepting after the wallet was funded pays
// once; declining, or accepting while still short, answers INSUFFICIENT_USDC with nothing
// changed, and is never asked twice.
func TestFundingURLElicitation(t *testing.T) {
	t.Run("accept after funding pays once", func(t *testing.T) {
		e, address, link := fundingEnv(t, nil)
		state := askedToFund(t, e.modern("mindvault_buy", buyBroke, capsURL, ""), link)
		signedNothing(t, e.sb, [3]int{})
		if err := e.sb.Fund(address, 20000000); err != nil {
			t.Fatal(err)
		}
		a := e.modern("mindvault_buy", buyBroke, capsURL, answerFund(state, acceptURL))
		e.ok("mindvault_buy", a.call)
		if n := e.sb.PaidRequests("*"); n != 1 {
			t.Fatalf("%d paid requests, want 1", n)
		}
	})
	t.Run("accept after funding asks for the payment, then pays once", func(t *testing.T) {
		e, address, link := fundingEnv(t, nil)
		state := askedToFund(t, e.modern("mindvault_buy", buyBroke, capsFormURL, ""), link)
		signedNothing(t, e.sb, [3]int{})
		if err := e.sb.Fund(address, 20000000); err != nil {
			t.Fatal(err)
		}
		state, msg := e.asked(e.modern("mindvault_buy", buyBroke, capsFormURL, answerFund(state, acceptURL)))
		if !strings.Contains(msg, "Pay 1.5 USDC") {
			t.Errorf("payment question %q", msg)
		}
		signedNothing(t, e.sb, [3]int{})
		e.ok("mindvault_buy", e.modern("mindvault_buy", buyBroke, capsFormURL, answer(state, accept)).call)
		if n := e.sb.PaidRequests("*"); n != 1 {
			t.Fatalf("%d paid requests, want 1", n)
		}
	})
	for _, tc := range []struct{ name, answer, detail string }{
		{"decline", decline, "declined funding wallet"},
		{"cancel", cancel, "cancelled funding wallet"},
		{"accept while still short", acceptURL, "1.5000000 short"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, _, link := fundingEnv(t, nil)
			state := askedToFund(t, e.modern("mindvault_buy", buyBroke, capsURL, ""), link)
			a := e.modern("mindvault_buy", buyBroke, capsURL, answerFund(state, tc.answer))
			e.fails("mindvault_buy", a.call, failure{category: "payment", code: "INSUFFICIENT_USDC", source: "x402"})
			d := a.call.Meta.Diag
			if d.StateChanged != "no" || d.ExecutionStarted || !strings.Contains(d.Next, link) || !strings.Contains(a.raw, tc.detail) {
				t.Fatalf("want INSUFFICIENT_USDC naming %s, nothing changed: %s", link, a.raw)
			}
			signedNothing(t, e.sb, [3]int{})
		})
	}
	t.Run("publish", func(t *testing.T) {
		e, _, link := fundingEnv(t, nil)
		publisherProfile(e, "brokepub", "zero")
		e.faults("")
		const args = `{"title":"Unfunded Notes","price":"1","externalUrl":"https://example.org/unfunded","profile":"brokepub"}`
		a := e.modern("mindvault_publish", args, capsURL, "")
		ir := a.Result.InputRequests["fund"]
		if a.Result.ResultType != "input_required" || ir.Params.Mode != "url" || ir.Params.URL != link {
			t.Fatalf("publish: want a url elicitation to %s, got %s", link, a.raw)
		}
		a = e.modern("mindvault_publish", args, capsURL, answerFund(a.Result.RequestState, decline))
		if d := a.call.Meta.Diag; d == nil || d.Code != "INSUFFICIENT_USDC" || d.StateChanged != "no" {
			t.Fatalf("publish decline: %s", a.raw)
		}
		signedNothing(t, e.sb, [3]int{})
	})
}

// TestFundingURLFallback: where the endpoint cannot send the user to the page (the legacy era,
// a client without url elicitation, a dry run), INSUFFICIENT_USDC's next step names it, with
// the wallet's address filled in; without a funding page nobody is asked and nothing names one.
func TestFundingURLFallback(t *testing.T) {
	e, _, link := fundingEnv(t, nil)
	for _, tc := range []struct {
		name string
		call func() result
	}{
		{"legacy era", func() result { return e.call("mindvault_buy", buyBroke) }},
		{"form-only client", func() result { return e.modern("mindvault_buy", buyBroke, capsForm, "").call }},
		{"no elicitation", func() result { return e.modern("mindvault_buy", buyBroke, capsNone, "").call }},
		{"dry run", func() result {
			return e.modern("mindvault_buy", `{"resourceId":"rustguide","profile":"broke","dryRun":true}`, capsURL, "").call
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.call()
			e.in(t).fails("mindvault_buy", r, failure{category: "payment", code: "INSUFFICIENT_USDC", source: "x402"})
			if !strings.Contains(r.Meta.Diag.Next, link) || !strings.Contains(r.Content[0].Text, link) {
				t.Fatalf("the next step does not name %s: %s", link, r.raw)
			}
		})
	}
	signedNothing(t, e.sb, [3]int{})
	t.Run("no funding page", func(t *testing.T) {
		e, _, _ := fundingEnv(t, map[string]string{"MINDVAULT_FUNDING_URL": ""})
		a := e.modern("mindvault_buy", buyBroke, capsURL, "")
		e.fails("mindvault_buy", a.call, failure{category: "payment", code: "INSUFFICIENT_USDC", source: "x402"})
		if strings.Contains(a.raw, "faucet.example.org") {
			t.Fatalf("names a funding page nobody configured: %s", a.raw)
		}
	})
}
