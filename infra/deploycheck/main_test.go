package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mindvault/mcp-endpoint/internal/server/local"
)

// serve boots the local endpoint on the sandbox network with vars and serves it on loopback
// (httptest binds 127.0.0.1), as a deployment is reached: over HTTP, through every guard.
func serve(t *testing.T, vars map[string]string) string {
	t.Helper()
	return serveBroken(t, vars, false)
}

// serveBroken is serve for a configuration that may have problems (broken: expect some).
func serveBroken(t *testing.T, vars map[string]string, broken bool) string {
	t.Helper()
	all := map[string]string{"STELLAR_NETWORK": "sandbox", "MINDVAULT_RETRY_BASE_DELAY_MS": "1", "MINDVAULT_RETRY_MAX_DELAY_MS": "40"}
	for k, v := range vars {
		all[k] = v
	}
	b := local.Boot(func(k string) string { return all[k] }, io.Discard, false)
	t.Cleanup(b.Close)
	if (b.Err != nil) != broken {
		t.Fatalf("boot: %v", b.Err)
	}
	h := b.Handler
	if vars["test.legacy-only"] != "" {
		h = legacyOnly(h)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL + "/mcp"
}

// legacyOnly stands in for an endpoint older than the 2026-07-28 revision: server/discover is
// an unknown method there, everything else is served.
func legacyOnly(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") == "" {
			next.ServeHTTP(w, r) // auth comes first on every revision: a 401
			return
		}
		body, _ := io.ReadAll(r.Body)
		if bytes.Contains(body, []byte(`"method":"server/discover"`)) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found: server/discover"}}`))
			return
		}
		if r.Header.Get("MCP-Protocol-Version") == "2026-07-28" {
			t := "a legacy endpoint got a modern request"
			http.Error(w, t, http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		next.ServeHTTP(w, r)
	})
}

func digest(token string) string {
	d := sha256.Sum256([]byte(token))
	return hex.EncodeToString(d[:])
}

func run(t *testing.T, o Options) (string, bool) {
	t.Helper()
	o.Timeout = 60 * time.Second
	var out bytes.Buffer
	ok := Run(context.Background(), o, &out)
	t.Logf("deploy-check output:\n%s", out.String())
	return out.String(), ok
}

// TestDeployCheck runs the checks against a local endpoint with bearer tokens on, as the
// template deploys it: the right token passes every check; a wrong or missing token, an open
// endpoint, a wallet that does not exist and a URL without /mcp each fail with the line and
// the hint an operator needs.
func TestDeployCheck(t *testing.T) {
	const good, other = "deploy-check-token-demo", "deploy-check-token-alice"
	url := serve(t, map[string]string{
		"MINDVAULT_AUTH":          "tokens",
		"MINDVAULT_ACCESS_TOKENS": digest(good) + ":demo," + digest(other) + ":alice",
	})
	cases := []struct {
		name   string
		o      Options
		wantOK bool
		want   []string // substrings of the output, in order
	}{
		{"the right token passes every check", Options{URL: url, Token: good}, true, []string{
			"✓ auth: a request without a token is refused (401",
			"✓ discover: mindvault-mcp ", "2026-07-28",
			"✓ tools/list: ",
			"✓ network profile: network sandbox",
			"✓ wallet: profile demo, G",
			"✓ health: ",
			"✓ browse: ",
			"✓ dry-run buy: would pay ", "nothing was sent",
			"all checks passed",
		}},
		{"a wrong token", Options{URL: url, Token: "not-the-token"}, false, []string{
			"✓ auth: ",
			"✗ discover: 401: the token was refused",
			`→ its SHA-256 must be in the token secret: compare ` + "`printf %s \"$TOKEN\" | sha256sum`",
		}},
		{"no token", Options{URL: url}, false, []string{
			"- auth: skipped",
			"✗ discover: 401: the endpoint requires a bearer token",
			"→ pass one: make deploy-check URL=… TOKEN=",
		}},
		{"a token bound to another profile than the default", Options{URL: url, Token: other}, false, []string{
			"✗ wallet: ", "[PROFILE_NOT_ALLOWED]", "→ the token is not bound to this profile", "pass -profile",
		}},
		{"a profile without a wallet", Options{URL: url, Token: other, Profile: "alice"}, false, []string{
			"✓ discover: ",
			"✗ wallet: ", "[CREDENTIALS_MISSING]", "→ the profile has no wallet: call mindvault_setup_wallet",
			"✗ dry-run buy: ", "[CREDENTIALS_MISSING]",
			"some checks failed",
		}},
		{"a profile the token is not bound to", Options{URL: url, Token: good, Profile: "alice"}, false, []string{
			"✗ wallet: ", "[PROFILE_NOT_ALLOWED]", "→ the token is not bound to this profile",
		}},
		{"a URL without /mcp", Options{URL: strings.TrimSuffix(url, "/mcp") + "/", Token: good}, false, []string{
			`✗ url: the path is "/", not /mcp`, "→ the endpoint is POST <FunctionUrl>mcp",
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, ok := run(t, tc.o)
			if ok != tc.wantOK {
				t.Errorf("Run = %v, want %v", ok, tc.wantOK)
			}
			at := 0
			for _, w := range tc.want {
				i := strings.Index(out[at:], w)
				if i < 0 {
					t.Fatalf("output lacks %q after offset %d", w, at)
				}
				at += i + len(w)
			}
			if tc.wantOK && strings.Contains(out, "✗") {
				t.Error("a passing run printed a ✗")
			}
			if strings.Contains(out, tc.o.Token) && tc.o.Token != "" {
				t.Error("the output repeats the token")
			}
		})
	}
}

