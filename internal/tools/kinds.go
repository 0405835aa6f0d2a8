package tools

import (
	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/auth"
)

// The tools come in a few kinds (Kind, define.go), each declared once here, so that a Spec
// names its kind instead of spelling the hints (and, for a tool that changes state, the
// mainnet policy) again.

// lookup reads source (and maybe other services) and changes nothing, so calling it again is
// always safe.
func lookup(source errmap.Source) Kind {
	return Kind{Source: source, Hints: Hints{ReadOnly: true, Idempotent: true, OpenWorld: true}, Scope: auth.ScopeRead}
}

// introspection reads only the endpoint's own configuration or credential store: no call
// leaves the endpoint.
func introspection(source errmap.Source) Kind {
	return Kind{Source: source, Hints: Hints{ReadOnly: true, Idempotent: true}, Scope: auth.ScopeRead}
}

// action changes state through source: a payment, an account, a registration, a contract
// write. Repeating it may repeat the effect, and on mainnet it needs the confirmation.
func action(source errmap.Source) Kind {
	return Kind{Source: source, Hints: Hints{OpenWorld: true}, Mainnet: ConfirmRequired, Scope: auth.ScopeWrite}
}

// paying is an action that pays USDC from the profile's wallet: annotations cannot say so (a
// payment and a price change are both "not read-only"), so its kind does, and its calls need
// the spend scope.
func paying(source errmap.Source) Kind {
	k := action(source)
	k.Scope = auth.ScopeSpend
	return k
}

// withHints is k with other hints: a vault-registry write replaces a value on chain
// (destructive), and some writes are idempotent.
func (k Kind) withHints(h Hints) Kind {
	k.Hints = h
	return k
}
