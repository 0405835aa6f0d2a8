// Package auth is the endpoint's inbound authentication: an http middleware that, in
// "tokens" mode, admits a request only with `Authorization: Bearer <token>` whose SHA-256 is
// configured, and records which credential profiles that token may use; plus the RFC 9728
// protected-resource metadata documents, which are public.
//
// Responses to refused requests are identical whatever went wrong (no header, a malformed
// header, an unknown token): HTTP 401, `WWW-Authenticate: Bearer resource_metadata="..."`
// (or `Bearer realm="mindvault"` without a resource URL) and `{"error":"unauthorized"}`. A
// malformed header also gets 401 rather than RFC 6750's 400 `invalid_request`, because the
// 401 challenge is what starts an MCP client's authorization discovery, and because a
// distinct answer would tell a prober which part of its guess was wrong.
//
// Tokens, digests and Authorization headers are never logged, and the Authorization header
// is removed from the request passed on, so nothing downstream can log it either.
package auth

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"

	"github.com/mindvault/mcp-endpoint/obs"
	"github.com/mindvault/mcp-endpoint/redact"
)

// Modes of Config.Mode.
const (
	ModeNone   = "none"   // no inbound auth: every request may use every profile
	ModeTokens = "tokens" // bearer tokens checked against Config.Tokens
)

// WellKnownPath is the RFC 9728 metadata path; the MCP path is appended for the
// path-suffixed form, which clients try first.
const WellKnownPath = "/.well-known/oauth-protected-resource"

// Config is the inbound-auth configuration.
type Config struct {
	// Mode is ModeNone or ModeTokens; any other value is treated as ModeTokens (fail closed).
	Mode string
	// Tokens are the accepted tokens (ModeTokens). None configured: every request is refused.
	Tokens []Token
	// ResourceURL is this server's canonical URL (MINDVAULT_RESOURCE_URL, normally the full
	// MCP URL, e.g. https://xyz.lambda-url.us-east-1.on.aws/mcp). When set, the metadata
	// documents are served and the 401 challenge points at them.
	ResourceURL string
	// AuthorizationServers are the OAuth authorization servers listed in the metadata.
	AuthorizationServers []string
	// MCPPath is the MCP endpoint path, "/mcp" when empty; it names the path-suffixed
	// metadata document.
	MCPPath string
	// Broken, when set, is why the auth configuration itself could not be loaded (a token
	// list that does not parse, an unreadable token secret, an unknown mode). The middleware
	// then fails closed: every request is refused, whatever Mode says, and the problem is
	// logged once. An endpoint whose access control is unknown never runs open.
	Broken error
}

func (c Config) mcpPath() string {
	if c.MCPPath == "" {
		return "/mcp"
	}
	return c.MCPPath
}

// origin is scheme://host of ResourceURL, or "" when it is not an absolute http(s) URL.
func (c Config) origin() string {
	u, err := url.Parse(c.ResourceURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return ""
	}
	return u.Scheme + "://" + u.Host
}

// Validate reports a configuration the middleware would not serve as meant: an unknown mode
// (served as tokens), a resource URL or authorization server that is not an absolute
// http(s) URL (the metadata would be dropped), or an MCP path without a leading slash.
func (c Config) Validate() error {
	if c.Mode != ModeNone && c.Mode != ModeTokens {
		return fmt.Errorf("auth mode must be %q or %q", ModeNone, ModeTokens)
	}
	if c.ResourceURL != "" {
		u, err := url.Parse(c.ResourceURL)
		if err != nil || c.origin() == "" || u.Fragment != "" || u.RawQuery != "" {
			return fmt.Errorf("resource URL must be an absolute http(s) URL without query or fragment")
		}
	}
	for i, s := range c.AuthorizationServers {
		u, err := url.Parse(s)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("authorization server %d must be an absolute http(s) URL", i+1)
		}
	}
	if c.MCPPath != "" && !strings.HasPrefix(c.MCPPath, "/") {
		return fmt.Errorf("MCP path must start with /")
	}
	return nil
}

// grant is what the middleware learned about the caller.
type grant struct {
	profiles      []string
	all           bool
	authenticated bool
	caller        string // see Caller
}

type grantKey struct{}

