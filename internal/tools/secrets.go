package tools

import (
	"context"
	"github.com/mindvault/mcp-endpoint/internal/confirm"
	"slices"
	"sync"

	"github.com/mindvault/mcp-endpoint/internal/redact"
)

// callState is one tool call's state, the one context value the tool layer adds: the secret
// values the call handles, so its own result and failure are cleaned of them even if the
// process-wide registry refused them (it is bounded), and its confirmation gate.
type callState struct {
	mu   sync.Mutex
	list []string
	gate *confirm.Gate // set before Run starts, read only after
}

// setGate gives the call ctx belongs to its confirmation gate, before Run starts.
func setGate(ctx context.Context, g *confirm.Gate) {
	if c, ok := ctx.Value(callKey{}).(*callState); ok {
		c.gate = g
	}
}

// gateOf is the call's confirmation gate; nil (every seam proceeds) outside a call that may ask.
func gateOf(ctx context.Context) *confirm.Gate {
	if c, ok := ctx.Value(callKey{}).(*callState); ok {
		return c.gate
	}
	return nil
}

func (c *callState) values() []string {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.list)
}

type callKey struct{}

// withCall gives one tool call its collector; handlers add to it through WithSecrets,
// which may run in a context derived from this one.
func withCall(ctx context.Context) (context.Context, *callState) {
	c := &callState{}
	return context.WithValue(ctx, callKey{}, c), c
}

// WithSecrets makes secret values the call learned (a new wallet's secret, a new publisher
// key) known: to the process-wide redaction registry, which cleans every response, log line
// and metric from now on, and to the call itself. It returns ctx unchanged; the return value
// only keeps call sites that chain it working.
func WithSecrets(ctx context.Context, secrets ...string) context.Context {
	_ = redact.Register(secrets...) // when the registry is full the call's own collector still has them
	if c, ok := ctx.Value(callKey{}).(*callState); ok {
		c.mu.Lock()
		c.list = append(c.list, secrets...)
		c.mu.Unlock()
	}
	return ctx
}

// SecretsFrom returns the secrets recorded for the call ctx belongs to.
func SecretsFrom(ctx context.Context) []string {
	c, _ := ctx.Value(callKey{}).(*callState)
	return c.values()
}
