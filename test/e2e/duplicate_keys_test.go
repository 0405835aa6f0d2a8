package e2e_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mindvault/mcp-endpoint/internal/sandbox"
)

// TestDuplicateKeysInTheEnvelopeAreRefused: a key given twice anywhere in the JSON-RPC
// envelope or in params is refused before anything runs, on both eras, so a gateway or an
// audit log that reads the first key can never see another request than the one served
// (params.name given as mindvault_preview then mindvault_buy used to buy). Outside params it is
// -32600, inside params -32602, both naming the path; inside a tool's arguments it stays the
// INVALID_ARGUMENTS tool result that package validate reports (TestBoundaryRejectsBeforeAnyCall).
func TestDuplicateKeysInTheEnvelopeAreRefused(t *testing.T) {
	e := newEnv(t, nil)
	const call = `"name":"mindvault_buy","arguments":{"resourceId":"rustguide"}`
	cases := []struct {
		name    string
		method  string
		header  string // Mcp-Name
		envelop string // the envelope around params: %s is params' inside
		params  string // params' inside; the era's _meta is added unless noMeta
		noMeta  bool
		code    int
		path    string // what the message must name
		noID    bool
	}{
		{name: "params.name, preview then buy", method: "tools/call", header: "mindvault_buy",
			params: `"name":"mindvault_preview","name":"mindvault_buy","arguments":{"resourceId":"rustguide"}`, code: -32602, path: "params.name"},
		{name: "params.name, buy then preview", method: "tools/call", header: "mindvault_preview",
			params: `"name":"mindvault_buy","name":"mindvault_preview","arguments":{"resourceId":"rustguide"}`, code: -32602, path: "params.name"},
		{name: "params.name spelled with an escape", method: "tools/call", header: "mindvault_buy",
			params: `"name":"mindvault_preview","n\u0061me":"mindvault_buy","arguments":{"resourceId":"rustguide"}`, code: -32602, path: "params.name"},
		{name: "params.name in another case", method: "tools/call", header: "mindvault_preview",
			params: `"name":"mindvault_preview","NAME":"mindvault_buy","arguments":{"resourceId":"rustguide"}`, code: -32602, path: "params.NAME"},
		{name: "params.arguments", method: "tools/call", header: "mindvault_buy",
			params: `"name":"mindvault_buy","arguments":{"resourceId":"rustguide"},"arguments":{"resourceId":"zkprimer"}`, code: -32602, path: "params.arguments"},
		{name: "a key of params._meta", method: "tools/call", header: "mindvault_buy",
			params: call + `,"_meta":{"progressToken":"a","progressToken":"b"}`, noMeta: true, code: -32602, path: "params._meta.progressToken"},
		{name: "params._meta twice", method: "tools/call", header: "mindvault_buy",
			params: call + `,"_meta":{"progressToken":"a"},"_meta":{"progressToken":"b"}`, noMeta: true, code: -32602, path: "params._meta"},
		{name: "the protocol version in _meta", method: "tools/list",
			params: `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/protocolVersion":"2025-11-25","io.modelcontextprotocol/clientCapabilities":{}}`,
			noMeta: true, code: -32602, path: `params._meta["io.modelcontextprotocol/protocolVersion"]`},
		{name: "nested in the client capabilities", method: "tools/call", header: "mindvault_buy",
			params: call + `,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}},"elicitation":{"url":{}}}}`,
			noMeta: true, code: -32602, path: `params._meta["io.modelcontextprotocol/clientCapabilities"].elicitation`},
		{name: "nested in an array", method: "tools/call", header: "mindvault_buy",
			params: call + `,"x":[{"k":1},{"k":1,"k":2}]`, code: -32602, path: "params.x[1].k"},
		{name: "prompt arguments", method: "prompts/get", header: "buy",
			params: `"name":"buy","arguments":{"resourceId":"rustguide","resourceId":"zkprimer"}`, code: -32602, path: "params.arguments.resourceId"},
		{name: "initialize params", method: "initialize",
			params: `"protocolVersion":"2025-06-18","protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}`, code: -32602, path: "params.protocolVersion"},
		{name: "method", method: "tools/call", header: "mindvault_buy",
			envelop: `{"jsonrpc":"2.0","id":5,"method":"tools/list","method":"tools/call","params":{%s}}`, params: call, code: -32600, path: "method"},
		{name: "params", method: "tools/call", header: "mindvault_buy",
			envelop: `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"mindvault_preview","arguments":{"resourceId":"rustguide"}},"params":{%s}}`, params: call, code: -32600, path: "params"},
		{name: "jsonrpc", method: "tools/call", header: "mindvault_buy",
			envelop: `{"jsonrpc":"2.0","jsonrpc":"2.0","id":5,"method":"tools/call","params":{%s}}`, params: call, code: -32600, path: "jsonrpc"},
		{name: "method in another case", method: "tools/call", header: "mindvault_buy",
			envelop: `{"jsonrpc":"2.0","id":5,"Method":"tools/list","method":"tools/call","params":{%s}}`, params: call, code: -32600, path: "method"},
		{name: "id, answered without one", method: "tools/call", header: "mindvault_buy",
			envelop: `{"jsonrpc":"2.0","id":5,"id":6,"method":"tools/call","params":{%s}}`, params: call, code: -32600, path: "id", noID: true},
	}
	for _, era := range bothEras {
		for _, tc := range cases {
			t.Run(era+"/"+tc.name, func(t *testing.T) {
				e := e.in(t)
				e.faults("")
				params := tc.params
				if !tc.noMeta && era == "2026-07-28" {
					params += "," + modernMeta
				}
				envelop := tc.envelop
				if envelop == "" {
					envelop = `{"jsonrpc":"2.0","id":5,"method":"` + tc.method + `","params":{%s}}`
				}
				body := strings.Replace(envelop, "%s", params, 1)
				if !json.Valid([]byte(body)) {
					t.Fatalf("the case is not JSON: %s", body)
				}
				req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("MCP-Protocol-Version", era)
				req.Header.Set("Mcp-Method", tc.method)
				if tc.header != "" {
					req.Header.Set("Mcp-Name", tc.header)
				}
				rec := httptest.NewRecorder()
				e.b.Handler.ServeHTTP(rec, req)
				var resp struct {
					ID     json.RawMessage `json:"id"`
					Result json.RawMessage `json:"result"`
					Error  *struct {
						Code    int    `json:"code"`
						Message string `json:"message"`
						Data    struct {
							Code, Category, Retry string
						} `json:"data"`
					} `json:"error"`
				}
				if err := json.Unmarshal(rec.Body.Bytes(), &resp); err != nil {
					t.Fatalf("HTTP %d, not JSON: %s", rec.Code, rec.Body)
				}
				if rec.Code != http.StatusBadRequest || resp.Error == nil || resp.Error.Code != tc.code {
					t.Fatalf("want HTTP 400 with %d, got HTTP %d %s", tc.code, rec.Code, rec.Body)
				}
				want := "Invalid params: "
				if tc.code == -32600 {
					want = "Invalid Request: "
				}
				if !strings.HasPrefix(resp.Error.Message, want+tc.path+": ") || !strings.Contains(resp.Error.Message, "more than once") {
					t.Errorf("message %q must start %q and say the key is given more than once", resp.Error.Message, want+tc.path+": ")
				}
				if d := resp.Error.Data; d.Code != "INVALID_REQUEST" || d.Category != "validation" || d.Retry != "after_correction" {
					t.Errorf("error.data = %+v, want INVALID_REQUEST/validation/after_correction", d)
				}
				if tc.noID != (resp.ID == nil) || (!tc.noID && string(resp.ID) != "5") {
					t.Errorf("id = %s (noID %v)", resp.ID, tc.noID)
				}
				for _, svc := range []string{sandbox.ServiceAPI, sandbox.ServiceHorizon, sandbox.ServiceRPC, sandbox.ServiceSponsor} {
					if n := e.sb.Count(svc, "*"); n != 0 {
						t.Errorf("%s saw %d requests for a refused body", svc, n)
					}
				}
			})
		}
	}
}
