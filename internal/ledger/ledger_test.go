package ledger

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// One USDC in units (7 decimals).
const usdc = 10_000_000

// The day most tests use, and the midnight after it.
var (
	testDay      = time.Date(2026, 3, 14, 15, 4, 5, 0, time.UTC)
	testMidnight = time.Date(2026, 3, 15, 0, 0, 0, 0, time.UTC)
)

func TestMemory(t *testing.T) {
	testLedger(t, func(*testing.T) Ledger { return NewMemory() })
}

// testLedger is the behaviour every backend has; open returns an empty ledger.
func testLedger(t *testing.T, open func(*testing.T) Ledger) {
	ctx := context.Background()

	t.Run("ConcurrentReservationsOnANewDay", func(t *testing.T) {
		l := open(t)
		const limit, amount = 1 * usdc, 1_500_000 // room for exactly 6
		ok := reserveConcurrently(t, l, 20, func(i int) string { return fmt.Sprintf("intent-%d", i) }, amount, limit)
		if want := limit / amount; ok != want {
			t.Errorf("%d of 20 reservations succeeded, want floor(%d/%d) = %d", ok, limit, amount, want)
		}
		wantUsage(t, l, "alice", testDay, int64(ok)*amount)
	})

	t.Run("ConcurrentReservationsOnAStartedDay", func(t *testing.T) {
		l := open(t)
		mustReserve(t, l, "alice", testDay, "first", 1_000_000, usdc)
		const limit, amount = 1 * usdc, 1_500_000 // 9_000_000 left: room for exactly 6 more
		ok := reserveConcurrently(t, l, 20, func(i int) string { return fmt.Sprintf("intent-%d", i) }, amount, limit)
		if ok != 6 {
			t.Errorf("%d of 20 reservations succeeded, want 6", ok)
		}
		wantUsage(t, l, "alice", testDay, 1_000_000+int64(ok)*amount)
	})

	t.Run("ConcurrentReservationsOfOneIntent", func(t *testing.T) {
		l := open(t)
		ok := reserveConcurrently(t, l, 20, func(int) string { return "the-intent" }, 3_000_000, usdc)
		if ok != 20 {
			t.Errorf("%d of 20 reservations of one intent succeeded, want all (idempotent)", ok)
		}
		wantUsage(t, l, "alice", testDay, 3_000_000)
	})

	t.Run("IdempotentReserve", func(t *testing.T) {
		l := open(t)
		u := mustReserve(t, l, "alice", testDay, "pay-1", 4_000_000, usdc)
		if u.Reserved != 4_000_000 || !u.ResetsAt.Equal(testMidnight) {
			t.Fatalf("first reserve: %+v, want 4000000 resetting at %s", u, testMidnight)
		}
		// The same intent again, even with a limit it would no longer fit under: no second add.
		u = mustReserve(t, l, "alice", testDay, "pay-1", 4_000_000, 5_000_000)
		if u.Reserved != 4_000_000 {
			t.Fatalf("second reserve of the same intent: reserved %d, want 4000000 (one add)", u.Reserved)
		}
		wantUsage(t, l, "alice", testDay, 4_000_000)
	})

	t.Run("IdempotentRelease", func(t *testing.T) {
		l := open(t)
		mustReserve(t, l, "alice", testDay, "pay-1", 4_000_000, usdc)
		mustReserve(t, l, "alice", testDay, "pay-2", 2_500_000, usdc)
		for i, want := range []int64{2_500_000, 2_500_000, 2_500_000} { // once subtracts, then no-ops
			u, err := l.Release(ctx, "alice", testDay, "pay-1")
			if err != nil {
				t.Fatalf("release %d: %v", i+1, err)
			}
			if u.Reserved != want || !u.ResetsAt.Equal(testMidnight) {
				t.Fatalf("release %d: %+v, want %d resetting at %s", i+1, u, want, testMidnight)
			}
		}
		wantUsage(t, l, "alice", testDay, 2_500_000)
		// Released, the intent can be reserved again.
		if u := mustReserve(t, l, "alice", testDay, "pay-1", 1_000_000, usdc); u.Reserved != 3_500_000 {
			t.Fatalf("reserve after release: reserved %d, want 3500000", u.Reserved)
		}
	})

	t.Run("ConcurrentReleasesOfOneIntent", func(t *testing.T) {
		l := open(t)
		mustReserve(t, l, "alice", testDay, "keep", 1_000_000, usdc)
		mustReserve(t, l, "alice", testDay, "drop", 2_000_000, usdc)
		var wg sync.WaitGroup
		start := make(chan struct{})
		errs := make(chan error, 20)
		for range 20 {
			wg.Go(func() {
				<-start
				if _, err := l.Release(ctx, "alice", testDay, "drop"); err != nil {
					errs <- err
				}
			})
		}
		close(start)
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Errorf("release: %v", err)
		}
		wantUsage(t, l, "alice", testDay, 1_000_000)
	})

	t.Run("ReleaseUnknown", func(t *testing.T) {
		l := open(t)
		u, err := l.Release(ctx, "alice", testDay, "never-reserved")
		if err != nil || u.Reserved != 0 || !u.ResetsAt.Equal(testMidnight) {
			t.Fatalf("release on an empty day: %+v, %v; want 0, no error", u, err)
		}
		mustReserve(t, l, "alice", testDay, "pay-1", 1_000_000, usdc)
		u, err = l.Release(ctx, "alice", testDay, "never-reserved")
		if err != nil || u.Reserved != 1_000_000 {
			t.Fatalf("release of an unknown intent: %+v, %v; want 1000000, no error", u, err)
		}
	})

	t.Run("Exceeded", func(t *testing.T) {
		l := open(t)
		mustReserve(t, l, "alice", testDay, "pay-1", 7_000_000, usdc)
		mustReserve(t, l, "alice", testDay, "pay-2", 3_000_000, usdc) // exactly the limit
		u, err := l.Reserve(ctx, "alice", testDay, "pay-3", 1, usdc)
		var ex *ExceededError
		if !errors.As(err, &ex) || errors.Is(err, ErrUnavailable) {
			t.Fatalf("reserve over the limit: %v; want an *ExceededError", err)
		}
		want := ExceededError{Limit: usdc, Reserved: usdc, Amount: 1, ResetsAt: testMidnight}
		if *ex != want {
			t.Errorf("exceeded: %+v, want %+v", *ex, want)
		}
		if u.Reserved != usdc || !u.ResetsAt.Equal(testMidnight) {
			t.Errorf("usage with the refusal: %+v, want %d resetting at %s", u, usdc, testMidnight)
		}
		// An amount over the limit on an empty day, and a zero limit.
		for _, c := range []struct {
			key           string
			amount, limit int64
		}{{"bob", usdc + 1, usdc}, {"carol", 1, 0}} {
			_, err := l.Reserve(ctx, c.key, testDay, "pay", c.amount, c.limit)
			if !errors.As(err, &ex) || ex.Reserved != 0 || ex.Amount != c.amount || ex.Limit != c.limit {
				t.Errorf("reserve %d under %d on an empty day: %v; want exceeded with 0 reserved", c.amount, c.limit, err)
			}
			wantUsage(t, l, c.key, testDay, 0)
		}
		wantUsage(t, l, "alice", testDay, usdc)
	})

	t.Run("DayRollover", func(t *testing.T) {
		l := open(t)
		lastSecond := time.Date(2026, 3, 14, 23, 59, 59, 999_999_999, time.UTC)
		u := mustReserve(t, l, "alice", lastSecond, "late", 6_000_000, usdc)
		if !u.ResetsAt.Equal(testMidnight) {
			t.Fatalf("ResetsAt %s, want the next UTC midnight %s", u.ResetsAt, testMidnight)
		}
		// The same instant in another zone is the same UTC day.
		east := time.FixedZone("UTC+9", 9*3600)
		wantUsage(t, l, "alice", lastSecond.In(east), 6_000_000)

		// Midnight starts at 0, and a payment that the old day has no room for fits.
		u = mustReserve(t, l, "alice", testMidnight, "early", 6_000_000, usdc)
		nextMidnight := testMidnight.AddDate(0, 0, 1)
		if u.Reserved != 6_000_000 || !u.ResetsAt.Equal(nextMidnight) {
			t.Fatalf("first reserve of the new day: %+v, want 6000000 resetting at %s", u, nextMidnight)
		}
		// 19:00 on the 14th in UTC-5 is 00:00 on the 15th UTC.
		west := time.FixedZone("UTC-5", -5*3600)
		wantUsage(t, l, "alice", time.Date(2026, 3, 14, 19, 0, 0, 0, west), 6_000_000)
		wantUsage(t, l, "alice", testDay, 6_000_000) // the old day is unchanged
	})

	t.Run("KeysAreSeparate", func(t *testing.T) {
		l := open(t)
		mustReserve(t, l, "alice", testDay, "pay-1", 9_000_000, usdc)
		mustReserve(t, l, "bob", testDay, "pay-1", 9_000_000, usdc) // the same intent under another key
		wantUsage(t, l, "alice", testDay, 9_000_000)
		wantUsage(t, l, "bob", testDay, 9_000_000)
		// A key with the separator in it stays its own.
		mustReserve(t, l, "alice#2026-03-14", testDay, "pay-1", 1, usdc)
		wantUsage(t, l, "alice", testDay, 9_000_000)
	})

	t.Run("IntentsAreOpaque", func(t *testing.T) {
		l := open(t)
		intents := []string{"a.b", "#i", ":amt", "with space", "ünïcode", strings.Repeat("x", 300), "intents", "reserved"}
		for i, in := range intents {
			if u := mustReserve(t, l, "alice", testDay, in, 1, usdc); u.Reserved != int64(i+1) {
				t.Fatalf("reserve %q: reserved %d, want %d", in, u.Reserved, i+1)
			}
		}
		for i, in := range intents {
			u, err := l.Release(ctx, "alice", testDay, in)
			if err != nil || u.Reserved != int64(len(intents)-i-1) {
				t.Fatalf("release %q: %+v, %v", in, u, err)
			}
		}
	})

	t.Run("UsageChangesNothing", func(t *testing.T) {
		l := open(t)
		u, err := l.Usage(ctx, "alice", testDay)
		if err != nil || u.Reserved != 0 || !u.ResetsAt.Equal(testMidnight) {
			t.Fatalf("usage of an empty day: %+v, %v", u, err)
		}
		wantUsage(t, l, "alice", testDay, 0)
		// Reading created nothing: the day's first reservation still sees an empty day.
		mustReserve(t, l, "alice", testDay, "pay-1", usdc, usdc)
		wantUsage(t, l, "alice", testDay, usdc)
	})

	t.Run("InvalidArguments", func(t *testing.T) {
		l := open(t)
		for name, call := range map[string]func() (Usage, error){
			"empty key":       func() (Usage, error) { return l.Reserve(ctx, "", testDay, "i", 1, 1) },
			"zero day":        func() (Usage, error) { return l.Reserve(ctx, "k", time.Time{}, "i", 1, 1) },
			"empty intent":    func() (Usage, error) { return l.Reserve(ctx, "k", testDay, "", 1, 1) },
			"zero amount":     func() (Usage, error) { return l.Reserve(ctx, "k", testDay, "i", 0, 1) },
			"negative amount": func() (Usage, error) { return l.Reserve(ctx, "k", testDay, "i", -5, 1) },
			"negative limit":  func() (Usage, error) { return l.Reserve(ctx, "k", testDay, "i", 1, -1) },
			"release no key":  func() (Usage, error) { return l.Release(ctx, "", testDay, "i") },
			"release intent":  func() (Usage, error) { return l.Release(ctx, "k", testDay, "") },
			"usage no key":    func() (Usage, error) { return l.Usage(ctx, "", testDay) },
			"usage zero day":  func() (Usage, error) { return l.Usage(ctx, "k", time.Time{}) },
		} {
			if _, err := call(); !errors.Is(err, ErrInvalid) || errors.Is(err, ErrUnavailable) || errors.As(err, new(*ExceededError)) {
				t.Errorf("%s: %v, want ErrInvalid", name, err)
			}
		}
		wantUsage(t, l, "k", testDay, 0)
	})
}

