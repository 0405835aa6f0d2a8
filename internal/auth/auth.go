// Package auth is the endpoint's inbound authentication, an http middleware in front of the
// protocol layer with three modes: static bearer tokens compared by digest, OAuth 2.1 access tokens
// (JWTs checked against the issuer's keys, with a scope per kind of tool), or none; plus the public
// RFC 9728 protected-resource metadata. A refusal tells a client only what it needs to authorise
// again, and the Authorization header is never logged nor passed on
// (docs/operations.md "Inbound auth").
package auth

import (
	"cmp"
	"context"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mindvault/mcp-endpoint/internal/obs"
	"github.com/mindvault/mcp-endpoint/internal/redact"
)

// Modes of Config.Mode.
const (
	ModeNone   = "none"   // no inbound auth: every request may use every profile
	ModeTokens = "tokens" // bearer tokens checked against Config.Tokens
	ModeOAuth  = "oauth"  // JWT access tokens of Config.OAuth.Issuer
)

// WellKnownPath is the RFC 9728 metadata path; the MCP path is appended for the
// path-suffixed form, which clients try first.
const WellKnownPath = "/.well-known/oauth-protected-resource"

// Config is the inbound-auth configuration.
type Config struct {
	Mode   string  // ModeNone, ModeTokens or ModeOAuth; any other is served as ModeTokens (fail closed)
	Tokens []Token // the accepted tokens (ModeTokens); with none, every request is refused
	// ResourceURL is this server's canonical URL (MINDVAULT_RESOURCE_URL, normally the full MCP
	// URL). When set, the metadata documents are served and the 401 challenge points at them.
	ResourceURL string
	// AuthorizationServers are listed in the metadata; ModeOAuth lists OAuth.Issuer instead.
	AuthorizationServers []string
	OAuth                OAuth  // configures ModeOAuth
	MCPPath              string // "/mcp" when empty; it names the path-suffixed metadata document
	// Broken is why the auth configuration could not be loaded: the middleware then refuses
	// every request, whatever Mode says, so an endpoint with unknown access control never runs open.
	Broken error
}

// grant is what the middleware learned about the caller.
type grant struct {
	profiles      []string
	all           bool
	authenticated bool
	subject       string      // the OAuth token's sub; "" in the other modes
	caller        string      // see Caller
	scopes        []string    // the OAuth token's scopes
	oauth         *middleware // set in OAuth mode, whose tool calls need their scope (ScopeRefusal)
}

type grantKey struct{}

// WithAllowed returns ctx carrying the caller's permissions, as the middleware sets them;
// for in-process callers and tests that bypass the middleware.
func WithAllowed(ctx context.Context, profiles []string, all, authenticated bool) context.Context {
	return withGrant(ctx, grant{profiles: slices.Clone(profiles), all: all, authenticated: authenticated})
}

// withGrant is the one place a grant enters a context.
func withGrant(ctx context.Context, g grant) context.Context {
	return context.WithValue(ctx, grantKey{}, g)
}

// Subject is the caller's identity in OAuth mode: the verified token's sub claim, unique at
// the issuer and stable across the caller's tokens. It is "" in the other modes. It names the
// caller in logs and binds state a caller carries between requests; it is never the token.
func Subject(ctx context.Context) string {
	g, _ := ctx.Value(grantKey{}).(grant)
	return g.subject
}

// Permits reports whether the caller may use profile (always, in mode none). A context
// without the middleware's mark is refused, so a handler wired without it fails closed.
func Permits(ctx context.Context, profile string) bool {
	g, _ := ctx.Value(grantKey{}).(grant) // none: the zero grant permits nothing
	return g.all || slices.Contains(g.profiles, profile)
}

// match finds the token whose digest is sum, comparing every digest and selecting in constant
// time, so the time taken does not depend on which entry matched. compare is
// subtle.ConstantTimeCompare (tests count its calls).
func match(tokens []Token, sum [32]byte, compare func(x, y []byte) int) (Token, bool) {
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
	if len(values) != 1 {
		return "", len(values) > 1, false
	}
	scheme, rest, _ := strings.Cut(values[0], " ") // no space: rest and so the token are empty
	token = strings.TrimLeft(rest, " ")
	if !strings.EqualFold(scheme, "Bearer") || !isB64Token(token) {
		return "", true, false
	}
	return token, true, true
}

// isB64Token is RFC 6750's b64token: 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"=".
func isB64Token(s string) bool {
	body := strings.TrimRight(s, "=")
	return body != "" && len(s) <= 4096 && !strings.ContainsFunc(body, func(c rune) bool {
		return !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
			c == '-' || c == '.' || c == '_' || c == '~' || c == '+' || c == '/')
	})
}

