package auth

import (
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
)

const (
	resourceURL   = "https://mv.example.com/mcp"
	metadataURL   = "https://mv.example.com/.well-known/oauth-protected-resource/mcp"
	wantChallenge = `Bearer resource_metadata="` + metadataURL + `"`
	tokenAlice    = "tok-alice.0123456789~ABCdef_+/=="
	tokenAll      = "tok-all-9876543210"
	tokenUnknown  = "tok-unknown-555"
)

// seen is what the protected handler observed.
type seen struct {
	mu       sync.Mutex
	calls    int
	authz    []string
	profiles []string
	all      bool
	authed   bool
}

// protected mimics the protocol server's routing (POST /mcp 200, other methods 405, other
// paths 404) and records what the middleware passed on.
func protected(s *seen) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.calls++
		s.authz = append(s.authz, r.Header.Values("Authorization")...)
		s.profiles, s.all, s.authed = Allowed(r.Context())
		s.mu.Unlock()
		switch {
		case r.URL.Path != "/mcp":
			w.WriteHeader(http.StatusNotFound)
		case r.Method != http.MethodPost:
			w.WriteHeader(http.StatusMethodNotAllowed)
		default:
			_, _ = io.WriteString(w, `{"ok":true}`)
		}
	})
}

// logBuffer collects slog JSON lines at debug level, so every line anything writes is checked.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

func (l *logBuffer) lines() []string {
	return strings.FieldsFunc(l.String(), func(r rune) bool { return r == '\n' })
}

func newLogger(level slog.Level) (*slog.Logger, *logBuffer) {
	b := &logBuffer{}
	return slog.New(slog.NewJSONHandler(b, &slog.HandlerOptions{Level: level})), b
}

func tokensConfig(t *testing.T) Config {
	t.Helper()
	tokens, err := ParseTokens(hexDigest(tokenAlice) + ":alice|bob\n" + hexDigest(tokenAll) + ":*")
	if err != nil {
		t.Fatal(err)
	}
	return Config{Mode: ModeTokens, Tokens: tokens, ResourceURL: resourceURL,
		AuthorizationServers: []string{"https://auth.example.com"}}
}

