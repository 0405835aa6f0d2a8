package e2e_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	jose "github.com/go-jose/go-jose/v4"

	"github.com/mindvault/mcp-endpoint/internal/auth"
	"github.com/mindvault/mcp-endpoint/internal/config"
	"github.com/mindvault/mcp-endpoint/internal/server"
	"github.com/mindvault/mcp-endpoint/internal/server/funcurl"
	"github.com/mindvault/mcp-endpoint/internal/testkit/testissuer"
	"github.com/mindvault/mcp-endpoint/internal/tools"
)

const (
	oauthResource = "https://mcp.example.org/mcp"
	oauthMetadata = "https://mcp.example.org/.well-known/oauth-protected-resource/mcp"
	allScopes     = "mindvault:read mindvault:spend mindvault:write"
)

// oauthEnv boots the product in OAuth mode against a loopback issuer. Requests carry a token
// of user-demo with every scope, bound to the demo profile, unless a test swaps e.token.
func oauthEnv(t *testing.T) (*env, *testissuer.Issuer) {
	t.Helper()
	iss, err := testissuer.New(testissuer.Options{Path: "/us-east-1_pool", SharedKeys: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(iss.Close)
	tok := mint(t, iss, iss.Standard("user-demo", oauthResource, allScopes, "demo"))
	e := newEnv(t, map[string]string{
		"MINDVAULT_AUTH": "oauth", "MINDVAULT_OAUTH_ISSUER": iss.URL, "MINDVAULT_RESOURCE_URL": oauthResource,
		"test.token": tok,
	})
	return e, iss
}

func mint(t *testing.T, iss *testissuer.Issuer, c testissuer.Claims) string {
	t.Helper()
	tok, err := iss.Sign(c, testissuer.SignOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// eraRequest builds a POST of one JSON-RPC request in an era; params may be "" (none).
func eraRequest(modern bool, id int, method, params string) *http.Request {
	var body string
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	switch {
	case modern && params == "":
		params = "{" + meta + "}"
	case modern:
		params = "{" + meta + "," + strings.TrimPrefix(params, "{")
	}
	body = `{"jsonrpc":"2.0","id":` + itoa(id) + `,"method":"` + method + `"`
	if params != "" {
		body += `,"params":` + params
	}
	body += "}"
	r := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	if modern {
		r.Header.Set("MCP-Protocol-Version", "2026-07-28")
		r.Header.Set("Mcp-Method", method)
		var p struct {
			Name string `json:"name"`
		}
		_ = json.Unmarshal([]byte(params), &p)
		if p.Name != "" {
			r.Header.Set("Mcp-Name", p.Name)
		}
	} else {
		r.Header.Set("MCP-Protocol-Version", "2025-11-25")
	}
	return r
}

func (e *env) send(r *http.Request, token string) *httptest.ResponseRecorder {
	if token != "" {
		r.Header.Set("Authorization", "Bearer "+token)
	}
	w := httptest.NewRecorder()
	e.b.Handler.ServeHTTP(w, r)
	return w
}

// TestToolScopesCoverEveryTool: every registered tool needs exactly one of the three scopes,
// derived from its annotations: spend for the payment tools, read for readOnlyHint, write for
// the rest; and each scope guards at least one tool.
func TestToolScopesCoverEveryTool(t *testing.T) {
	cfg, _ := config.Load(func(string) string { return "" }, false)
	reg := tools.All(server.Deps(cfg, nil))
	scopes := server.ToolScopes(reg)
	used := map[string]int{}
	spend := []string{"mindvault_buy", "mindvault_publish"}
	for _, tl := range reg.Tools() {
		d := tl.Definition()
		got, ok := scopes[d.Name]
		if !ok || !slices.Contains(auth.Scopes, got) {
			t.Errorf("%s: scope %q, want one of %v", d.Name, got, auth.Scopes)
			continue
		}
		want := auth.ScopeWrite
		switch {
		case slices.Contains(spend, d.Name):
			want = auth.ScopeSpend
			if d.Annotations.ReadOnly {
				t.Errorf("%s pays but is annotated read-only", d.Name)
			}
		case d.Annotations.ReadOnly:
			want = auth.ScopeRead
		}
		if got != want {
			t.Errorf("%s: scope %s, want %s", d.Name, got, want)
		}
		used[got]++
	}
	if len(scopes) != len(reg.Names()) {
		t.Errorf("%d scopes for %d tools", len(scopes), len(reg.Names()))
	}
	for _, s := range auth.Scopes {
		if used[s] == 0 {
			t.Errorf("no tool needs %s", s)
		}
	}
	for _, name := range spend {
		if _, ok := reg.Lookup(name); !ok {
			t.Errorf("spend tool %s is not registered", name)
		}
	}
}

// TestOAuthScopePerTool: in both eras, every tool is refused with 403 and its own scope in the
// challenge to a token holding the two other scopes, and admitted with a token holding only
// its scope.
func TestOAuthScopePerTool(t *testing.T) {
	// Long and self-contained: harness_test.go, "Which tests run in parallel".
	t.Parallel()
	e, iss := oauthEnv(t)
	scopes := server.ToolScopes(tools.All(e.b.Deps))
	names := make([]string, 0, len(scopes))
	for n := range scopes {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, modern := range []bool{false, true} {
		for _, name := range names {
			need := scopes[name]
			var others []string
			for _, s := range auth.Scopes {
				if s != need {
					others = append(others, s)
				}
			}
			lacking := mint(t, iss, iss.Standard("user-s", oauthResource, strings.Join(others, " "), "demo"))
			only := mint(t, iss, iss.Standard("user-s", oauthResource, need, "demo"))
			params := `{"name":"` + name + `","arguments":{}}`

			w := e.send(eraRequest(modern, 7, "tools/call", params), lacking)
			want := `Bearer error="insufficient_scope", scope="` + need + `", resource_metadata="` + oauthMetadata + `"`
			if w.Code != http.StatusForbidden || w.Header().Get("WWW-Authenticate") != want {
				t.Errorf("modern=%v %s without %s: HTTP %d %q", modern, name, need, w.Code, w.Header().Get("WWW-Authenticate"))
			}
			w = e.send(eraRequest(modern, 8, "tools/call", params), only)
			if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `"result"`) {
				t.Errorf("modern=%v %s with only %s: HTTP %d %s", modern, name, need, w.Code, w.Body)
			}
		}
	}
}

// TestOAuthEndToEnd: the protocol methods need only a valid token, a payment needs the spend
// scope (and a read token's refusal reaches no downstream), the token never travels to a
// downstream nor into the log, and the log names the caller by subject.
func TestOAuthEndToEnd(t *testing.T) {
	e, iss := oauthEnv(t)
	noScope := mint(t, iss, iss.Standard("user-min", oauthResource, "", "demo"))
	read := mint(t, iss, iss.Standard("user-read", oauthResource, "mindvault:read", "demo"))
	spend := mint(t, iss, iss.Standard("user-spend", oauthResource, "mindvault:spend", "demo"))
	es := mustSign(t, iss, iss.Standard("user-es", oauthResource, allScopes, "demo"), jose.ES256)
	e.sb.SetWatch(e.token, noScope, read, spend, es)

	for _, modern := range []bool{false, true} {
		cases := []struct {
			method, params string
			status         int
		}{
			{"initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}`, 200},
			{"ping", "", 200},
			{"tools/list", "", 200},
			{"server/discover", "", 200},
		}
		for _, c := range cases {
			if modern && (c.method == "initialize" || c.method == "ping") || !modern && c.method == "server/discover" {
				continue
			}
			w := e.send(eraRequest(modern, 1, c.method, c.params), noScope)
			if w.Code != c.status || strings.Contains(w.Body.String(), `"error"`) {
				t.Errorf("modern=%v %s with a scopeless token: HTTP %d %s", modern, c.method, w.Code, w.Body)
			}
		}
		r := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
		r.Header.Set("Content-Type", "application/json")
		if w := e.send(r, noScope); w.Code != http.StatusAccepted {
			t.Errorf("notification: HTTP %d", w.Code)
		}
	}

	before := usdc(e, e.sb.Demo.Address)
	e.sb.ResetCounts()
	buy := `{"name":"mindvault_buy","arguments":{"resourceId":"rustguide"}}`
	for _, modern := range []bool{false, true} {
		w := e.send(eraRequest(modern, 3, "tools/call", buy), read)
		if w.Code != http.StatusForbidden {
			t.Fatalf("a read token bought: HTTP %d %s", w.Code, w.Body)
		}
	}
	if n := e.sb.Count("api", "GET /resources/*"); n != 0 || e.sb.PaidRequests("*") != 0 || usdc(e, e.sb.Demo.Address).Cmp(before) != 0 {
		t.Fatalf("a refused buy reached the API (%d requests) or moved USDC", n)
	}
	w := e.send(eraRequest(true, 4, "tools/call", buy), spend)
	var resp struct {
		Result result `json:"result"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &resp); err != nil || w.Code != 200 {
		t.Fatalf("buy with the spend scope: HTTP %d %s", w.Code, w.Body)
	}
	resp.Result.raw = w.Body.String()
	e.ok("mindvault_buy", resp.Result)
	if n := e.sb.PaidRequests("GET /resources/*"); n != 1 {
		t.Fatalf("paid requests %d, want 1", n)
	}
	if w := e.send(eraRequest(false, 5, "tools/call", `{"name":"mindvault_wallet_info","arguments":{}}`), es); w.Code != 200 || strings.Contains(w.Body.String(), `"isError":true`) {
		t.Fatalf("ES256 token: HTTP %d %s", w.Code, w.Body)
	}

	if n := e.sb.Watched(); n != 0 {
		t.Fatalf("%d downstream requests carried an inbound token", n)
	}
	logs := e.logs.String()
	for _, tok := range []string{e.token, noScope, read, spend, es} {
		if strings.Contains(logs, tok) || strings.Contains(w.Body.String(), tok) {
			t.Fatal("a token reached the log or a response")
		}
	}
	for _, sub := range []string{"user-min", "user-spend", "user-es"} {
		if !strings.Contains(logs, `"caller":"`+sub+`"`) {
			t.Errorf("no request line names caller %s", sub)
		}
	}
	if n := iss.JWKSFetches(); n != 1 {
		t.Errorf("JWKS fetched %d times, want once for the whole run", n)
	}
}

func mustSign(t *testing.T, iss *testissuer.Issuer, c testissuer.Claims, alg jose.SignatureAlgorithm) string {
	t.Helper()
	tok, err := iss.Sign(c, testissuer.SignOptions{Alg: alg})
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// TestOAuthChallengesAndMetadata: the 401 answers and the metadata clients follow.
func TestOAuthChallengesAndMetadata(t *testing.T) {
	e, iss := oauthEnv(t)
	expired := iss.Standard("user-x", oauthResource, allScopes, "demo")
	expired["exp"] = expired["iat"].(int64) - 3600
	cases := []struct {
		name, token, challenge string
	}{
		{"no token", "", `Bearer resource_metadata="` + oauthMetadata + `"`},
		{"expired", mint(t, iss, expired), `Bearer error="invalid_token", resource_metadata="` + oauthMetadata + `"`},
		{"other audience", mint(t, iss, iss.Standard("user-x", "https://other.example/mcp", allScopes)), `Bearer error="invalid_token", resource_metadata="` + oauthMetadata + `"`},
		{"unsigned", testissuer.Unsigned(iss.Standard("user-x", oauthResource, allScopes, "*")), `Bearer error="invalid_token", resource_metadata="` + oauthMetadata + `"`},
	}
	for _, c := range cases {
		w := e.send(eraRequest(false, 1, "tools/list", ""), c.token)
		if w.Code != http.StatusUnauthorized || w.Header().Get("WWW-Authenticate") != c.challenge {
			t.Errorf("%s: HTTP %d %q", c.name, w.Code, w.Header().Get("WWW-Authenticate"))
		}
	}
	var doc struct {
		Resource             string   `json:"resource"`
		AuthorizationServers []string `json:"authorization_servers"`
		Scopes               []string `json:"scopes_supported"`
	}
	w := e.send(httptest.NewRequest(http.MethodGet, "/.well-known/oauth-protected-resource/mcp", nil), "")
	if err := json.Unmarshal(w.Body.Bytes(), &doc); err != nil || w.Code != 200 {
		t.Fatalf("metadata: HTTP %d %s", w.Code, w.Body)
	}
	if doc.Resource != oauthResource || !slices.Equal(doc.AuthorizationServers, []string{iss.URL}) || !slices.Equal(doc.Scopes, auth.Scopes) {
		t.Fatalf("metadata %+v", doc)
	}
}

// TestOAuthProfileBinding: a token naming profile alice gets the same tool error as a bound
// static token when it names bob (or the default profile), and lists only alice.
func TestOAuthProfileBinding(t *testing.T) {
	op, iss := oauthEnv(t)
	op.token = mint(t, iss, iss.Standard("user-op", oauthResource, allScopes, "*"))
	for _, name := range []string{"alice", "bob"} {
		addProfile(op, name, map[string]string{"alice": "zero", "bob": "notrust"}[name], "mv_"+strings.Repeat("cd", 32))
	}
	alice := op.in(t)
	alice.token = mint(t, iss, iss.Standard("user-alice", oauthResource, allScopes, "alice"))
	alice.ok("mindvault_wallet_info", alice.call("mindvault_wallet_info", `{"profile":"alice"}`))
	for _, args := range []string{`{"profile":"bob"}`, `{}`} {
		alice.fails("mindvault_wallet_info", alice.call("mindvault_wallet_info", args),
			failure{category: "auth", code: "PROFILE_NOT_ALLOWED", source: "credentials"})
	}
	alice.fails("mindvault_set_price", alice.call("mindvault_set_price", `{"resourceId":"llmprompts","price":"1","profile":"bob"}`),
		failure{category: "auth", code: "PROFILE_NOT_ALLOWED", source: "credentials"})
	out := alice.ok("mindvault_list_profiles", alice.call("mindvault_list_profiles", ``))
	if ps := out["profiles"].([]any); len(ps) != 1 || ps[0].(map[string]any)["name"] != "alice" {
		t.Fatalf("alice sees %v", ps)
	}
	out = op.ok("mindvault_list_profiles", op.call("mindvault_list_profiles", ``))
	if ps := out["profiles"].([]any); len(ps) != 3 {
		t.Fatalf("a * token sees %v", ps)
	}
	nobody := op.in(t)
	nobody.token = mint(t, iss, iss.Standard("user-none", oauthResource, allScopes))
	nobody.fails("mindvault_wallet_info", nobody.call("mindvault_wallet_info", `{}`),
		failure{category: "auth", code: "PROFILE_NOT_ALLOWED", source: "credentials"})
}

// TestOAuthBoot: a cold start fetches nothing from the issuer; a broken OAuth configuration
// refuses everyone, a valid token included, under Lambda and locally; an issuer that is down
// before any key was fetched gives 503 and a log line.
func TestOAuthBoot(t *testing.T) {
	iss, err := testissuer.New(testissuer.Options{SharedKeys: true})
	if err != nil {
		t.Fatal(err)
	}
	defer iss.Close()
	tok := mint(t, iss, iss.Standard("user-b", oauthResource, allScopes, "*"))
	cases := []struct {
		name   string
		vars   map[string]string
		status int
		logged string
	}{
		{"healthy", map[string]string{"MINDVAULT_OAUTH_ISSUER": iss.URL, "MINDVAULT_RESOURCE_URL": oauthResource}, 200, ""},
		{"no issuer", map[string]string{"MINDVAULT_RESOURCE_URL": oauthResource}, 401, "MINDVAULT_OAUTH_ISSUER"},
		{"no audience", map[string]string{"MINDVAULT_OAUTH_ISSUER": iss.URL}, 401, "MINDVAULT_OAUTH_AUDIENCE"},
		{"token list left over", map[string]string{"MINDVAULT_OAUTH_ISSUER": iss.URL, "MINDVAULT_RESOURCE_URL": oauthResource,
			"MINDVAULT_ACCESS_TOKENS": "not-a-digest:*"}, 401, "MINDVAULT_ACCESS_TOKENS"},
		{"bad resource URL", map[string]string{"MINDVAULT_OAUTH_ISSUER": iss.URL, "MINDVAULT_RESOURCE_URL": "mcp.example.org"}, 401, "MINDVAULT_RESOURCE_URL"},
		{"bad profiles claim", map[string]string{"MINDVAULT_OAUTH_ISSUER": iss.URL, "MINDVAULT_RESOURCE_URL": oauthResource,
			"MINDVAULT_OAUTH_PROFILES_CLAIM": "two words"}, 401, "MINDVAULT_OAUTH_PROFILES_CLAIM"},
		{"another authorization server", map[string]string{"MINDVAULT_OAUTH_ISSUER": iss.URL, "MINDVAULT_RESOURCE_URL": oauthResource,
			"MINDVAULT_AUTHORIZATION_SERVERS": "https://other.example"}, 401, "MINDVAULT_AUTHORIZATION_SERVERS"},
	}
	for _, lambda := range []bool{true, false} {
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				iss.ResetCounts()
				logs := &syncBuffer{}
				vars := map[string]string{"MINDVAULT_AUTH": "oauth"}
				for k, v := range c.vars {
					vars[k] = v
				}
				b := server.Boot(func(k string) string { return vars[k] }, lambda, logs)
				if iss.DiscoveryFetches()+iss.JWKSFetches() != 0 {
					t.Fatal("the cold start contacted the issuer")
				}
				for range 2 {
					r := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
					r.Header.Set("Content-Type", "application/json")
					r.Header.Set("Authorization", "Bearer "+tok)
					w := httptest.NewRecorder()
					b.Handler.ServeHTTP(w, r)
					if w.Code != c.status {
						t.Fatalf("HTTP %d, want %d: %s", w.Code, c.status, w.Body)
					}
				}
				if c.logged != "" && strings.Count(logs.String(), "inbound auth configuration is broken") != 1 || !strings.Contains(logs.String(), c.logged) {
					t.Fatalf("the problem %q must be logged once: %s", c.logged, logs)
				}
				if strings.Contains(logs.String(), "access token entry") {
					t.Fatalf("oauth mode parsed the token list it refuses: %s", logs)
				}
			})
		}
	}

	t.Run("issuer down when cold", func(t *testing.T) {
		iss.SetDown(http.StatusServiceUnavailable)
		defer iss.SetDown(0)
		logs := &syncBuffer{}
		vars := map[string]string{"MINDVAULT_AUTH": "oauth", "MINDVAULT_OAUTH_ISSUER": iss.URL, "MINDVAULT_RESOURCE_URL": oauthResource}
		b := server.Boot(func(k string) string { return vars[k] }, true, logs)
		r := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Authorization", "Bearer "+tok)
		w := httptest.NewRecorder()
		b.Handler.ServeHTTP(w, r)
		if w.Code != http.StatusServiceUnavailable || !strings.Contains(logs.String(), "OAuth signing keys could not be fetched") {
			t.Fatalf("HTTP %d, log %s", w.Code, logs)
		}
		if strings.Contains(logs.String(), tok) {
			t.Fatal("the token reached the log")
		}
	})
}

// TestOAuthEventsInProcess runs events/oauth through the Lambda handler in process, with
// tokens minted by a loopback issuer, against the goldens the emulator run also uses.
func TestOAuthEventsInProcess(t *testing.T) {
	iss, err := testissuer.New(testissuer.Options{SharedKeys: true})
	if err != nil {
		t.Fatal(err)
	}
	defer iss.Close()
	const resource = "https://abcdefghijklmnopqrstuvwxyz012345.lambda-url.us-east-1.on.aws/mcp"
	vars := map[string]string{"MINDVAULT_AUTH": "oauth", "MINDVAULT_OAUTH_ISSUER": iss.URL, "MINDVAULT_RESOURCE_URL": resource}
	cfg, err := config.Load(func(k string) string { return vars[k] }, true)
	if err != nil {
		t.Fatal(err)
	}
	handler := funcurl.Handler(newHandler(cfg, nil, server.NewLogger(false, cfg.LogLevel, io.Discard, nil)))
	specs, err := testissuer.LoadSpecs("../../events/oauth/issuer/tokens.json")
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob("../../events/oauth/*.json")
	if len(files) < 8 {
		t.Fatalf("found %d oauth events", len(files))
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		t.Run(name, func(t *testing.T) {
			raw, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			raw, _, err = iss.Expand(raw, specs, resource)
			if err != nil {
				t.Fatal(err)
			}
			var ev events.LambdaFunctionURLRequest
			if err := json.Unmarshal(raw, &ev); err != nil {
				t.Fatal(err)
			}
			var golden struct {
				StatusCode int               `json:"statusCode"`
				Headers    map[string]string `json:"headers"`
				Body       json.RawMessage   `json:"body"`
			}
			readJSON(t, filepath.Join("../../events/oauth/golden", name+".json"), &golden)
			resp, err := handler(context.Background(), ev)
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != golden.StatusCode || resp.Headers["www-authenticate"] != golden.Headers["www-authenticate"] {
				t.Fatalf("status %d %q, golden %d %q", resp.StatusCode, resp.Headers["www-authenticate"], golden.StatusCode, golden.Headers["www-authenticate"])
			}
			var got, want any
			_ = json.Unmarshal([]byte(resp.Body), &got)
			_ = json.Unmarshal(golden.Body, &want)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("body differs from golden:\n got %s\nwant %s", resp.Body, golden.Body)
			}
		})
	}
}
