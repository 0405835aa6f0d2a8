//go:build node

package e2e_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mindvault/mcp-endpoint/internal/ledger/ledgertest"
)

// The journal (docs/once.md "The journal") keeps money facts past the nonce window: these
// tests pay on one process, move the sandbox's ledger past the signed payment's expiration
// (so the network would accept the same nonce again), and repeat the call on the other
// process, which shares nothing with the first but the sandbox and one ledger table on
// dynalite. What is counted is what the sandbox settled, never what the endpoint says.

// pastTheWindow is more ledgers than any signed payment lives (600 s at 5 s a ledger).
const pastTheWindow = 200

// This file, like every file that starts dynalite, is under the build tag node: a test that
// uses lambdaLedger or journalCluster goes in a file that starts with //go:build node, or
// `go test ./...` (no tag) does not compile (docs/operations.md "Tests").

// lambdaLedger is the environment of a fresh ledger table on dynalite, which a Lambda build
// needs before it pays.
func lambdaLedger(t *testing.T) map[string]string {
	t.Helper()
	url := ledgertest.Dynalite(t, "../..")
	table := "lambda" + strconv.FormatInt(time.Now().UnixNano(), 36)
	ledgertest.CreateTable(t, url, table)
	return map[string]string{"MINDVAULT_LEDGER": "dynamodb:" + table, "MINDVAULT_LEDGER_ENDPOINT": url,
		"AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test", "AWS_REGION": "us-east-1"}
}

// journalCluster is two processes sharing the sandbox and one ledger table, with vars.
func journalCluster(t *testing.T, vars map[string]string) *cluster {
	t.Helper()
	url := ledgertest.Dynalite(t, "../..")
	table := "journal" + strconv.FormatInt(time.Now().UnixNano(), 36)
	ledgertest.CreateTable(t, url, table)
	all := map[string]string{"MINDVAULT_LEDGER": "dynamodb:" + table, "MINDVAULT_LEDGER_ENDPOINT": url,
		"AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test", "AWS_REGION": "us-east-1"}
	for k, v := range vars {
		all[k] = v
	}
	return newCluster(t, 2, all)
}

// TestJournalKeyedBuyAfterTheWindow: a keyed buy settles on process 0; past the signature's
// expiration the same call on process 1 answers the first outcome as a replay and pays nothing.
func TestJournalKeyedBuyAfterTheWindow(t *testing.T) {
	t.Parallel()
	c := journalCluster(t, nil)
	payer := c.sb.Demo.Address
	const id, price = "gotestingtips", 7_500_000
	args := `{"resourceId":"` + id + `","allowRepeat":true,"idempotencyKey":"rt-c1-key-0001"}`
	before := c.balance(t, payer)
	first := c.ok("mindvault_buy", c.call(0, "mindvault_buy", args))
	c.sb.AdvanceLedgers(pastTheWindow)
	r := c.call(1, "mindvault_buy", args)
	again := c.ok("mindvault_buy", r)
	if again["replay"] != true || again["txHash"] != first["txHash"] || first["txHash"] == "" {
		t.Fatalf("the replay must answer the first outcome (tx %v), marked as a replay: %s", first["txHash"], tail(r.raw, 600))
	}
	if got := c.settledFor(t, payer, id, before); got.records != 1 || got.spent != price {
		t.Fatalf("after the window: %+v, want one payment of %d", got, price)
	}
	// The same key for another purchase is refused before anything is signed.
	r = c.call(0, "mindvault_buy", `{"resourceId":"datasetcard","allowRepeat":true,"idempotencyKey":"rt-c1-key-0001"}`)
	if d := r.Meta.Diag; !r.IsError || d == nil || d.Code != "IDEMPOTENCY_KEY_REUSED" || d.Category != "validation" || d.Retry != "after_correction" || d.StateChanged != "no" {
		t.Fatalf("a reused key with other arguments: %s", tail(r.raw, 500))
	}
	if got := c.settledFor(t, payer, "datasetcard", before-price); got.records != 0 || got.spent != 0 {
		t.Fatalf("the reused key paid: %+v", got)
	}
	// The receipt is in the wallet's history, from the journal, with the access link.
	h := c.ok("mindvault_purchase_history", c.call(1, "mindvault_purchase_history", `{"resourceId":"`+id+`"}`))
	rows, _ := h["purchases"].([]any)
	if len(rows) == 0 || rows[0].(map[string]any)["source"] != "journal" || rows[0].(map[string]any)["accessUrl"] == nil {
		t.Fatalf("the journal's receipt is not in the history: %v", h)
	}
}

