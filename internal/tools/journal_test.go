package tools

import (
	"context"
	"testing"
	"time"

	"github.com/mindvault/mcp-endpoint/internal/clients/x402"
	"github.com/mindvault/mcp-endpoint/internal/ledger"
)

// cancelAware is a ledger that, like DynamoDB, refuses a write whose context is done.
type cancelAware struct{ ledger.Store }

func (s cancelAware) Save(ctx context.Context, e ledger.Entry, prev string, now time.Time) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return s.Store.Save(ctx, e, prev, now)
}

func (s cancelAware) AddReceipt(ctx context.Context, r ledger.Receipt, keep time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return s.Store.AddReceipt(ctx, r, keep)
}

// TestSettledOutlivesTheCaller: a settlement is recorded, entry and receipt, even when the
// caller stopped waiting right after the paid answer: the money left whatever the caller does.
func TestSettledOutlivesTheCaller(t *testing.T) {
	d, kp := fakeDeps(t)
	store := cancelAware{ledger.NewMemory()}
	d.Ledger = store
	c := &Call{Deps: d}
	ctx, cancel := context.WithCancel(context.Background())
	at, err := c.begin(ctx, "mindvault_buy", kp.Address(), &x402.Intent{Kind: "buy", Parts: []string{kp.Address(), "net", "guide"}}, "fp")
	if err == nil {
		err = at.claim(ctx, nil, "guide")
	}
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	if w := at.settled(ctx, &ledger.Receipt{Payer: kp.Address(), Resource: "guide", Amount: 1}, nil); len(w) != 0 {
		t.Fatalf("warnings %v", w)
	}
	e, found, err := store.Get(context.Background(), intentEntry(at.intent))
	if err != nil || !found || e.State != ledger.Settled {
		t.Fatalf("entry %+v found %v: %v", e, found, err)
	}
	if rs, _ := store.Receipts(context.Background(), kp.Address()); len(rs) != 1 {
		t.Fatalf("receipts %+v", rs)
	}
}
