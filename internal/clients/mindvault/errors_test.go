package mindvault

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/mindvault/mcp-endpoint/errmap"
)

const testSeed = "SBU2RRGLXH3E5CQHTD3ODLDF2BWDCYUSSBLLZ5GNW7JXHDIYKXZWHOKR"

func TestReadError(t *testing.T) {
	cases := []struct {
		name   string
		src    errmap.Source
		status int
		body   string
		code   string
		detail string
	}{
		{"chain_unavailable", errmap.SourceX402, 503, `{"error":"chain_unavailable","message":"On-chain check unavailable","resourceId":"r1"}`,
			errmap.CodeChainUnavailable, "chain_unavailable: On-chain check unavailable"},
		{"chain_unavailable code field", errmap.SourceAPI, 503, `{"code":"CHAIN_UNAVAILABLE","error":"Chain unavailable"}`,
			errmap.CodeChainUnavailable, "Chain unavailable"},
		{"price_mismatch", errmap.SourceAPI, 409, `{"error":"price_mismatch","message":"Listed price differs from on-chain price"}`,
			errmap.CodePriceMismatch, "price_mismatch: Listed price differs from on-chain price"},
		{"other token keeps the status", errmap.SourceAPI, 409, `{"error":"duplicate_email"}`,
			errmap.CodeConflict, "duplicate_email"},
		{"already registered", errmap.SourceAPI, 409, `{"error":"Resource is already registered on-chain","onchainTxHash":"3389e9f0f1a65f19736cacf544c2e825313e8447f569233bb8db39aa607c8889"}`,
			errmap.CodeAlreadyRegistered, "Resource is already registered on-chain"},
		{"zod format", errmap.SourceAPI, 400, `{"error":{"_errors":[],"title":{"_errors":["Required"]},"price":{"_errors":["Expected number"]}}}`,
			errmap.CodeBadRequest, "title: Required"},
		{"zod form error first", errmap.SourceAPI, 400, `{"error":{"_errors":["Unrecognized key(s) in object: 'x'"],"title":{"_errors":["Required"]}}}`,
			errmap.CodeBadRequest, "Unrecognized key(s) in object: 'x'"},
		{"zod flatten", errmap.SourceAPI, 422, `{"error":{"formErrors":[],"fieldErrors":{"email":["Invalid email"]}}}`,
			errmap.CodeBadRequest, "email: Invalid email"},
		{"zod issues", errmap.SourceAPI, 400, `{"error":{"name":"ZodError","issues":[{"code":"too_small","path":["price",0],"message":"Must be positive"}]}}`,
			errmap.CodeBadRequest, "price.0: Must be positive"},
		{"nested message", errmap.SourceAPI, 500, `{"error":{"code":"E1","message":"Database down"}}`,
			errmap.CodeServerError, "Database down"},
		{"error before message", errmap.SourceAPI, 500, `{"message":"second","error":"first"}`,
			errmap.CodeServerError, "first"},
		{"error with its detail", errmap.SourceAPI, 500, `{"message":"second","error":"first","detail":"third"}`,
			errmap.CodeServerError, "first: third"},
		{"register/prepare 500 keeps its detail", errmap.SourceAPI, 500, `{"error":"Failed to build register transaction","detail":"Transaction has not yet been simulated; call AssembledTransaction.simulate first."}`,
			errmap.CodeServerError, "Failed to build register transaction: Transaction has not yet been simulated; call AssembledTransaction.simulate first."},
		{"price mismatch", errmap.SourceAPI, 409, `{"error":"price_mismatch","message":"Resource price is temporarily unavailable due to a configuration issue. Please try again later.","resourceId":"r"}`,
			errmap.CodePriceMismatch, "price_mismatch: Resource price is temporarily unavailable due to a configuration issue. Please try again later."},
		{"message before detail", errmap.SourceAPI, 500, `{"reason":"fourth","detail":"third","message":"  "}`,
			errmap.CodeServerError, "third"},
		{"errors array", errmap.SourceAPI, 500, `{"errors":[{"message":"from array"}]}`,
			errmap.CodeServerError, "from array"},
		{"array of zod issues", errmap.SourceAPI, 400, `[{"message":"first issue"},{"message":"second"}]`,
			errmap.CodeBadRequest, "first issue"},
		{"json string body", errmap.SourceAPI, 500, `"plain json string"`,
			errmap.CodeServerError, "plain json string"},
		{"no message keys", errmap.SourceAPI, 500, `{"stack":"at secret.js:1","internal":"x"}`,
			errmap.CodeServerError, "server error"},
		{"empty object 402", errmap.SourceX402, 402, `{}`,
			errmap.CodePaymentRequired, "payment required"},
		{"html 502", errmap.SourceAPI, 502, "<html><body>Bad gateway " + testSeed + "</body></html>",
			errmap.CodeServerError, "response body is not JSON (status 502)"},
		{"empty 504", errmap.SourceAPI, 504, "",
			errmap.CodeTimeout, "no response body"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := errmap.Map(ReadError(errmap.Facts{Source: c.src, Operation: "Op failed", Status: c.status, Body: []byte(c.body)}))
			d := got.Diagnostic
			if d.Code != c.code || d.Detail != c.detail {
				t.Errorf("got %s %q, want %s %q", d.Code, d.Detail, c.code, c.detail)
			}
			j, _ := json.Marshal(d)
			for _, leak := range []string{"secret.js", testSeed, "onchainTxHash"} {
				if strings.Contains(got.Text, leak) || strings.Contains(string(j), leak) {
					t.Errorf("body content %q leaked", leak)
				}
			}
		})
	}
}

// TestReadErrorWait: a 429's retryAfterSeconds is the wait; the Retry-After header still wins.
func TestReadErrorWait(t *testing.T) {
	cases := []struct {
		name   string
		header http.Header
		body   string
		want   int
	}{
		{"body wait", nil, `{"error":"Too many requests","code":"RATE_LIMITED","retryAfterSeconds":4}`, 4},
		{"fraction rounds up", nil, `{"retryAfterSeconds":1.2}`, 2},
		{"header beats body", http.Header{"Retry-After": {"9"}}, `{"retryAfterSeconds":4}`, 9},
		{"negative ignored", nil, `{"retryAfterSeconds":-4}`, errmap.DefaultRetryAfterSeconds},
		{"not a number ignored", nil, `{"retryAfterSeconds":"4"}`, errmap.DefaultRetryAfterSeconds},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := errmap.Map(ReadError(errmap.Facts{Source: errmap.SourceAPI, Status: 429, Header: c.header, Body: []byte(c.body)})).Diagnostic
			if d.RetryAfterSeconds == nil || *d.RetryAfterSeconds != c.want || d.Code != errmap.CodeRateLimited {
				t.Errorf("%s retryAfterSeconds %v, want %d", d.Code, d.RetryAfterSeconds, c.want)
			}
		})
	}
}