func do(h http.Handler, method, path string, header ...string) *httptest.ResponseRecorder {
	var body io.Reader
	if method == http.MethodPost {
		body = strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	}
	r := httptest.NewRequest(method, "http://127.0.0.1:8080"+path, body)
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Add(header[i], header[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

func TestMiddlewareMatrix(t *testing.T) {
	logger, logs := newLogger(slog.LevelDebug)
	s := &seen{}
	h := Middleware(tokensConfig(t), protected(s), logger)

	type route struct {
		method, path string
		authed       int // status once authenticated
		public       bool
	}
	routes := []route{
		{http.MethodPost, "/mcp", http.StatusOK, false},
		{http.MethodGet, "/mcp", http.StatusMethodNotAllowed, false},
		{http.MethodDelete, "/mcp", http.StatusMethodNotAllowed, false},
		{http.MethodPost, "/unknown", http.StatusNotFound, false},
		{http.MethodGet, "/.well-known/oauth-protected-resource/other", http.StatusNotFound, false},
		{http.MethodGet, WellKnownPath, http.StatusOK, true},
		{http.MethodGet, WellKnownPath + "/mcp", http.StatusOK, true},
	}
	headers := []struct {
		name string
		kv   []string
		ok   bool
	}{
		{"no header", nil, false},
		{"wrong token", []string{"Authorization", "Bearer " + tokenUnknown}, false},
		{"digest as token", []string{"Authorization", "Bearer " + hexDigest(tokenAlice)}, false},
		{"no token", []string{"Authorization", "Bearer"}, false},
		{"empty token", []string{"Authorization", "Bearer "}, false},
		{"basic scheme", []string{"Authorization", "Basic dXNlcjpwYXNz"}, false},
		{"token without scheme", []string{"Authorization", tokenAlice}, false},
		{"space inside token", []string{"Authorization", "Bearer tok alice"}, false},
		{"illegal character", []string{"Authorization", "Bearer " + tokenAlice + "\""}, false},
		{"two headers", []string{"Authorization", "Bearer " + tokenAlice, "Authorization", "Bearer " + tokenAlice}, false},
		{"right token", []string{"Authorization", "Bearer " + tokenAlice}, true},
		{"right token, lower-case scheme, extra spaces", []string{"Authorization", "bearer   " + tokenAlice}, true},
		{"star token", []string{"Authorization", "Bearer " + tokenAll}, true},
	}
	for _, rt := range routes {
		for _, hd := range headers {
			t.Run(rt.method+" "+rt.path+" "+hd.name, func(t *testing.T) {
				before := s.calls
				w := do(h, rt.method, rt.path, hd.kv...)
				body := w.Body.String()
				switch {
				case rt.public:
					if w.Code != http.StatusOK || !strings.Contains(body, `"resource":"`+resourceURL+`"`) {
						t.Errorf("metadata: %d %s", w.Code, body)
					}
					if s.calls != before {
						t.Error("metadata request reached the protected handler")
					}
				case hd.ok:
					if w.Code != rt.authed || s.calls != before+1 {
						t.Errorf("status %d (want %d), handler calls %d", w.Code, rt.authed, s.calls-before)
					}
					if w.Header().Get("WWW-Authenticate") != "" {
						t.Error("challenge on an accepted request")
					}
				default:
					if w.Code != http.StatusUnauthorized || s.calls != before {
						t.Errorf("status %d (want 401), handler calls %d", w.Code, s.calls-before)
					}
					if got := w.Header().Get("WWW-Authenticate"); got != wantChallenge {
						t.Errorf("challenge %q", got)
					}
					if body != `{"error":"unauthorized"}`+"\n" || w.Header().Get("Content-Type") != "application/json" {
						t.Errorf("body %q (%s)", body, w.Header().Get("Content-Type"))
					}
				}
				for _, tok := range []string{tokenAlice, tokenAll, tokenUnknown, hexDigest(tokenAlice)[:16]} {
					if strings.Contains(body, tok) || strings.Contains(fmt.Sprint(w.Header()), tok) {
						t.Errorf("response echoes %q", tok)
					}
				}
			})
		}
	}
	if len(s.authz) != 0 {
		t.Errorf("the Authorization header reached the protected handler: %d values", len(s.authz))
	}
	assertNoSecretsLogged(t, logs.String())
	if len(logs.lines()) == 0 {
		t.Error("refusals left no debug line at all")
	}
}

// assertNoSecretsLogged checks log output for every token and digest in any form.
func assertNoSecretsLogged(t *testing.T, out string) {
	t.Helper()
	for _, tok := range []string{tokenAlice, tokenAll, tokenUnknown} {
		d := Digest(tok)
		for _, form := range []string{tok, tok[:10], hex.EncodeToString(d[:]), hex.EncodeToString(d[:8]), strings.ToUpper(hex.EncodeToString(d[:8]))} {
			if strings.Contains(out, form) {
				t.Errorf("log output contains %q", form)
			}
		}
	}
	if strings.Contains(strings.ToLower(out), "bearer ") {
		t.Error("log output contains an Authorization value")
	}
}

func TestMiddlewareGrants(t *testing.T) {
	for _, tc := range []struct {
		token    string
		profiles []string
		all      bool
		permits  map[string]bool
	}{
		{tokenAlice, []string{"alice", "bob"}, false, map[string]bool{"alice": true, "bob": true, "carol": false, "*": false, "": false}},
		{tokenAll, []string{"*"}, true, map[string]bool{"alice": true, "carol": true}},
	} {
		var ctx context.Context
		inner := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { ctx = r.Context() })
		if w := do(Middleware(tokensConfig(t), inner, nil), http.MethodPost, "/mcp", "Authorization", "Bearer "+tc.token); w.Code != http.StatusOK {
			t.Fatalf("status %d", w.Code)
		}
		profiles, all, authed := Allowed(ctx)
		if !slices.Equal(profiles, tc.profiles) || all != tc.all || !authed {
			t.Errorf("Allowed = %v %v %v", profiles, all, authed)
		}
		profiles[0] = "mallory" // the caller's copy must not alter the grant
		for p, want := range tc.permits {
			if Permits(ctx, p) != want {
				t.Errorf("Permits(%q) = %v", p, !want)
			}
		}
	}

	// Mode none: everyone passes, unauthenticated, every profile allowed.
	var ctx context.Context
	open := Middleware(Config{Mode: ModeNone}, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { ctx = r.Context() }), nil)
	if w := do(open, http.MethodPost, "/mcp"); w.Code != http.StatusOK {
		t.Fatalf("mode none: %d", w.Code)
	}
	if p, all, authed := Allowed(ctx); p != nil || !all || authed || !Permits(ctx, "anyone") {
		t.Errorf("mode none: Allowed = %v %v %v", p, all, authed)
	}

	// Without the middleware nothing is allowed (fail closed); WithAllowed sets it by hand.
	if p, all, authed := Allowed(context.Background()); p != nil || all || authed || Permits(context.Background(), "alice") {
		t.Error("a bare context allows something")
	}
	c := WithAllowed(context.Background(), []string{"alice"}, false, true)
	if !Permits(c, "alice") || Permits(c, "bob") {
		t.Error("WithAllowed")
	}
}

func TestMiddlewareModes(t *testing.T) {
	s := &seen{}
	for _, tc := range []struct {
		name      string
		cfg       Config
		path      string
		status    int
		challenge string
	}{
		{"none: passes", Config{Mode: ModeNone}, "/mcp", http.StatusOK, ""},
		{"none: metadata served", Config{Mode: ModeNone, ResourceURL: resourceURL}, WellKnownPath + "/mcp", http.StatusOK, ""},
		{"none: no metadata without resource URL", Config{Mode: ModeNone}, WellKnownPath, http.StatusNotFound, ""},
		{"unknown mode fails closed", Config{Mode: "token", Tokens: tokensConfig(t).Tokens}, "/mcp", http.StatusUnauthorized, `Bearer realm="mindvault"`},
		{"empty mode fails closed", Config{}, "/mcp", http.StatusUnauthorized, `Bearer realm="mindvault"`},
		{"tokens without resource URL: realm, metadata not public", Config{Mode: ModeTokens, Tokens: tokensConfig(t).Tokens}, WellKnownPath, http.StatusUnauthorized, `Bearer realm="mindvault"`},
		{"custom MCP path", Config{Mode: ModeTokens, Tokens: tokensConfig(t).Tokens, ResourceURL: "http://127.0.0.1:9000/v1/mcp", MCPPath: "/v1/mcp"}, "/v1/mcp", http.StatusUnauthorized,
			`Bearer resource_metadata="http://127.0.0.1:9000/.well-known/oauth-protected-resource/v1/mcp"`},
		{"custom MCP path: its metadata", Config{Mode: ModeTokens, ResourceURL: "http://127.0.0.1:9000/v1/mcp", MCPPath: "/v1/mcp"}, WellKnownPath + "/v1/mcp", http.StatusOK, ""},
		{"custom MCP path: /mcp suffix is not public", Config{Mode: ModeTokens, ResourceURL: "http://127.0.0.1:9000/v1/mcp", MCPPath: "/v1/mcp"}, WellKnownPath + "/mcp", http.StatusUnauthorized,
			`Bearer resource_metadata="http://127.0.0.1:9000/.well-known/oauth-protected-resource/v1/mcp"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			method := http.MethodPost
			if strings.HasPrefix(tc.path, WellKnownPath) {
				method = http.MethodGet
			}
			w := do(Middleware(tc.cfg, protected(s), nil), method, tc.path)
			if w.Code != tc.status || w.Header().Get("WWW-Authenticate") != tc.challenge {
				t.Errorf("%d %q, want %d %q", w.Code, w.Header().Get("WWW-Authenticate"), tc.status, tc.challenge)
			}
		})
	}
}

func TestMetadataDocument(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  Config
		want string
	}{
		{"with authorization servers", tokensConfig(t),
			`{"resource":"https://mv.example.com/mcp","authorization_servers":["https://auth.example.com"],"bearer_methods_supported":["header"],"scopes_supported":[]}`},
		{"without", Config{Mode: ModeTokens, ResourceURL: resourceURL},
			`{"resource":"https://mv.example.com/mcp","bearer_methods_supported":["header"],"scopes_supported":[]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := Middleware(tc.cfg, protected(&seen{}), nil)
			for _, p := range []string{WellKnownPath, WellKnownPath + "/mcp"} {
				w := do(h, http.MethodGet, p)
				if w.Code != http.StatusOK || strings.TrimSpace(w.Body.String()) != tc.want || w.Header().Get("Content-Type") != "application/json" {
					t.Errorf("%s: %d %s", p, w.Code, w.Body.String())
				}
				var doc map[string]any
				if err := json.Unmarshal(w.Body.Bytes(), &doc); err != nil {
					t.Error(err)
				}
			}
			if w := do(h, http.MethodHead, WellKnownPath); w.Code != http.StatusOK || w.Body.Len() != 0 {
				t.Errorf("HEAD: %d %q", w.Code, w.Body.String())
			}
			if w := do(h, http.MethodPost, WellKnownPath); w.Code != http.StatusMethodNotAllowed || w.Header().Get("Allow") != "GET, HEAD" {
				t.Errorf("POST: %d %q", w.Code, w.Header().Get("Allow"))
			}
		})
	}
}

func TestNoTokensConfigured(t *testing.T) {
	for _, level := range []slog.Level{slog.LevelInfo, slog.LevelDebug} {
		t.Run(level.String(), func(t *testing.T) {
			logger, logs := newLogger(level)
			s := &seen{}
			h := Middleware(Config{Mode: ModeTokens, ResourceURL: resourceURL}, protected(s), logger)
			var wg sync.WaitGroup
			codes := make([]int, 64)
			for i := range codes {
				wg.Add(1)
				go func() {
					defer wg.Done()
					hdr := []string{"Authorization", "Bearer " + tokenAlice}
					if i%2 == 0 {
						hdr = nil
					}
					codes[i] = do(h, http.MethodPost, "/mcp", hdr...).Code
				}()
			}
			wg.Wait()
			for i, c := range codes {
				if c != http.StatusUnauthorized {
					t.Errorf("request %d: %d", i, c)
				}
			}
			if s.calls != 0 {
				t.Errorf("%d requests reached the handler", s.calls)
			}
			var once []string
			for _, l := range logs.lines() {
				if strings.Contains(l, "no access tokens are configured") {
					once = append(once, l)
				}
			}
			if len(once) != 1 || !strings.Contains(once[0], `"level":"ERROR"`) {
				t.Errorf("%d no-token lines, want exactly one at ERROR", len(once))
			}
			if level == slog.LevelInfo && len(logs.lines()) != 1 {
				t.Errorf("%d lines at info level, want exactly 1", len(logs.lines()))
			}
			assertNoSecretsLogged(t, logs.String())
			// The metadata stays public, so a client can still discover how to authenticate.
			if w := do(h, http.MethodGet, WellKnownPath+"/mcp"); w.Code != http.StatusOK {
				t.Errorf("metadata: %d", w.Code)
			}
		})
	}
}

func TestMatchIsConstantTime(t *testing.T) {
	var tokens []Token
	for i := range 5 {
		tokens = append(tokens, Token{Digest: Digest(fmt.Sprintf("tok-%d", i)), Profiles: []string{fmt.Sprintf("p%d", i)}})
	}
	calls := 0
	compare := func(x, y []byte) int { calls++; return subtle.ConstantTimeCompare(x, y) }

	nearMiss := Digest("tok-0")
	nearMiss[31] ^= 1
	for _, tc := range []struct {
		name    string
		sum     [32]byte
		profile string // "" = no match
	}{
		{"first entry", Digest("tok-0"), "p0"},
		{"middle entry", Digest("tok-2"), "p2"},
		{"last entry", Digest("tok-4"), "p4"},
		{"unknown", Digest("tok-9"), ""},
		{"last byte differs", nearMiss, ""},
	} {
		calls = 0
		got, ok := match(tokens, tc.sum, compare)
		if ok != (tc.profile != "") || (ok && got.Profiles[0] != tc.profile) {
			t.Errorf("%s: %v %v", tc.name, got.Profiles, ok)
		}
		if calls != len(tokens) {
			t.Errorf("%s: %d comparisons, want %d (no early exit)", tc.name, calls, len(tokens))
		}
	}
}

// Allowed reports the profiles the caller may use: all is true for an unrestricted caller
// (mode none, or a "*" token), authenticated is true when a token was checked. A context the
// middleware never saw allows nothing.
func Allowed(ctx context.Context) (profiles []string, all bool, authenticated bool) {
	g, _ := ctx.Value(grantKey{}).(grant) // none: the zero grant allows nothing
	return slices.Clone(g.profiles), g.all, g.authenticated
}