// reserveConcurrently runs n reservations at once (intent(i) for the i-th) and returns how many
// succeeded; every other one must be an *ExceededError.
func reserveConcurrently(t *testing.T, l Ledger, n int, intent func(int) string, amount, limit int64) int {
	t.Helper()
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		ok    int
		start = make(chan struct{})
	)
	for i := range n {
		wg.Go(func() {
			<-start
			u, err := l.Reserve(context.Background(), "alice", testDay, intent(i), amount, limit)
			mu.Lock()
			defer mu.Unlock()
			var ex *ExceededError
			switch {
			case err == nil:
				ok++
				if u.Reserved > limit {
					t.Errorf("reservation %d: total %d over the limit %d", i, u.Reserved, limit)
				}
			case errors.As(err, &ex):
				if ex.Reserved+amount <= limit {
					t.Errorf("reservation %d refused with room left: %v", i, err)
				}
			default:
				t.Errorf("reservation %d: %v", i, err)
			}
		})
	}
	close(start)
	wg.Wait()
	return ok
}

func mustReserve(t *testing.T, l Ledger, key string, day time.Time, intent string, amount, limit int64) Usage {
	t.Helper()
	u, err := l.Reserve(context.Background(), key, day, intent, amount, limit)
	if err != nil {
		t.Fatalf("reserve %s/%s %d under %d: %v", key, intent, amount, limit, err)
	}
	return u
}

