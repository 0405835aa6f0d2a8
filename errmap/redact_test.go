package errmap

import (
	"net/http"
	"strings"
	"testing"
)

func TestRedactShapes(t *testing.T) {
	cases := []struct {
		name, in, want string
		gone           []string
	}{
		{"seed", "bad key " + testSeed + " here", "bad key [REDACTED] here", []string{testSeed}},
		{"seed glued to lowercase", "key=x" + testSeed + "abc", "key=x[REDACTED]abc", []string{testSeed}},
		{"seed glued to base32", "AAAA" + testSeed + "BB", "[REDACTED]", []string{testSeed}},
		{"seed in json", `{"secretKey":"` + testSeed + `"}`, `{"secretKey":"[REDACTED]"}`, []string{testSeed}},
		{"seed behind fake muxed prefix", "MAAAAAAAAAAAA" + testSeed, "[REDACTED]", []string{testSeed}},
		{"api key", "key " + testAPIKey + ".", "key [REDACTED].", []string{testAPIKey}},
		{"api key uppercase hex", "mv_ABCDEF0123456789ABCD", "[REDACTED]", []string{"ABCDEF0123456789ABCD"}},
		{"bearer", "Authorization failed for Bearer eyJhbGciOi.J9-payload_sig==", "Authorization failed for Bearer [REDACTED]", []string{"eyJhbGciOi"}},
		{"bearer lower", "got bearer abc123token", "got bearer [REDACTED]", []string{"abc123token"}},
		{"x-api-key colon", "x-api-key: k3y-V4lue; next", "x-api-key: [REDACTED]; next", []string{"k3y-V4lue"}},
		{"x-api-key equals", "X-Api-Key=k3y-V4lue&x=1", "X-Api-Key=[REDACTED]&x=1", []string{"k3y-V4lue"}},
		{"x-api-key json", `{"x-api-key":"k3y-V4lue"}`, `{"x-api-key":"[REDACTED]"}`, []string{"k3y-V4lue"}},
		{"authorization basic", "authorization: Basic dXNlcjpwYXNz, then", "authorization: [REDACTED], then", []string{"dXNlcjpwYXNz"}},
		{"authorization bearer", "Authorization: Bearer tok.en-123", "Authorization: [REDACTED]", []string{"tok.en-123"}},
		{"authorization escaped json", `{\"authorization\":\"Token zzz999\"}`, `{\"authorization\":\"[REDACTED]\"}`, []string{"zzz999"}},
		{"api_key pair", "GET /x?api_key=abc123&limit=5", "GET /x?api_key=[REDACTED]&limit=5", []string{"abc123"}},
		{"apikey pair", "apikey=abc123 rest", "apikey=[REDACTED] rest", []string{"abc123"}},
		{"secret pair", "client_secret=s3cr3t,other", "client_secret=[REDACTED],other", []string{"s3cr3t"}},
		{"token pair", "access_token=tkn-1;x", "access_token=[REDACTED];x", []string{"tkn-1"}},
		{"password pair", `password="hunter2"`, `password="[REDACTED]"`, []string{"hunter2"}},
		{"password colon", "db password: hunter2 ok", "db password: [REDACTED] ok", []string{"hunter2"}},
		{"secret key phrase", "Secret key: notaseedvalue", "Secret key: [REDACTED]", []string{"notaseedvalue"}},
		{"url password", "dial https://user:pa55w0rd@host.example/x", "dial https://user:[REDACTED]@host.example/x", []string{"pa55w0rd"}},
		{"public ids survive", "account " + testAccount + " contract " + testContract + " muxed " + testMuxed + " tx " + testTxHash,
			"account " + testAccount + " contract " + testContract + " muxed " + testMuxed + " tx " + testTxHash, nil},
		{"hash as txHash pair survives", "txHash=" + testTxHash, "txHash=" + testTxHash, nil},
		{"plain text untouched", "Resource not found (id abc). Token error #10", "Resource not found (id abc). Token error #10", nil},
		{"empty", "", "", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Redact(c.in, nil)
			if got != c.want {
				t.Errorf("Redact(%q)\n = %q\nwant %q", c.in, got, c.want)
			}
			for _, g := range c.gone {
				if strings.Contains(got, g) {
					t.Errorf("%q survived in %q", g, got)
				}
			}
			if again := Redact(got, nil); again != got {
				t.Errorf("not idempotent: %q -> %q", got, again)
			}
		})
	}
}

