package server

import (
	"strings"
	"testing"

	"github.com/mindvault/mcp-endpoint/internal/config"
	"github.com/mindvault/mcp-endpoint/internal/ledger"
)

// TestOpenLedger: no budget, no ledger (and no ledger work at all); a budget under Lambda with
// the memory ledger is refused (each instance would count alone); outside Lambda memory is the
// process's own ledger; a DynamoDB ledger is built without touching the network.
func TestOpenLedger(t *testing.T) {
	for _, tc := range []struct {
		name   string
		cfg    config.Config
		want   string // "", "memory", "dynamodb"
		errHas string
	}{
		{"no budget", config.Config{Ledger: "memory", Lambda: true}, "", ""},
		{"lambda with memory", config.Config{BudgetUSDC: "5", Ledger: "memory", Lambda: true}, "", "counts per Lambda instance"},
		{"caller budget under lambda with memory", config.Config{BudgetCallerUSDC: "5", Ledger: "memory", Lambda: true}, "", "MINDVAULT_LEDGER=dynamodb"},
		{"local memory", config.Config{BudgetUSDC: "5", Ledger: "memory"}, "memory", ""},
		{"dynamodb", config.Config{BudgetUSDC: "5", Ledger: "dynamodb:mv-ledger", Lambda: true, LedgerEndpoint: "http://127.0.0.1:1"}, "dynamodb", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("AWS_ACCESS_KEY_ID", "test")
			t.Setenv("AWS_SECRET_ACCESS_KEY", "test")
			l, err := openLedger(&tc.cfg, nil)
			if tc.errHas != "" {
				if err == nil || !strings.Contains(err.Error(), tc.errHas) || l != nil {
					t.Fatalf("openLedger = %v, %v; want an error naming %q", l, err, tc.errHas)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			switch l.(type) {
			case nil:
				if tc.want != "" {
					t.Fatalf("no ledger, want %s", tc.want)
				}
			case *ledger.Memory:
				if tc.want != "memory" {
					t.Fatalf("memory ledger, want %q", tc.want)
				}
			case *ledger.Dynamo:
				if tc.want != "dynamodb" {
					t.Fatalf("dynamodb ledger, want %q", tc.want)
				}
			}
		})
	}
}
