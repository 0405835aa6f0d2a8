package server

import (
	"slices"

	"github.com/mindvault/mcp-endpoint/internal/auth"
	"github.com/mindvault/mcp-endpoint/internal/mcp"
	"github.com/mindvault/mcp-endpoint/internal/tools"
)

// spendTools pay USDC from a profile's wallet. Annotations cannot say this (a payment and a
// price change are both "not read-only"), so the list is explicit; a test keeps it in step
// with the registry.
var spendTools = []string{"mindvault_buy", "mindvault_publish"}

// ToolScopes maps every registered tool to the one OAuth scope a call of it needs: spend for
// the payment tools, read for the tools annotated readOnlyHint, write for every other tool.
// Deriving it from the annotations means a new tool cannot ship without a scope, and a tool
// that changes state cannot be reached with a read token unless it lies about being read-only.
func ToolScopes(reg *tools.Registry) map[string]string {
	out := map[string]string{}
	for _, t := range reg.Tools() {
		switch name := t.Name(); {
		case slices.Contains(spendTools, name):
			out[name] = auth.ScopeSpend
		case t.Hints().ReadOnly:
			out[name] = auth.ScopeRead
		default:
			out[name] = auth.ScopeWrite
		}
	}
	return out
}

// requiredScope returns the scope a request body needs: the called tool's, found with the
// protocol layer's own decoder; "" for any other request (and for an unknown tool, which the
// protocol layer answers without running anything).
func requiredScope(scopes map[string]string) func(body []byte) string {
	return func(body []byte) string {
		name, ok := mcp.CalledTool(body)
		if !ok {
			return ""
		}
		return scopes[name]
	}
}
