package mcp

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
)

// recordingTools records which tool the server ran.
type recordingTools struct{ ran []string }

func (r *recordingTools) Definitions() []json.RawMessage { return nil }
func (r *recordingTools) Names() []string                { return []string{"buy", "browse"} }
func (r *recordingTools) Call(_ context.Context, name string, _ json.RawMessage) (ToolResult, bool) {
	r.ran = append(r.ran, name)
	return ToolResult{Content: []Content{{Type: "text", Text: "{}"}}, Outcome: "ok"}, true
}

// duplicateBodies call a tool with a key given twice (or twice in two cases) in the envelope or
// in params: the server refuses them, so no tool runs and Admit is never asked.
var duplicateBodies = []string{
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"browse","name":"buy"}}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"buy","name":"browse"}}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"Name":"browse","name":"buy"}}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"buy","NAME":"browse"}}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"buy","n\u0061me":"browse"}}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","method":"tools/list","params":{"name":"buy"}}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/list","method":"tools/call","params":{"name":"buy"}}`,
	`{"jsonrpc":"2.0","id":1,"Method":"tools/list","method":"tools/call","params":{"name":"buy"}}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"buy"},"params":{"name":"browse"}}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"buy","arguments":{},"arguments":{}}}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"buy","x":{"k":1,"k":2}}}`,
}

// TestAdmitAsksForTheToolThatRuns: whenever the server runs a tool, Admit was asked about that
// very tool first, once, whatever tricks the body plays (duplicate or differently cased keys,
// escapes, whitespace), in both eras; and a refusal from Admit is written instead of the call.
// Inbound auth relies on this to require the scope of the tool that runs.
func TestAdmitAsksForTheToolThatRuns(t *testing.T) {
	bodies := append([]string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"buy","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"b\u0075y"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"n\u0061me":"buy","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{"name":"browse"},"name":"buy"}}`,
		// A key twice inside arguments is the tool's request model's to report.
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{"name":"browse","name":"buy"},"name":"buy"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"buy","x":{"name":"browse"}}}`,
		"  \n{\"jsonrpc\":\"2.0\",\"id\":\"x\",\"method\":\"tools/call\",\"params\":{\"name\":\"buy\"}}\n ",
		`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"buy"}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"buy"}}]`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":["buy"]}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"buy"}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
	}, duplicateBodies...)
	runs := 0
	for _, era := range []string{"legacy", "modern"} {
		for _, refuse := range []bool{false, true} {
			for _, body := range bodies {
				tools := &recordingTools{}
				var asked []string
				srv := &Server{Info: ServerInfo{Name: "t", Version: "1"}, Tools: tools,
					Admit: func(_ context.Context, tool string) http.HandlerFunc {
						asked = append(asked, tool)
						if !refuse {
							return nil
						}
						return func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusForbidden) }
					}}
				b := body
				req := httptest.NewRequest(http.MethodPost, "/mcp", nil)
				req.Header.Set("Content-Type", "application/json")
				if era == "modern" {
					// Make the body modern: the same tricks, plus the headers the era checks.
					b = strings.Replace(body, `"params":{`, `"params":{`+metaModern+`,`, 1)
					req.Header.Set("MCP-Protocol-Version", "2026-07-28")
					req.Header.Set("Mcp-Method", "tools/call")
					req.Header.Set("Mcp-Name", "buy")
				}
				req.Body = io.NopCloser(strings.NewReader(b))
				w := httptest.NewRecorder()
				srv.ServeHTTP(w, req)
				runs += len(tools.ran)
				switch {
				case slices.Contains(duplicateBodies, body) && (len(tools.ran) > 0 || len(asked) > 0):
					t.Errorf("%s %s: a body with a key given twice ran %v (asked %v)", era, b, tools.ran, asked)
				case len(asked) > 1 || len(tools.ran) > 1:
					t.Fatalf("%s %s: asked %v, ran %v", era, b, asked, tools.ran)
				case refuse && len(tools.ran) > 0:
					t.Errorf("%s %s: refused by Admit, yet ran %v", era, b, tools.ran)
				case refuse && len(asked) == 1 && w.Code != http.StatusForbidden:
					t.Errorf("%s %s: refused by Admit, answered HTTP %d", era, b, w.Code)
				case !refuse && len(tools.ran) == 1 && (len(asked) != 1 || asked[0] != tools.ran[0]):
					t.Errorf("%s %s: the server ran %q, Admit was asked about %v", era, b, tools.ran[0], asked)
				case !refuse && len(tools.ran) == 0 && len(asked) > 0:
					t.Errorf("%s %s: Admit asked about %v, nothing ran", era, b, asked)
				}
			}
		}
	}
	if runs < 14 {
		t.Fatalf("only %d bodies ran a tool: the cases do not exercise the server", runs)
	}
}

// TestCallerLogged: the request line names the caller the Caller hook returns.
func TestCallerLogged(t *testing.T) {
	var logs strings.Builder
	srv := newTestServer(&logs)
	srv.Caller = func(context.Context) string { return "user-42" }
	req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	req.Header.Set("Content-Type", "application/json")
	srv.ServeHTTP(httptest.NewRecorder(), req)
	if !strings.Contains(logs.String(), `"caller":"user-42"`) {
		t.Fatalf("no caller in %s", logs.String())
	}
}
