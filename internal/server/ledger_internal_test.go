package server

import (
	"strings"
	"testing"

	"github.com/mindvault/mcp-endpoint/internal/config"
	"github.com/mindvault/mcp-endpoint/internal/ledger"
)

// TestOpenLedger: the ledger holds the journal as well as the budgets, so it is always opened;
// under Lambda the memory ledger is refused (each instance would remember alone), budget or
// not; outside Lambda memory is the process's own ledger; a DynamoDB ledger is built without
// touching the network. Every store is bounded by MINDVAULT_LEDGER_TIMEOUT_MS.
func TestOpenLedger(t *testing.T) {
	for _, tc := range []struct {
		name   string
		cfg    config.Config
		want   string // "", "memory", "dynamodb"
		errHas string
	}{
		{"no budget under lambda with memory", config.Config{Ledger: "memory", Lambda: true}, "", "remembers per Lambda instance"},
		{"lambda with memory", config.Config{BudgetUSDC: "5", Ledger: "memory", Lambda: true}, "", "remembers per Lambda instance"},
		{"local memory without budget", config.Config{Ledger: "memory"}, "memory", ""},
		{"caller budget under lambda with memory", config.Config{BudgetCallerUSDC: "5", Ledger: "memory", Lambda: true}, "", "MINDVAULT_LEDGER=dynamodb"},
		{"local memory", config.Config{BudgetUSDC: "5", Ledger: "memory"}, "memory", ""},
		{"dynamodb", config.Config{BudgetUSDC: "5", Ledger: "dynamodb:mv-ledger", Lambda: true, LedgerEndpoint: "http://127.0.0.1:1"}, "dynamodb", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("AWS_ACCESS_KEY_ID", "test")
			t.Setenv("AWS_SECRET_ACCESS_KEY", "test")
			l, err := OpenLedger(&tc.cfg, nil)
			if tc.errHas != "" {
				if err == nil || !strings.Contains(err.Error(), tc.errHas) || l != nil {
					t.Fatalf("OpenLedger = %v, %v; want an error naming %q", l, err, tc.errHas)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			b, ok := l.(*ledger.Bounded)
			if !ok {
				t.Fatalf("the ledger %T is not bounded by MINDVAULT_LEDGER_TIMEOUT_MS nor caches the spending switch (MINDVAULT_PAUSE_CACHE_MS)", l)
			}
			switch b.S.(type) {
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
