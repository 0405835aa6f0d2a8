package mcp

import "net/http"

// requirePOST answers 405 with Allow: POST to every other method. The endpoint is stateless:
// it opens no SSE stream (GET) and has no session to end (DELETE), and the 405 is how the MCP
// transport tells a client so.
func requirePOST(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			refusePlain(w, r, http.StatusMethodNotAllowed, "method not allowed: this stateless endpoint serves POST only (no SSE stream, no sessions)")
			return
		}
		next.ServeHTTP(w, r)
	})
}
