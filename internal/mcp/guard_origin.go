package mcp

import (
	"github.com/mindvault/mcp-endpoint/internal/netaddr"
	"net/http"
	"net/url"
	"strings"
)

// checkOrigin answers 403 to a request whose Origin header names a site that may not call the
// endpoint. It is the MCP transport's protection against DNS rebinding: a web page a user
// visits could otherwise reach a server on the user's machine or network through the browser.
// Requests without Origin (every non-browser client) pass. allowed lists the accepted origins
// ("*" accepts all; a trailing slash and letter case do not matter); loopback also accepts
// http(s) origins on localhost, 127.0.0.0/8 and [::1], for the local server and its inspector.
func checkOrigin(allowed []string, loopback bool) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if origin := r.Header.Get("Origin"); origin != "" && !originAllowed(origin, allowed, loopback) {
				refuse(w, r, http.StatusForbidden, CodeInvalidRequest, "Forbidden: Origin not allowed")
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

func originAllowed(origin string, allowed []string, loopback bool) bool {
	for _, a := range allowed {
		if a == "*" || strings.EqualFold(strings.TrimRight(a, "/"), strings.TrimRight(origin, "/")) {
			return true
		}
	}
	if !loopback {
		return false
	}
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	return netaddr.LoopbackHost(u.Hostname())
}
