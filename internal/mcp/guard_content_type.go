package mcp

import (
	"mime"
	"net/http"
)

// requireJSON answers 415 unless the body is declared application/json (parameters such as
// charset are accepted): the endpoint reads nothing else, and saying so up front beats a parse
// error about bytes the client never meant as JSON.
func requireJSON(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
			refuse(w, r, http.StatusUnsupportedMediaType, CodeInvalidRequest, "Unsupported Media Type: Content-Type must be application/json")
			return
		}
		next.ServeHTTP(w, r)
	})
}
