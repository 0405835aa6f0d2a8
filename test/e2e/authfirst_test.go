package e2e_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mindvault/mcp-endpoint/internal/server"
)

// TestAuthRunsBeforeEverything: a startup problem is told only to authenticated callers; a
// broken auth configuration refuses everyone instead of running open.
func TestAuthRunsBeforeEverything(t *testing.T) {
	tokens := digest(tokenAlice) + ":alice," + digest(tokenAll) + ":*"
	type want struct {
		token  string
		status int
		rpc    int // JSON-RPC error code expected in a 200, 0 = none
	}
	cases := []struct {
		name   string
		lambda bool
		vars   map[string]string
		want   []want
		logged string // the problem the log must name, once
	}{
		{"bad setting under Lambda tokens", true, map[string]string{
			"MINDVAULT_AUTH": "tokens", "MINDVAULT_ACCESS_TOKENS": tokens, "MINDVAULT_MAX_AUTO_PAY_USDC": "ten dollars",
		}, []want{{"", 401, 0}, {"wrong-token-123456", 401, 0}, {tokenAll, 200, -32603}, {tokenAlice, 200, -32603}}, "MINDVAULT_MAX_AUTO_PAY_USDC"},
		{"bad setting under the Lambda default", true, map[string]string{
			"MINDVAULT_ACCESS_TOKENS": tokens, "HORIZON_URL": "not a url",
		}, []want{{"", 401, 0}, {tokenAll, 200, -32603}}, "HORIZON_URL"},
		{"unparsable tokens", true, map[string]string{
			"MINDVAULT_AUTH": "tokens", "MINDVAULT_ACCESS_TOKENS": tokenAll + ":*", "MINDVAULT_MAX_AUTO_PAY_USDC": "ten dollars",
		}, []want{{"", 401, 0}, {tokenAll, 401, 0}}, "inbound auth configuration is broken"},
		{"unparsable tokens with auth none", false, map[string]string{
			"MINDVAULT_AUTH": "none", "MINDVAULT_ACCESS_TOKENS": "garbage",
		}, []want{{"", 401, 0}, {tokenAll, 401, 0}}, "MINDVAULT_ACCESS_TOKENS"},
		{"both token sources", true, map[string]string{
			"MINDVAULT_ACCESS_TOKENS": tokens, "MINDVAULT_ACCESS_TOKENS_SECRET": "mindvault/tokens",
		}, []want{{"", 401, 0}, {tokenAll, 401, 0}}, "set one"},
		{"unknown auth mode locally", false, map[string]string{
			"MINDVAULT_AUTH": "off",
		}, []want{{"", 401, 0}, {tokenAll, 401, 0}}, "MINDVAULT_AUTH"},
		{"healthy tokens", true, map[string]string{
			"MINDVAULT_ACCESS_TOKENS": tokens,
		}, []want{{"", 401, 0}, {tokenAll, 200, 0}}, ""},
		// The Lambda binary boots with no local network: the sandbox is a configuration problem.
		{"sandbox network under Lambda", true, map[string]string{
			"MINDVAULT_ACCESS_TOKENS": tokens, "STELLAR_NETWORK": "sandbox",
		}, []want{{"", 401, 0}, {tokenAll, 200, -32603}}, "STELLAR_NETWORK"},
		{"sandbox network in the Lambda binary served locally", false, map[string]string{
			"MINDVAULT_AUTH": "tokens", "MINDVAULT_ACCESS_TOKENS": tokens, "STELLAR_NETWORK": "sandbox",
		}, []want{{"", 401, 0}, {tokenAll, 200, -32603}}, "STELLAR_NETWORK"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			logs := &syncBuffer{}
			b := server.Boot(func(k string) string { return c.vars[k] }, c.lambda, logs)
			for range 2 { // the auth problem is logged once, not per request
				for _, w := range c.want {
					req := httptest.NewRequest("POST", "/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
					req.Header.Set("Content-Type", "application/json")
					if w.token != "" {
						req.Header.Set("Authorization", "Bearer "+w.token)
					}
					rec := httptest.NewRecorder()
					b.Handler.ServeHTTP(rec, req)
					if rec.Code != w.status {
						t.Fatalf("token %v: HTTP %d, want %d: %s", w.token != "", rec.Code, w.status, rec.Body)
					}
					if rec.Code == http.StatusUnauthorized {
						if strings.Contains(rec.Body.String(), "MINDVAULT") || strings.Contains(rec.Body.String(), "URL") || rec.Header().Get("WWW-Authenticate") == "" {
							t.Fatalf("a refused caller learns about the configuration: %s", rec.Body)
						}
						continue
					}
					var resp struct {
						Error *struct {
							Code    int    `json:"code"`
							Message string `json:"message"`
						} `json:"error"`
					}
					_ = json.Unmarshal(rec.Body.Bytes(), &resp)
					switch {
					case w.rpc == 0 && resp.Error != nil:
						t.Fatalf("unexpected error: %s", rec.Body)
					case w.rpc != 0 && (resp.Error == nil || resp.Error.Code != w.rpc || !strings.Contains(resp.Error.Message, c.logged)):
						t.Fatalf("an authenticated caller must see -32603 naming %s: %s", c.logged, rec.Body)
					}
				}
			}
			if c.logged != "" && !strings.Contains(logs.String(), c.logged) {
				t.Fatalf("the log must name the problem %q: %s", c.logged, logs.String())
			}
			if n := strings.Count(logs.String(), "inbound auth configuration is broken"); n > 1 {
				t.Fatalf("the auth problem was logged %d times", n)
			}
			for _, tok := range []string{tokenAlice, tokenAll} {
				if strings.Contains(logs.String(), tok) {
					t.Fatal("a token reached the log")
				}
			}
		})
	}
}
