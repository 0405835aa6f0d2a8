package mcp

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
)

// eraRequest builds headers and body of one request on an era; params is the inside of the
// params object (without _meta), name the Mcp-Name header ("" = none).
func eraRequest(modern bool, method, params, name string) (map[string]string, string) {
	if !modern {
		if params == "" {
			return legacyHeaders, `{"jsonrpc":"2.0","id":9,"method":"` + method + `"}`
		}
		return legacyHeaders, `{"jsonrpc":"2.0","id":9,"method":"` + method + `","params":{` + params + `}}`
	}
	h := modernHeaders(method)
	if name != "" {
		h = with(h, "Mcp-Name", name)
	}
	if params != "" {
		params += ","
	}
	return h, `{"jsonrpc":"2.0","id":9,"method":"` + method + `","params":{` + params + metaModern + `}}`
}

// TestPromptsOnBothEras: prompts/list and prompts/get through the wire on both eras, with
// the failures of the channel table (-32602 naming the prompt or the argument).
func TestPromptsOnBothEras(t *testing.T) {
	cases := []struct {
		name       string
		method     string
		params     string
		mcpName    string
		modernOnly bool
		status     int // modern status; legacy is always 200 here
		code       int // 0 = a result
		msg        string
		dataCode   string
		result     string // fragment of the result
	}{
		{name: "list", method: "prompts/list", result: `"prompts":[{"name":"greet"`},
		{name: "get", method: "prompts/get", params: `"name":"greet","arguments":{"who":"Ada"}`, mcpName: "greet", result: `"text":"hello Ada"`},
		{name: "unknown prompt", method: "prompts/get", params: `"name":"gret","arguments":{}`, mcpName: "gret", code: CodeInvalidParams, msg: `params.name: unknown prompt "gret"`, dataCode: "UNKNOWN_NAME"},
		{name: "missing required argument", method: "prompts/get", params: `"name":"greet"`, mcpName: "greet", code: CodeInvalidParams, msg: `params.arguments.who: is required (prompt "greet" takes: who)`, dataCode: "INVALID_ARGUMENTS"},
		{name: "empty required argument", method: "prompts/get", params: `"name":"greet","arguments":{"who":""}`, mcpName: "greet", code: CodeInvalidParams, msg: "params.arguments.who: is required", dataCode: "INVALID_ARGUMENTS"},
		{name: "unknown argument", method: "prompts/get", params: `"name":"greet","arguments":{"who":"a","whom":"b"}`, mcpName: "greet", code: CodeInvalidParams, msg: "params.arguments.whom: is not an argument", dataCode: "INVALID_ARGUMENTS"},
		{name: "argument not a string", method: "prompts/get", params: `"name":"greet","arguments":{"who":5}`, mcpName: "greet", code: CodeInvalidParams, msg: "params.arguments.who: must be a string", dataCode: "INVALID_REQUEST"},
		{name: "arguments not an object", method: "prompts/get", params: `"name":"greet","arguments":["who"]`, mcpName: "greet", code: CodeInvalidParams, msg: "params.arguments: must be an object", dataCode: "INVALID_REQUEST"},
		{name: "name missing", method: "prompts/get", params: `"arguments":{}`, code: CodeInvalidParams, msg: "params.name: is required", dataCode: "INVALID_REQUEST", mcpName: "x", status: 400},
		{name: "a prompt that cannot render", method: "prompts/get", params: `"name":"broken"`, mcpName: "broken", code: CodeInternalError, msg: "correlation id", dataCode: "INTERNAL_ERROR"},
		{name: "Mcp-Name missing", method: "prompts/get", params: `"name":"greet","arguments":{"who":"a"}`, modernOnly: true, status: 400, code: CodeHeaderMismatch, msg: "Mcp-Name", dataCode: "INVALID_REQUEST"},
		{name: "Mcp-Name differs", method: "prompts/get", params: `"name":"greet","arguments":{"who":"a"}`, mcpName: "broken", modernOnly: true, status: 400, code: CodeHeaderMismatch, msg: "Mcp-Name", dataCode: "INVALID_REQUEST"},
	}
	for _, modern := range []bool{false, true} {
		era := map[bool]string{false: "legacy", true: "modern"}[modern]
		for _, tc := range cases {
			if tc.modernOnly && !modern {
				continue
			}
			t.Run(era+"/"+tc.name, func(t *testing.T) {
				var logs bytes.Buffer
				srv := newTestServer(&logs)
				h, body := eraRequest(modern, tc.method, tc.params, tc.mcpName)
				rec, resp := post(t, srv, h, body)
				want := 200
				if modern && tc.status != 0 {
					want = tc.status
				}
				if tc.name == "name missing" && modern {
					// params.name is absent, so the Mcp-Name header cannot match it: -32020 first.
					tc.code, tc.msg = CodeHeaderMismatch, "Mcp-Name"
				}
				if rec.Code != want {
					t.Fatalf("HTTP %d, want %d: %s", rec.Code, want, rec.Body)
				}
				if string(resp.ID) != "9" {
					t.Fatalf("id not echoed: %s", rec.Body)
				}
				if tc.code == 0 {
					if resp.Error != nil || !strings.Contains(rec.Body.String(), tc.result) {
						t.Fatalf("want a result with %s, got %s", tc.result, rec.Body)
					}
					if modern {
						for _, k := range []string{"resultType", "_meta"} {
							if _, ok := resp.Result[k]; !ok {
								t.Errorf("modern result lacks %s", k)
							}
						}
						if tc.method == "prompts/list" && (string(resp.Result["cacheScope"]) != `"public"` || string(resp.Result["ttlMs"]) != "60000") {
							t.Errorf("modern prompts/list cache hints: %s", rec.Body)
						}
					} else if _, ok := resp.Result["resultType"]; ok {
						t.Error("legacy result carries resultType")
					}
					return
				}
				if resp.Error == nil || resp.Error.Code != tc.code || !strings.Contains(resp.Error.Message, tc.msg) {
					t.Fatalf("want error %d with %q, got %s", tc.code, tc.msg, rec.Body)
				}
				var data map[string]any
				if err := json.Unmarshal(resp.Error.Data, &data); err != nil {
					t.Fatalf("error.data: %v (%s)", err, rec.Body)
				}
				if tc.dataCode != "" && data["code"] != tc.dataCode {
					t.Errorf("error.data.code = %v, want %s", data["code"], tc.dataCode)
				}
				if strings.Contains(rec.Body.String(), "exploded") {
					t.Error("a render failure's detail reached the client")
				}
			})
		}
	}
}

