package errmap

import (
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"
)

// TestGenericBodies: a body no client read gives its detail through the generic reader.
func TestGenericBodies(t *testing.T) {
	cases := []struct {
		name   string
		f      Facts
		code   string
		detail string
	}{
		{"error string", Facts{Guides: testGuides, Source: SourceSponsor, Status: 500, Body: []byte(`{"error":"Database down","stack":"at secret.js:1"}`)},
			CodeServerError, "Database down"},
		{"nested error object", Facts{Guides: testGuides, Source: SourceRPC, Status: 500, Body: []byte(`{"jsonrpc":"2.0","error":{"code":-32603,"message":"node down"}}`)},
			CodeServerError, "node down"},
		{"error before message", Facts{Guides: testGuides, Source: SourceSponsor, Status: 500, Body: []byte(`{"message":"second","error":"first","detail":"third"}`)},
			CodeServerError, "first"},
		{"message before detail", Facts{Guides: testGuides, Source: SourceSponsor, Status: 500, Body: []byte(`{"reason":"fourth","detail":"third","message":"  "}`)},
			CodeServerError, "third"},
		{"reason", Facts{Guides: testGuides, Source: SourceSponsor, Status: 500, Body: []byte(`{"reason":"fourth","title":"fifth"}`)},
			CodeServerError, "fourth"},
		{"title", Facts{Guides: testGuides, Source: SourceSponsor, Status: 500, Body: []byte(`{"title":"fifth","other":"x"}`)},
			CodeServerError, "fifth"},
		{"errors array", Facts{Guides: testGuides, Source: SourceSponsor, Status: 500, Body: []byte(`{"errors":[{"message":"from array"}]}`)},
			CodeServerError, "from array"},
		{"json string body", Facts{Guides: testGuides, Source: SourceSponsor, Status: 500, Body: []byte(`"plain json string"`)},
			CodeServerError, "plain json string"},
		{"json null body", Facts{Guides: testGuides, Source: SourceSponsor, Status: 500, Body: []byte(`null`)},
			CodeServerError, "server error"},
		{"empty object 402", Facts{Guides: testGuides, Source: SourceX402, Status: 402, Body: []byte(`{}`)},
			CodePaymentRequired, "payment required"},
		{"no message keys", Facts{Guides: testGuides, Source: SourceSponsor, Status: 500, Body: []byte(`{"stack":"at secret.js:1","internal":"x"}`)},
			CodeServerError, "server error"},
		{"bare string beside structure is a value", Facts{Guides: testGuides, Source: SourceSponsor, Status: 500, Body: []byte(`{"error":{"field":"secret.js","inner":{"message":"inner wins"}}}`)},
			CodeServerError, "inner wins"},
		{"detail used when body has none", Facts{Guides: testGuides, Source: SourceSponsor, Status: 500, Body: []byte(`{}`), Detail: "caller detail"},
			CodeServerError, "caller detail"},
		// The endpoint's own detail wins: a caller that writes one has read the body already
		// (or chose to say something better), and must not be overruled by it.
		{"detail beats body", Facts{Guides: testGuides, Source: SourceSponsor, Status: 500, Body: []byte(`{"error":"body"}`), Detail: "caller detail"},
			CodeServerError, "caller detail"},
		{"client reading beats body", Facts{Guides: testGuides, Source: SourceSponsor, Status: 500, Body: []byte(`{"error":"body"}`), UpstreamDetail: "read by the client"},
			CodeServerError, "read by the client"},
		{"html 502", Facts{Guides: testGuides, Source: SourceAPI, Status: 502, Body: []byte("<html><body>Bad gateway " + testSeed + "</body></html>")},
			CodeServerError, "response body is not JSON (status 502)"},
		{"trailing garbage is not JSON", Facts{Guides: testGuides, Source: SourceAPI, Status: 500, Body: []byte(`{"error":"x"} trailing`)},
			CodeServerError, "response body is not JSON (status 500)"},
		{"text no status", Facts{Guides: testGuides, Source: SourceAPI, Body: []byte("oops")},
			CodeUnknown, "response body is not JSON"},
		{"empty 504", Facts{Guides: testGuides, Source: SourceHorizon, Status: 504, Body: nil},
			CodeTimeout, "no response body"},
		{"whitespace 504", Facts{Guides: testGuides, Source: SourceHorizon, Status: 504, Body: []byte(" \r\n\t")},
			CodeTimeout, "no response body"},
		{"bom json", Facts{Guides: testGuides, Source: SourceSponsor, Status: 500, Body: []byte("\xef\xbb\xbf{\"error\":\"with bom\"}")},
			CodeServerError, "with bom"},
		{"control chars", Facts{Guides: testGuides, Source: SourceSponsor, Status: 500, Body: []byte(`{"error":"line one\nline two\u0000\u202e\ttabbed   spaced"}`)},
			CodeServerError, "line one line two tabbed spaced"},
		{"invalid utf-8", Facts{Guides: testGuides, Source: SourceSponsor, Status: 500, Body: []byte("{\"error\":\"bad \xff\xfe byte\"}")},
			CodeServerError, "bad \uFFFD\uFFFD byte"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.f.Operation = "Op failed"
			got := mapT(t, c.f)
			d := got.Diagnostic
			if d.Code != c.code || d.Detail != c.detail {
				t.Errorf("got %s %q, want %s %q", d.Code, d.Detail, c.code, c.detail)
			}
			for _, leak := range []string{"secret.js", testSeed} {
				if strings.Contains(got.Text, leak) || strings.Contains(jsonOf(t, d), leak) {
					t.Errorf("body content %q leaked", leak)
				}
			}
		})
	}
}