// TestDeployCheckOpenEndpoint: an endpoint that answers without a token fails the auth check,
// since anyone who learns its URL could spend from its wallets.
func TestDeployCheckOpenEndpoint(t *testing.T) {
	url := serve(t, map[string]string{"MINDVAULT_AUTH": "none"})
	out, ok := run(t, Options{URL: url, Token: "anything"})
	if ok || !strings.Contains(out, "✗ auth: a request without a token was answered (HTTP 200)") ||
		!strings.Contains(out, "→ deploy with AuthMode=tokens") {
		t.Fatalf("Run = %v; an open endpoint must fail the auth check", ok)
	}
	// The other checks still run, so the operator sees everything at once.
	if !strings.Contains(out, "✓ dry-run buy: ") {
		t.Fatal("the checks after auth did not run")
	}
}

// TestDeployCheckConfigurationProblem: an endpoint whose configuration is broken answers
// every authenticated request with -32603 naming the variable; the check says so and where
// to look.
func TestDeployCheckConfigurationProblem(t *testing.T) {
	const token = "deploy-check-config"
	url := serveBroken(t, map[string]string{
		"MINDVAULT_AUTH": "tokens", "MINDVAULT_ACCESS_TOKENS": digest(token) + ":*",
		"MINDVAULT_MAX_AUTO_PAY_USDC": "lots",
	}, true)
	out, ok := run(t, Options{URL: url, Token: token})
	if ok || !strings.Contains(out, "✗ discover: the endpoint reports a configuration problem: ") ||
		!strings.Contains(out, "MINDVAULT_MAX_AUTO_PAY_USDC") || !strings.Contains(out, "→ the message names the variables") {
		t.Fatalf("Run = %v; want the configuration problem named", ok)
	}
}

// TestDeployCheckLegacyEndpoint: against an endpoint without server/discover the checks fall
// back to a legacy initialize and go on with the 2025-11-25 headers.
func TestDeployCheckLegacyEndpoint(t *testing.T) {
	const token = "deploy-check-legacy"
	url := serve(t, map[string]string{"MINDVAULT_AUTH": "tokens", "MINDVAULT_ACCESS_TOKENS": digest(token) + ":demo", "test.legacy-only": "1"})
	out, ok := run(t, Options{URL: url, Token: token})
	if !ok || !strings.Contains(out, "✓ discover: no server/discover; initialize answered mindvault-mcp ") ||
		!strings.Contains(out, "on 2025-11-25") || !strings.Contains(out, "✓ dry-run buy: ") {
		t.Fatalf("Run = %v; want every check to pass over the legacy revision", ok)
	}
}
