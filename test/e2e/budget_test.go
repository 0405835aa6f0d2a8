package e2e_test

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
)

// The budget's tests that need no DynamoDB server: the ones on a shared table are in
// budget_cluster_test.go, under the build tag node (docs/operations.md "Tests").

// verifyRefused is a paid 402's PAYMENT-REQUIRED as the facilitator's verification refusal
// sends it: the reason in error.
func verifyRefused(reason string) string {
	b, _ := json.Marshal(map[string]any{"x402Version": 2, "error": reason, "accepts": []any{}})
	return base64.StdEncoding.EncodeToString(b)
}

// TestBudgetFailsClosed: a ledger that refuses connections refuses the payment; nothing is
// paid and the failure names the ledger.
func TestBudgetFailsClosed(t *testing.T) {
	// Long and self-contained: harness_test.go, "Which tests run in parallel".
	t.Parallel()
	c := newCluster(t, 1, map[string]string{
		"MINDVAULT_BUDGET_USDC": "5", "MINDVAULT_LEDGER": "dynamodb:nowhere", "MINDVAULT_LEDGER_ENDPOINT": "http://127.0.0.1:1",
		"AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test", "AWS_REGION": "us-east-1",
	})
	r := c.call(0, "mindvault_buy", `{"resourceId":"datasetcard","allowRepeat":true}`)
	if !r.IsError || r.Meta.Diag.Source != "ledger" || r.Meta.Diag.StateChanged != "no" || c.sb.PaidRequests("*") != 0 {
		t.Fatalf("an unreachable ledger must refuse the payment: %s", tail(r.raw, 400))
	}
}

// TestBudgetInTheQuestionAndDryRun: round 1 of a confirmation and a dry run check the budget
// without reserving; the question says what the budget leaves after the payment, and a
// payment above what is left is refused before the user is asked.
func TestBudgetInTheQuestionAndDryRun(t *testing.T) {
	e := newEnv(t, map[string]string{"MINDVAULT_BUDGET_USDC": "2"}) // the local build's memory ledger
	dry := e.ok("mindvault_buy", e.call("mindvault_buy", `{"resourceId":"rustguide","dryRun":true}`))
	// A dry run spends nothing: the budget as it stands, and the message says what the payment would leave.
	if b, _ := dry["budget"].(map[string]any); b["remainingUsdc"] != "2.0000000" || b["spentUsdc"] != "0.0000000" ||
		!strings.Contains(dry["message"].(string), "0.5000000 USDC left after it") {
		t.Fatalf("a dry run's budget %v, message %v", dry["budget"], dry["message"])
	}
	_, msg := e.asked(e.modern("mindvault_buy", `{"resourceId":"rustguide"}`, capsForm, ""))
	if !strings.Contains(msg, "Daily budget left after it: 0.5000000 USDC") {
		t.Fatalf("the question does not name what the budget leaves: %q", msg)
	}
	info := e.ok("mindvault_wallet_info", e.call("mindvault_wallet_info", ""))
	if b, _ := info["budget"].(map[string]any); b["spentUsdc"] != "0.0000000" {
		t.Fatalf("round 1 and the dry run reserved something: %v", info["budget"])
	}
	r := e.modern("mindvault_buy", `{"resourceId":"zkprimer","maxPriceUsdc":"7"}`, capsForm, "")
	e.fails("mindvault_buy", r.call, failure{category: "payment", code: "BUDGET_EXCEEDED", source: "ledger", retry: "after_wait"})
}
