package server

import (
	"context"
	"net/http"
	"sync"

	"github.com/mindvault/mcp-endpoint/internal/auth"
	"github.com/mindvault/mcp-endpoint/internal/tools"
)

// ToolScopes maps every registered tool to the one OAuth scope a call of it needs, as the
// tool's kind declares it (read for lookups, write for actions, spend for payments).
func ToolScopes(reg *tools.Registry) map[string]string {
	out := map[string]string{}
	for _, t := range reg.Tools() {
		out[t.Name()] = t.Scope()
	}
	return out
}

// admit is the protocol layer's Admit: a tool call needs its tool's scope (auth.ScopeRefusal).
// The scopes are read from the registry on the first tool call, which defines the tools
// (tools.All): a start and a tools/list define none.
func admit(reg *tools.Registry) func(ctx context.Context, tool string) http.HandlerFunc {
	scopes := sync.OnceValue(func() map[string]string { return ToolScopes(reg) })
	return func(ctx context.Context, tool string) http.HandlerFunc {
		return auth.ScopeRefusal(ctx, scopes()[tool])
	}
}