// TestReadBody: the reader clients build on keeps object order and bounds its work.
func TestReadBody(t *testing.T) {
	b := ReadBody([]byte(`{"b":1,"a":{"x":"y"},"b":2}`))
	o, ok := b.Value.(JSONObject)
	if !ok || !b.JSON || len(o) != 3 || o[0].Key != "b" || o[1].Key != "a" {
		t.Fatalf("order lost: %#v", b.Value)
	}
	if o.Get("b").(json.Number).String() != "1" || o.String("missing") != "" {
		t.Errorf("Get takes the first member: %v", o.Get("b"))
	}
	if inner, _ := o.Get("a").(JSONObject); inner.String("x") != "y" {
		t.Errorf("nested object %#v", o.Get("a"))
	}
	if b := ReadBody(nil); !b.Empty || b.JSON || b.Value != nil {
		t.Errorf("nil body %+v", b)
	}
	if b := ReadBody([]byte("<html>")); b.JSON || b.Empty || b.Truncated {
		t.Errorf("html %+v", b)
	}
}

// TestUpstreamFacts: what clients classified reaches upstream only in its value-free shape.
func TestUpstreamFacts(t *testing.T) {
	cases := []struct {
		name string
		u    Upstream
		want map[string]any
	}{
		{"result codes", Upstream{ResultCodes: []string{"tx_failed", "op_underfunded", "Bad Code!", ""}},
			map[string]any{"resultCodes": []string{"tx_failed", "op_underfunded"}}},
		{"contract error", Upstream{ContractError: 2, ContractErrorName: "NotFound"},
			map[string]any{"contractError": 2, "contractErrorName": "NotFound"}},
		{"bad name", Upstream{ContractError: 30, ContractErrorName: "bad name!"},
			map[string]any{"contractError": 30, "contractErrorName": "Unknown"}},
		{"secret name", Upstream{ContractError: 31, ContractErrorName: testSeed},
			map[string]any{"contractError": 31, "contractErrorName": "Unknown"}},
		{"negative number ignored", Upstream{ContractError: -5, ContractErrorName: "X"}, nil},
		{"reason", Upstream{X402Reason: " insufficient_funds "}, map[string]any{"x402Reason": "insufficient_funds"}},
		{"reason not a token", Upstream{X402Reason: "Not A Token <script>"}, nil},
		{"reason a secret", Upstream{X402Reason: testAPIKey}, nil},
		{"rpc code", Upstream{RPCCode: -32603}, map[string]any{"rpcCode": -32603}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := mapT(t, Facts{Guides: testGuides, Source: SourceRegistry, Operation: "Op failed", Status: 500, Upstream: c.u})
			if !reflect.DeepEqual(got.Diagnostic.Upstream, c.want) {
				t.Errorf("upstream %#v, want %#v", got.Diagnostic.Upstream, c.want)
			}
			for _, leak := range []string{testSeed, testAPIKey, "<script>"} {
				assertAbsent(t, got, leak)
			}
		})
	}
}

