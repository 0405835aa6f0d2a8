package mcp

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// guardCase is one request put to a middleware, and what must come of it.
type guardCase struct {
	name    string
	method  string // POST when empty
	path    string // /mcp when empty
	headers map[string]string
	body    string
	reader  io.Reader // the body instead of body, when set
	status  int       // 0: the request must reach the next handler
	answer  string    // the exact body of a refusal
}

// testRequest is a request to the endpoint with headers set; method and path default to
// POST /mcp.
func testRequest(method, path string, body io.Reader, headers map[string]string) *http.Request {
	if method == "" {
		method = http.MethodPost
	}
	if path == "" {
		path = "/mcp"
	}
	req := httptest.NewRequest(method, path, body)
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	return req
}

// runGuard puts tc to mw in front of a handler that records what reached it.
func runGuard(t *testing.T, g guard, tc guardCase) (rec *httptest.ResponseRecorder, reached bool, seen string) {
	t.Helper()
	var body io.Reader = strings.NewReader(tc.body)
	if tc.reader != nil {
		body = tc.reader
	}
	req := testRequest(tc.method, tc.path, body, tc.headers)
	// A guard writes the request's log record, which observe gives it in Handler.
	req = req.WithContext(withState(req.Context(), reqState{entry: &entry{}}))
	rec = httptest.NewRecorder()
	if r := g(rec, req); r != nil {
		reached = true
		b, err := io.ReadAll(r.Body)
		if err != nil {
			t.Errorf("the next handler could not read the body: %v", err)
		}
		seen = string(b)
		rec.WriteHeader(http.StatusTeapot)
	}
	return rec, reached, seen
}

// checkGuard asserts the outcome of runGuard against tc.
func checkGuard(t *testing.T, tc guardCase, rec *httptest.ResponseRecorder, reached bool) {
	t.Helper()
	if tc.status == 0 {
		if !reached || rec.Code != http.StatusTeapot {
			t.Fatalf("the request did not reach the next handler: %d %s", rec.Code, rec.Body)
		}
		return
	}
	if reached {
		t.Fatal("a refused request reached the next handler")
	}
	if rec.Code != tc.status {
		t.Fatalf("status = %d, want %d", rec.Code, tc.status)
	}
	if got := rec.Body.String(); got != tc.answer {
		t.Fatalf("answer =\n%s\nwant\n%s", got, tc.answer)
	}
	if rec.Header().Get("Content-Type") != "application/json" || rec.Header().Get("Cache-Control") != "no-store" {
		t.Fatalf("headers = %v", rec.Header())
	}
}

// The chain applies the guards in Handler's order: a request that breaks several rules gets
// the answer of the first, and one that breaks none is served.
func TestHandlerGuardOrder(t *testing.T) {
	big := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"` + strings.Repeat("a", 2000) + `"}}`
	cases := []struct {
		name    string
		method  string
		path    string
		headers map[string]string
		body    string
		status  int
	}{
		{name: "path before method", method: "GET", path: "/other", status: 404},
		{name: "method before origin", method: "GET", headers: map[string]string{"Origin": "https://evil.example"}, status: 405},
		{name: "origin before content type", headers: map[string]string{"Origin": "https://evil.example", "Content-Type": "text/plain"}, status: 403},
		{name: "content type before body size", headers: map[string]string{"Content-Type": "text/plain"}, body: big, status: 415},
		{name: "body size before JSON-RPC", headers: legacyHeaders, body: big, status: 413},
		{name: "all rules kept", headers: legacyHeaders, body: `{"jsonrpc":"2.0","id":1,"method":"ping"}`, status: 200},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req := testRequest(tc.method, tc.path, strings.NewReader(tc.body), tc.headers)
			rec := httptest.NewRecorder()
			Handler(newTestServer(io.Discard)).ServeHTTP(rec, req)
			if rec.Code != tc.status {
				t.Fatalf("status = %d, want %d: %s", rec.Code, tc.status, rec.Body)
			}
		})
	}
}

// A request a guard refuses still gets its one log line, with the status and the codes of
// the answer, and the correlation id the invocation brought.
func TestRefusedRequestIsLogged(t *testing.T) {
	cases := []struct {
		name    string
		method  string
		headers map[string]string
		status  int
		rpcCode int
		code    string
	}{
		{name: "405", method: "GET", status: 405},
		{name: "403", headers: map[string]string{"Origin": "https://evil.example"}, status: 403, rpcCode: CodeInvalidRequest, code: "FORBIDDEN"},
		{name: "415", headers: map[string]string{"Content-Type": "text/plain"}, status: 415, rpcCode: CodeInvalidRequest, code: "INVALID_REQUEST"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var logs bytes.Buffer
			req := testRequest(tc.method, "", strings.NewReader(`{}`), tc.headers)
			req = req.WithContext(WithRequestID(req.Context(), "lambda-req-1"))
			Handler(newTestServer(&logs)).ServeHTTP(httptest.NewRecorder(), req)
			lines := strings.Split(strings.TrimSpace(logs.String()), "\n")
			if len(lines) != 1 {
				t.Fatalf("want one log line, got %q", logs.String())
			}
			var line struct {
				RequestID string `json:"requestId"`
				Status    int    `json:"status"`
				RPCCode   int    `json:"rpcCode"`
				Code      string `json:"code"`
			}
			if err := json.Unmarshal([]byte(lines[0]), &line); err != nil {
				t.Fatal(err)
			}
			if line.RequestID != "lambda-req-1" || line.Status != tc.status || line.RPCCode != tc.rpcCode || line.Code != tc.code {
				t.Fatalf("log line = %s", lines[0])
			}
		})
	}
}
