package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/mindvault/mcp-endpoint/errmap"
)

// TestErrorDataCarriesFacts: every JSON-RPC error, on both eras, carries error.data with the
// code, category and retry verdict of a tool diagnostic, keeps the fields the wire rules
// require (supported versions, correlation id), and the log line names the code.
func TestErrorDataCarriesFacts(t *testing.T) {
	modernList := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + metaModern + `}}`
	cases := []struct {
		name     string
		headers  map[string]string
		body     string
		rpc      int
		code     string
		retry    errmap.Retry
		keys     []string // further error.data keys that must be present
		unusable bool     // the server is misconfigured
	}{
		{"parse error", legacyHeaders, `{nope`, CodeParseError, "INVALID_REQUEST", errmap.RetryAfterCorrection, nil, false},
		{"parse error, modern headers", modernHeaders("tools/list"), `{nope`, CodeParseError, "INVALID_REQUEST", errmap.RetryAfterCorrection, nil, false},
		{"batch", legacyHeaders, `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, CodeInvalidRequest, "INVALID_REQUEST", errmap.RetryAfterCorrection, nil, false},
		{"missing method", legacyHeaders, `{"jsonrpc":"2.0","id":1}`, CodeInvalidRequest, "INVALID_REQUEST", errmap.RetryAfterCorrection, nil, false},
		{"415", with(legacyHeaders, "Content-Type", "text/plain"), `{}`, CodeInvalidRequest, "INVALID_REQUEST", errmap.RetryAfterCorrection, nil, false},
		{"413", legacyHeaders, `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"` + strings.Repeat("a", 2000) + `"}}`, CodeInvalidRequest, "INVALID_REQUEST", errmap.RetryAfterCorrection, nil, false},
		{"foreign Origin", with(legacyHeaders, "Origin", "https://evil.example"), `{"jsonrpc":"2.0","id":1,"method":"ping"}`, CodeInvalidRequest, "FORBIDDEN", errmap.RetryAfterAction, nil, false},
		{"legacy unsupported version header", with(legacyHeaders, "MCP-Protocol-Version", "2024-11-05"), `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, CodeInvalidRequest, "INVALID_REQUEST", errmap.RetryAfterCorrection, []string{"supported", "requested"}, false},
		{"legacy unknown method", legacyHeaders, `{"jsonrpc":"2.0","id":1,"method":"resources/list"}`, CodeMethodNotFound, "UNKNOWN_NAME", errmap.RetryAfterCorrection, nil, false},
		{"modern unknown method", modernHeaders("resources/list"), `{"jsonrpc":"2.0","id":1,"method":"resources/list","params":{` + metaModern + `}}`, CodeMethodNotFound, "UNKNOWN_NAME", errmap.RetryAfterCorrection, nil, false},
		{"legacy malformed params", legacyHeaders, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":[]}}`, CodeInvalidParams, "INVALID_REQUEST", errmap.RetryAfterCorrection, nil, false},
		{"modern malformed params", with(modernHeaders("tools/call"), "Mcp-Name", "echo"), `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":5,` + metaModern + `}}`, CodeInvalidParams, "INVALID_REQUEST", errmap.RetryAfterCorrection, nil, false},
		{"legacy unknown tool", legacyHeaders, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ecko","arguments":{}}}`, CodeInvalidParams, "UNKNOWN_NAME", errmap.RetryAfterCorrection, []string{"suggestions"}, false},
		{"modern unknown tool", with(modernHeaders("tools/call"), "Mcp-Name", "ecko"), `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ecko","arguments":{},` + metaModern + `}}`, CodeInvalidParams, "UNKNOWN_NAME", errmap.RetryAfterCorrection, []string{"suggestions"}, false},
		{"modern _meta missing", modernHeaders("tools/list"), `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, CodeInvalidParams, "INVALID_REQUEST", errmap.RetryAfterCorrection, nil, false},
		{"header mismatch", with(modernHeaders("tools/list"), "MCP-Protocol-Version", "2025-11-25"), modernList, CodeHeaderMismatch, "INVALID_REQUEST", errmap.RetryAfterCorrection, nil, false},
		{"Mcp-Method mismatch", modernHeaders("tools/call"), modernList, CodeHeaderMismatch, "INVALID_REQUEST", errmap.RetryAfterCorrection, nil, false},
		{"unsupported version", with(modernHeaders("tools/list"), "MCP-Protocol-Version", "2099-01-01"), `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2099-01-01","io.modelcontextprotocol/clientCapabilities":{}}}}`, CodeUnsupportedProtocol, "INVALID_REQUEST", errmap.RetryAfterCorrection, []string{"supported", "requested"}, false},
		{"legacy panic", legacyHeaders, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"boom"}}`, CodeInternalError, "INTERNAL_ERROR", errmap.RetrySafe, []string{"correlationId"}, false},
		{"modern panic", with(modernHeaders("tools/call"), "Mcp-Name", "boom"), `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"boom",` + metaModern + `}}`, CodeInternalError, "INTERNAL_ERROR", errmap.RetrySafe, []string{"correlationId"}, false},
		{"misconfigured", legacyHeaders, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, CodeInternalError, "INTERNAL_ERROR", errmap.RetryNo, []string{"correlationId"}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var logs bytes.Buffer
			srv := newTestServer(&logs)
			if tc.unusable {
				srv.Unavailable = errString("invalid configuration: HORIZON_URL")
			}
			rec, resp := post(t, srv, tc.headers, tc.body)
			if resp.Error == nil || resp.Error.Code != tc.rpc {
				t.Fatalf("want JSON-RPC %d, got HTTP %d %s", tc.rpc, rec.Code, rec.Body)
			}
			var data map[string]any
			if err := json.Unmarshal(resp.Error.Data, &data); err != nil {
				t.Fatalf("error.data missing or not an object: %s", rec.Body)
			}
			if data["code"] != tc.code || data["category"] != string(errmap.CodeCategory(tc.code)) || data["retry"] != string(tc.retry) {
				t.Errorf("error.data = %v, want code %s category %s retry %s", data, tc.code, errmap.CodeCategory(tc.code), tc.retry)
			}
			if !errmap.IsCode(tc.code) {
				t.Errorf("%s is not a documented code", tc.code)
			}
			for _, k := range tc.keys {
				if _, ok := data[k]; !ok {
					t.Errorf("error.data lacks %s: %v", k, data)
				}
			}
			if _, ok := data["tools"]; ok {
				t.Errorf("error.data lists every tool: %v", data)
			}
			if !strings.Contains(logs.String(), `"code":"`+tc.code+`"`) {
				t.Errorf("log line lacks the code %s: %s", tc.code, logs.String())
			}
		})
	}
}

// names is a realistic tool list for the suggestion tests.
var names = []string{
	"mindvault_agent_status", "mindvault_browse", "mindvault_buy", "mindvault_check_consistency",
	"mindvault_health", "mindvault_list_profiles", "mindvault_network_profile", "mindvault_preview",
	"mindvault_publish", "mindvault_publish_status", "mindvault_register", "mindvault_register_onchain",
	"mindvault_registry_info", "mindvault_registry_list", "mindvault_registry_lookup", "mindvault_search",
	"mindvault_set_listed", "mindvault_set_price", "mindvault_set_tags", "mindvault_setup_wallet",
	"mindvault_transfer_ownership", "mindvault_tx_status", "mindvault_update_metadata", "mindvault_wallet_info",
}

func TestSuggest(t *testing.T) {
	cases := []struct {
		name  string
		first string // the nearest suggestion; "" = none at all
		also  []string
	}{
		{"mindvault_by", "mindvault_buy", nil},
		{"MINDVAULT_BUY", "mindvault_buy", nil},
		{"browse", "mindvault_browse", nil},
		{"mindvault_wallet", "mindvault_wallet_info", []string{"mindvault_setup_wallet"}},
		{"mindvault_publish_stat", "mindvault_publish_status", []string{"mindvault_publish"}},
		{"mindvault_registry", "mindvault_registry_info", []string{"mindvault_registry_list", "mindvault_registry_lookup"}},
		{"set", "mindvault_set_tags", []string{"mindvault_set_price", "mindvault_set_listed"}},
		{"set_price", "mindvault_set_price", nil},
		{"xyz", "", nil},
		{"mindvault_no_such_tool", "", nil},
		{"mindvault_purchase", "", nil},
		{"mindvault_regster_onchain", "mindvault_register_onchain", nil},
		{"mindvault_publsh", "mindvault_publish", nil},
		{"", "", nil},
		{"drop table tools; --", "", nil},
		{strings.Repeat("a", 200), "", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := suggest(tc.name, names)
			if got == nil || len(got) > maxSuggestions {
				t.Fatalf("suggest = %v: want a list of at most %d", got, maxSuggestions)
			}
			if tc.first == "" {
				if len(got) != 0 {
					t.Fatalf("suggest = %v, want none", got)
				}
				return
			}
			if len(got) == 0 || got[0] != tc.first {
				t.Fatalf("suggest = %v, want %s first", got, tc.first)
			}
			for _, a := range tc.also {
				if !slices.Contains(got, a) {
					t.Errorf("suggest = %v lacks %s", got, a)
				}
			}
		})
	}
}

// manyTools serves the realistic list, so the wire shows what an agent would get.
type manyTools struct{ fakeTools }

func (manyTools) Names() []string { return names }
func (manyTools) Call(ctx context.Context, name string, args json.RawMessage) (ToolResult, bool) {
	if slices.Contains(names, name) {
		return ToolResult{Content: []Content{{Type: "text", Text: "{}"}}, Outcome: "ok"}, true
	}
	return ToolResult{}, false
}

// TestUnknownToolSuggestionsOnTheWire: an unknown tool's error names it and offers at most
// three close names, never the whole list, on both eras.
func TestUnknownToolSuggestionsOnTheWire(t *testing.T) {
	for _, modern := range []bool{false, true} {
		for _, tc := range []struct {
			name string
			want []string
		}{
			{"mindvault_wallet", []string{"mindvault_wallet_info", "mindvault_setup_wallet"}},
			{"mindvault_buyy", []string{"mindvault_buy"}},
			{"zzz", []string{}},
		} {
			srv := newTestServer(&bytes.Buffer{})
			srv.Tools = manyTools{}
			h, body := eraRequest(modern, "tools/call", `"name":"`+tc.name+`","arguments":{}`, tc.name)
			rec, resp := post(t, srv, h, body)
			var data struct {
				Suggestions []string `json:"suggestions"`
				Tools       any      `json:"tools"`
			}
			if resp.Error == nil || json.Unmarshal(resp.Error.Data, &data) != nil {
				t.Fatalf("%s: %s", tc.name, rec.Body)
			}
			if !strings.Contains(resp.Error.Message, `unknown tool "`+tc.name+`"`) {
				t.Errorf("message %q does not name the tool", resp.Error.Message)
			}
			if data.Suggestions == nil || len(data.Suggestions) > maxSuggestions || data.Tools != nil {
				t.Errorf("%s (modern %v): data %s", tc.name, modern, resp.Error.Data)
			}
			for _, w := range tc.want {
				if !slices.Contains(data.Suggestions, w) {
					t.Errorf("%s: suggestions %v lack %s", tc.name, data.Suggestions, w)
				}
			}
			if len(tc.want) == 0 && len(data.Suggestions) != 0 {
				t.Errorf("%s: suggestions %v, want none", tc.name, data.Suggestions)
			}
		}
	}
}
