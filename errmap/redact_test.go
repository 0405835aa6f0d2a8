package errmap

import (
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/url"
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
		{"body error", Facts{Guides: testGuides, Status: 500, Body: []byte(`{"error":"` + planted + `"}`)}},
		{"body zod", Facts{Guides: testGuides, Status: 400, Body: []byte(`{"error":{"` + apiKey + `":{"_errors":["` + planted + `"]}}}`)}},
		{"body problem title", Facts{Guides: testGuides, Status: 400, Body: []byte(`{"type":"x","title":"` + planted + `"}`)}},
		{"detail", Facts{Guides: testGuides, Transport: TransportNetwork, UpstreamDetail: `Get "https://api.example/x?api_key=` + apiKey + `": ` + planted}},
		{"operation", Facts{Guides: testGuides, Operation: "Buy failed for " + planted, Status: 402}},
		{"next", Facts{Guides: testGuides, Status: 500, Next: "Retry with " + planted}},
		{"tool", Facts{Guides: testGuides, Status: 400, Tool: apiKey}},
		{"allowed args", Facts{Guides: testGuides, Status: 400, Tool: "mindvault_x", AllowedArgs: []string{apiKey, "limit"}}},
		{"tx hash field", Facts{Guides: testGuides, Transport: TransportTimeout, TxHash: planted}},
		{"expiry field", Facts{Guides: testGuides, Transport: TransportTimeout, PaymentExpiresAt: planted}},
		{"reason field", Facts{Guides: testGuides, Status: 402, Upstream: Upstream{X402Reason: apiKey}}},
		{"result codes", Facts{Guides: testGuides, Status: 400, Upstream: Upstream{ResultCodes: []string{apiKey, "tx_failed"}}}},
		{"contract name", Facts{Guides: testGuides, Upstream: Upstream{ContractError: 9, ContractErrorName: apiKey}}},
		{"upstream detail", Facts{Guides: testGuides, UpstreamDetail: "HostError: Error(Budget, ExceededLimit) " + planted}},
		{"issues", Facts{Guides: testGuides, Issues: []Issue{{Path: "/" + apiKey, Rule: "unknown", Expected: planted, Message: "is " + planted}}}},
		{"headers", Facts{Guides: testGuides, Status: 429, Header: http.Header{"Retry-After": {planted}, "X-Ratelimit-Limit": {apiKey}, "Authorization": {"Bearer " + bearer}}}},
		{"secrets only known exactly", Facts{Guides: testGuides, Status: 500, Body: []byte(`{"error":"raw bearer value ` + bearer + ` alone"}`)}},
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
	got := mapT(t, Facts{Guides: testGuides, Source: SourceRegistry, Operation: "Lookup failed for " + testContract, Detail: "creator " + testAccount + " tx " + testTxHash, Status: 500})
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
	got := mapT(t, Facts{Guides: testGuides, Source: SourceAPI, Operation: "Op failed", Detail: detail})
	assertAbsent(t, got, testSeed[:12])
	if got.Diagnostic.Detail != "[REDACTED]" {
		t.Errorf("detail %q", got.Diagnostic.Detail)
	}
	noSpace := strings.Repeat("x", preRedactBytes+10)
	if got := mapT(t, Facts{Guides: testGuides, Source: SourceAPI, Operation: "Op failed", Detail: noSpace, Status: 500}); got.Diagnostic.Detail != "no response body" {
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

// echoedKey is the API key of the report: a value no shape rule knows, with characters every
// escaper spells differently.
const echoedKey = "Qx7/Lm+Tz&Rk<9>Pw"

// echoedForms are the spellings a downstream echoed the key in (and a few more of the kind).
func echoedForms() map[string]string {
	every := func(s, format string) string {
		var b strings.Builder
		for i := 0; i < len(s); i++ {
			fmt.Fprintf(&b, format, s[i])
		}
		return b.String()
	}
	lowerHex := func(s string) string { // lower-cases the hex digits of %XX escapes only
		b := []byte(s)
		for i := 0; i+2 < len(b); i++ {
			if b[i] == '%' {
				b[i+1], b[i+2] = strings.ToLower(string(b[i+1]))[0], strings.ToLower(string(b[i+2]))[0]
			}
		}
		return string(b)
	}
	mixed := func(s string) string { // every other letter upper-cased
		b, n := []byte(s), 0
		for i, c := range b {
			if c >= 'a' && c <= 'z' {
				if n%2 == 1 {
					b[i] = c - 'a' + 'A'
				}
				n++
			}
		}
		return string(b)
	}
	k := echoedKey
	return map[string]string{
		"as is":                        k,
		"percent-encoded":              url.QueryEscape(k),
		"lower-case percent-encoding":  lowerHex(url.QueryEscape(k)),
		"every-character percent":      every(k, "%%%02X"),
		"every-character lower-case":   every(k, "%%%02x"),
		"double percent-encoding":      url.QueryEscape(url.QueryEscape(k)),
		"double every-character":       url.QueryEscape(every(k, "%%%02x")),
		"form-encoded":                 strings.TrimPrefix(url.Values{"key": {k}}.Encode(), "key="),
		"HTML named entities":          html.EscapeString(k),
		"HTML decimal entities":        strings.NewReplacer("&", "&#38;", "<", "&#60;", ">", "&#62;").Replace(k),
		"HTML hex entities":            strings.NewReplacer("&", "&#x26;", "<", "&#x3c;", ">", "&#x3E;").Replace(k),
		"HTML entities for everything": every(k, "&#%d;"),
		"JSON \\u escapes":             strings.NewReplacer("/", `\/`, "&", `\u0026`, "<", `\u003c`, ">", `\u003E`).Replace(k),
		"base64":                       base64.StdEncoding.EncodeToString([]byte(k)),
		"base64url unpadded":           base64.RawURLEncoding.EncodeToString([]byte(k)),
		"base32":                       base32.StdEncoding.EncodeToString([]byte(k)),
		"hex":                          hex.EncodeToString([]byte(k)),
		"mixed-case hex":               mixed(hex.EncodeToString([]byte(k))),
	}
}

// assertNoKeyForm fails when the failure shows the key in the given form, or any eight
// characters of it as they are (the key is as long as the rule's window: it goes whole).
func assertNoKeyForm(t *testing.T, got Failure, form string) {
	t.Helper()
	assertAbsent(t, got, form)
	for i := 0; i+8 <= len(echoedKey); i++ {
		assertAbsent(t, got, echoedKey[i:i+8])
	}
}

// TestRedactEchoedKeyEveryForm: a 403 of GET /resources/{id}/register/prepare whose body, detail
// and headers echo the call's API key, in any of the forms a downstream gives it, shows the key
// in no form in line 1, the diagnostic or anywhere else of the failure.
func TestRedactEchoedKeyEveryForm(t *testing.T) {
	for name, form := range echoedForms() {
		t.Run(name, func(t *testing.T) {
			msg, _ := json.Marshal("forbidden: x-api-key " + form + " may not GET /resources/42/register/prepare")
			cases := map[string]Facts{
				"body": {Body: []byte(`{"error":` + string(msg) + `}`)},
				"body as a problem": {Body: []byte(`{"type":"about:blank","title":"Forbidden","detail":` + string(msg) + `}`),
					Header: http.Header{"Content-Type": {"application/problem+json"}}},
				"upstream detail": {UpstreamDetail: `GET "https://api.example/resources/42/register/prepare?k=` + form + `": 403 Forbidden`},
				"header":          {Header: http.Header{"Www-Authenticate": {`ApiKey realm="` + form + `"`}}},
				"html body":       {Body: []byte("<html><body><p>key " + form + " forbidden</p></body></html>")},
			}
			for where, f := range cases {
				f.Source, f.Operation, f.Status, f.Secrets = SourceAPI, "Prepare registration failed", 403, []string{echoedKey}
				got := mapT(t, f)
				assertNoKeyForm(t, got, form)
				if where == "body" && !strings.Contains(got.Text, "[REDACTED]") {
					t.Errorf("%s: the redacted key should show as [REDACTED]:\n%s", where, got.Text)
				}
			}
		})
	}
}

// TestRedactSplitKey: a 422 whose messages carry a key in two pieces shows neither piece in
// any form: each holds Window (16) characters of the key or more. Fifteen stay.
func TestRedactSplitKey(t *testing.T) {
	k := echoedKey + "/aB3&dE6<gH9>jK2"
	for name, spell := range map[string]func(string) string{
		"as is":           func(s string) string { return s },
		"percent-encoded": url.QueryEscape,
		"HTML escaped":    html.EscapeString,
	} {
		t.Run(name, func(t *testing.T) {
			head, tail := spell(k[:17]), spell(k[17:])
			body, _ := json.Marshal(map[string]any{"errors": []any{
				map[string]any{"message": "api key " + head + " is malformed"},
				map[string]any{"message": "rest of the key: " + tail},
			}})
			got := mapT(t, Facts{Guides: testGuides, Source: SourceAPI, Operation: "Prepare registration failed", Status: 422, Body: body, Secrets: []string{k}})
			assertAbsent(t, got, head)
			assertAbsent(t, got, tail)
			if !strings.Contains(got.Text, "api key [REDACTED] is malformed") {
				t.Errorf("the key's head should show as [REDACTED]:\n%s", got.Text)
			}
		})
	}
	// Fifteen characters are fewer than the rule's window: they stay.
	got := mapT(t, Facts{Guides: testGuides, Source: SourceAPI, Operation: "Prepare registration failed", Status: 422,
		Body: []byte(`{"error":"api key ` + k[18:] + ` is malformed"}`), Secrets: []string{k}})
	if !strings.Contains(got.Text, k[18:]) {
		t.Errorf("fifteen characters of a key should stay:\n%s", got.Text)
	}
}
