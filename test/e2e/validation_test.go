package e2e_test

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestArgumentFailuresOnBothEras: argument problems are isError results on both wires,
// naming the tool, the path and the expected type, never the rejected value.
func TestArgumentFailuresOnBothEras(t *testing.T) {
	e := newEnv(t, nil)
	const planted = "PLANTED-7c1e"
	cases := []struct {
		name, args, path, expect string
	}{
		{"missing required", `{}`, "/resourceId", "is required"},
		{"wrong JSON type", `{"resourceId":42}`, "/resourceId", "must be a string"},
		{"unknown argument", `{"resourceId":"rustguide","` + planted + `x":"` + planted + `"}`, "/" + planted + "x", "is not an allowed argument"},
		{"bad format", `{"resourceId":"has space ` + planted + `"}`, "/resourceId", "must be 1-128 characters"},
	}
	for _, era := range []string{"2025-11-25", "2026-07-28"} {
		for _, tc := range cases {
			t.Run(era+"/"+tc.name, func(t *testing.T) {
				params := `"name":"mindvault_preview","arguments":` + tc.args
				if era == "2026-07-28" {
					params += `,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
				}
				req := httptest.NewRequest("POST", "/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{`+params+`}}`))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("MCP-Protocol-Version", era)
				req.Header.Set("Mcp-Method", "tools/call")
				req.Header.Set("Mcp-Name", "mindvault_preview")
				rec := httptest.NewRecorder()
				e.b.Handler.ServeHTTP(rec, req)
				var resp struct {
					Result result `json:"result"`
				}
				if err := json.Unmarshal(rec.Body.Bytes(), &resp); err != nil || rec.Code != 200 {
					t.Fatalf("%d %s", rec.Code, rec.Body)
				}
				r := resp.Result
				lines := strings.Split(r.Content[0].Text, "\n")
				if !r.IsError || len(lines) != 3 {
					t.Fatalf("want a three-line isError result: %s", rec.Body)
				}
				if !strings.HasPrefix(lines[0], "Invalid arguments for mindvault_preview (-32602): "+tc.path+" "+tc.expect) {
					t.Errorf("line 1 = %q", lines[0])
				}
				if lines[1] != "Source: request validation · Category: validation · Code: INVALID_ARGUMENTS" {
					t.Errorf("line 2 = %q", lines[1])
				}
				if !strings.Contains(lines[2], "resourceId") {
					t.Errorf("Next must list the allowed arguments: %q", lines[2])
				}
				if !strings.Contains(rec.Body.String(), `"jsonrpcCode":-32602`) || !strings.Contains(rec.Body.String(), `"path":"`+tc.path+`"`) {
					t.Errorf("diagnostic lacks -32602 or %s: %s", tc.path, rec.Body)
				}
				if strings.Contains(rec.Body.String(), `"`+planted+`"`) || strings.Contains(rec.Body.String(), "has space") {
					t.Errorf("the rejected value appears in the response: %s", rec.Body)
				}
			})
		}
	}
}

// TestSafeCorrectionAsNextAction: an argument name off by case or a couple of letters from an
// allowed one the call left out comes back as the corrected call (values copied, nothing
// guessed), which then succeeds; two candidates, or another problem besides, is no correction.
func TestSafeCorrectionAsNextAction(t *testing.T) {
	e := newEnv(t, nil)
	for _, tc := range []struct {
		tool, args string
		want       string // the corrected arguments; "" = no nextAction
	}{
		{"mindvault_preview", `{"resourceID":"rustguide"}`, `{"resourceId":"rustguide"}`},
		{"mindvault_preview", `{"resouceId":"rustguide"}`, `{"resourceId":"rustguide"}`},
		{"mindvault_purchase_history", `{"resourceid":"rustguide","limit":5}`, `{"limit":5,"resourceId":"rustguide"}`},
		{"mindvault_preview", `{"resourceID":"rustguide","extra":true}`, ""},
		{"mindvault_preview", `{"resourceID":"bad id!"}`, ""},
		{"mindvault_preview", `{"zzzzzzzz":"rustguide"}`, ""},
	} {
		r := e.call(tc.tool, tc.args)
		d := r.Meta.Diag
		if !r.IsError || d == nil || d.Code != "INVALID_ARGUMENTS" || d.Retry != "after_correction" {
			t.Fatalf("%s %s: %s", tc.tool, tc.args, tail(r.raw, 300))
		}
		if tc.want == "" {
			if d.NextAction != nil {
				t.Errorf("%s %s: a guess offered as a correction: %+v", tc.tool, tc.args, d.NextAction)
			}
			continue
		}
		if d.NextAction == nil || d.NextAction.Tool != tc.tool {
			t.Fatalf("%s %s: no correction offered: %s", tc.tool, tc.args, tail(r.raw, 400))
		}
		got, _ := json.Marshal(d.NextAction.Arguments)
		if string(got) != tc.want {
			t.Fatalf("%s %s: corrected to %s, want %s", tc.tool, tc.args, got, tc.want)
		}
		e.ok(tc.tool, e.call(tc.tool, string(got)))
	}
}