func TestRateLimitAndHeaders(t *testing.T) {
	html := []byte("<html><h1>429 Too Many Requests</h1></html>")
	cases := []struct {
		name     string
		f        Facts
		after    any // *int value or nil
		upstream map[string]any
	}{
		{"html 429 with Retry-After", Facts{Guides: testGuides, Source: SourceHorizon, Status: 429, Body: html, Header: http.Header{"Retry-After": {"12"}}}, 12, nil},
		{"lower-case keys", Facts{Guides: testGuides, Source: SourceHorizon, Status: 429, Header: http.Header{"retry-after": {"3"}, "x-ratelimit-limit": {"3600"}, "x-ratelimit-remaining": {"0"}, "x-ratelimit-reset": {"41"}}},
			3, map[string]any{"limit": 3600, "remaining": 0, "resetSeconds": 41}},
		{"ietf names", Facts{Guides: testGuides, Source: SourceAPI, Status: 429, Header: http.Header{"Ratelimit-Limit": {"20"}, "Ratelimit-Remaining": {"0"}, "Ratelimit-Reset": {"30"}}},
			30, map[string]any{"limit": 20, "remaining": 0, "resetSeconds": 30}},
		{"fraction rounds up", Facts{Guides: testGuides, Source: SourceAPI, Status: 429, Header: http.Header{"Retry-After": {"1.2"}}}, 2, nil},
		// A 429 whose wait cannot be read still says how long: the stated default.
		{"http-date left out", Facts{Guides: testGuides, Source: SourceAPI, Status: 429, Header: http.Header{"Retry-After": {"Wed, 21 Oct 2015 07:28:00 GMT"}}}, "default", nil},
		{"garbage left out", Facts{Guides: testGuides, Source: SourceAPI, Status: 429, Header: http.Header{"Retry-After": {"-5"}, "X-Ratelimit-Limit": {"lots"}}}, "default", nil},
		{"huge left out", Facts{Guides: testGuides, Source: SourceAPI, Status: 429, Header: http.Header{"Retry-After": {"99999999999999"}}}, "default", nil},
		{"bare 429", Facts{Guides: testGuides, Source: SourceAPI, Status: 429, Body: []byte(`{"error":"Too many requests"}`)}, "default", nil},
		{"rpc 429 with an empty body", Facts{Guides: testGuides, Source: SourceRPC, Status: 429}, "default", nil},
		{"a 503 gets no default", Facts{Guides: testGuides, Source: SourceAPI, Status: 503}, nil, nil},
		{"stated wait", Facts{Guides: testGuides, Source: SourceAPI, Status: 429, RetryAfter: intp(4)}, 4, nil},
		{"header beats stated wait", Facts{Guides: testGuides, Source: SourceAPI, Status: 429, Header: http.Header{"Retry-After": {"9"}}, RetryAfter: intp(4)}, 9, nil},
		{"stated wait beats reset", Facts{Guides: testGuides, Source: SourceAPI, Status: 429, Header: http.Header{"Ratelimit-Reset": {"30"}}, RetryAfter: intp(4)}, 4, map[string]any{"resetSeconds": 30}},
		{"negative stated wait ignored", Facts{Guides: testGuides, Source: SourceAPI, Status: 429, RetryAfter: intp(-1)}, "default", nil},
		{"503 keeps Retry-After", Facts{Guides: testGuides, Source: SourceAPI, Status: 503, Header: http.Header{"Retry-After": {"5"}}, Body: []byte(`{"error":"Request timeout"}`)}, 5, nil},
		{"rate headers on a 404", Facts{Guides: testGuides, Source: SourceHorizon, Status: 404, Header: http.Header{"X-Ratelimit-Remaining": {"17"}}}, nil, map[string]any{"remaining": 17}},
		{"nil header", Facts{Guides: testGuides, Source: SourceHorizon, Status: 429, Header: nil}, "default", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.f.Operation = "Balance failed"
			got := mapT(t, c.f)
			d := got.Diagnostic
			switch want := c.after.(type) {
			case nil:
				if d.RetryAfterSeconds != nil {
					t.Errorf("retryAfterSeconds %d, want none", *d.RetryAfterSeconds)
				}
			case string: // "default"
				if d.RetryAfterSeconds == nil || *d.RetryAfterSeconds != DefaultRetryAfterSeconds {
					t.Errorf("retryAfterSeconds %v, want the default %d", d.RetryAfterSeconds, DefaultRetryAfterSeconds)
				}
				if d.Next != "Wait 5 s (the service did not say how long), then retry." || d.Retry != string(RetryAfterWait) {
					t.Errorf("Next %q retry %s", d.Next, d.Retry)
				}
			case int:
				if d.RetryAfterSeconds == nil || *d.RetryAfterSeconds != want {
					t.Errorf("retryAfterSeconds %v, want %d", d.RetryAfterSeconds, want)
				}
				if d.Category == string(CategoryRateLimit) && d.Next != fmt.Sprintf("Wait %d s, then retry.", want) {
					t.Errorf("Next %q", d.Next)
				}
			}
			if c.upstream != nil && !reflect.DeepEqual(d.Upstream, c.upstream) {
				t.Errorf("upstream %v, want %v", d.Upstream, c.upstream)
			}
			if c.f.Status == 429 && (d.Category != string(CategoryRateLimit) || d.Status != 429) {
				t.Errorf("429 mapped to %s status %d", d.Category, d.Status)
			}
		})
	}
	got := mapT(t, Facts{Guides: testGuides, Source: SourceHorizon, Status: 429, Body: html, Header: http.Header{"Retry-After": {"12"}}})
	if got.Diagnostic.Detail != "response body is not JSON (status 429)" || !strings.HasSuffix(strings.Split(got.Text, "\n")[1], "HTTP 429") {
		t.Errorf("HTML 429:\n%s", got.Text)
	}
}