// WithAllowed returns ctx carrying the caller's permissions, as the middleware sets them;
// for in-process callers and tests that bypass the middleware.
func WithAllowed(ctx context.Context, profiles []string, all, authenticated bool) context.Context {
	return context.WithValue(ctx, grantKey{}, grant{profiles: slices.Clone(profiles), all: all, authenticated: authenticated})
}

// Allowed reports the profiles the caller may use: all is true for an unrestricted caller
// (mode none, or a "*" token), authenticated is true when a token was checked. A context the
// middleware never saw allows nothing.
func Allowed(ctx context.Context) (profiles []string, all bool, authenticated bool) {
	g, ok := ctx.Value(grantKey{}).(grant)
	if !ok {
		return nil, false, false
	}
	return slices.Clone(g.profiles), g.all, g.authenticated
}

// Permits reports whether the caller may use profile (always, in mode none). A context
// without the middleware's mark is refused, so a handler wired without it fails closed.
func Permits(ctx context.Context, profile string) bool {
	g, ok := ctx.Value(grantKey{}).(grant)
	if !ok {
		return false
	}
	return g.all || slices.Contains(g.profiles, profile)
}

// compare is subtle.ConstantTimeCompare; tests count its calls.
var compare = subtle.ConstantTimeCompare

// match finds the token whose digest is sum. Every configured digest is compared, match or
// not, and the index is picked with constant-time selection, so the time taken does not
// depend on which entry (if any) matched.
func match(tokens []Token, sum [32]byte) (Token, bool) {
	found, idx := 0, 0
	for i := range tokens {
		eq := compare(sum[:], tokens[i].Digest[:])
		idx = subtle.ConstantTimeSelect(eq, i, idx)
		found |= eq
	}
	if found != 1 {
		return Token{}, false
	}
	return tokens[idx], true
}

// bearer extracts the token of the one Authorization header: scheme "Bearer" (any case), one
// or more spaces, then an RFC 6750 b64token. ok is false for anything else.
func bearer(h http.Header) (token string, present, ok bool) {
	values := h.Values("Authorization")
	if len(values) == 0 {
		return "", false, false
	}
	if len(values) > 1 {
		return "", true, false
	}
	scheme, rest, found := strings.Cut(values[0], " ")
	if !found || !strings.EqualFold(scheme, "Bearer") {
		return "", true, false
	}
	token = strings.TrimLeft(rest, " ")
	if !isB64Token(token) {
		return "", true, false
	}
	return token, true, true
}

// isB64Token is RFC 6750's b64token: 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"=".
func isB64Token(s string) bool {
	body := strings.TrimRight(s, "=")
	if body == "" || len(s) > 4096 {
		return false
	}
	for i := 0; i < len(body); i++ {
		c := body[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
			c == '-' || c == '.' || c == '_' || c == '~' || c == '+' || c == '/') {
			return false
		}
	}
	return true
}

// Middleware puts inbound auth in front of next. Mode none passes every request through
// (marked as allowed every profile). Mode tokens checks every request — any method, any
// path, so an unknown path is 401 before it can be 404 — except GET/HEAD of the metadata
// documents, which are public by design and served whenever ResourceURL is set.
func Middleware(cfg Config, next http.Handler, logger *slog.Logger) http.Handler {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	m := &middleware{
		cfg:    cfg,
		next:   next,
		logger: logger,
		tokens: slices.Clone(cfg.Tokens),
		open:   cfg.Mode == ModeNone,
	}
	m.challenge = `Bearer realm="mindvault"`
	if o := cfg.origin(); o != "" {
		m.challenge = `Bearer resource_metadata="` + o + WellKnownPath + cfg.mcpPath() + `"`
		m.metadata = metadataDoc(cfg)
	}
	return m
}

type middleware struct {
	cfg       Config
	next      http.Handler
	logger    *slog.Logger
	tokens    []Token
	open      bool
	challenge string
	metadata  []byte // nil when ResourceURL is unset
	noTokens  sync.Once
	broken    sync.Once
	full      sync.Once
}

