package mcp

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// fakeTools is a ToolSet with one tool that echoes its arguments and one that panics.
type fakeTools struct{}

func (fakeTools) Definitions() []json.RawMessage {
	return []json.RawMessage{json.RawMessage(`{"name":"echo"}`), json.RawMessage(`{"name":"boom"}`)}
}
func (fakeTools) Names() []string { return []string{"echo", "boom"} }
func (fakeTools) Call(_ context.Context, name string, args json.RawMessage) (ToolResult, bool) {
	switch name {
	case "echo":
		return ToolResult{Content: []Content{{Type: "text", Text: string(args)}}, Outcome: "ok"}, true
	case "boom":
		panic("kaboom with details")
	}
	return ToolResult{}, false
}

// fakePrompts has one prompt with a required argument and one that cannot render.
type fakePrompts struct{}

func (fakePrompts) Definitions() []json.RawMessage {
	return []json.RawMessage{json.RawMessage(`{"name":"greet","description":"d","arguments":[{"name":"who","required":true}]}`), json.RawMessage(`{"name":"broken","description":"d"}`)}
}
func (fakePrompts) Names() []string { return []string{"greet", "broken"} }
func (fakePrompts) Get(name string, args map[string]string) (PromptResult, bool, error) {
	switch name {
	case "greet":
		for k := range args {
			if k != "who" {
				return PromptResult{}, true, &PromptArgumentError{Argument: k, Problem: "is not an argument of this prompt", Allowed: []string{"who"}}
			}
		}
		if args["who"] == "" {
			return PromptResult{}, true, &PromptArgumentError{Argument: "who", Problem: "is required", Allowed: []string{"who"}}
		}
		return PromptResult{Description: "d", Messages: []PromptMessage{{Role: "user", Content: Content{Type: "text", Text: "hello " + args["who"]}}}}, true, nil
	case "broken":
		return PromptResult{}, true, errString("template exploded with details")
	}
	return PromptResult{}, false, nil
}

func newTestServer(logw io.Writer) *Server {
	return &Server{
		Info:                 ServerInfo{Name: "test", Version: "1"},
		Instructions:         "hi",
		Tools:                fakeTools{},
		Prompts:              fakePrompts{},
		MaxBodyBytes:         1024,
		AllowLoopbackOrigins: true,
		AllowedOrigins:       []string{"https://allowed.example"},
		ListTTL:              60000 * 1e6,
		Logger:               slog.New(slog.NewJSONHandler(logw, nil)),
	}
}

const metaModern = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

func modernHeaders(method string) map[string]string {
	return map[string]string{"Content-Type": "application/json", "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": method}
}

var legacyHeaders = map[string]string{"Content-Type": "application/json", "MCP-Protocol-Version": "2025-11-25"}

func with(h map[string]string, kv ...string) map[string]string {
	out := map[string]string{}
	for k, v := range h {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] == "" {
			delete(out, kv[i])
			continue
		}
		out[kv[i]] = kv[i+1]
	}
	return out
}

type wireResp struct {
	ID     json.RawMessage `json:"id"`
	Result map[string]json.RawMessage
	Error  *struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	}
}

