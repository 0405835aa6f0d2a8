package mcp

import "net/http"

// requirePath answers 404 to every path but the endpoint's one and, when narrowing is on (a
// Surface), the narrowed forms of it: <path>/readonly and <path>/x/<toolset>[,…][/readonly].
// A narrowed path naming a toolset that does not exist is 404 too, saying which exist.
func requirePath(path string, narrowing bool) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != path {
				_, problem, ok := pathLayer(path, r.URL.Path)
				switch {
				case !narrowing || !ok:
					refusePlain(w, r, http.StatusNotFound, "not found: the MCP endpoint is POST "+path)
					return
				case problem != "":
					refusePlain(w, r, http.StatusNotFound, "not found: "+problem)
					return
				}
			}
			next.ServeHTTP(w, r)
		})
	}
}
