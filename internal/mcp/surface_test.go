package mcp

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
)

// surfaceServer is the test server with a surface: echo is a read-only catalog tool, boom a
// payments tool that changes state; greet names echo, broken names boom.
func surfaceServer(enabled []string, readOnly bool) *Server {
	s := newTestServer(io.Discard)
	s.Surface = &Surface{
		Tools: func() ToolFacts {
			return ToolFacts{ToolsetOf: map[string]string{"echo": "catalog", "boom": "payments"}, ReadOnly: map[string]bool{"echo": true}}
		},
		PromptTools: map[string][]string{"greet": {"echo"}, "broken": {"boom"}},
		Enabled:     enabled, OnlyReadOnly: readOnly,
		Instructions: func(ts []string, ro bool) string {
			return "narrowed to " + strings.Join(ts, ",") + map[bool]string{true: " read-only"}[ro]
		},
	}
	return s
}

// send posts body to path with headers (legacy unless the body names a revision).
func send(t *testing.T, s *Server, path string, headers map[string]string, body string) (int, wireResp) {
	t.Helper()
	req := httptest.NewRequest("POST", path, strings.NewReader(body))
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, req)
	var resp wireResp
	_ = json.Unmarshal(rec.Body.Bytes(), &resp)
	var plain map[string]string
	if json.Unmarshal(rec.Body.Bytes(), &plain) == nil && plain["error"] != "" {
		{
			resp.Error = &struct {
				Code    int             `json:"code"`
				Message string          `json:"message"`
				Data    json.RawMessage `json:"data"`
			}{Message: plain["error"]}
		}
	}
	return rec.Code, resp
}

func listedNames(t *testing.T, raw json.RawMessage) []string {
	t.Helper()
	var list []struct {
		Name string `json:"name"`
	}
	if err := json.Unmarshal(raw, &list); err != nil {
		t.Fatalf("list %s: %v", raw, err)
	}
	out := []string{}
	for _, x := range list {
		out = append(out, x.Name)
	}
	return out
}

// TestSurfaceLists: what the deployment, the URL path and the headers enable is what tools/list,
// prompts/list, the instructions and the cacheScope say, narrower only, on both eras.
func TestSurfaceLists(t *testing.T) {
	cases := []struct {
		name         string
		enabled      []string
		readOnly     bool
		path         string
		headers      map[string]string
		tools        []string
		prompts      []string
		instructions string
		scope        string
	}{
		{"nothing narrows", nil, false, "/mcp", nil, []string{"echo", "boom"}, []string{"greet", "broken"}, "hi", "public"},
		{"MINDVAULT_TOOLSETS", []string{"catalog"}, false, "/mcp", nil, []string{"echo"}, []string{"greet"}, "narrowed to catalog", "public"},
		{"MINDVAULT_READ_ONLY", nil, true, "/mcp", nil, []string{"echo"}, []string{"greet"}, "narrowed to catalog read-only", "public"},
		{"/mcp/readonly", nil, false, "/mcp/readonly", nil, []string{"echo"}, []string{"greet"}, "narrowed to catalog read-only", "public"},
		{"/mcp/x/payments", nil, false, "/mcp/x/payments", nil, []string{"boom"}, []string{"broken"}, "narrowed to payments", "public"},
		{"/mcp/x/catalog,payments is everything", nil, false, "/mcp/x/catalog,payments", nil, []string{"echo", "boom"}, []string{"greet", "broken"}, "hi", "public"},
		{"/mcp/x/payments/readonly", nil, false, "/mcp/x/payments/readonly", nil, []string{}, []string{}, "narrowed to  read-only", "public"},
		{"header toolsets", nil, false, "/mcp", map[string]string{"X-MindVault-Toolsets": "payments"}, []string{"boom"}, []string{"broken"}, "narrowed to payments", "private"},
		{"header read-only", nil, false, "/mcp", map[string]string{"X-MindVault-Read-Only": "TRUE"}, []string{"echo"}, []string{"greet"}, "narrowed to catalog read-only", "private"},
		{"a header cannot widen the deployment", []string{"catalog"}, false, "/mcp", map[string]string{"X-MindVault-Toolsets": "catalog,payments"}, []string{"echo"}, []string{"greet"}, "narrowed to catalog", "public"},
		{"a header cannot widen the path", nil, false, "/mcp/x/catalog", map[string]string{"X-MindVault-Toolsets": "payments"}, []string{}, []string{}, "narrowed to ", "private"},
		{"read-only false does not widen", nil, true, "/mcp", map[string]string{"X-MindVault-Read-Only": "false"}, []string{"echo"}, []string{"greet"}, "narrowed to catalog read-only", "public"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := surfaceServer(tc.enabled, tc.readOnly)
			for _, modern := range []bool{false, true} {
				for _, m := range []string{"tools/list", "prompts/list", "server/discover", "initialize"} {
					if modern == (m == "initialize") {
						continue
					}
					h, body := eraRequest(modern, m, "", "")
					h = merged(h, tc.headers)
					code, resp := send(t, s, tc.path, h, body)
					if code != 200 || resp.Error != nil {
						t.Fatalf("%s modern=%v: HTTP %d %+v", m, modern, code, resp.Error)
					}
					switch m {
					case "tools/list":
						if got := listedNames(t, resp.Result["tools"]); !slices.Equal(got, tc.tools) {
							t.Errorf("tools %v, want %v", got, tc.tools)
						}
					case "prompts/list":
						if got := listedNames(t, resp.Result["prompts"]); !slices.Equal(got, tc.prompts) {
							t.Errorf("prompts %v, want %v", got, tc.prompts)
						}
					default:
						var ins string
						_ = json.Unmarshal(resp.Result["instructions"], &ins)
						if ins != tc.instructions {
							t.Errorf("%s instructions %q, want %q", m, ins, tc.instructions)
						}
					}
					if modern {
						var scope string
						_ = json.Unmarshal(resp.Result["cacheScope"], &scope)
						if scope != tc.scope {
							t.Errorf("%s cacheScope %q, want %q", m, scope, tc.scope)
						}
					}
				}
			}
		})
	}
}