func (m *middleware) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if m.metadata != nil && (r.URL.Path == WellKnownPath || r.URL.Path == WellKnownPath+m.cfg.mcpPath()) {
		m.serveMetadata(w, r)
		return
	}
	if m.cfg.Broken != nil {
		m.broken.Do(func() {
			m.logger.ErrorContext(r.Context(), "inbound auth configuration is broken, so every request is refused until it is fixed: "+m.cfg.Broken.Error())
		})
		m.refuse(w, r, "auth configuration broken")
		return
	}
	if m.open {
		m.pass(w, r, grant{all: true, caller: AnonymousCaller})
		return
	}
	if len(m.tokens) == 0 {
		m.noTokens.Do(func() {
			m.logger.ErrorContext(r.Context(), "inbound auth is on (MINDVAULT_AUTH=tokens) but no access tokens are configured: every request is refused; set MINDVAULT_ACCESS_TOKENS or MINDVAULT_ACCESS_TOKENS_SECRET, or MINDVAULT_AUTH=none to run open")
		})
		m.refuse(w, r, "no tokens configured")
		return
	}
	token, present, ok := bearer(r.Header)
	switch {
	case !present:
		m.refuse(w, r, "no Authorization header")
		return
	case !ok:
		m.refuse(w, r, "malformed Authorization header")
		return
	}
	t, ok := match(m.tokens, Digest(token))
	if !ok {
		m.refuse(w, r, "unknown token")
		return
	}
	// The accepted token is a secret the process now knows: no response, log line or metric
	// may show it, even if a downstream echoes it. Only accepted tokens are registered, so a
	// caller cannot fill the bounded registry with guesses.
	if err := redact.Register(token); err != nil {
		m.full.Do(func() {
			m.logger.ErrorContext(r.Context(), "an accepted bearer token could not be made redactable, so requests carrying it are refused: "+err.Error())
		})
		m.refuse(w, r, "token not redactable")
		return
	}
	m.pass(w, r, grant{profiles: slices.Clone(t.Profiles), all: t.all(), authenticated: true, caller: tokenCaller(t)})
}

// pass hands the request on with the grant in its context and without its Authorization
// header (cloned: a handler must not modify the request it was given).
func (m *middleware) pass(w http.ResponseWriter, r *http.Request, g grant) {
	r2 := r.Clone(context.WithValue(r.Context(), grantKey{}, g))
	r2.Header.Del("Authorization")
	m.next.ServeHTTP(w, r2)
}

// refuse answers 401. The reason goes to a debug line only (never the header or token): a
// 401 is routine for a public URL, and the request's own log line belongs to the caller.
func (m *middleware) refuse(w http.ResponseWriter, r *http.Request, reason string) {
	m.logger.DebugContext(r.Context(), "request refused by inbound auth", "reason", reason, "method", obs.Field(r.Method), "path", obs.Field(r.URL.Path))
	h := w.Header()
	h.Set("WWW-Authenticate", m.challenge)
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusUnauthorized)
	_, _ = w.Write([]byte(`{"error":"unauthorized"}` + "\n"))
}

// metadata is the RFC 9728 protected-resource metadata document.
type metadata struct {
	Resource               string   `json:"resource"`
	AuthorizationServers   []string `json:"authorization_servers,omitempty"`
	BearerMethodsSupported []string `json:"bearer_methods_supported"`
	ScopesSupported        []string `json:"scopes_supported"`
}

func metadataDoc(cfg Config) []byte {
	b, err := json.Marshal(metadata{
		Resource:               cfg.ResourceURL,
		AuthorizationServers:   slices.Clone(cfg.AuthorizationServers),
		BearerMethodsSupported: []string{"header"},
		ScopesSupported:        []string{},
	})
	if err != nil { // cannot happen: strings only
		return []byte(`{}`)
	}
	return append(b, '\n')
}

func (m *middleware) serveMetadata(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		h.Set("Allow", "GET, HEAD")
		h.Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusMethodNotAllowed)
		_, _ = w.Write([]byte(`{"error":"method not allowed"}` + "\n"))
		return
	}
	h.Set("Content-Type", "application/json")
	// Public and identical for everyone; a short cache spares a Lambda invocation per probe.
	h.Set("Cache-Control", "public, max-age=300")
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodGet {
		_, _ = w.Write(m.metadata)
	}
}