func TestHeaderDeterminism(t *testing.T) {
	var first string
	for i := 0; i < 200; i++ {
		// Several spellings of one header: map order is random, the answer must not be.
		h := http.Header{}
		for _, k := range []string{"retry-after", "RETRY-AFTER", "rEtRy-AfTeR"} {
			h[k] = []string{fmt.Sprint(len(k) + strings.Count(k, "R"))}
		}
		h["x-ratelimit-limit"] = []string{"10"}
		h["X-RATELIMIT-LIMIT"] = []string{"20"}
		got := jsonOf(t, Map(Facts{Guides: testGuides, Source: SourceAPI, Status: 429, Header: h}))
		if i == 0 {
			first = got
		} else if got != first {
			t.Fatalf("run %d differs:\n%s\n%s", i, got, first)
		}
	}
}

func TestTransportWins(t *testing.T) {
	d := mapT(t, Facts{Guides: testGuides, Source: SourceAPI, Operation: "Browse failed", Transport: TransportNetwork, Status: 200, Detail: "read tcp: connection reset by peer"}).Diagnostic
	if d.Code != CodeNetworkError || d.Detail != "read tcp: connection reset by peer" {
		t.Errorf("%+v", d)
	}
	d = mapT(t, Facts{Guides: testGuides, Source: SourceAPI, Operation: "Browse failed", Transport: TransportTimeout}).Diagnostic
	if d.Code != CodeTimeout || d.Detail != "request timed out" {
		t.Errorf("%+v", d)
	}
	d = mapT(t, Facts{Guides: testGuides, Source: SourceAPI, Transport: TransportNetwork}).Diagnostic
	if d.Operation != "MindVault API request failed" || d.Detail != "connection failed" {
		t.Errorf("defaults: %+v", d)
	}
}