func TestChannelTable(t *testing.T) {
	cases := []struct {
		name    string
		method  string
		path    string
		headers map[string]string
		body    string
		status  int
		code    int      // expected JSON-RPC error code; 0 = a result
		result  []string // result keys that must be present
		msg     string   // fragment of the error message
		noID    bool     // the error must carry no id
	}{
		// HTTP rules.
		{name: "GET is 405", method: "GET", path: "/mcp", status: 405},
		{name: "DELETE is 405", method: "DELETE", path: "/mcp", status: 405},
		{name: "other path is 404", method: "POST", path: "/other", headers: legacyHeaders, body: `{}`, status: 404},
		{name: "foreign Origin is 403", headers: with(legacyHeaders, "Origin", "https://evil.example"), body: `{"jsonrpc":"2.0","id":1,"method":"ping"}`, status: 403, code: CodeInvalidRequest, noID: true},
		{name: "loopback Origin allowed", headers: with(legacyHeaders, "Origin", "http://localhost:6274"), body: `{"jsonrpc":"2.0","id":1,"method":"ping"}`, status: 200, result: []string{}},
		{name: "allow-listed Origin allowed", headers: with(legacyHeaders, "Origin", "https://allowed.example"), body: `{"jsonrpc":"2.0","id":1,"method":"ping"}`, status: 200, result: []string{}},
		{name: "Content-Type text is 415", headers: with(legacyHeaders, "Content-Type", "text/plain"), body: `{}`, status: 415},
		{name: "Content-Type missing is 415", headers: with(legacyHeaders, "Content-Type", ""), body: `{}`, status: 415},
		{name: "Content-Type with charset ok", headers: with(legacyHeaders, "Content-Type", "application/json; charset=utf-8"), body: `{"jsonrpc":"2.0","id":1,"method":"ping"}`, status: 200, result: []string{}},
		{name: "body over the limit is 413", headers: legacyHeaders, body: `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"` + strings.Repeat("a", 2000) + `"}}`, status: 413},
		// Envelope.
		{name: "not JSON", headers: legacyHeaders, body: `{nope`, status: 400, code: CodeParseError, noID: true},
		{name: "invalid UTF-8 JSON", headers: legacyHeaders, body: "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\"}", status: 400, code: CodeParseError, noID: true},
		{name: "batch array", headers: legacyHeaders, body: `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, status: 400, code: CodeInvalidRequest, noID: true},
		{name: "deeply nested body", headers: with(legacyHeaders, "Content-Type", "application/json"), body: `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":` + strings.Repeat("[", 400) + strings.Repeat("]", 400) + `}}`, status: 200, result: []string{}},
		{name: "missing method", headers: legacyHeaders, body: `{"jsonrpc":"2.0","id":1}`, status: 400, code: CodeInvalidRequest},
		{name: "bad id type", headers: legacyHeaders, body: `{"jsonrpc":"2.0","id":{},"method":"ping"}`, status: 400, code: CodeInvalidRequest, noID: true},
		{name: "null id", headers: legacyHeaders, body: `{"jsonrpc":"2.0","id":null,"method":"ping"}`, status: 400, code: CodeInvalidRequest, noID: true},
		{name: "wrong jsonrpc", headers: legacyHeaders, body: `{"jsonrpc":"1.0","id":1,"method":"ping"}`, status: 400, code: CodeInvalidRequest},
		{name: "key twice in the envelope", headers: legacyHeaders, body: `{"jsonrpc":"2.0","id":1,"method":"ping","method":"tools/list"}`, status: 400, code: CodeInvalidRequest, msg: "Invalid Request: method: is given more than once"},
		{name: "id twice is answered without an id", headers: legacyHeaders, body: `{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}`, status: 400, code: CodeInvalidRequest, msg: "Invalid Request: id: ", noID: true},
		{name: "legacy key twice in params", headers: legacyHeaders, body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"boom","name":"echo"}}`, status: 400, code: CodeInvalidParams, msg: "Invalid params: params.name: is given more than once"},
		{name: "legacy key twice in params._meta", headers: legacyHeaders, body: `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"progressToken":1,"progressToken":2}}}`, status: 400, code: CodeInvalidParams, msg: "params._meta.progressToken: "},
		{name: "legacy key twice in tool arguments is the tool's", headers: legacyHeaders, body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"a":1,"a":2}}}`, status: 200, result: []string{"content"}},
		{name: "notification with a key twice is refused", headers: legacyHeaders, body: `{"jsonrpc":"2.0","method":"notifications/initialized","params":{"a":1,"a":2}}`, status: 400, code: CodeInvalidParams, noID: true},
		{name: "notification is 202", headers: legacyHeaders, body: `{"jsonrpc":"2.0","method":"notifications/initialized"}`, status: 202},
		{name: "modern notification is 202", headers: modernHeaders("notifications/cancelled"), body: `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{` + metaModern + `}}`, status: 202},
		// Legacy era.
		{name: "initialize echoes a served version", headers: with(legacyHeaders, "MCP-Protocol-Version", ""), body: `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`, status: 200, result: []string{"protocolVersion", "capabilities", "serverInfo", "instructions"}},
		{name: "legacy ping", headers: legacyHeaders, body: `{"jsonrpc":"2.0","id":"a","method":"ping"}`, status: 200, result: []string{}},
		{name: "legacy without header is served", headers: with(legacyHeaders, "MCP-Protocol-Version", ""), body: `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, status: 200, result: []string{"tools"}},
		{name: "legacy unsupported header", headers: with(legacyHeaders, "MCP-Protocol-Version", "2024-11-05"), body: `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, status: 400, code: CodeInvalidRequest},
		{name: "legacy unknown method", headers: legacyHeaders, body: `{"jsonrpc":"2.0","id":1,"method":"resources/list"}`, status: 200, code: CodeMethodNotFound},
		{name: "legacy unknown tool", headers: legacyHeaders, body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"nope","arguments":{}}}`, status: 200, code: CodeInvalidParams, msg: `params.name: unknown tool "nope"`},
		{name: "legacy arguments array", headers: legacyHeaders, body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":[]}}`, status: 200, code: CodeInvalidParams, msg: "params.arguments: must be an object"},
		{name: "legacy name missing", headers: legacyHeaders, body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{}}}`, status: 200, code: CodeInvalidParams, msg: "params.name"},
		{name: "legacy name not a string", headers: legacyHeaders, body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":5}}`, status: 200, code: CodeInvalidParams, msg: "params.name: must be a string"},
		{name: "legacy call", headers: legacyHeaders, body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"a":1}}}`, status: 200, result: []string{"content"}},
		{name: "panic becomes -32603", headers: legacyHeaders, body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"boom"}}`, status: 200, code: CodeInternalError, msg: "correlation id"},
		// Modern era, in the order of docs/protocol.md "Modern requests".
		{name: "modern _meta missing capabilities", headers: modernHeaders("tools/list"), body: `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`, status: 400, code: CodeInvalidParams},
		{name: "modern header only, no _meta", headers: modernHeaders("tools/list"), body: `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, status: 400, code: CodeInvalidParams},
		{name: "modern header missing", headers: with(modernHeaders("tools/list"), "MCP-Protocol-Version", ""), body: `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + metaModern + `}}`, status: 400, code: CodeHeaderMismatch},
		{name: "modern header differs", headers: with(modernHeaders("tools/list"), "MCP-Protocol-Version", "2025-11-25"), body: `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + metaModern + `}}`, status: 400, code: CodeHeaderMismatch},
		{name: "modern unsupported version", headers: with(modernHeaders("tools/list"), "MCP-Protocol-Version", "2099-01-01"), body: `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2099-01-01","io.modelcontextprotocol/clientCapabilities":{}}}}`, status: 400, code: CodeUnsupportedProtocol},
		{name: "modern Mcp-Method missing", headers: with(modernHeaders("tools/list"), "Mcp-Method", ""), body: `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + metaModern + `}}`, status: 400, code: CodeHeaderMismatch},
		{name: "modern Mcp-Method mismatch", headers: modernHeaders("tools/call"), body: `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + metaModern + `}}`, status: 400, code: CodeHeaderMismatch},
		{name: "modern Mcp-Method case-sensitive value", headers: modernHeaders("Tools/List"), body: `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + metaModern + `}}`, status: 400, code: CodeHeaderMismatch},
		{name: "modern Mcp-Method trimmed", headers: modernHeaders("  tools/list "), body: `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + metaModern + `}}`, status: 200, result: []string{"tools", "ttlMs", "cacheScope", "resultType", "_meta"}},
		{name: "modern Mcp-Name missing", headers: modernHeaders("tools/call"), body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo",` + metaModern + `}}`, status: 400, code: CodeHeaderMismatch},
		{name: "modern Mcp-Name base64 sentinel", headers: with(modernHeaders("tools/call"), "Mcp-Name", "=?base64?"+base64.StdEncoding.EncodeToString([]byte("echo"))+"?="), body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo",` + metaModern + `}}`, status: 200, result: []string{"content", "resultType", "_meta"}},
		{name: "modern initialize is 404", headers: modernHeaders("initialize"), body: `{"jsonrpc":"2.0","id":7,"method":"initialize","params":{` + metaModern + `}}`, status: 404, code: CodeMethodNotFound},
		{name: "modern ping is 404", headers: modernHeaders("ping"), body: `{"jsonrpc":"2.0","id":7,"method":"ping","params":{` + metaModern + `}}`, status: 404, code: CodeMethodNotFound},
		{name: "modern discover", headers: modernHeaders("server/discover"), body: `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + metaModern + `}}`, status: 200, result: []string{"supportedVersions", "capabilities", "ttlMs", "cacheScope", "resultType", "_meta"}},
		{name: "modern unknown tool", headers: with(modernHeaders("tools/call"), "Mcp-Name", "nope"), body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"nope","arguments":{},` + metaModern + `}}`, status: 200, code: CodeInvalidParams, msg: `unknown tool "nope"`},
		{name: "modern arguments array", headers: with(modernHeaders("tools/call"), "Mcp-Name", "echo"), body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":[],` + metaModern + `}}`, status: 200, code: CodeInvalidParams, msg: "params.arguments"},
		{name: "modern key twice in params", headers: with(modernHeaders("tools/call"), "Mcp-Name", "echo"), body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"boom","name":"echo",` + metaModern + `}}`, status: 400, code: CodeInvalidParams, msg: "Invalid params: params.name: "},
		{name: "modern version twice in _meta", headers: modernHeaders("tools/list"), body: `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/protocolVersion":"2099-01-01","io.modelcontextprotocol/clientCapabilities":{}}}}`, status: 400, code: CodeInvalidParams, msg: `Invalid params: params._meta["io.modelcontextprotocol/protocolVersion"]: `},
		{name: "modern _meta twice in two cases", headers: modernHeaders("tools/list"), body: `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + metaModern + `,"_META":{}}}`, status: 400, code: CodeInvalidParams, msg: "Invalid params: params._META: is given more than once in the same object, in another case"},
		{name: "session id ignored", headers: with(legacyHeaders, "Mcp-Session-Id", "abc"), body: `{"jsonrpc":"2.0","id":1,"method":"ping"}`, status: 200, result: []string{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var logs bytes.Buffer
			srv := newTestServer(&logs)
			req := testRequest(tc.method, tc.path, strings.NewReader(tc.body), tc.headers)
			rec := httptest.NewRecorder()
			srv.ServeHTTP(rec, req)
			if rec.Code != tc.status {
				t.Fatalf("status = %d, want %d; body %s", rec.Code, tc.status, rec.Body)
			}
			if rec.Header().Get("Mcp-Session-Id") != "" {
				t.Fatal("a session id was sent")
			}
			if tc.status == 202 {
				if rec.Body.Len() != 0 {
					t.Fatalf("202 with a body: %s", rec.Body)
				}
				return
			}
			if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
				t.Fatalf("Content-Type = %q", ct)
			}
			if tc.status == 405 && rec.Header().Get("Allow") != "POST" {
				t.Fatal("405 without Allow: POST")
			}
			if tc.code == 0 && tc.result == nil {
				return
			}
			var resp wireResp
			if err := json.Unmarshal(rec.Body.Bytes(), &resp); err != nil {
				t.Fatalf("body is not JSON: %s", rec.Body)
			}
			if tc.code != 0 {
				if resp.Error == nil || resp.Error.Code != tc.code {
					t.Fatalf("want error %d, got %s", tc.code, rec.Body)
				}
				if !strings.Contains(resp.Error.Message, tc.msg) {
					t.Fatalf("message %q lacks %q", resp.Error.Message, tc.msg)
				}
				if tc.noID != (resp.ID == nil) {
					t.Fatalf("id presence wrong (noID=%v): %s", tc.noID, rec.Body)
				}
				return
			}
			if resp.Error != nil {
				t.Fatalf("unexpected error %s", rec.Body)
			}
			for _, k := range tc.result {
				if _, ok := resp.Result[k]; !ok {
					t.Fatalf("result lacks %q: %s", k, rec.Body)
				}
			}
		})
	}
}

func post(t *testing.T, srv http.Handler, headers map[string]string, body string) (*httptest.ResponseRecorder, wireResp) {
	t.Helper()
	req := httptest.NewRequest("POST", "/mcp", strings.NewReader(body))
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, req)
	var resp wireResp
	_ = json.Unmarshal(rec.Body.Bytes(), &resp)
	return rec, resp
}

func TestErrorsEchoTheID(t *testing.T) {
	srv := newTestServer(io.Discard)
	for _, id := range []string{`7`, `"req-1"`, `-3`} {
		_, resp := post(t, srv, modernHeaders("ping"), `{"jsonrpc":"2.0","id":`+id+`,"method":"ping","params":{`+metaModern+`}}`)
		if string(resp.ID) != id {
			t.Errorf("id %s echoed as %s", id, resp.ID)
		}
	}
}

func TestUnsupportedVersionData(t *testing.T) {
	srv := newTestServer(io.Discard)
	_, resp := post(t, srv, with(modernHeaders("tools/list"), "MCP-Protocol-Version", "2099-01-01"),
		`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2099-01-01","io.modelcontextprotocol/clientCapabilities":{}}}}`)
	var data struct {
		Supported []string `json:"supported"`
		Requested string   `json:"requested"`
	}
	if resp.Error == nil || json.Unmarshal(resp.Error.Data, &data) != nil {
		t.Fatalf("no data: %+v", resp.Error)
	}
	if data.Requested != "2099-01-01" || len(data.Supported) != 3 || data.Supported[0] != Version20260728 {
		t.Fatalf("data = %+v", data)
	}
}