// Middleware puts inbound auth in front of next. Mode none passes every request through
// (marked as allowed every profile). Modes tokens and oauth check every request — any method,
// any path, so an unknown path is 401 before it can be 404 — except GET/HEAD of the metadata
// documents, which are public by design and served whenever ResourceURL is set. OAuth mode
// fetches nothing here: the issuer's keys are fetched when the first token arrives.
func Middleware(cfg Config, next http.Handler, logger *slog.Logger) http.Handler {
	m := &middleware{cfg: cfg, next: next, logger: cmp.Or(logger, slog.New(slog.DiscardHandler))}
	m.cfg.Tokens = slices.Clone(cfg.Tokens)
	m.cfg.MCPPath = cmp.Or(cfg.MCPPath, "/mcp")
	if cfg.Mode == ModeOAuth {
		m.cfg.Broken = cmp.Or(m.cfg.Broken, cfg.OAuth.Problem())
		m.oauth = newVerifier(cfg.OAuth, m.logger)
		// Clients must fetch tokens where this endpoint accepts them: the issuer, alone.
		m.cfg.AuthorizationServers = nil
		if cfg.OAuth.Issuer != "" {
			m.cfg.AuthorizationServers = []string{cfg.OAuth.Issuer}
		}
	}
	m.challenge = `Bearer realm="mindvault"`
	if u, err := url.Parse(cfg.ResourceURL); err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" {
		m.metadataURL = u.Scheme + "://" + u.Host + WellKnownPath + m.cfg.MCPPath
		m.challenge = `Bearer resource_metadata="` + m.metadataURL + `"`
		m.metadata = metadataDoc(m.cfg)
	}
	return m
}

type middleware struct {
	cfg         Config
	next        http.Handler
	logger      *slog.Logger
	oauth       *verifier // ModeOAuth only
	challenge   string
	metadataURL string // "" when ResourceURL is unset
	metadata    []byte // nil when ResourceURL is unset
	// logged guards the one error line of a cause every request meets: a broken configuration,
	// no tokens, a full redaction registry. They exclude each other, so one Once serves all three.
	logged sync.Once
}

func (m *middleware) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if m.metadata != nil && (r.URL.Path == WellKnownPath || r.URL.Path == WellKnownPath+m.cfg.MCPPath) {
		m.serveMetadata(w, r)
		return
	}
	if m.cfg.Broken != nil {
		m.refuseLogged(w, r, "auth configuration broken", "inbound auth configuration is broken, so every request is refused until it is fixed", m.cfg.Broken)
		return
	}
	if m.cfg.Mode == ModeNone {
		m.pass(w, r, grant{all: true, caller: AnonymousCaller})
		return
	}
	if m.oauth == nil && len(m.cfg.Tokens) == 0 {
		m.refuseLogged(w, r, "no tokens configured", "inbound auth is on (MINDVAULT_AUTH=tokens) but no access tokens are configured: every request is refused; set MINDVAULT_ACCESS_TOKENS or MINDVAULT_ACCESS_TOKENS_SECRET, or MINDVAULT_AUTH=none to run open", nil)
		return
	}
	token, present, ok := bearer(r.Header)
	switch {
	case !present:
		m.refuse(w, r, "no Authorization header")
	case !ok && m.oauth != nil: // OAuth says invalid_token; the tokens mode answers it like a missing token
		m.refuseToken(w, r, "malformed Authorization header")
	case !ok:
		m.refuse(w, r, "malformed Authorization header")
	case m.oauth != nil:
		m.serveOAuth(w, r, token)
	default:
		if t, ok := match(m.cfg.Tokens, Digest(token), subtle.ConstantTimeCompare); ok {
			m.admit(w, r, token, grant{profiles: slices.Clone(t.Profiles), all: t.all(), authenticated: true, caller: "token:" + hex.EncodeToString(t.Digest[:])})
		} else {
			m.refuse(w, r, "unknown token")
		}
	}
}

// admit passes a request whose token was accepted, with its grant g, once the token is a secret
// the process knows: no response, log line or metric may show it, even if a downstream echoes
// it. Only accepted tokens are registered, so a caller cannot fill the bounded registry with
// guesses. A token that cannot be registered is refused.
func (m *middleware) admit(w http.ResponseWriter, r *http.Request, token string, g grant) {
	if err := redact.Register(token); err != nil {
		m.refuseLogged(w, r, "token not redactable", "an accepted bearer token could not be made redactable, so requests carrying it are refused", err)
		return
	}
	m.pass(w, r, g)
}

// serveOAuth admits a request carrying a valid access token of the issuer, and a tools/call
// only when the token holds the tool's scope.
func (m *middleware) serveOAuth(w http.ResponseWriter, r *http.Request, token string) {
	p, verdict, reason := m.oauth.verify(r.Context(), token)
	switch verdict {
	case unavailable:
		// No signing key could ever be fetched: whether the token is good cannot be known
		// (the verifier logs the fetch failure).
		w.Header().Set("Retry-After", strconv.Itoa(int(KeyColdRetryInterval/time.Second)))
		m.answer(w, r, http.StatusServiceUnavailable, "", `{"error":"temporarily_unavailable"}`, "issuer keys unavailable")
		return
	case invalid:
		m.refuseToken(w, r, reason)
		return
	}
	p.authenticated, p.caller, p.oauth = true, "sub:"+p.subject, m
	m.admit(w, r, token, p)
}