func TestExplicitOverrides(t *testing.T) {
	cases := []struct {
		name string
		f    Facts
		code string
		cat  Category
	}{
		{"code decides category", Facts{Guides: testGuides, Source: SourceX402, Code: CodePriceAboveCap, Detail: "price 12 USDC is above maxPriceUsdc 10"}, CodePriceAboveCap, CategoryPayment},
		{"code beats status", Facts{Guides: testGuides, Source: SourceAPI, Status: 200, Code: CodeMalformedResponse}, CodeMalformedResponse, CategoryServer},
		{"code beats transport", Facts{Guides: testGuides, Source: SourceRegistry, Transport: TransportTimeout, Code: CodeContractError}, CodeContractError, CategoryContract},
		{"category keeps matching code", Facts{Guides: testGuides, Source: SourceAPI, Status: 401, Category: CategoryAuth}, CodeUnauthorized, CategoryAuth},
		{"category replaces other code", Facts{Guides: testGuides, Source: SourceAPI, Status: 500, Category: CategoryPayment}, CodePaymentRejected, CategoryPayment},
		{"both explicit", Facts{Guides: testGuides, Source: SourceCredentials, Code: CodeReadOnlyStore, Category: CategoryAuth}, CodeReadOnlyStore, CategoryAuth},
		{"policy refusal", Facts{Guides: testGuides, Source: SourceRequest, Code: CodeMainnetNotConfirmed, Tool: "mindvault_buy"}, CodeMainnetNotConfirmed, CategoryValidation},
		{"profile exists", Facts{Guides: testGuides, Source: SourceCredentials, Code: CodeProfileExists}, CodeProfileExists, CategoryConflict},
		{"profile not allowed", Facts{Guides: testGuides, Source: SourceCredentials, Code: CodeProfileNotAllowed}, CodeProfileNotAllowed, CategoryAuth},
		{"credentials missing", Facts{Guides: testGuides, Source: SourceCredentials, Code: CodeCredentialsMissing}, CodeCredentialsMissing, CategoryAuth},
		{"price changed", Facts{Guides: testGuides, Source: SourceX402, Code: CodePriceChanged}, CodePriceChanged, CategoryPayment},
		{"unsupported", Facts{Guides: testGuides, Source: SourceX402, Code: CodeUnsupportedRequirement}, CodeUnsupportedRequirement, CategoryPayment},
		{"fees", Facts{Guides: testGuides, Source: SourceX402, Code: CodeFeesNotSponsored}, CodeFeesNotSponsored, CategoryPayment},
		{"undocumented code ignored", Facts{Guides: testGuides, Source: SourceAPI, Status: 404, Code: "MADE_UP"}, CodeNotFound, CategoryNotFound},
		{"invalid category ignored", Facts{Guides: testGuides, Source: SourceAPI, Status: 404, Category: "weird"}, CodeNotFound, CategoryNotFound},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := mapT(t, c.f)
			if got.Diagnostic.Code != c.code || got.Diagnostic.Category != string(c.cat) {
				t.Errorf("%s/%s", got.Diagnostic.Code, got.Diagnostic.Category)
			}
			if c.f.Detail == "" && c.f.Status == 0 && got.Diagnostic.Detail != Phrase(c.code) {
				t.Errorf("detail %q, want the phrase %q", got.Diagnostic.Detail, Phrase(c.code))
			}
		})
	}
}