func TestModernResultCarriesServerInfo(t *testing.T) {
	srv := newTestServer(io.Discard)
	_, resp := post(t, srv, with(modernHeaders("tools/call"), "Mcp-Name", "echo"),
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"k":"v"},`+metaModern+`}}`)
	var meta map[string]ServerInfo
	if err := json.Unmarshal(resp.Result["_meta"], &meta); err != nil || meta[metaServerInfo].Name != "test" {
		t.Fatalf("serverInfo missing: %s", resp.Result["_meta"])
	}
	if string(resp.Result["resultType"]) != `"complete"` {
		t.Fatalf("resultType = %s", resp.Result["resultType"])
	}
	// The legacy wire carries neither.
	_, legacy := post(t, srv, legacyHeaders, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{}}}`)
	if _, ok := legacy.Result["resultType"]; ok {
		t.Fatal("legacy result carries resultType")
	}
}

func TestPanicDetailsOnlyInTheLog(t *testing.T) {
	var logs bytes.Buffer
	srv := newTestServer(&logs)
	rec, resp := post(t, srv, legacyHeaders, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"boom"}}`)
	if strings.Contains(rec.Body.String(), "kaboom") {
		t.Fatal("panic detail leaked to the client")
	}
	var data struct {
		CorrelationID string `json:"correlationId"`
	}
	_ = json.Unmarshal(resp.Error.Data, &data)
	if data.CorrelationID == "" || !strings.Contains(logs.String(), data.CorrelationID) || !strings.Contains(logs.String(), "kaboom") {
		t.Fatalf("log lacks the correlation id or the panic: %s", logs.String())
	}
	// The server keeps serving after a panic.
	rec, _ = post(t, srv, legacyHeaders, `{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	if rec.Code != 200 {
		t.Fatalf("server broken after a panic: %d", rec.Code)
	}
}

