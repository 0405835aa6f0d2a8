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
	"time"

	"github.com/mindvault/mcp-endpoint/internal/netaddr"
	"github.com/mindvault/mcp-endpoint/internal/obs"
)

// Handler serves s over HTTP. Every request gets its correlation id (the invocation's, or a new
// one) and a downstream trace, then passes the HTTP guards in order before it is read as
// JSON-RPC; once it is answered, refused or not, it has its one log line and its metrics.
// Inbound auth wraps this handler.
func Handler(s *Server) http.Handler {
	guards := []guard{
		requirePath(endpointPath, s.Surface != nil),
		requirePOST,
		checkOrigin(s.AllowedOrigins, s.AllowLoopbackOrigins),
		requireJSON,
		limitBody(s.MaxBodyBytes),
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		st := stateOf(r.Context())
		if st.id == "" {
			st.id = newID()
		}
		e := &entry{id: st.id}
		st.entry = e
		ctx, trace := obs.WithTrace(withState(r.Context(), st))
		defer func() {
			d := time.Since(start)
			e.calls = trace.Calls()
			s.log(ctx, e, d)
			obs.WriteEMF(s.Metrics, start, e.metric, e.outcome, d, e.calls)
		}()
		r = r.WithContext(ctx)
		for _, g := range guards {
			if r = g(w, r); r == nil {
				return
			}
		}
		s.ServeHTTP(w, r)
	})
}

// guard answers a request the HTTP rules turn away and returns nil, or returns the request to
// serve on.
type guard func(w http.ResponseWriter, r *http.Request) *http.Request

// refuse answers a request the HTTP rules turn away with an id-less JSON-RPC error.
func refuse(w http.ResponseWriter, r *http.Request, status, code int, msg string) {
	writeRPCError(w, stateOf(r.Context()).entry, nil, status, code, msg, nil)
}

// refusePlain answers a request that is not for the MCP endpoint with a plain JSON object.
func refusePlain(w http.ResponseWriter, r *http.Request, status int, msg string) {
	e := stateOf(r.Context()).entry
	e.status = status
	writeJSON(w, e, status, map[string]string{"error": msg})
}

// requirePath answers 404 to every path but the endpoint's and, with a Surface, its narrowed forms.
func requirePath(path string, narrowing bool) guard {
	return func(w http.ResponseWriter, r *http.Request) *http.Request {
		if r.URL.Path != path {
			_, problem, ok := pathLayer(path, r.URL.Path)
			switch {
			case !narrowing || !ok:
				refusePlain(w, r, http.StatusNotFound, "not found: the MCP endpoint is POST "+path)
				return nil
			case problem != "":
				refusePlain(w, r, http.StatusNotFound, "not found: "+problem)
				return nil
			}
		}
		return r
	}
}

// requirePOST answers 405 to every other method: a stateless endpoint has no SSE stream or session.
func requirePOST(w http.ResponseWriter, r *http.Request) *http.Request {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		refusePlain(w, r, http.StatusMethodNotAllowed, "method not allowed: this stateless endpoint serves POST only (no SSE stream, no sessions)")
		return nil
	}
	return r
}

// checkOrigin answers 403 to a request whose Origin header names a site that may not call the
// endpoint. It is the MCP transport's protection against DNS rebinding: a web page a user
// visits could otherwise reach a server on the user's machine or network through the browser.
// Requests without Origin (every non-browser client) pass. allowed lists the accepted origins
// ("*" accepts all; a trailing slash and letter case do not matter); loopback also accepts
// http(s) origins on localhost, 127.0.0.0/8 and [::1], for the local server and its inspector.
func checkOrigin(allowed []string, loopback bool) guard {
	return func(w http.ResponseWriter, r *http.Request) *http.Request {
		if origin := r.Header.Get("Origin"); origin != "" && !originAllowed(origin, allowed, loopback) {
			refuse(w, r, http.StatusForbidden, CodeInvalidRequest, "Forbidden: Origin not allowed")
			return nil
		}
		return r
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

// requireJSON answers 415 unless the body is declared application/json.
func requireJSON(w http.ResponseWriter, r *http.Request) *http.Request {
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		refuse(w, r, http.StatusUnsupportedMediaType, CodeInvalidRequest, "Unsupported Media Type: Content-Type must be application/json")
		return nil
	}
	return r
}

// defaultMaxBody bounds a body when no limit is configured.
const defaultMaxBody = 1 << 20

// limitBody reads the whole body, at most max bytes, before anything else sees it (413 above it,
// 400 when unreadable), so no request can make the handler hold more than max.
func limitBody(max int64) guard {
	if max <= 0 {
		max = defaultMaxBody
	}
	return func(w http.ResponseWriter, r *http.Request) *http.Request {
		body, err := readBody(http.MaxBytesReader(w, r.Body, max), r.ContentLength, max)
		if err != nil {
			if tooBig := (*http.MaxBytesError)(nil); errors.As(err, &tooBig) {
				refuse(w, r, http.StatusRequestEntityTooLarge, CodeInvalidRequest, fmt.Sprintf("Request Entity Too Large: the body exceeds %d bytes", max))
				return nil
			}
			refuse(w, r, http.StatusBadRequest, CodeParseError, "Parse error: the body could not be read")
			return nil
		}
		r2 := *r // a guard must not modify the request it was given
		r2.Body = &memBody{Reader: bytes.NewReader(body), b: body}
		return &r2
	}
}

// readBody reads r into one buffer of the declared length (within max) rather than from 512 bytes up.
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

// memBody is a body limitBody read into memory, whose bytes ServeHTTP decodes without a copy.
type memBody struct {
	*bytes.Reader
	b []byte
}

// Close implements io.Closer.
func (*memBody) Close() error { return nil }
