package e2e_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mindvault/mcp-endpoint/internal/credentials"
	"github.com/mindvault/mcp-endpoint/internal/server"
)

// The tokens do not start with a word: the first eight characters of a known token are
// redacted wherever they appear, the endpoint's own sentences included.
const (
	tokenAlice = "alice-token-7f3e9a1c5b2d4e6f"
	tokenAll   = "tok-all-0a1b2c3d4e5f6a7b"
)

func digest(t string) string {
	s := sha256.Sum256([]byte(t))
	return hex.EncodeToString(s[:])
}

func authVars(token string) map[string]string {
	return map[string]string{
		"MINDVAULT_AUTH":          "tokens",
		"MINDVAULT_ACCESS_TOKENS": digest(tokenAlice) + ":alice," + digest(tokenAll) + ":*",
		"MINDVAULT_RESOURCE_URL":  "https://mcp.example.org/mcp",
		"test.token":              token,
	}
}

// TestAuthOnEveryPath: without a valid token every path is refused, except the
// protected-resource metadata, which is public by design.
func TestAuthOnEveryPath(t *testing.T) {
	e := newEnv(t, authVars(tokenAll))
	cases := []struct {
		method, path, token string
		want                int
	}{
		{"POST", "/mcp", "", 401},
		{"POST", "/mcp", "wrong-token", 401},
		{"POST", "/mcp", tokenAlice, 200},
		{"GET", "/mcp", "", 401},
		{"GET", "/mcp", tokenAlice, 405},
		{"DELETE", "/mcp", "", 401},
		{"POST", "/nowhere", "", 401},
		{"GET", "/.well-known/oauth-protected-resource", "", 200},
		{"GET", "/.well-known/oauth-protected-resource/mcp", "", 200},
	}
	for _, tc := range cases {
		req := httptest.NewRequest(tc.method, tc.path, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
		req.Header.Set("Content-Type", "application/json")
		if tc.token != "" {
			req.Header.Set("Authorization", "Bearer "+tc.token)
		}
		rec := httptest.NewRecorder()
		e.b.Handler.ServeHTTP(rec, req)
		if rec.Code != tc.want {
			t.Errorf("%s %s token=%v: %d, want %d", tc.method, tc.path, tc.token != "", rec.Code, tc.want)
		}
		if rec.Code == 401 && !strings.Contains(rec.Header().Get("WWW-Authenticate"), `resource_metadata="https://mcp.example.org/.well-known/oauth-protected-resource/mcp"`) {
			t.Errorf("401 without the metadata challenge: %q", rec.Header().Get("WWW-Authenticate"))
		}
		if strings.Contains(rec.Body.String(), tokenAlice) || strings.Contains(rec.Body.String(), tokenAll) {
			t.Fatal("a token reached a response")
		}
	}
	for _, tok := range []string{tokenAlice, tokenAll, digest(tokenAlice)} {
		if strings.Contains(e.logs.String(), tok) {
			t.Fatal("a token or its digest reached the log")
		}
	}
}

// TestProfileIsolation: a token bound to alice can neither use nor list bob.
func TestProfileIsolation(t *testing.T) {
	op := newEnv(t, authVars(tokenAll))
	for _, name := range []string{"alice", "bob"} {
		a, _ := op.sb.Account(map[string]string{"alice": "zero", "bob": "notrust"}[name])
		if err := op.b.Deps.Store.Create(context.Background(), credentials.Profile{Name: name, SecretKey: a.Secret, APIKey: "mv_" + strings.Repeat("ab", 32)}); err != nil {
			t.Fatal(err)
		}
	}
	alice := op.in(t)
	alice.token = tokenAlice

	alice.ok("mindvault_wallet_info", alice.call("mindvault_wallet_info", `{"profile":"alice"}`))
	for _, args := range []string{`{"profile":"bob"}`, `{}`} { // {} is the default profile, demo
		r := alice.call("mindvault_wallet_info", args)
		alice.fails("mindvault_wallet_info", r, failure{category: "auth", code: "PROFILE_NOT_ALLOWED", source: "credentials"})
	}
	alice.fails("mindvault_set_price", alice.call("mindvault_set_price", `{"resourceId":"llmprompts","price":"1","profile":"bob"}`),
		failure{category: "auth", code: "PROFILE_NOT_ALLOWED", source: "credentials"})

	out := alice.ok("mindvault_list_profiles", alice.call("mindvault_list_profiles", ``))
	if ps := out["profiles"].([]any); len(ps) != 1 || ps[0].(map[string]any)["name"] != "alice" {
		t.Fatalf("alice sees %v", ps)
	}
	out = op.ok("mindvault_list_profiles", op.call("mindvault_list_profiles", ``))
	if ps := out["profiles"].([]any); len(ps) != 3 { // demo, alice, bob
		t.Fatalf("the operator token sees %v", ps)
	}
	for _, p := range out["profiles"].([]any) {
		if strings.Contains(toJSON(p), "secret") || strings.Contains(toJSON(p), "mv_") {
			t.Fatalf("a secret was listed: %v", p)
		}
	}
}

// TestLambdaWithoutTokensRefusesEverything: the Lambda default is tokens; with none
// configured every request is 401 and the problem is logged once.
func TestLambdaWithoutTokensRefusesEverything(t *testing.T) {
	logs := &syncBuffer{}
	b := server.Boot(func(string) string { return "" }, true, logs)
	for range 5 {
		req := httptest.NewRequest("POST", "/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		b.Handler.ServeHTTP(rec, req)
		if rec.Code != http.StatusUnauthorized {
			t.Fatalf("status %d, want 401", rec.Code)
		}
	}
	if n := strings.Count(logs.String(), "no access tokens are configured"); n != 1 {
		t.Fatalf("logged %d times, want once: %s", n, logs.String())
	}
}

func toJSON(v any) string {
	b, _ := jsonMarshal(v)
	return string(b)
}
