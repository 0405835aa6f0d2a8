package tools

import (
	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/auth"
)

// lookup reads source (and maybe other services) and changes nothing.
func lookup(source errmap.Source) Kind {
	return Kind{Source: source, Hints: Hints{ReadOnly: true, Idempotent: true, OpenWorld: true}, Scope: auth.ScopeRead}
}

// introspection reads only the endpoint's own configuration or credential store.
func introspection(source errmap.Source) Kind {
	return Kind{Source: source, Hints: Hints{ReadOnly: true, Idempotent: true}, Scope: auth.ScopeRead}
}

// action changes state through source; on mainnet it needs the confirmation.
func action(source errmap.Source) Kind {
	return Kind{Source: source, Hints: Hints{OpenWorld: true}, Mainnet: ConfirmRequired, Scope: auth.ScopeWrite}
}

// paying is an action that pays USDC (annotations cannot say so): it needs the spend scope.
func paying(source errmap.Source) Kind {
	k := action(source)
	k.Scope = auth.ScopeSpend
	return k
}
