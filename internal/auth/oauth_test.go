package auth

import (
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/mindvault/mcp-endpoint/internal/config"
	"github.com/mindvault/mcp-endpoint/internal/redact"
	"github.com/mindvault/mcp-endpoint/internal/testkit/testissuer"
)

const (
	challengeInvalid = `Bearer error="invalid_token", resource_metadata="` + metadataURL + `"`
	spendBody        = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"spend"}}`
)

// recorder is the protected handler of the OAuth tests: it records the grant, the subject and
// the body it could read.
type recorder struct {
	mu       sync.Mutex
	calls    int
	subject  string
	profiles []string
	all      bool
	authed   bool
	body     string
	authz    int
}

// ServeHTTP is the protocol layer's part: a call is refused with ScopeRefusal when the token
// lacks the scope its body needs, before it counts as handled.
func (rc *recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, err := io.ReadAll(r.Body)
	if refusal := ScopeRefusal(r.Context(), scopeByBody(b)); refusal != nil {
		refusal(w, r)
		return
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.calls++
	rc.subject = Subject(r.Context())
	rc.profiles, rc.all, rc.authed = Allowed(r.Context())
	rc.body = string(b)
	if err != nil {
		rc.body = "read error: " + err.Error()
	}
	rc.authz += len(r.Header.Values("Authorization"))
	_, _ = io.WriteString(w, `{"ok":true}`)
}

// scopeByBody is the scope a body needs in these tests: a body naming "spend" needs the spend
// scope, "write" the write scope, anything else nothing. (The endpoint's real mapping, from
// the tool registry through the protocol decoder, is tested in package server and test/e2e.)
func scopeByBody(body []byte) string {
	switch {
	case strings.Contains(string(body), `"spend"`):
		return ScopeSpend
	case strings.Contains(string(body), `"write"`):
		return ScopeWrite
	}
	return ""
}

type oauthFixture struct {
	iss  *testissuer.Issuer
	h    http.Handler
	m    *middleware
	rec  *recorder
	logs *logBuffer
	now  time.Time
}

func newOAuth(t *testing.T, opts testissuer.Options, tweak func(*Config)) *oauthFixture {
	t.Helper()
	opts.SharedKeys = true // one RSA key for the package, not one per case; each case its own issuer
	iss, err := testissuer.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(iss.Close)
	logger, logs := newLogger(slog.LevelDebug)
	cfg := Config{Mode: ModeOAuth, ResourceURL: resourceURL, OAuth: OAuth{
		Issuer: iss.URL, Audience: resourceURL,
	}}
	if tweak != nil {
		tweak(&cfg)
	}
	f := &oauthFixture{iss: iss, rec: &recorder{}, logs: logs, now: time.Now()}
	f.h = Middleware(cfg, f.rec, logger)
	f.m = f.h.(*middleware)
	f.m.oauth.now = func() time.Time { return f.now }
	return f
}

func (f *oauthFixture) sign(t *testing.T, c testissuer.Claims, o testissuer.SignOptions) string {
	t.Helper()
	tok, err := f.iss.Sign(c, o)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func (f *oauthFixture) post(token, body string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodPost, "http://127.0.0.1:8080/mcp", strings.NewReader(body))
	if token != "" {
		r.Header.Set("Authorization", "Bearer "+token)
	}
	w := httptest.NewRecorder()
	f.h.ServeHTTP(w, r)
	return w
}

// TestOAuthTokenValidation: every check of a JWT access token, each with a token that
// passes all the others, so the case fails for its own reason only.
func TestOAuthTokenValidation(t *testing.T) {
	f := newOAuth(t, testissuer.Options{Path: "/pool_1"}, nil)
	other, err := testissuer.New(testissuer.Options{Path: "/pool_1"}) // same kids, other keys
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	now := time.Now()
	std := func() testissuer.Claims { return f.iss.Standard("user-1", resourceURL, "mindvault:read", "alice") }
	with := func(k string, v any) testissuer.Claims {
		c := std()
		if v == nil {
			delete(c, k)
		} else {
			c[k] = v
		}
		return c
	}
	hs, err := f.iss.HS256WithPublicKey(std())
	if err != nil {
		t.Fatal(err)
	}
	forged, err := other.Sign(other.Standard("user-1", resourceURL, "mindvault:read", "alice"), testissuer.SignOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// A token of the other issuer with our iss: only the signature can tell.
	forgedIss, err := other.Sign(std(), testissuer.SignOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		token string
		ok    bool
	}{
		{"valid RS256", f.sign(t, std(), testissuer.SignOptions{}), true},
		{"valid ES256", f.sign(t, std(), testissuer.SignOptions{Alg: jose.ES256}), true},
		{"typ JWT", f.sign(t, std(), testissuer.SignOptions{Typ: "JWT"}), true},
		{"typ application/at+jwt", f.sign(t, std(), testissuer.SignOptions{Typ: "application/at+jwt"}), true},
		{"no typ (Cognito)", f.sign(t, std(), testissuer.SignOptions{Typ: "-"}), true},
		{"no kid", f.sign(t, std(), testissuer.SignOptions{NoKeyID: true}), true},
		{"audience among several", f.sign(t, with("aud", []string{"https://other.example", resourceURL}), testissuer.SignOptions{}), true},
		{"expired 30 s ago, inside the leeway", f.sign(t, with("exp", now.Add(-30*time.Second).Unix()), testissuer.SignOptions{}), true},
		{"nbf in 30 s, inside the leeway", f.sign(t, with("nbf", now.Add(30*time.Second).Unix()), testissuer.SignOptions{}), true},
		{"wrong audience", f.sign(t, with("aud", "https://other.example/mcp"), testissuer.SignOptions{}), false},
		{"audience prefix only", f.sign(t, with("aud", "https://mv.example.com"), testissuer.SignOptions{}), false},
		{"no audience", f.sign(t, with("aud", nil), testissuer.SignOptions{}), false},
		{"wrong issuer", f.sign(t, with("iss", f.iss.URL+"/"), testissuer.SignOptions{}), false},
		{"no issuer", f.sign(t, with("iss", nil), testissuer.SignOptions{}), false},
		{"expired", f.sign(t, with("exp", now.Add(-2*time.Minute).Unix()), testissuer.SignOptions{}), false},
		{"no exp", f.sign(t, with("exp", nil), testissuer.SignOptions{}), false},
		{"not yet valid", f.sign(t, with("nbf", now.Add(2*time.Minute).Unix()), testissuer.SignOptions{}), false},
		{"issued in the future", f.sign(t, with("iat", now.Add(5*time.Minute).Unix()), testissuer.SignOptions{}), false},
		{"no subject", f.sign(t, with("sub", nil), testissuer.SignOptions{}), false},
		{"typ of another token kind", f.sign(t, std(), testissuer.SignOptions{Typ: "dpop+jwt"}), false},
		{"alg none", testissuer.Unsigned(std()), false},
		{"alg none with a signature", strings.TrimSuffix(testissuer.Unsigned(std()), ".") + ".c2ln", false},
		{"HS256 keyed with the public key", hs, false},
		{"signed by another key under our kid", forged, false},
		{"another key, our iss", forgedIss, false},
		{"not a JWT", "abc.def.ghi", false},
		{"opaque token", "0123456789abcdef0123456789abcdef", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := f.rec.calls
			w := f.post(tc.token, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
			if tc.ok {
				if w.Code != http.StatusOK || f.rec.calls != before+1 {
					t.Fatalf("HTTP %d, handler calls %d: %s", w.Code, f.rec.calls-before, w.Body)
				}
				if f.rec.subject != "user-1" || !slices.Equal(f.rec.profiles, []string{"alice"}) || f.rec.all || !f.rec.authed {
					t.Fatalf("grant: subject %q profiles %v all %v authed %v", f.rec.subject, f.rec.profiles, f.rec.all, f.rec.authed)
				}
				if redact.Unregistered([]string{tc.token}) != nil {
					t.Fatal("an accepted token was not registered as a secret")
				}
				return
			}
			if w.Code != http.StatusUnauthorized || f.rec.calls != before {
				t.Fatalf("HTTP %d, handler calls %d, want 401 and none", w.Code, f.rec.calls-before)
			}
			if got := w.Header().Get("WWW-Authenticate"); got != challengeInvalid {
				t.Fatalf("challenge %q, want %q", got, challengeInvalid)
			}
			if w.Body.String() != `{"error":"invalid_token"}`+"\n" {
				t.Fatalf("body %q", w.Body)
			}
			if redact.Unregistered([]string{tc.token}) == nil {
				t.Fatal("a refused token was registered (a caller could fill the registry)")
			}
		})
	}
	t.Run("no token", func(t *testing.T) {
		w := f.post("", `{}`)
		if got := w.Header().Get("WWW-Authenticate"); w.Code != http.StatusUnauthorized || got != wantChallenge {
			t.Fatalf("HTTP %d, challenge %q, want 401 %q", w.Code, got, wantChallenge)
		}
	})
	t.Run("malformed header", func(t *testing.T) {
		r := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(`{}`))
		r.Header.Set("Authorization", "Bearer a b")
		w := httptest.NewRecorder()
		f.h.ServeHTTP(w, r)
		if got := w.Header().Get("WWW-Authenticate"); w.Code != http.StatusUnauthorized || got != challengeInvalid {
			t.Fatalf("HTTP %d, challenge %q", w.Code, got)
		}
	})
	if f.rec.authz != 0 {
		t.Fatal("the Authorization header reached the protected handler")
	}
	if n := f.iss.JWKSFetches(); n != 1 {
		t.Fatalf("the key set was fetched %d times, want once (cached across requests)", n)
	}
	logs := f.logs.String()
	for _, tc := range cases {
		if strings.Contains(logs, tc.token) {
			t.Fatalf("a token reached the log: %s", tc.name)
		}
	}
}

// TestOAuthScopes: a call needs its tool's scope (403 naming that scope alone otherwise),
// scopes come from scope or scp, the prefix is applied everywhere, and a checked body reaches
// the protocol layer intact.
func TestOAuthScopes(t *testing.T) {
	cases := []struct {
		name, prefix, body string
		scope              any // the token's "scope" claim
		scp                any // its "scp" claim
		want               int
		need               string
	}{
		{"read token lists", "", `{"method":"tools/list"}`, "mindvault:read", nil, 200, ""},
		{"token without scopes lists", "", `{"method":"tools/list"}`, nil, nil, 200, ""},
		{"read token cannot spend", "", spendBody, "mindvault:read", nil, 403, "mindvault:spend"},
		{"write token cannot spend", "", spendBody, "mindvault:read mindvault:write", nil, 403, "mindvault:spend"},
		{"spend token spends", "", spendBody, "mindvault:spend", nil, 200, ""},
		{"spend token cannot write", "", `{"name":"write"}`, "mindvault:spend", nil, 403, "mindvault:write"},
		{"scp array", "", spendBody, nil, []string{"mindvault:read", "mindvault:spend"}, 200, ""},
		{"scp string", "", spendBody, nil, "mindvault:spend", 200, ""},
		{"scope as array", "", spendBody, []string{"mindvault:spend"}, nil, 200, ""},
		{"scope substring is not the scope", "", spendBody, "mindvault:spender", nil, 403, "mindvault:spend"},
		{"scope of another type", "", spendBody, 42, nil, 403, "mindvault:spend"},
		{"prefixed scope", "https://mv.example.com/mcp/", spendBody, "https://mv.example.com/mcp/mindvault:spend", nil, 200, ""},
		{"bare scope under a prefix", "https://mv.example.com/mcp/", spendBody, "mindvault:spend", nil, 403, "https://mv.example.com/mcp/mindvault:spend"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newOAuth(t, testissuer.Options{}, func(c *Config) { c.OAuth.ScopePrefix = tc.prefix })
			c := f.iss.Standard("user-2", resourceURL, "", "alice")
			delete(c, "scope")
			if tc.scope != nil {
				c["scope"] = tc.scope
			}
			if tc.scp != nil {
				c["scp"] = tc.scp
			}
			w := f.post(f.sign(t, c, testissuer.SignOptions{}), tc.body)
			if w.Code != tc.want {
				t.Fatalf("HTTP %d, want %d: %s", w.Code, tc.want, w.Body)
			}
			if tc.want == 403 {
				want := `Bearer error="insufficient_scope", scope="` + tc.need + `", resource_metadata="` + metadataURL + `"`
				if got := w.Header().Get("WWW-Authenticate"); got != want {
					t.Fatalf("challenge\n got %s\nwant %s", got, want)
				}
				if f.rec.calls != 0 || w.Body.String() != `{"error":"insufficient_scope"}`+"\n" {
					t.Fatalf("handler calls %d, body %q", f.rec.calls, w.Body)
				}
				return
			}
			if f.rec.body != tc.body {
				t.Fatalf("the protocol layer read %q, want the body as sent", f.rec.body)
			}
		})
	}
}

// TestOAuthBodyPassThrough: the middleware never reads the body: the protocol layer gets
// every byte (an oversized body stays oversized, so the layer's 413 still applies) and the
// read error when there is one.
func TestOAuthBodyPassThrough(t *testing.T) {
	f := newOAuth(t, testissuer.Options{}, nil)
	tok := f.sign(t, f.iss.Standard("u", resourceURL, "mindvault:read"), testissuer.SignOptions{})
	big := `{"pad":"` + strings.Repeat("x", 10000) + `","name":"read"}`
	if w := f.post(tok, big); w.Code != 200 || f.rec.body != big {
		t.Fatalf("oversized body: HTTP %d, passed on %d of %d bytes", w.Code, len(f.rec.body), len(big))
	}
	r := httptest.NewRequest(http.MethodPost, "/mcp", io.MultiReader(strings.NewReader(`{"na`), &onceErr{err: errors.New("connection reset")}))
	r.Header.Set("Authorization", "Bearer "+tok)
	w := httptest.NewRecorder()
	f.h.ServeHTTP(w, r)
	if f.rec.body != "read error: connection reset" {
		t.Fatalf("the protocol layer must see the read error, saw %q", f.rec.body)
	}
}