func wantUsage(t *testing.T, l Ledger, key string, day time.Time, want int64) {
	t.Helper()
	u, err := l.Usage(context.Background(), key, day)
	if err != nil {
		t.Fatalf("usage %s %s: %v", key, day.Format(time.DateOnly), err)
	}
	if u.Reserved != want {
		t.Errorf("usage %s %s: reserved %d, want %d", key, day.UTC().Format(time.DateOnly), u.Reserved, want)
	}
	if y, m, d := day.UTC().Date(); !u.ResetsAt.Equal(time.Date(y, m, d+1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("usage %s %s: ResetsAt %s, want the next UTC midnight", key, day.UTC().Format(time.DateOnly), u.ResetsAt)
	}
}

func TestParse(t *testing.T) {
	for in, want := range map[string]Spec{
		"memory":                    {Kind: KindMemory},
		" memory ":                  {Kind: KindMemory},
		"dynamodb:mindvault-ledger": {Kind: KindDynamoDB, Table: "mindvault-ledger"},
		"dynamodb:a.b_c-1":          {Kind: KindDynamoDB, Table: "a.b_c-1"},
	} {
		got, err := Parse(in)
		if err != nil || got != want {
			t.Errorf("Parse(%q) = %+v, %v; want %+v", in, got, err, want)
		}
		if again, err := Parse(got.String()); err != nil || again != got {
			t.Errorf("Parse(%q.String() = %q) = %+v, %v", in, got.String(), again, err)
		}
	}
	for _, in := range []string{"", "Memory", "dynamo", "dynamodb", "dynamodb:", "dynamodb:ab", "dynamodb:a b c", "dynamodb:x/y", "sqlite:x", "memory:x"} {
		_, err := Parse(in)
		if err == nil {
			t.Errorf("Parse(%q) accepted", in)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, "MINDVAULT_LEDGER") ||
			(!strings.Contains(msg, `"memory" or "dynamodb:<table>"`) && !strings.Contains(msg, "3-255 characters")) {
			t.Errorf("Parse(%q): %q names neither the accepted forms nor the table rule", in, msg)
		}
	}
}

func TestNewDynamoChecks(t *testing.T) {
	if _, err := NewDynamo(testConfig(), "ab", ""); err == nil || !strings.Contains(err.Error(), "3-255") {
		t.Errorf("short table name: %v", err)
	}
	for _, ep := range []string{"localhost:8000", "ftp://x", "http://", "::"} {
		if _, err := NewDynamo(testConfig(), "ledger", ep); err == nil || !strings.Contains(err.Error(), "MINDVAULT_LEDGER_ENDPOINT") {
			t.Errorf("endpoint %q: %v", ep, err)
		}
	}
	for _, ep := range []string{"", "http://127.0.0.1:8000", "https://ledger.example:8443/"} {
		if d, err := NewDynamo(testConfig(), "ledger", ep); err != nil || d.table != "ledger" {
			t.Errorf("endpoint %q: %v", ep, err)
		}
	}
}