// ScopeRefusal is the 403 insufficient_scope step-up answer to a tool call needing scope (one
// of Scopes) that the OAuth token lacks: its challenge names that scope alone, which the client
// asks the authorization server for. nil when the call may proceed (the token holds it, scope
// is "", or the mode has no scopes).
func ScopeRefusal(ctx context.Context, scope string) http.HandlerFunc {
	g, _ := ctx.Value(grantKey{}).(grant)
	if g.oauth == nil || scope == "" {
		return nil
	}
	need := g.oauth.cfg.OAuth.ScopePrefix + scope
	if slices.Contains(g.scopes, need) {
		return nil
	}
	return func(w http.ResponseWriter, r *http.Request) {
		g.oauth.answer(w, r, http.StatusForbidden, g.oauth.withParams(`error="insufficient_scope", scope="`+need+`"`), `{"error":"insufficient_scope"}`, "token lacks "+need)
	}
}

// pass hands the request on with the grant in its context and without its Authorization
// header (cloned: a handler must not modify the request it was given).
func (m *middleware) pass(w http.ResponseWriter, r *http.Request, g grant) {
	r2 := r.Clone(withGrant(r.Context(), g))
	r2.Header.Del("Authorization")
	m.next.ServeHTTP(w, r2)
}

// refuse answers 401. The reason goes to a debug line only (never the header or token): a
// 401 is routine for a public URL, and the request's own log line belongs to the caller.
func (m *middleware) refuse(w http.ResponseWriter, r *http.Request, reason string) {
	m.answer(w, r, http.StatusUnauthorized, m.challenge, `{"error":"unauthorized"}`, reason)
}

// refuseLogged refuses like refuse, the first time logging msg and its cause at error level:
// the operator must fix it.
func (m *middleware) refuseLogged(w http.ResponseWriter, r *http.Request, reason, msg string, cause error) {
	m.logged.Do(func() {
		if cause != nil {
			msg += ": " + cause.Error()
		}
		m.logger.ErrorContext(r.Context(), msg)
	})
	m.refuse(w, r, reason)
}

// refuseToken answers 401 to a request that presented a token which is not accepted (OAuth
// mode): the challenge adds error="invalid_token", so a client refreshes or re-authorizes.
func (m *middleware) refuseToken(w http.ResponseWriter, r *http.Request, reason string) {
	m.answer(w, r, http.StatusUnauthorized, m.withParams(`error="invalid_token"`), `{"error":"invalid_token"}`, reason)
}

// withParams is the Bearer challenge with auth-params before resource_metadata (or realm).
func (m *middleware) withParams(params string) string {
	if m.metadataURL != "" {
		return `Bearer ` + params + `, resource_metadata="` + m.metadataURL + `"`
	}
	return `Bearer realm="mindvault", ` + params
}

func (m *middleware) answer(w http.ResponseWriter, r *http.Request, status int, challenge, body, reason string) {
	m.logger.DebugContext(r.Context(), "request refused by inbound auth", "reason", reason, "status", status, "method", obs.Field(r.Method), "path", obs.Field(r.URL.Path))
	h := w.Header()
	if challenge != "" {
		h.Set("WWW-Authenticate", challenge)
	}
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(body + "\n"))
}

// metadata is the RFC 9728 protected-resource metadata document.
type metadata struct {
	Resource               string   `json:"resource"`
	AuthorizationServers   []string `json:"authorization_servers,omitempty"`
	BearerMethodsSupported []string `json:"bearer_methods_supported"`
	ScopesSupported        []string `json:"scopes_supported"`
}

func metadataDoc(cfg Config) []byte {
	scopes := []string{}
	if cfg.Mode == ModeOAuth {
		for _, s := range Scopes {
			scopes = append(scopes, cfg.OAuth.ScopePrefix+s)
		}
	}
	b, _ := json.Marshal(metadata{ // strings only: it cannot fail
		Resource:               cfg.ResourceURL,
		AuthorizationServers:   slices.Clone(cfg.AuthorizationServers),
		BearerMethodsSupported: []string{"header"},
		ScopesSupported:        scopes,
	})
	return append(b, '\n')
}

func (m *middleware) serveMetadata(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		h.Set("Allow", "GET, HEAD")
		w.WriteHeader(http.StatusMethodNotAllowed)
		_, _ = w.Write([]byte(`{"error":"method not allowed"}` + "\n"))
		return
	}
	// Public and identical for everyone; a short cache spares a Lambda invocation per probe.
	h.Set("Cache-Control", "public, max-age=300")
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodGet {
		_, _ = w.Write(m.metadata)
	}
}

// AnonymousCaller is the identity of every caller when inbound auth is off: the endpoint
// cannot tell them apart.
const AnonymousCaller = "anonymous"

// Caller is the authenticated caller's stable identity, binding what the endpoint hands out (a
// confirmation's requestState) to its caller: "token:" and the configured token digest (never
// the token), "sub:" and the OAuth subject, AnonymousCaller in mode none, "" for a context the
// middleware never saw. It is not a secret, but callers should hash it before showing it.
func Caller(ctx context.Context) string {
	g, _ := ctx.Value(grantKey{}).(grant)
	return g.caller
}
