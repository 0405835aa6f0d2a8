package tools

import (
	"slices"
	"sync"

	"github.com/mindvault/mcp-endpoint/internal/confirm"
	"github.com/mindvault/mcp-endpoint/internal/redact"
)

// Call is one tool call's own state, handed to Run with the Deps it embeds. Its secrets clean
// its own result and failure even if the bounded process-wide registry refused them.
type Call struct {
	*Deps
	// caller is who makes the call (auth.Caller): what a requestState binds and a budget counts.
	caller       string
	confirmation *confirm.Confirmation // nil: every approval proceeds (the argument guards alone protect the call)
	// elicit is what the call may ask the user (confirm.go); nil: it asks nothing.
	elicit *elicitation
	// question is what the call stopped to ask the user (round 1); Run then returns nothing.
	question *confirm.Request
	mu       sync.Mutex
	secrets  []string
}

// approve is called right before the call signs or sends what r describes: ok to go on; false
// with a nil err when r is the call's question (Run returns nil, nil); otherwise err refuses.
func (c *Call) approve(r confirm.Request) (ok bool, err error) {
	ask, err := c.confirmation.Approve(r)
	if ask {
		c.question = &r
	}
	return !ask && err == nil, err
}

func (c *Call) asking() bool { return c.question != nil }

// addSecrets makes secret values known to the process-wide redaction and to the call.
func (c *Call) addSecrets(secrets ...string) {
	_ = redact.Register(secrets...) // when the registry is full the call's own list still has them
	c.mu.Lock()
	c.secrets = append(c.secrets, secrets...)
	c.mu.Unlock()
}

func (c *Call) secretValues() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.secrets)
}