// onceErr fails the first read, then reports EOF, as a connection that broke mid-body may:
// whoever reads after the failure must still learn about it.
type onceErr struct {
	err  error
	done bool
}

func (o *onceErr) Read([]byte) (int, error) {
	if o.done {
		return 0, io.EOF
	}
	o.done = true
	return 0, o.err
}

// TestOAuthKeyRotation: keys are fetched on the first token, not before; an unknown kid
// refreshes the set at most once per KeyRefreshInterval; a rotation is picked up.
func TestOAuthKeyRotation(t *testing.T) {
	f := newOAuth(t, testissuer.Options{}, nil)
	if f.iss.DiscoveryFetches()+f.iss.JWKSFetches() != 0 {
		t.Fatal("keys were fetched before any token arrived")
	}
	claims := f.iss.Standard("user-3", resourceURL, "mindvault:read")
	old := f.sign(t, claims, testissuer.SignOptions{})
	for range 3 {
		if w := f.post(old, `{}`); w.Code != 200 {
			t.Fatalf("HTTP %d", w.Code)
		}
	}
	if d, j := f.iss.DiscoveryFetches(), f.iss.JWKSFetches(); d != 1 || j != 1 {
		t.Fatalf("discovery %d, JWKS %d fetches, want 1 and 1", d, j)
	}
	if err := f.iss.Rotate(); err != nil {
		t.Fatal(err)
	}
	f.now = f.now.Add(KeyRefreshInterval) // the last fetch is exactly one interval old
	fresh := f.sign(t, claims, testissuer.SignOptions{})
	if w := f.post(fresh, `{}`); w.Code != 200 {
		t.Fatalf("a token of the rotated key: HTTP %d, want 200 after a refresh", w.Code)
	}
	if j := f.iss.JWKSFetches(); j != 2 {
		t.Fatalf("JWKS fetched %d times, want 2", j)
	}
	// The old key is gone from the set; the refresh just happened, so no new fetch.
	unknown := f.sign(t, claims, testissuer.SignOptions{KeyID: "never-published"})
	for _, tok := range []string{old, unknown, old} {
		if w := f.post(tok, `{}`); w.Code != 401 {
			t.Fatalf("HTTP %d, want 401", w.Code)
		}
	}
	if j := f.iss.JWKSFetches(); j != 2 {
		t.Fatalf("unknown kids fetched the JWKS %d times within the interval, want no new fetch", j)
	}
	f.now = f.now.Add(KeyRefreshInterval - time.Second)
	f.post(unknown, `{}`)
	if j := f.iss.JWKSFetches(); j != 2 {
		t.Fatalf("fetched before the interval was over (%d)", j)
	}
	f.now = f.now.Add(time.Second)
	f.post(unknown, `{}`)
	if j := f.iss.JWKSFetches(); j != 3 {
		t.Fatalf("JWKS fetched %d times, want a third fetch once the interval passed", j)
	}
	// Concurrent requests with a kid of a new rotation share one fetch, and all of them wait
	// for it rather than being refused while it runs.
	if err := f.iss.Rotate(); err != nil {
		t.Fatal(err)
	}
	f.now = f.now.Add(KeyRefreshInterval)
	rotated := f.sign(t, claims, testissuer.SignOptions{})
	var wg sync.WaitGroup
	codes := make([]int, 8)
	for n := range codes {
		wg.Add(1)
		go func() { defer wg.Done(); codes[n] = f.post(rotated, `{}`).Code }()
	}
	wg.Wait()
	if j := f.iss.JWKSFetches(); j != 4 {
		t.Fatalf("8 concurrent misses fetched %d times in all, want one more (4)", j)
	}
	for _, c := range codes {
		if c != 200 {
			t.Fatalf("concurrent requests during the refresh: %v, want all 200", codes)
		}
	}
	fresh = rotated
	// Keys older than KeyMaxAge are fetched again even for a known kid.
	f.now = f.now.Add(KeyMaxAge)
	if w := f.post(fresh, `{}`); w.Code != 200 || f.iss.JWKSFetches() != 5 {
		t.Fatalf("stale keys: HTTP %d, JWKS %d, want 200 and a refetch", w.Code, f.iss.JWKSFetches())
	}
}

