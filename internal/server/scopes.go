package server

import (
	"context"
	"net/http"
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
// protocol layer's own decoder; "" for any other request (and for an unknown tool, or one the
// request's surface disables, which the protocol layer answers without running anything). The
// decoding travels on in the context, so the protocol layer does not decode the body again.
// The scopes are read from the registry on the first tool call, which defines the tools
// (tools.All): a start and a tools/list define none.
func requiredScope(reg *tools.Registry, srv *mcp.Server) func(r *http.Request, body []byte) (string, context.Context) {
	scopes := sync.OnceValue(func() map[string]string { return ToolScopes(reg) })
	return func(r *http.Request, body []byte) (string, context.Context) {
		d := mcp.Decode(body)
		ctx := mcp.WithDecoded(r.Context(), d)
		name, ok := d.CalledTool()
		if !ok || !srv.Offers(r, name) {
			return "", ctx
		}
		return scopes()[name], ctx
	}
}