func merged(a, b map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}

// TestSurfaceRefusals: a disabled tool or prompt is -32602 saying it is disabled here and by
// which setting (never "unknown"); an unknown toolset in the path is 404 and in a header 400,
// both naming the toolsets that exist.
func TestSurfaceRefusals(t *testing.T) {
	const toolsets = "the toolsets are catalog, wallet, payments, publishing, registry, registry-writes, ops"
	cases := []struct {
		name     string
		enabled  []string
		readOnly bool
		path     string
		headers  map[string]string
		method   string
		params   string
		status   int
		code     int
		msg      string
		data     map[string]any
	}{
		{"disabled by MINDVAULT_TOOLSETS", []string{"catalog", "ops"}, false, "/mcp", nil, "tools/call", `"name":"boom"`, 200, CodeInvalidParams,
			`Invalid params: params.name: tool "boom" is disabled here: its toolset payments is not enabled by MINDVAULT_TOOLSETS=catalog,ops (tools/list names the tools enabled here)`,
			map[string]any{"code": "FORBIDDEN", "disabled": true, "tool": "boom", "toolset": "payments", "setting": "MINDVAULT_TOOLSETS"}},
		{"disabled by MINDVAULT_READ_ONLY", nil, true, "/mcp", nil, "tools/call", `"name":"boom"`, 200, CodeInvalidParams,
			`tool "boom" is disabled here: it is not read-only, and MINDVAULT_READ_ONLY=true serves only read-only tools`,
			map[string]any{"setting": "MINDVAULT_READ_ONLY"}},
		{"disabled by the path", nil, false, "/mcp/readonly", nil, "tools/call", `"name":"boom"`, 200, CodeInvalidParams,
			`tool "boom" is disabled here: it is not read-only, and the URL path /mcp/readonly serves only read-only tools`,
			map[string]any{"setting": "URL path", "path": "/mcp/readonly"}},
		{"disabled by the toolsets path", nil, false, "/mcp/x/catalog", nil, "tools/call", `"name":"boom"`, 200, CodeInvalidParams,
			`its toolset payments is not enabled by the URL path /mcp/x/catalog`, map[string]any{"setting": "URL path"}},
		{"disabled by a header", nil, false, "/mcp", map[string]string{"X-MindVault-Toolsets": "catalog"}, "tools/call", `"name":"boom"`, 200, CodeInvalidParams,
			`its toolset payments is not enabled by the X-MindVault-Toolsets header`, map[string]any{"setting": "X-MindVault-Toolsets"}},
		{"the deployment is named first", []string{"catalog"}, false, "/mcp/readonly", map[string]string{"X-MindVault-Read-Only": "1"}, "tools/call", `"name":"boom"`, 200, CodeInvalidParams,
			`not enabled by MINDVAULT_TOOLSETS=catalog`, map[string]any{"setting": "MINDVAULT_TOOLSETS"}},
		{"an unknown tool suggests enabled ones only", []string{"catalog"}, false, "/mcp", nil, "tools/call", `"name":"bom"`, 200, CodeInvalidParams,
			`unknown tool "bom" (tools/list names every tool)`, map[string]any{"code": "UNKNOWN_NAME", "suggestions": []any{}}},
		{"a disabled prompt", []string{"catalog"}, false, "/mcp", nil, "prompts/get", `"name":"broken"`, 200, CodeInvalidParams,
			`prompt "broken" is disabled here: it names boom, which is disabled here`, map[string]any{"code": "FORBIDDEN", "prompt": "broken", "tool": "boom"}},
		{"an unknown toolset in a header", nil, false, "/mcp", map[string]string{"X-MindVault-Toolsets": "catalog,walet"}, "tools/list", "", 400, CodeInvalidRequest,
			`Bad Request: X-MindVault-Toolsets: unknown toolset "walet"; ` + toolsets, nil},
		{"a read-only header that is not a boolean", nil, false, "/mcp", map[string]string{"X-MindVault-Read-Only": "maybe"}, "tools/list", "", 400, CodeInvalidRequest,
			`Bad Request: X-MindVault-Read-Only: must be true or false`, nil},
		{"an unknown toolset in the path", nil, false, "/mcp/x/catalgo", nil, "tools/list", "", 404, 0,
			`not found: the URL path /mcp/x/catalgo: unknown toolset "catalgo"; ` + toolsets, nil},
		{"another path under /mcp", nil, false, "/mcp/other", nil, "tools/list", "", 404, 0, `not found: the MCP endpoint is POST /mcp`, nil},
		{"the enabled tool runs", []string{"catalog"}, false, "/mcp/readonly", nil, "tools/call", `"name":"echo","arguments":{}`, 200, 0, "", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := surfaceServer(tc.enabled, tc.readOnly)
			h, body := eraRequest(false, tc.method, tc.params, "")
			code, resp := send(t, s, tc.path, merged(h, tc.headers), body)
			if code != tc.status {
				t.Fatalf("HTTP %d, want %d (%+v)", code, tc.status, resp.Error)
			}
			if tc.msg == "" {
				if resp.Error != nil {
					t.Fatalf("error %+v", resp.Error)
				}
				return
			}
			if resp.Error == nil || resp.Error.Code != tc.code || !strings.Contains(resp.Error.Message, tc.msg) {
				t.Fatalf("error %+v, want %d %q", resp.Error, tc.code, tc.msg)
			}
			if strings.Contains(resp.Error.Message, "unknown tool ") && tc.data["code"] != "UNKNOWN_NAME" {
				t.Errorf("a disabled tool reported as unknown: %s", resp.Error.Message)
			}
			var data map[string]any
			_ = json.Unmarshal(resp.Error.Data, &data)
			for k, want := range tc.data {
				if got, _ := json.Marshal(data[k]); string(got) != mustJSON(want) {
					t.Errorf("error.data.%s = %s, want %s (data %s)", k, got, mustJSON(want), resp.Error.Data)
				}
			}
		})
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestSurfaceOffers: Offers (inbound auth asks it whether a call needs a scope) agrees with
// what the server runs.
func TestSurfaceOffers(t *testing.T) {
	s := surfaceServer([]string{"catalog", "payments"}, false)
	cases := []struct {
		path    string
		headers map[string]string
		tool    string
		want    bool
	}{
		{"/mcp", nil, "boom", true},
		{"/mcp/readonly", nil, "boom", false},
		{"/mcp/x/catalog", nil, "echo", true},
		{"/mcp", map[string]string{"X-MindVault-Toolsets": "catalog"}, "boom", false},
		{"/mcp", map[string]string{"X-MindVault-Toolsets": "nope"}, "echo", false},
		{"/elsewhere", nil, "echo", false},
		{"/mcp", nil, "unregistered", false},
	}
	for _, tc := range cases {
		r := httptest.NewRequest("POST", tc.path, nil)
		for k, v := range tc.headers {
			r.Header.Set(k, v)
		}
		if got := s.Offers(r, tc.tool); got != tc.want {
			t.Errorf("%s %v %s: Offers %v, want %v", tc.path, tc.headers, tc.tool, got, tc.want)
		}
	}
}

// TestSurfaceLogged: a request's log line names the narrowed surface it saw, and only then.
func TestSurfaceLogged(t *testing.T) {
	for _, tc := range []struct{ path, want string }{
		{"/mcp/x/payments,catalog/readonly", `"surface":"catalog,payments;read-only"`},
		{"/mcp", ""},
	} {
		var logs strings.Builder
		s := surfaceServer(nil, false)
		s.Logger = slog.New(slog.NewJSONHandler(&logs, nil))
		h, body := eraRequest(false, "tools/list", "", "")
		send(t, s, tc.path, h, body)
		if tc.want == "" && strings.Contains(logs.String(), `"surface"`) || !strings.Contains(logs.String(), tc.want) {
			t.Errorf("%s: log %s, want %s", tc.path, logs.String(), tc.want)
		}
	}
}
