package ledger

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestMemoryJournal(t *testing.T) {
	testJournal(t, func(*testing.T) Journal { return NewMemory() })
}

// testJournal is what every backend guarantees: one owner per intent however many claim it at
// once, takeovers only of what certainly paid nothing, saves only by the owner, receipts kept.
func testJournal(t *testing.T, open func(*testing.T) Journal) {
	ctx := context.Background()
	entry := func(attempt string) Entry {
		return Entry{ID: IntentID("key", "GPAYER", "mindvault_buy", "k-1"), Fingerprint: "fp-1", Attempt: attempt,
			Payment: Payment{Kind: "key", Payer: "GPAYER", Amount: 7_500_000}}
	}

	t.Run("OneOwnerUnderConcurrency", func(t *testing.T) {
		j := open(t)
		var won atomic.Int32
		var wg sync.WaitGroup
		for i := range 16 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, ok, err := j.Claim(ctx, entry("a"+string(rune('a'+i))), time.Now())
				if err != nil {
					t.Error(err)
				}
				if ok {
					won.Add(1)
				}
			}()
		}
		wg.Wait()
		if won.Load() != 1 {
			t.Fatalf("%d attempts own the intent, want 1", won.Load())
		}
	})

	t.Run("SettledIsNeverTakenOver", func(t *testing.T) {
		j := open(t)
		now := time.Now()
		e, ok, err := j.Claim(ctx, entry("first"), now)
		if err != nil || !ok {
			t.Fatal(ok, err)
		}
		e.State, e.Receipt = Settled, &Receipt{ID: e.ID, Payer: "GPAYER", Amount: 7_500_000, TxHash: "abc", PaidAt: now}
		if err := j.Save(ctx, e, "first", now); err != nil {
			t.Fatal(err)
		}
		// Long after: any lease is over, and the intent is still settled.
		later := now.Add(time.Hour)
		got, ok, err := j.Claim(ctx, entry("second"), later)
		if err != nil || ok || got.State != Settled || got.Receipt == nil || got.Receipt.TxHash != "abc" || got.Attempt != "first" {
			t.Fatalf("a settled intent was claimed again: %v %+v %v", ok, got, err)
		}
	})

	t.Run("OnlyWhatPaidNothingIsTakenOver", func(t *testing.T) {
		for _, tc := range []struct {
			name  string
			state State
			after time.Duration
			taken bool
		}{
			{"failed", Failed, 0, true},
			{"pending, live owner", Pending, 0, false},
			{"pending, owner gone", Pending, 2 * Lease, true},
			{"sending, owner gone", Sending, 2 * Lease, false},
			{"unknown", Unknown, 2 * Lease, false},
		} {
			t.Run(tc.name, func(t *testing.T) {
				j := open(t)
				now := time.Now()
				e, _, err := j.Claim(ctx, entry("first"), now)
				if err != nil {
					t.Fatal(err)
				}
				if tc.state != Pending {
					e.State, e.LeaseUntil = tc.state, now.Add(Lease)
					if err := j.Save(ctx, e, "first", now); err != nil {
						t.Fatal(err)
					}
				}
				_, ok, err := j.Claim(ctx, entry("second"), now.Add(tc.after))
				if err != nil || ok != tc.taken {
					t.Fatalf("taken over %v (%v), want %v", ok, err, tc.taken)
				}
			})
		}
	})

	t.Run("AnotherFingerprintIsNeverTakenOver", func(t *testing.T) {
		j := open(t)
		now := time.Now()
		e, _, _ := j.Claim(ctx, entry("first"), now)
		e.State = Failed
		if err := j.Save(ctx, e, "first", now); err != nil {
			t.Fatal(err)
		}
		other := entry("second")
		other.Fingerprint = "fp-2"
		got, ok, err := j.Claim(ctx, other, now)
		if err != nil || ok || got.Fingerprint != "fp-1" {
			t.Fatalf("another request took the key over: %v %+v %v", ok, got, err)
		}
	})

	t.Run("OnlyTheOwnerSaves", func(t *testing.T) {
		j := open(t)
		now := time.Now()
		e, _, _ := j.Claim(ctx, entry("first"), now)
		e.State = Settled
		if err := j.Save(ctx, e, "intruder", now); !errors.Is(err, ErrNotOwner) {
			t.Fatalf("a save by another attempt: %v", err)
		}
		got, _, _ := j.Get(ctx, e.ID)
		if got.State != Pending {
			t.Fatalf("the intruder's save landed: %+v", got)
		}
	})

	t.Run("ReceiptsNewestFirstAndIdempotent", func(t *testing.T) {
		j := open(t)
		base := time.Now().Add(-time.Hour).UTC().Truncate(time.Second)
		for i, id := range []string{"r1", "r2", "r3", "r2"} {
			r := Receipt{ID: id, Payer: "GPAYER", Resource: "res-" + id, Amount: int64(i + 1), PaidAt: base.Add(time.Duration(i) * time.Minute)}
			if err := j.AddReceipt(ctx, r, time.Hour); err != nil {
				t.Fatal(err)
			}
		}
		rs, err := j.Receipts(ctx, "GPAYER")
		if err != nil || len(rs) != 3 || rs[0].ID != "r2" || rs[0].Amount != 4 || rs[2].ID != "r1" {
			t.Fatalf("receipts %+v %v", rs, err)
		}
		if rs, _ := j.Receipts(ctx, "GOTHER"); len(rs) != 0 {
			t.Fatalf("another wallet's receipts: %+v", rs)
		}
	})
}

// TestReservationsBelongToAttempts: a release by one attempt never frees another's
// reservation, and each reservation carries its own amount.
func TestReservationsBelongToAttempts(t *testing.T) {
	testReservationsBelongToAttempts(t, NewMemory())
}

func testReservationsBelongToAttempts(t *testing.T, l Ledger) {
	ctx := context.Background()
	mustReserve(t, l, "wallet", testDay, "attempt-a", 5_000_000, usdc)
	mustReserve(t, l, "wallet", testDay, "attempt-b", 1_000_000, usdc)
	if _, err := l.Release(ctx, "wallet", testDay, "attempt-c"); err != nil {
		t.Fatal(err)
	}
	wantUsage(t, l, "wallet", testDay, 6_000_000)
	if _, err := l.Release(ctx, "wallet", testDay, "attempt-b"); err != nil {
		t.Fatal(err)
	}
	wantUsage(t, l, "wallet", testDay, 5_000_000)
}

// TestBoundedTimesOut: a store that does not answer is unavailable within the bound.
func TestBoundedTimesOut(t *testing.T) {
	b := &Bounded{S: hung{}, Timeout: 50 * time.Millisecond}
	start := time.Now()
	_, _, err := b.Get(context.Background(), "x")
	var te *TimeoutError
	if !errors.Is(err, ErrUnavailable) || !errors.As(err, &te) {
		t.Fatalf("a hung store: %v", err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("the bound did not hold: %s", took)
	}
}

// hung is a store that answers nothing until its caller gives up.
type hung struct{ Store }

func (hung) Get(ctx context.Context, _ string) (Entry, bool, error) {
	<-ctx.Done()
	return Entry{}, false, ctx.Err()
}
