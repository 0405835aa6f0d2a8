package ledger

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Store is what a deployment keeps in its ledger table: the budgets, the journal and the
// spending switch.
type Store interface {
	Ledger
	Journal
	Switch
}

var _, _, _ Store = (*Dynamo)(nil), (*Memory)(nil), &Bounded{}

// Bounded is a Store as a deployment uses it. Its every call is bounded by Timeout
// (MINDVAULT_LEDGER_TIMEOUT_MS): a store that does not answer in time is unavailable, and the
// caller refuses before it signs. Its switch is read at most once per TTL: a pause reaches every
// instance within TTL, and a failed read is not kept, so the next payment asks again.
type Bounded struct {
	S       Store
	Timeout time.Duration
	TTL     time.Duration
	mu      sync.Mutex
	at      time.Time // when got was read; zero: nothing cached
	got     Pause
}

// DefaultTimeout bounds every ledger call unless MINDVAULT_LEDGER_TIMEOUT_MS says otherwise.
const DefaultTimeout = 2 * time.Second

func bounded[T any](ctx context.Context, b *Bounded, f func(context.Context) (T, error)) (T, error) {
	timeout := cmp.Or(b.Timeout, DefaultTimeout)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	v, err := f(ctx)
	if err == nil || !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return v, err
	}
	if !errors.Is(err, ErrUnavailable) {
		err = fmt.Errorf("%w: no answer within %s (MINDVAULT_LEDGER_TIMEOUT_MS): %w", ErrUnavailable, timeout, err)
	}
	return v, &TimeoutError{err: err}
}

// TimeoutError is a ledger call that did not answer within the bound.
type TimeoutError struct{ err error }

func (e *TimeoutError) Error() string { return e.err.Error() }
func (e *TimeoutError) Unwrap() error { return e.err }

// Reserve implements Ledger.
func (b *Bounded) Reserve(ctx context.Context, key string, day time.Time, intent string, amount, limit int64) (Usage, error) {
	return bounded(ctx, b, func(ctx context.Context) (Usage, error) { return b.S.Reserve(ctx, key, day, intent, amount, limit) })
}

// Release implements Ledger.
func (b *Bounded) Release(ctx context.Context, key string, day time.Time, intent string) (Usage, error) {
	return bounded(ctx, b, func(ctx context.Context) (Usage, error) { return b.S.Release(ctx, key, day, intent) })
}

// Usage implements Ledger.
func (b *Bounded) Usage(ctx context.Context, key string, day time.Time) (Usage, error) {
	return bounded(ctx, b, func(ctx context.Context) (Usage, error) { return b.S.Usage(ctx, key, day) })
}

// Claim implements Journal.
func (b *Bounded) Claim(ctx context.Context, e Entry, now time.Time) (stored Entry, ok bool, err error) {
	_, err = bounded(ctx, b, func(ctx context.Context) (_ struct{}, err error) { stored, ok, err = b.S.Claim(ctx, e, now); return })
	return stored, ok, err
}

// Save implements Journal.
func (b *Bounded) Save(ctx context.Context, e Entry, prev string, now time.Time) error {
	_, err := bounded(ctx, b, func(ctx context.Context) (struct{}, error) { return struct{}{}, b.S.Save(ctx, e, prev, now) })
	return err
}

// Get implements Journal.
func (b *Bounded) Get(ctx context.Context, id string) (e Entry, ok bool, err error) {
	_, err = bounded(ctx, b, func(ctx context.Context) (_ struct{}, err error) { e, ok, err = b.S.Get(ctx, id); return })
	return e, ok, err
}

// AddReceipt implements Journal.
func (b *Bounded) AddReceipt(ctx context.Context, r Receipt, keep time.Duration) error {
	_, err := bounded(ctx, b, func(ctx context.Context) (struct{}, error) { return struct{}{}, b.S.AddReceipt(ctx, r, keep) })
	return err
}

// Receipts implements Journal.
func (b *Bounded) Receipts(ctx context.Context, payer string) ([]Receipt, error) {
	return bounded(ctx, b, func(ctx context.Context) ([]Receipt, error) { return b.S.Receipts(ctx, payer) })
}

// Set implements Switch; this process sees its own change at once.
func (b *Bounded) Set(ctx context.Context, paused bool, by string) (Pause, error) {
	p, err := bounded(ctx, b, func(ctx context.Context) (Pause, error) { return b.S.Set(ctx, paused, by) })
	b.mu.Lock()
	b.at = time.Time{}
	b.mu.Unlock()
	return p, err
}

// State implements Switch through the cache.
func (b *Bounded) State(ctx context.Context) (Pause, error) {
	b.mu.Lock()
	if !b.at.IsZero() && time.Since(b.at) < b.TTL {
		defer b.mu.Unlock()
		return b.got, nil
	}
	b.mu.Unlock()
	p, err := bounded(ctx, b, func(ctx context.Context) (Pause, error) { return b.S.State(ctx) })
	if err == nil {
		b.mu.Lock()
		b.got, b.at = p, time.Now()
		b.mu.Unlock()
	}
	return p, err
}