// TestJournalBuyIntentAfterTheWindow: a buy without allowRepeat settles; past the window the
// same buy on the other process is ALREADY_PURCHASED from the journal (the API keeps no
// record of x402 v2 payers), with the link to use again.
func TestJournalBuyIntentAfterTheWindow(t *testing.T) {
	t.Parallel()
	c := journalCluster(t, nil)
	payer := c.sb.Demo.Address
	const id, price = "gotestingtips", 7_500_000
	before := c.balance(t, payer)
	c.ok("mindvault_buy", c.call(0, "mindvault_buy", `{"resourceId":"`+id+`"}`))
	c.sb.AdvanceLedgers(pastTheWindow)
	r := c.call(1, "mindvault_buy", `{"resourceId":"`+id+`"}`)
	if d := r.Meta.Diag; !r.IsError || d == nil || d.Code != "ALREADY_PURCHASED" || !strings.Contains(r.Content[0].Text, "access link") {
		t.Fatalf("a repeat after the window: %s", tail(r.raw, 600))
	}
	if got := c.settledFor(t, payer, id, before); got.records != 1 || got.spent != price {
		t.Fatalf("after the window: %+v", got)
	}
}

// TestJournalApprovalAfterTheWindow: an approved round 2 pays once; replayed on the other
// process after the window (and after the balance came back) it is CONFIRMATION_STALE.
func TestJournalApprovalAfterTheWindow(t *testing.T) {
	t.Parallel()
	c := journalCluster(t, nil)
	payer := c.sb.Demo.Address
	const id, price = "zkprimer", 62_500_000
	args := `{"resourceId":"` + id + `","allowRepeat":true}`
	before := c.balance(t, payer)
	state, _ := c.asked(c.modern(0, "mindvault_buy", args, capsForm, ""))
	if a := c.modern(0, "mindvault_buy", args, capsForm, answer(state, accept)); a.call.IsError {
		t.Fatalf("round 2: %s", tail(a.raw, 500))
	}
	c.sb.AdvanceLedgers(pastTheWindow)
	// Incoming USDC brings the balance back to the approved value: only the journal knows.
	if err := c.sb.Fund(payer, price); err != nil {
		t.Fatal(err)
	}
	a := c.modern(1, "mindvault_buy", args, capsForm, answer(state, accept))
	if d := a.call.Meta.Diag; !a.call.IsError || d == nil || d.Code != "CONFIRMATION_STALE" || d.StateChanged != "no" {
		t.Fatalf("a replayed approval after the window: %s", tail(a.raw, 600))
	}
	if got := c.settledFor(t, payer, id, before+price); got.records != 1 || got.spent != price {
		t.Fatalf("after the window: %+v", got)
	}
}

// TestJournalBudgetNotFreedByAnotherCall: with a 1 USDC budget, each round settles a keyed buy
// on process 0 and sends the same call to process 1 while Stellar RPC answers 503. Nothing
// the second call does may free the first's reservation: what settles stays within the budget.
func TestJournalBudgetNotFreedByAnotherCall(t *testing.T) {
	t.Parallel()
	c := journalCluster(t, map[string]string{"MINDVAULT_BUDGET_USDC": "1"})
	payer := c.sb.Demo.Address
	before := c.balance(t, payer)
	for k := range 4 {
		args := `{"resourceId":"datasetcard","allowRepeat":true,"idempotencyKey":"budget-round-` + strconv.Itoa(k) + `"}`
		_ = c.call(0, "mindvault_buy", args)
		if err := c.sb.SetFaults("service=rpc,kind=status,status=503"); err != nil {
			t.Fatal(err)
		}
		_ = c.call(1, "mindvault_buy", args)
		if err := c.sb.SetFaults(""); err != nil {
			t.Fatal(err)
		}
	}
	if spent := before - c.balance(t, payer); spent > 10_000_000 {
		t.Fatalf("%d units settled against a budget of 10000000", spent)
	}
}

// TestJournalSellerRefusesAfterSettling: a seller that settles and then answers 402 or 409
// without a proof: the chain decides (the nonce is consumed), so the call says the payment
// settled, the budget keeps it and the history lists it; never "nothing was paid".
func TestJournalSellerRefusesAfterSettling(t *testing.T) {
	t.Parallel()
	c := journalCluster(t, map[string]string{"MINDVAULT_BUDGET_USDC": "5"})
	payer := c.sb.Demo.Address
	for i, status := range []string{"402", "409"} {
		before := c.balance(t, payer)
		if err := c.sb.SetFaults("service=api,target=GET /resources/datasetcard,paid=true,kind=status,status=" + status + ",after=true,proof=drop,count=1"); err != nil {
			t.Fatal(err)
		}
		r := c.call(i, "mindvault_buy", `{"resourceId":"datasetcard","allowRepeat":true,"idempotencyKey":"refused-after-`+status+`"}`)
		if got := c.settledFor(t, payer, "datasetcard", before); got.spent != 5_000_000 {
			t.Fatalf("the fault must settle once: %+v", got)
		}
		if d := r.Meta.Diag; !r.IsError || d == nil || d.StateChanged != "yes" || d.Retry != "no" {
			t.Fatalf("HTTP %s after settling: %s", status, tail(r.raw, 600))
		}
	}
	info := c.ok("mindvault_wallet_info", c.call(0, "mindvault_wallet_info", ""))
	if b, _ := info["budget"].(map[string]any); b["spentUsdc"] != "1.0000000" {
		t.Fatalf("the budget does not count the settled payments: %v", info["budget"])
	}
}

