package tools

import "github.com/mindvault/mcp-endpoint/errmap"

// The tools come in a few kinds (Kind, define.go), each declared once here, so that a Spec
// names its kind instead of spelling the hints (and, for a tool that changes state, the
// mainnet policy) again.

// lookup reads source (and maybe other services) and changes nothing, so calling it again is
// always safe.
func lookup(source errmap.Source) Kind {
	return Kind{Source: source, Hints: Hints{ReadOnly: true, Idempotent: true, OpenWorld: true}}
}

// introspection reads only the endpoint's own configuration or credential store: no call
// leaves the endpoint.
func introspection(source errmap.Source) Kind {
	return Kind{Source: source, Hints: Hints{ReadOnly: true, Idempotent: true}}
}

// action changes state through source: a payment, an account, a registration, a contract
// write. Repeating it may repeat the effect, and on mainnet it needs the confirmation.
func action(source errmap.Source) Kind {
	return Kind{Source: source, Hints: Hints{OpenWorld: true}, Mainnet: ConfirmRequired}
}

// withHints is k with other hints: a vault-registry write replaces a value on chain
// (destructive), and some writes are idempotent.
func (k Kind) withHints(h Hints) Kind {
	k.Hints = h
	return k
}