func TestRedactExactSecrets(t *testing.T) {
	secrets := []string{"abc", "", "correct-horse", "correct-horse-battery-staple", "p@ss w/rd&more"}
	cases := []struct{ in, want string }{
		{"x correct-horse-battery-staple y", "x [REDACTED] y"}, // longest first: no tail left behind
		{"x correct-horse y", "x [REDACTED] y"},
		{"abc stays (too short to redact safely)", "abc stays (too short to redact safely)"},
		{"q=p%40ss+w%2Frd%26more", "q=[REDACTED]"},
		{"path p@ss%20w%2Frd&more", "path [REDACTED]"},
		{`{"v":"p@ss w/rd\u0026more"}`, `{"v":"[REDACTED]"}`},
	}
	r := NewRedactor(secrets)
	for _, c := range cases {
		if got := r.Redact(c.in); got != c.want {
			t.Errorf("Redact(%q) = %q, want %q", c.in, got, c.want)
		}
		if got := Redact(c.in, secrets); got != c.want {
			t.Errorf("package Redact(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	var nilR *Redactor
	if got := nilR.Redact("k " + testSeed); got != "k [REDACTED]" {
		t.Errorf("nil redactor: %q", got)
	}
}

// TestRedactThroughMap plants secrets wherever a caller or upstream can put text and checks that
// none reaches the text or the diagnostic, while public ids do.
func TestRedactThroughMap(t *testing.T) {
	walletSecret := testSeed
	apiKey := testAPIKey
	bearer := "tok_9f8e7d6c5b4a39281706"
	secrets := []string{walletSecret, apiKey, bearer}
	planted := "seed " + walletSecret + " key " + apiKey + " bearer " + bearer + " x-api-key: " + apiKey +
		" account " + testAccount + " contract " + testContract + " tx " + testTxHash
	cases := []struct {
		name string
		f    Facts
	}{
		{"body error", Facts{Status: 500, Body: []byte(`{"error":"` + planted + `"}`)}},
		{"body zod", Facts{Status: 400, Body: []byte(`{"error":{"` + apiKey + `":{"_errors":["` + planted + `"]}}}`)}},
		{"body problem title", Facts{Status: 400, Body: []byte(`{"type":"x","title":"` + planted + `"}`)}},
		{"detail", Facts{Transport: TransportNetwork, UpstreamDetail: `Get "https://api.example/x?api_key=` + apiKey + `": ` + planted}},
		{"operation", Facts{Operation: "Buy failed for " + planted, Status: 402}},
		{"next", Facts{Status: 500, Next: "Retry with " + planted}},
		{"tool", Facts{Status: 400, Tool: apiKey}},
		{"allowed args", Facts{Status: 400, Tool: "mindvault_x", AllowedArgs: []string{apiKey, "limit"}}},
		{"tx hash field", Facts{Transport: TransportTimeout, TxHash: planted}},
		{"expiry field", Facts{Transport: TransportTimeout, PaymentExpiresAt: planted}},
		{"reason field", Facts{Status: 402, Upstream: Upstream{X402Reason: apiKey}}},
		{"result codes", Facts{Status: 400, Upstream: Upstream{ResultCodes: []string{apiKey, "tx_failed"}}}},
		{"contract name", Facts{Upstream: Upstream{ContractError: 9, ContractErrorName: apiKey}}},
		{"upstream detail", Facts{UpstreamDetail: "HostError: Error(Budget, ExceededLimit) " + planted}},
		{"issues", Facts{Issues: []Issue{{Path: "/" + apiKey, Rule: "unknown", Expected: planted, Message: "is " + planted}}}},
		{"headers", Facts{Status: 429, Header: http.Header{"Retry-After": {planted}, "X-Ratelimit-Limit": {apiKey}, "Authorization": {"Bearer " + bearer}}}},
		{"secrets only known exactly", Facts{Status: 500, Body: []byte(`{"error":"raw bearer value ` + bearer + ` alone"}`)}},
	}
	for _, c := range cases {
		for _, withSecrets := range []bool{true, false} {
			name := c.name + "/shapes only"
			if withSecrets {
				name = c.name + "/known secrets"
			}
			t.Run(name, func(t *testing.T) {
				f := c.f
				f.Source = SourceAPI
				if f.Operation == "" {
					f.Operation = "Op failed"
				}
				if withSecrets {
					f.Secrets = secrets
				}
				got := mapT(t, f)
				assertAbsent(t, got, walletSecret)
				assertAbsent(t, got, apiKey)
				assertAbsent(t, got, strings.TrimPrefix(apiKey, "mv_"))
				if withSecrets || strings.Contains(c.name, "x-api") {
					assertAbsent(t, got, bearer)
				}
				if strings.Contains(got.Diagnostic.Detail, "account ") && !strings.Contains(got.Text, testAccount) {
					t.Errorf("public account id was redacted:\n%s", got.Text)
				}
			})
		}
	}
	// Public ids survive end to end.
	got := mapT(t, Facts{Source: SourceRegistry, Operation: "Lookup failed for " + testContract, Detail: "creator " + testAccount + " tx " + testTxHash, Status: 500})
	for _, id := range []string{testContract, testAccount, testTxHash} {
		if !strings.Contains(got.Text, id) {
			t.Errorf("%s was redacted:\n%s", id, got.Text)
		}
	}
}

// TestPrecutLeavesNoFragment: text is cut before the patterns run; a secret the cut goes through
// must vanish whole, even when redaction before it shrinks the text into the visible window.
func TestPrecutLeavesNoFragment(t *testing.T) {
	shrinker := "mv_" + strings.Repeat("ab", 2030) // 4063 bytes that redact to 10
	detail := shrinker + " " + testSeed + " tail"
	if len(shrinker)+1 >= preRedactBytes || len(shrinker)+1+len(testSeed) <= preRedactBytes {
		t.Fatal("the cut must fall inside the seed")
	}
	got := mapT(t, Facts{Source: SourceAPI, Operation: "Op failed", Detail: detail})
	assertAbsent(t, got, testSeed[:12])
	if got.Diagnostic.Detail != "[REDACTED]" {
		t.Errorf("detail %q", got.Diagnostic.Detail)
	}
	noSpace := strings.Repeat("x", preRedactBytes+10)
	if got := mapT(t, Facts{Source: SourceAPI, Operation: "Op failed", Detail: noSpace, Status: 500}); got.Diagnostic.Detail != "no response body" {
		t.Errorf("a blob without spaces past the cut is dropped: %q", got.Diagnostic.Detail)
	}
	if precut("ab cd", 4) != "ab" || precut("漢字漢字", 7) != "" || precut("short", 10) != "short" {
		t.Error("precut")
	}
}

// Redact redacts s with secrets as extra exact values, as the mapping does.
func Redact(s string, secrets []string) string {
	return NewRedactor(secrets).Redact(s)
}
