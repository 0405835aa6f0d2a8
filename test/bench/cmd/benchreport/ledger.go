package main

import (
	"context"
	"fmt"
	"io"
	"sync/atomic"
	"time"

	"github.com/mindvault/mcp-endpoint/internal/ledger"
	"github.com/mindvault/mcp-endpoint/internal/server/local"
	"github.com/mindvault/mcp-endpoint/test/bench"
)

// ledgerTrip is the ledger calls one paid tools/call made: the budgets' (what a paid call cost
// before the journal) and the journal's (docs/once.md "The journal").
type ledgerTrip struct {
	what            string
	budget, journal int64
	failure         string
}

// countingStore counts the calls that reach the ledger, by kind.
type countingStore struct {
	ledger.Store
	budget, journal atomic.Int64
}

func (c *countingStore) Reserve(ctx context.Context, key string, day time.Time, intent string, amount, limit int64) (ledger.Usage, error) {
	c.budget.Add(1)
	return c.Store.Reserve(ctx, key, day, intent, amount, limit)
}

func (c *countingStore) Release(ctx context.Context, key string, day time.Time, intent string) (ledger.Usage, error) {
	c.budget.Add(1)
	return c.Store.Release(ctx, key, day, intent)
}

func (c *countingStore) Usage(ctx context.Context, key string, day time.Time) (ledger.Usage, error) {
	c.budget.Add(1)
	return c.Store.Usage(ctx, key, day)
}

func (c *countingStore) Claim(ctx context.Context, e ledger.Entry, now time.Time) (ledger.Entry, bool, error) {
	c.journal.Add(1)
	return c.Store.Claim(ctx, e, now)
}

func (c *countingStore) Save(ctx context.Context, e ledger.Entry, prev string, now time.Time) error {
	c.journal.Add(1)
	return c.Store.Save(ctx, e, prev, now)
}

func (c *countingStore) Get(ctx context.Context, id string) (ledger.Entry, bool, error) {
	c.journal.Add(1)
	return c.Store.Get(ctx, id)
}

func (c *countingStore) AddReceipt(ctx context.Context, r ledger.Receipt, keep time.Duration) error {
	c.journal.Add(1)
	return c.Store.AddReceipt(ctx, r, keep)
}

func (c *countingStore) Receipts(ctx context.Context, payer string) ([]ledger.Receipt, error) {
	c.journal.Add(1)
	return c.Store.Receipts(ctx, payer)
}

// ledgerTrips boots the endpoint on the sandbox with a wallet budget and counts the ledger
// calls of paid calls. The budgets' count is what a paid call cost before the journal, whose
// own count comes on top; with DynamoDB each call is one round trip (a first receipt or a
// day's first reservation, two).
func ledgerTrips() ([]ledgerTrip, error) {
	b := local.Boot(bench.SandboxEnv(map[string]string{"MINDVAULT_BUDGET_USDC": "100"}), io.Discard, false)
	defer b.Close()
	if b.Err != nil {
		return nil, fmt.Errorf("boot: %w", b.Err)
	}
	counter := &countingStore{Store: b.Deps.Ledger}
	b.Deps.Ledger = counter
	var out []ledgerTrip
	for _, c := range []struct{ what, tool, args string }{
		{"buy, first purchase (no allowRepeat)", "mindvault_buy", `{"resourceId":"rustguide"}`},
		{"buy, keyed (allowRepeat, idempotencyKey)", "mindvault_buy", `{"resourceId":"llmprompts","allowRepeat":true,"idempotencyKey":"bench-ledger-1"}`},
		{"buy, the keyed call replayed (answered from the journal)", "mindvault_buy", `{"resourceId":"llmprompts","allowRepeat":true,"idempotencyKey":"bench-ledger-1"}`},
		{"buy, allowRepeat without a key", "mindvault_buy", `{"resourceId":"llmprompts","allowRepeat":true}`},
	} {
		counter.budget.Store(0)
		counter.journal.Store(0)
		r, err := bench.CallTool(b.Handler, c.tool, c.args)
		if err != nil {
			return nil, err
		}
		t := ledgerTrip{what: c.what, budget: counter.budget.Load(), journal: counter.journal.Load()}
		if r.IsError && len(r.Content) > 0 {
			t.failure = bench.Trim(r.Content[0].Text, 160)
		}
		out = append(out, t)
	}
	return out, nil
}
