package mcp

import "net/http"

// requirePath answers 404 to every path but the endpoint's one.
func requirePath(path string) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != path {
				refusePlain(w, r, http.StatusNotFound, "not found: the MCP endpoint is POST "+path)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}