// TestOAuthIssuerUnreachable: with no key ever fetched, requests with a token get 503 and a
// log line; keys already cached keep working, and a kid they lack is 401, not 503.
func TestOAuthIssuerUnreachable(t *testing.T) {
	f := newOAuth(t, testissuer.Options{}, nil)
	tok := f.sign(t, f.iss.Standard("user-4", resourceURL, "mindvault:read"), testissuer.SignOptions{})
	f.iss.SetDown(http.StatusServiceUnavailable)

	w := f.post(tok, `{}`)
	if w.Code != http.StatusServiceUnavailable || w.Header().Get("Retry-After") != "5" || f.rec.calls != 0 {
		t.Fatalf("cold and down: HTTP %d, Retry-After %q, handler calls %d", w.Code, w.Header().Get("Retry-After"), f.rec.calls)
	}
	if !strings.Contains(f.logs.String(), "OAuth signing keys could not be fetched") || !strings.Contains(f.logs.String(), "answered 503") {
		t.Fatalf("no clear log line: %s", f.logs)
	}
	if w := f.post("", `{}`); w.Code != 401 {
		t.Fatalf("no token while the issuer is down: HTTP %d, want 401", w.Code)
	}
	d := f.iss.DiscoveryFetches()
	if w := f.post(tok, `{}`); w.Code != 503 || f.iss.DiscoveryFetches() != d {
		t.Fatalf("retry inside KeyColdRetryInterval: HTTP %d, new fetches %d", w.Code, f.iss.DiscoveryFetches()-d)
	}

	f.iss.SetDown(0)
	f.now = f.now.Add(KeyColdRetryInterval)
	if w := f.post(tok, `{}`); w.Code != 200 {
		t.Fatalf("issuer back: HTTP %d", w.Code)
	}

	f.iss.SetDown(http.StatusBadGateway)
	if w := f.post(tok, `{}`); w.Code != 200 {
		t.Fatalf("warm cache, issuer down: HTTP %d, want 200", w.Code)
	}
	f.now = f.now.Add(KeyRefreshInterval)
	other := f.sign(t, f.iss.Standard("user-4", resourceURL, "mindvault:read"), testissuer.SignOptions{KeyID: "rotated-away"})
	if w := f.post(other, `{}`); w.Code != 401 || w.Header().Get("WWW-Authenticate") != challengeInvalid {
		t.Fatalf("unknown kid after a failed refresh: HTTP %d %q, want 401 invalid_token", w.Code, w.Header().Get("WWW-Authenticate"))
	}
	f.now = f.now.Add(KeyMaxAge)
	if w := f.post(tok, `{}`); w.Code != 200 {
		t.Fatalf("stale cache, refresh failing: HTTP %d, want the cached keys to keep working", w.Code)
	}
	if !strings.Contains(f.logs.String(), "keys fetched before stay in use") {
		t.Fatalf("the warm failure was not logged: %s", f.logs)
	}

	// An issuer that is gone altogether (connection refused) behaves the same when cold.
	g := newOAuth(t, testissuer.Options{}, nil)
	tok2 := g.sign(t, g.iss.Standard("user-5", resourceURL, ""), testissuer.SignOptions{})
	g.iss.Close()
	if w := g.post(tok2, `{}`); w.Code != 503 {
		t.Fatalf("closed issuer: HTTP %d, want 503", w.Code)
	}
	if !strings.Contains(g.logs.String(), "connection refused or unreachable") {
		t.Fatalf("the log does not say why: %s", g.logs)
	}
}