// TestPromptsCapability: the prompts capability is declared on both eras exactly when the
// prompts methods are served; without prompts they are -32601.
func TestPromptsCapability(t *testing.T) {
	for _, withPrompts := range []bool{true, false} {
		srv := newTestServer(io.Discard)
		if !withPrompts {
			srv.Prompts = nil
		}
		_, legacy := post(t, srv, with(legacyHeaders, "MCP-Protocol-Version", ""),
			`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
		h, body := eraRequest(true, "server/discover", "", "")
		_, modern := post(t, srv, h, body)
		for era, caps := range map[string]json.RawMessage{"initialize": legacy.Result["capabilities"], "server/discover": modern.Result["capabilities"]} {
			var c map[string]any
			if err := json.Unmarshal(caps, &c); err != nil || c["tools"] == nil {
				t.Fatalf("%s capabilities %s", era, caps)
			}
			if _, has := c["prompts"]; has != withPrompts {
				t.Errorf("%s (prompts served: %v): capabilities %s", era, withPrompts, caps)
			}
		}
		for _, m := range []bool{false, true} {
			for _, method := range []string{"prompts/list", "prompts/get"} {
				h, body := eraRequest(m, method, `"name":"greet","arguments":{"who":"a"}`, "greet")
				rec, resp := post(t, srv, h, body)
				served := resp.Error == nil
				if served != withPrompts {
					t.Errorf("%s (modern %v, prompts %v): %d %s", method, m, withPrompts, rec.Code, rec.Body)
				}
				if !withPrompts && (resp.Error == nil || resp.Error.Code != CodeMethodNotFound) {
					t.Errorf("%s without prompts: want -32601, got %s", method, rec.Body)
				}
			}
		}
	}
}
