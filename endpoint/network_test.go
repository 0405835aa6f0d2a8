package endpoint_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mindvault/mcp-endpoint/config"
	"github.com/mindvault/mcp-endpoint/endpoint"
)

// TestSandboxIsNoNetworkOfTheLambdaBinary: the Lambda binary boots with no local networks, so
// STELLAR_NETWORK=sandbox there (under Lambda or served as plain HTTP) is a configuration
// problem, and so is a local network under the Lambda runtime; as every startup problem, it
// is told only to an authenticated caller, as -32603 naming the variable.
func TestSandboxIsNoNetworkOfTheLambdaBinary(t *testing.T) {
	sandboxNet := endpoint.Local{Networks: []config.LocalNetwork{{Name: "sandbox"}}}
	cases := []struct {
		name   string
		lambda bool
		local  endpoint.Local
	}{
		{"under Lambda", true, endpoint.Local{}},
		{"the Lambda binary served locally", false, endpoint.Local{}},
		{"a local network under Lambda", true, sandboxNet},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			vars := map[string]string{"STELLAR_NETWORK": "sandbox", "MINDVAULT_AUTH": "tokens", "MINDVAULT_ACCESS_TOKENS": digest(tokenAll) + ":*"}
			b := endpoint.BootWith(func(k string) string { return vars[k] }, c.lambda, &syncBuffer{}, c.local)
			for _, token := range []string{"", tokenAll} {
				req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
				req.Header.Set("Content-Type", "application/json")
				if token != "" {
					req.Header.Set("Authorization", "Bearer "+token)
				}
				rec := httptest.NewRecorder()
				b.Handler.ServeHTTP(rec, req)
				if token == "" {
					if rec.Code != http.StatusUnauthorized || strings.Contains(rec.Body.String(), "STELLAR_NETWORK") {
						t.Fatalf("an unauthenticated caller got HTTP %d: %s", rec.Code, rec.Body)
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
				if rec.Code != http.StatusOK || resp.Error == nil || resp.Error.Code != -32603 || !strings.Contains(resp.Error.Message, "STELLAR_NETWORK") {
					t.Fatalf("HTTP %d %s, want -32603 naming STELLAR_NETWORK", rec.Code, rec.Body)
				}
			}
		})
	}
}