// TestJournalKeyedPublishAfterTheWindow: a keyed publish creates one resource and pays one fee
// on process 0; past the window the same call on process 1 answers the first outcome as a
// replay, creating and paying nothing; the same key with another body is refused.
func TestJournalKeyedPublishAfterTheWindow(t *testing.T) {
	t.Parallel()
	c := journalCluster(t, nil)
	payer := c.sb.Demo.Address
	args := `{"title":"Journal Once","price":"1.25","externalUrl":"https://example.org/journal-once","idempotencyKey":"pub-key-0001"}`
	before, created := c.balance(t, payer), c.sb.CreatedResources()
	first := c.ok("mindvault_publish", c.call(0, "mindvault_publish", args))
	spent := before - c.balance(t, payer)
	c.sb.AdvanceLedgers(pastTheWindow)
	r := c.call(1, "mindvault_publish", args)
	again := c.ok("mindvault_publish", r)
	if again["replay"] != true || again["resourceId"] != first["resourceId"] || first["resourceId"] == nil {
		t.Fatalf("the replay must answer the first outcome (%v): %s", first["resourceId"], tail(r.raw, 600))
	}
	if c.sb.CreatedResources() != created+1 || c.sb.PaidRequests("POST /verify-content") != 1 || before-c.balance(t, payer) != spent {
		t.Fatalf("after the window: %d resources created, %d fees sent, %d units spent (first call %d)",
			c.sb.CreatedResources()-created, c.sb.PaidRequests("POST /verify-content"), before-c.balance(t, payer), spent)
	}
	r = c.call(0, "mindvault_publish", `{"title":"Another One","price":"2","externalUrl":"https://example.org/another","idempotencyKey":"pub-key-0001"}`)
	if d := r.Meta.Diag; !r.IsError || d == nil || d.Code != "IDEMPOTENCY_KEY_REUSED" || c.sb.CreatedResources() != created+1 {
		t.Fatalf("the same key with another body: %s", tail(r.raw, 500))
	}
}

// TestJournalUnknownDecidedAfterTheWindow: a payment whose answer proved nothing and which the
// chain shows open stays unknown, and nothing new is signed for its intent; past its
// expiration the chain's history decides: no transfer in the window → failed, and the next
// call pays once.
func TestJournalUnknownDecidedAfterTheWindow(t *testing.T) {
	t.Parallel()
	c := journalCluster(t, map[string]string{"MINDVAULT_PAYMENT_TIMEOUT_MS": "1500"})
	payer := c.sb.Demo.Address
	const id, price = "datasetcard", 5_000_000
	args := `{"resourceId":"` + id + `","allowRepeat":true,"idempotencyKey":"unknown-then-expired"}`
	before := c.balance(t, payer)
	if err := c.sb.SetFaults("service=api,target=GET /resources/" + id + ",paid=true,kind=status,status=502,count=1"); err != nil {
		t.Fatal(err)
	}
	r := c.call(0, "mindvault_buy", args)
	if d := r.Meta.Diag; !r.IsError || d == nil || d.StateChanged != "unknown" {
		t.Fatalf("a 502 after sending: %s", tail(r.raw, 500))
	}
	r = c.call(1, "mindvault_buy", args)
	if d := r.Meta.Diag; !r.IsError || d == nil || d.Code != "IN_PROGRESS" || c.sb.PaidRequests("*") != 1 {
		t.Fatalf("while the first payment can still settle, nothing new is signed: %s", tail(r.raw, 500))
	}
	c.sb.AdvanceLedgers(pastTheWindow)
	c.ok("mindvault_buy", c.call(1, "mindvault_buy", args))
	if got := c.settledFor(t, payer, id, before); got.records != 1 || got.spent != price {
		t.Fatalf("after the window the intent pays once: %+v", got)
	}
}

// TestJournalPublishApprovalAfterTheWindow: an approved publish creates and pays once; its
// round 2 replayed on the other process after the window is CONFIRMATION_STALE naming the
// resource, and nothing more is created or paid.
func TestJournalPublishApprovalAfterTheWindow(t *testing.T) {
	t.Parallel()
	c := journalCluster(t, nil)
	args := `{"title":"Approved Once","price":"1.25","externalUrl":"https://example.org/approved-once"}`
	created := c.sb.CreatedResources()
	state, _ := c.asked(c.modern(0, "mindvault_publish", args, capsForm, ""))
	first := c.modern(0, "mindvault_publish", args, capsForm, answer(state, accept))
	if first.call.IsError {
		t.Fatalf("round 2: %s", tail(first.raw, 500))
	}
	c.sb.AdvanceLedgers(pastTheWindow)
	a := c.modern(1, "mindvault_publish", args, capsForm, answer(state, accept))
	if d := a.call.Meta.Diag; !a.call.IsError || d == nil || d.Code != "CONFIRMATION_STALE" || !strings.Contains(a.call.Content[0].Text, "published resource") {
		t.Fatalf("a replayed publish approval after the window: %s", tail(a.raw, 600))
	}
	if c.sb.CreatedResources() != created+1 || c.sb.PaidRequests("POST /verify-content") != 1 {
		t.Fatalf("%d resources, %d fees after the replay", c.sb.CreatedResources()-created, c.sb.PaidRequests("POST /verify-content"))
	}
}