func TestDetailBounds(t *testing.T) {
	long := strings.Repeat("漢字", 400) // multi-byte: a byte cut would break UTF-8
	got := mapT(t, Facts{Guides: testGuides, Source: SourceAPI, Operation: strings.Repeat("Op ", 200), Status: 500, Body: []byte(`{"error":"` + long + `"}`)})
	d := got.Diagnostic
	if n := runes(d.Detail); n != MaxDetail || !strings.HasSuffix(d.Detail, "…") {
		t.Errorf("detail %d runes, ends %q", n, d.Detail[len(d.Detail)-6:])
	}
	if n := runes(d.Operation); n > maxOperation {
		t.Errorf("operation %d runes", n)
	}
	big := make([]byte, 0, MaxBodyBytes+100)
	big = append(big, `{"error":"`...)
	big = append(big, strings.Repeat("a", MaxBodyBytes)...)
	big = append(big, `"}`...)
	if d := mapT(t, Facts{Guides: testGuides, Source: SourceAPI, Status: 500, Body: big}).Diagnostic; d.Detail != "response body is too large to read (status 500)" {
		t.Errorf("huge body: %q", d.Detail)
	}
	deep := strings.Repeat(`{"error":`, 5000) + `"deep"` + strings.Repeat(`}`, 5000)
	if d := mapT(t, Facts{Guides: testGuides, Source: SourceAPI, Status: 500, Body: []byte(deep)}).Diagnostic; d.Code != CodeServerError {
		t.Errorf("deep body: %+v", d)
	}
	deepArr := `{"error":` + strings.Repeat(`[`, 100) + `"x"` + strings.Repeat(`]`, 100) + `}`
	if d := mapT(t, Facts{Guides: testGuides, Source: SourceAPI, Status: 500, Body: []byte(deepArr)}).Diagnostic; d.Detail != "server error" {
		t.Errorf("deep array beyond the bound must be skipped: %q", d.Detail)
	}
	if d := mapT(t, Facts{Guides: testGuides, Source: SourceAPI, Status: 500, Operation: " \n\t "}).Diagnostic; d.Operation != "MindVault API request failed" {
		t.Errorf("blank operation: %q", d.Operation)
	}
}

func TestDiagnosticJSONShape(t *testing.T) {
	d := Validation("mindvault_preview", []Issue{{Path: "/resourceId", Rule: "required", Expected: "string", Message: "is required"}}, []string{"resourceId"}, nil).Diagnostic
	got := jsonOf(t, d)
	want := `{"version":1,"code":"INVALID_ARGUMENTS","category":"validation","source":"request","operation":"Invalid arguments for mindvault_preview (-32602)",` +
		`"detail":"/resourceId is required","next":"Correct the invalid arguments and call mindvault_preview again (allowed arguments: resourceId).",` +
		`"retry":"after_correction","executionStarted":false,"stateChanged":"no","issues":[{"path":"/resourceId","rule":"required","expected":"string"}],` +
		`"omittedIssues":0,"jsonrpcCode":-32602}`
	if got != want {
		t.Errorf("json\n%s\nwant\n%s", got, want)
	}
	full := Map(Facts{Guides: testGuides, Source: SourceX402, Operation: "Buy failed [402]", Status: 402, Code: CodeInsufficientUSDC, Upstream: Upstream{X402Reason: "insufficient_funds"},
		Header: http.Header{"Retry-After": {"3"}}, ExecutionStarted: true, TxHash: testTxHash, PaymentExpiresAt: "2026-01-01T00:00:00Z", StateChanged: StateUnknown})
	keys := sortedKeys(mustObject(t, jsonOf(t, full.Diagnostic)))
	want2 := []string{"category", "code", "detail", "executionStarted", "next", "operation", "paymentExpiresAt", "retry", "retryAfterSeconds", "source", "stateChanged", "status", "txHash", "upstream", "version"}
	if !reflect.DeepEqual(keys, want2) {
		t.Errorf("keys %v\nwant %v", keys, want2)
	}
}

func intp(n int) *int { return &n }

// TestServerFailureIsNotCalledATimeout: line 1 agrees with line 2; a 503 whose body says
// "Request timeout" (the API's own middleware) is a server failure, not described as a timeout.
func TestServerFailureIsNotCalledATimeout(t *testing.T) {
	got := mapT(t, Facts{Guides: testGuides, Source: SourceAPI, Operation: "Browse failed", Status: 503, UpstreamDetail: "Request timeout"})
	line1, _, _ := strings.Cut(got.Text, "\n")
	if got.Diagnostic.Category != string(CategoryServer) || strings.Contains(strings.ToLower(line1), "timeout") ||
		!strings.Contains(line1, "MindVault API is unavailable (HTTP 503)") {
		t.Fatalf("503 Request timeout: %q (%s)", line1, got.Diagnostic.Category)
	}
	if got := mapT(t, Facts{Guides: testGuides, Source: SourceAPI, Operation: "Browse failed", Status: 504, UpstreamDetail: "Gateway timeout"}); got.Diagnostic.Category != string(CategoryTimeout) {
		t.Fatalf("a 504 is a timeout: %s", got.Diagnostic.Category)
	}
}