// TestOAuthDiscovery: the RFC 8414 path is the fallback for an issuer without OpenID
// discovery, and a discovery document naming another issuer is refused (no keys, 503).
func TestOAuthDiscovery(t *testing.T) {
	f := newOAuth(t, testissuer.Options{Path: "/tenant/a", RFC8414Only: true}, nil)
	tok := f.sign(t, f.iss.Standard("user-6", resourceURL, ""), testissuer.SignOptions{Alg: jose.ES256})
	if w := f.post(tok, `{}`); w.Code != 200 {
		t.Fatalf("RFC 8414 only: HTTP %d", w.Code)
	}
	if d := f.iss.DiscoveryFetches(); d != 1 {
		t.Fatalf("discovery hits %d, want 1 (the OpenID path is a 404 the issuer does not count)", d)
	}

	g := newOAuth(t, testissuer.Options{}, nil)
	g.iss.SetDiscoveryIssuer("https://attacker.example")
	tok = g.sign(t, g.iss.Standard("user-6", resourceURL, ""), testissuer.SignOptions{})
	if w := g.post(tok, `{}`); w.Code != 503 || g.iss.JWKSFetches() != 0 {
		t.Fatalf("mixed-up discovery: HTTP %d, JWKS fetches %d, want 503 and none", w.Code, g.iss.JWKSFetches())
	}
	if !strings.Contains(g.logs.String(), "not the configured one") {
		t.Fatalf("the log does not name the mismatch: %s", g.logs)
	}
}

