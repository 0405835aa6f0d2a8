// Package obs collects what one request did downstream (service, route, status, attempts,
// latency) so the request's single log line and its metrics can report it. It lives apart
// from both the protocol layer and the clients so neither depends on the other.
package obs

import (
	"context"
	"sync"
	"time"
)

// Call is one logical downstream call (retries included).
type Call struct {
	Service  string        `json:"service"`
	Route    string        `json:"route"`
	Status   int           `json:"status,omitempty"`
	Attempts int           `json:"attempts"`
	Latency  time.Duration `json:"-"`
	Outcome  string        `json:"outcome"` // "ok", "status", "network", "timeout"
}

// Trace accumulates the calls of one request; safe for concurrent use by parallel calls.
type Trace struct {
	mu    sync.Mutex
	calls []Call
}

type key struct{}

// WithTrace attaches a fresh Trace to ctx.
func WithTrace(ctx context.Context) (context.Context, *Trace) {
	t := &Trace{}
	return context.WithValue(ctx, key{}, t), t
}

// Record adds a call to the request's trace, if it has one.
func Record(ctx context.Context, c Call) {
	if t, ok := ctx.Value(key{}).(*Trace); ok {
		t.mu.Lock()
		t.calls = append(t.calls, c)
		t.mu.Unlock()
	}
}

// Calls returns a copy of the recorded calls.
func (t *Trace) Calls() []Call {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]Call(nil), t.calls...)
}
