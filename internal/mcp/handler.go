package mcp

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"

	"github.com/mindvault/mcp-endpoint/internal/netaddr"
)

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

// defaultMaxBody bounds a body when no limit is configured.
const defaultMaxBody = 1 << 20

// unreadableMessage answers a body that could not be read (the connection broke mid-body).
const unreadableMessage = "Parse error: the body could not be read"

// limitBody reads the whole body, at most max bytes (defaultMaxBody when max <= 0), before
// anything else sees it: a larger body gets 413 and one that cannot be read 400, so the
// handler behind works on bytes in memory and no request can make it hold more than max.
// http.MaxBytesReader also tells the server to close a connection whose body was cut short.
func limitBody(max int64) func(http.Handler) http.Handler {
	if max <= 0 {
		max = defaultMaxBody
	}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, err := readBody(http.MaxBytesReader(w, r.Body, max), r.ContentLength, max)
			if err != nil {
				if tooBig := (*http.MaxBytesError)(nil); errors.As(err, &tooBig) {
					refuse(w, r, http.StatusRequestEntityTooLarge, CodeInvalidRequest, fmt.Sprintf("Request Entity Too Large: the body exceeds %d bytes", max))
					return
				}
				refuse(w, r, http.StatusBadRequest, CodeParseError, unreadableMessage)
				return
			}
			r2 := *r // a middleware must not modify the request it was given
			r2.Body = &memBody{Reader: bytes.NewReader(body), b: body}
			next.ServeHTTP(w, &r2)
		})
	}
}

// readBody reads r to its end into one buffer of the declared length (plus the byte that
// finds the end) when the request declares one within max, instead of growing from 512 bytes.
func readBody(r io.Reader, declared, max int64) ([]byte, error) {
	if declared <= 0 || declared > max {
		return io.ReadAll(r)
	}
	b := make([]byte, 0, declared+1)
	for {
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
		if len(b) == cap(b) { // longer than declared: let it grow (MaxBytesReader still bounds it)
			b = append(b, 0)[:len(b)]
		}
	}
}

// memBody is a body limitBody read into memory. The server takes its bytes as they are
// (bodyBytes) instead of reading them into a second buffer.
type memBody struct {
	*bytes.Reader
	b []byte
}

// Close implements io.Closer.
func (*memBody) Close() error { return nil }

// bodyBytes returns the request's body: the bytes limitBody read when no one has read from it
// since, else whatever is left to read.
func bodyBytes(r *http.Request) ([]byte, error) {
	if mb, ok := r.Body.(*memBody); ok && mb.Len() == len(mb.b) {
		return mb.b, nil
	}
	return io.ReadAll(r.Body)
}