// TestOAuthProfilesClaim: the claim may be a list or a space-separated string, "*" grants
// every profile, names that cannot be profiles are dropped, another claim can be named.
func TestOAuthProfilesClaim(t *testing.T) {
	cases := []struct {
		name, claim string
		value       any
		profiles    []string
		all         bool
	}{
		{"list", "", []string{"alice", "bob"}, []string{"alice", "bob"}, false},
		{"space-separated", "", "alice  bob", []string{"alice", "bob"}, false},
		{"star", "", []string{"*"}, nil, true},
		{"invalid names dropped", "", []string{"alice", "../etc", "", "a b", "alice"}, []string{"alice"}, false},
		{"not a list", "", map[string]any{"alice": true}, nil, false},
		{"missing", "", nil, nil, false},
		{"Cognito groups", "cognito:groups", []string{"alice"}, []string{"alice"}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newOAuth(t, testissuer.Options{}, func(c *Config) { c.OAuth.ProfilesClaim = tc.claim })
			c := f.iss.Standard("user-7", resourceURL, "mindvault:read")
			name := tc.claim
			if name == "" {
				name = config.DefaultOAuthProfilesClaim
			}
			if tc.value != nil {
				c[name] = tc.value
			}
			if w := f.post(f.sign(t, c, testissuer.SignOptions{}), `{}`); w.Code != 200 {
				t.Fatalf("HTTP %d", w.Code)
			}
			if !slices.Equal(f.rec.profiles, tc.profiles) || f.rec.all != tc.all {
				t.Fatalf("profiles %v all %v, want %v %v", f.rec.profiles, f.rec.all, tc.profiles, tc.all)
			}
		})
	}
}

