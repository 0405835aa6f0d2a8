package e2e_test

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/mindvault/mcp-endpoint/internal/clients/x402"
)

// The journal's tests that need no DynamoDB server: the ones on a shared table are in
// journal_cluster_test.go, under the build tag node (docs/operations.md "Tests").

// TestJournalHungLedgerRefuses: a ledger that accepts connections and never answers refuses
// the payment within MINDVAULT_LEDGER_TIMEOUT_MS, before anything is signed.
func TestJournalHungLedgerRefuses(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			t.Cleanup(func() { conn.Close() })
		}
	}()
	c := newCluster(t, 1, map[string]string{
		"MINDVAULT_LEDGER": "dynamodb:hung", "MINDVAULT_LEDGER_ENDPOINT": "http://" + l.Addr().String(), "MINDVAULT_LEDGER_TIMEOUT_MS": "500",
		"AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test", "AWS_REGION": "us-east-1",
	})
	start := time.Now()
	r := c.call(0, "mindvault_buy", `{"resourceId":"datasetcard","allowRepeat":true,"idempotencyKey":"hung-ledger-1"}`)
	if d := r.Meta.Diag; !r.IsError || d == nil || d.Source != "ledger" || d.StateChanged != "no" || c.sb.PaidRequests("*") != 0 {
		t.Fatalf("a hung ledger must refuse before paying: %s", tail(r.raw, 500))
	}
	if took := time.Since(start); took > 20*time.Second {
		t.Fatalf("the refusal took %s", took)
	}
}

// TestChainHistoryShowsASettlement: what the journal asks once a signature expired, through
// Stellar RPC's getEvents: the transfer of a settled purchase is found in the ledgers its
// signature was valid, with its transaction; another amount, another payee or ledgers before
// it are not.
func TestChainHistoryShowsASettlement(t *testing.T) {
	e := newEnv(t, nil)
	out := e.ok("mindvault_buy", e.call("mindvault_buy", `{"resourceId":"rustguide"}`))
	hash, _ := out["txHash"].(string)
	creator, _ := e.sb.Account("creator")
	payer, latest := e.sb.Demo.Address, e.sb.LatestLedger()
	c, ok := e.b.Deps.X402.(*x402.Client)
	if !ok {
		t.Fatalf("the payer is a %T", e.b.Deps.X402)
	}
	ctx := context.Background()
	for _, tc := range []struct {
		name     string
		payee    string
		amount   int64
		from, to uint32
		want     []string
	}{
		{"the settlement", creator.Address, 15_000_000, latest - 5, latest + 50, []string{hash}},
		{"another amount", creator.Address, 15_000_001, latest - 5, latest + 50, nil},
		{"another payee", payer, 15_000_000, latest - 5, latest + 50, nil},
		{"ledgers before it", creator.Address, 15_000_000, latest - 50, latest - 10, nil},
	} {
		got, err := c.Settled(ctx, e.sb.USDCContractID, payer, tc.payee, tc.amount, tc.from, tc.to)
		if err != nil || strings.Join(got, ",") != strings.Join(tc.want, ",") {
			t.Errorf("%s: %v %v, want %v", tc.name, got, err, tc.want)
		}
	}
}
