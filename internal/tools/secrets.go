package tools

import (
	"context"
	"slices"
	"sync"

	"github.com/mindvault/mcp-endpoint/internal/redact"
)

// callSecrets collects the secret values one tool call handles, so its own result and failure
// are cleaned of them even if the process-wide registry refused them (it is bounded).
type callSecrets struct {
	mu   sync.Mutex
	list []string
}

func (c *callSecrets) values() []string {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.list)
}

type secretsKey struct{}

// withCallSecrets gives one tool call its collector; handlers add to it through WithSecrets,
// which may run in a context derived from this one.
func withCallSecrets(ctx context.Context) (context.Context, *callSecrets) {
	c := &callSecrets{}
	return context.WithValue(ctx, secretsKey{}, c), c
}

// WithSecrets makes secret values the call learned (a new wallet's secret, a new publisher
// key) known: to the process-wide redaction registry, which cleans every response, log line
// and metric from now on, and to the call itself. It returns ctx unchanged; the return value
// only keeps call sites that chain it working.
func WithSecrets(ctx context.Context, secrets ...string) context.Context {
	_ = redact.Register(secrets...) // when the registry is full the call's own collector still has them
	if c, ok := ctx.Value(secretsKey{}).(*callSecrets); ok {
		c.mu.Lock()
		c.list = append(c.list, secrets...)
		c.mu.Unlock()
	}
	return ctx
}

// SecretsFrom returns the secrets recorded for the call ctx belongs to.
func SecretsFrom(ctx context.Context) []string {
	c, _ := ctx.Value(secretsKey{}).(*callSecrets)
	return c.values()
}
