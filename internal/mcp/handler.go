package mcp

import "net/http"

// Handler serves s over HTTP. Every request is observed first (correlation id, downstream
// trace, its one log line and metrics, whatever becomes of it), then passes the HTTP guards in
// the order below; only a request that passed them all is read as JSON-RPC. Inbound auth is
// not here: the endpoint wraps it around this handler, so a caller that fails it learns nothing
// the guards would tell.
func Handler(s *Server) http.Handler {
	return chain(
		s.observe,
		requirePath(s.path(), s.Surface != nil),
		requirePOST,
		checkOrigin(s.AllowedOrigins, s.AllowLoopbackOrigins),
		requireJSON,
		limitBody(s.MaxBodyBytes),
	)(s)
}

// chain composes middlewares so that the first one listed sees a request first.
func chain(mws ...func(http.Handler) http.Handler) func(http.Handler) http.Handler {
	return func(h http.Handler) http.Handler {
		for i := len(mws) - 1; i >= 0; i-- {
			h = mws[i](h)
		}
		return h
	}
}