func TestUnavailableAnswersEveryRequest(t *testing.T) {
	srv := newTestServer(io.Discard)
	srv.Unavailable = errString("invalid configuration: HORIZON_URL: must be an absolute http(s) URL")
	_, resp := post(t, srv, legacyHeaders, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	if resp.Error == nil || resp.Error.Code != CodeInternalError || !strings.Contains(resp.Error.Message, "HORIZON_URL") {
		t.Fatalf("want -32603 naming the variable, got %+v", resp.Error)
	}
}

type errString string

func (e errString) Error() string { return string(e) }

func TestOneLogLinePerRequest(t *testing.T) {
	var logs bytes.Buffer
	srv := newTestServer(&logs)
	post(t, srv, with(modernHeaders("tools/call"), "Mcp-Name", "echo"),
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"secretish":"do-not-log"},`+metaModern+`}}`)
	lines := strings.Split(strings.TrimSpace(logs.String()), "\n")
	if len(lines) != 1 {
		t.Fatalf("want one log line, got %d: %s", len(lines), logs.String())
	}
	var rec map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &rec); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"requestId", "method", "tool", "era", "durationMs", "outcome", "status"} {
		if _, ok := rec[k]; !ok {
			t.Errorf("log line lacks %s: %s", k, lines[0])
		}
	}
	if strings.Contains(logs.String(), "do-not-log") {
		t.Fatal("request body reached the log")
	}
}

func FuzzEnvelope(f *testing.F) {
	for _, s := range []string{`{"jsonrpc":"2.0","id":1,"method":"ping"}`, `[]`, `{`, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + metaModern + `}}`, `{"jsonrpc":"2.0","method":"x","params":[1]}`, "\xff", `null`} {
		f.Add([]byte(s))
	}
	srv := newTestServer(io.Discard)
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, h := range []map[string]string{legacyHeaders, modernHeaders("tools/list")} {
			req := httptest.NewRequest("POST", "/mcp", bytes.NewReader(body))
			for k, v := range h {
				req.Header.Set(k, v)
			}
			rec := httptest.NewRecorder()
			srv.ServeHTTP(rec, req)
			if rec.Code == 202 {
				continue
			}
			if !json.Valid(rec.Body.Bytes()) {
				t.Fatalf("response is not JSON: %q", rec.Body)
			}
		}
	})
}
