//go:build node

package e2e_test

import (
	"context"
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
