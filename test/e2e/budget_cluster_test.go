package e2e_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/mindvault/mcp-endpoint/internal/ledger/ledgertest"
)

// budgetCluster is two processes of the deployed binary sharing the sandbox and one ledger
// table on a real DynamoDB-compatible server (dynalite), with a daily budget per wallet.
func budgetCluster(t *testing.T, budget string) (*cluster, *dynamodb.Client, string) {
	t.Helper()
	url := ledgertest.Dynalite(t, "../..")
	table := "ledger" + strconv.FormatInt(time.Now().UnixNano(), 36)
	db := ledgertest.CreateTable(t, url, table)
	c := newCluster(t, 2, map[string]string{
		"MINDVAULT_BUDGET_USDC": budget, "MINDVAULT_LEDGER": "dynamodb:" + table, "MINDVAULT_LEDGER_ENDPOINT": url,
		"AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test", "AWS_REGION": "us-east-1",
	})
	return c, db, table
}

// ledgerTotal is what the table holds for the wallet today: the reserved units.
func ledgerTotal(t *testing.T, db *dynamodb.Client, table, wallet string) int64 {
	t.Helper()
	pk := "wallet:" + wallet + "#" + time.Now().UTC().Format(time.DateOnly)
	out, err := db.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String(table),
		Key: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: pk}}, ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	n, ok := out.Item["reserved"].(*types.AttributeValueMemberN)
	if !ok {
		return 0
	}
	v, _ := strconv.ParseInt(n.Value, 10, 64)
	return v
}

// TestBudgetHoldsAcrossInstances: 20 purchases sent at once over two processes sharing one
// ledger table, with a budget for exactly 3 of them: 3 settle, 17 are BUDGET_EXCEEDED with
// nothing paid, and the table holds exactly the 3 payments' sum.
func TestBudgetHoldsAcrossInstances(t *testing.T) {
	// Long and self-contained: harness_test.go, "Which tests run in parallel".
	t.Parallel()
	c, db, table := budgetCluster(t, "1.5") // datasetcard costs 0.50
	payer := c.sb.Demo.Address
	before := c.balance(t, payer)
	rs := c.all(20, func(k int) result {
		return c.call(k, "mindvault_buy", `{"resourceId":"datasetcard","allowRepeat":true,"idempotencyKey":"budget-`+strconv.Itoa(k)+`-x"}`)
	})
	ok, refused := 0, 0
	for _, r := range rs {
		switch {
		case !r.IsError:
			ok++
		case r.Meta.Diag != nil && r.Meta.Diag.Code == "BUDGET_EXCEEDED":
			refused++
			if d := r.Meta.Diag; d.Retry != "after_wait" || d.StateChanged != "no" || d.ExecutionStarted || d.RetryAfterSeconds == nil ||
				!strings.Contains(r.raw, `"budget":{"limitUsdc":"1.5000000"`) {
				t.Errorf("BUDGET_EXCEEDED diagnostic: %s", tail(r.raw, 500))
			}
		default:
			t.Errorf("unexpected answer: %s", tail(r.raw, 500))
		}
	}
	spent := before - c.balance(t, payer)
	if ok != 3 || refused != 17 || spent != 15_000_000 {
		t.Fatalf("%d settled, %d refused, %d units spent; want 3, 17, 15000000", ok, refused, spent)
	}
	if got := ledgerTotal(t, db, table, payer); got != 15_000_000 {
		t.Fatalf("the ledger holds %d units, want the 3 payments' 15000000", got)
	}
	// The wallet and every paying result show it.
	info := c.ok("mindvault_wallet_info", c.call(1, "mindvault_wallet_info", ""))
	b, _ := info["budget"].(map[string]any)
	if b["limitUsdc"] != "1.5000000" || b["spentUsdc"] != "1.5000000" || b["remainingUsdc"] != "0.0000000" || !strings.HasSuffix(b["resetsAt"].(string), "T00:00:00Z") {
		t.Fatalf("wallet_info budget %v", info["budget"])
	}
}

// TestBudgetReleasesWhatDidNotHappen: a payment refused at verification after reserving frees
// its reservation; one whose answer was lost after settling keeps it (the chain shows it settled).
func TestBudgetReleasesWhatDidNotHappen(t *testing.T) {
	// Long and self-contained: harness_test.go, "Which tests run in parallel".
	t.Parallel()
	c, db, table := budgetCluster(t, "5")
	payer := c.sb.Demo.Address
	// Refused at verification (the reason in PAYMENT-REQUIRED.error): proven before settlement.
	if err := c.sb.SetFaults("service=api,target=GET /resources/datasetcard,paid=true,kind=status,status=402,count=1,header=PAYMENT-REQUIRED:" + verifyRefused("invalid_exact_stellar_payload_simulation_failed")); err != nil {
		t.Fatal(err)
	}
	r := c.call(0, "mindvault_buy", `{"resourceId":"datasetcard","allowRepeat":true}`)
	if !r.IsError || r.Meta.Diag.StateChanged != "no" {
		t.Fatalf("a refused payment: %s", tail(r.raw, 400))
	}
	if got := ledgerTotal(t, db, table, payer); got != 0 {
		t.Fatalf("a payment the seller refused still holds %d units", got)
	}
	if err := c.sb.SetFaults("service=api,target=GET /resources/datasetcard,paid=true,kind=drop,after=true,count=1"); err != nil {
		t.Fatal(err)
	}
	r = c.call(1, "mindvault_buy", `{"resourceId":"datasetcard","allowRepeat":true}`)
	// The chain decides the lost answer: the nonce is consumed, so the payment settled.
	if !r.IsError || r.Meta.Diag.StateChanged != "yes" {
		t.Fatalf("a lost answer after settling: %s", tail(r.raw, 400))
	}
	if got := ledgerTotal(t, db, table, payer); got != 5_000_000 {
		t.Fatalf("an unknown outcome holds %d units, want the payment's 5000000", got)
	}
}

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