// TestOAuthMetadata: the protected-resource metadata names the issuer and the scopes.
func TestOAuthMetadata(t *testing.T) {
	f := newOAuth(t, testissuer.Options{}, func(c *Config) {
		c.AuthorizationServers = []string{"https://ignored.example"}
		c.OAuth.ScopePrefix = "rs/"
	})
	w := do(f.h, http.MethodGet, WellKnownPath+"/mcp")
	var doc metadata
	if err := json.Unmarshal(w.Body.Bytes(), &doc); err != nil || w.Code != 200 {
		t.Fatalf("HTTP %d %s", w.Code, w.Body)
	}
	want := metadata{Resource: resourceURL, AuthorizationServers: []string{f.iss.URL}, BearerMethodsSupported: []string{"header"},
		ScopesSupported: []string{"rs/mindvault:read", "rs/mindvault:spend", "rs/mindvault:write"}}
	if got, _ := json.Marshal(doc); string(got) != string(must(json.Marshal(want))) {
		t.Fatalf("metadata %s", got)
	}
	if f.iss.JWKSFetches() != 0 {
		t.Fatal("serving the metadata fetched keys")
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

// TestOAuthMisconfiguredFailsClosed: OAuth mode without a usable issuer or audience refuses
// every request, a valid token included, and says why once.
func TestOAuthMisconfiguredFailsClosed(t *testing.T) {
	cases := []struct {
		name  string
		tweak func(*Config)
		log   string
	}{
		{"no issuer", func(c *Config) { c.OAuth.Issuer = "" }, "MINDVAULT_OAUTH_ISSUER is not set"},
		{"plain http issuer", func(c *Config) { c.OAuth.Issuer = "http://auth.example.com" }, "must be an https URL"},
		{"no audience", func(c *Config) { c.OAuth.Audience = "" }, "no audience can be checked"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newOAuth(t, testissuer.Options{}, tc.tweak)
			tok := f.sign(t, f.iss.Standard("user-8", resourceURL, "mindvault:read mindvault:spend"), testissuer.SignOptions{})
			for range 3 {
				if w := f.post(tok, `{}`); w.Code != 401 || f.rec.calls != 0 {
					t.Fatalf("HTTP %d, handler calls %d", w.Code, f.rec.calls)
				}
			}
			if n := strings.Count(f.logs.String(), tc.log); n != 1 {
				t.Fatalf("logged %d times, want once: %s", n, f.logs)
			}
			if f.iss.JWKSFetches() != 0 {
				t.Fatal("a broken configuration fetched keys")
			}
		})
	}
}
