package server

import (
	"sync"

	"github.com/mindvault/mcp-endpoint/internal/mcp"
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

// requiredScope returns the scope a request body needs: the called tool's, found with the
// protocol layer's own decoder; "" for any other request (and for an unknown tool, which the
// protocol layer answers without running anything). The scopes are read from the registry on
// the first tool call, which defines the tools (tools.All): a start and a tools/list define none.
func requiredScope(reg *tools.Registry) func(body []byte) string {
	scopes := sync.OnceValue(func() map[string]string { return ToolScopes(reg) })
	return func(body []byte) string {
		name, ok := mcp.CalledTool(body)
		if !ok {
			return ""
		}
		return scopes()[name]
	}
}
