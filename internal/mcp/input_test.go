package mcp

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
)

// askingTools has one tool, "ask", that reports the round-trip fields it saw and, per its
// arguments, asks for input, rejects the call, or completes.
type askingTools struct{ seen *[]roundTripSeen }

type roundTripSeen struct {
	rt     RoundTrip
	modern bool
}

func (askingTools) Definitions() []json.RawMessage {
	return []json.RawMessage{json.RawMessage(`{"name":"ask"}`)}
}
func (askingTools) Names() []string { return []string{"ask"} }
func (a askingTools) Call(ctx context.Context, name string, args json.RawMessage) (ToolResult, bool) {
	if name != "ask" {
		return ToolResult{}, false
	}
	rt, modern := RoundTripOf(ctx)
	*a.seen = append(*a.seen, roundTripSeen{rt, modern})
	var do struct{ Do string }
	_ = json.Unmarshal(args, &do)
	switch do.Do {
	case "ask":
		return ToolResult{ResultType: ResultInputRequired, RequestState: "opaque",
			InputRequests: map[string]InputRequest{"confirm": {Method: "elicitation/create", Params: map[string]any{"mode": "form", "message": "ok?"}}},
			Outcome:       ResultInputRequired}, true
	case "reject":
		return ToolResult{Reject: &CallError{Code: CodeInvalidParams, Message: "Invalid params: params.requestState: altered",
			Data: map[string]any{"code": "CONFIRMATION_INVALID"}}}, true
	}
	return ToolResult{Content: []Content{{Type: "text", Text: "done"}}, Outcome: "ok"}, true
}

func askServer(seen *[]roundTripSeen) *Server {
	s := newTestServer(io.Discard)
	s.Tools = askingTools{seen: seen}
	return s
}

func modernCall(caps, args, extra string) string {
	if extra != "" {
		extra = "," + extra
	}
	return `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"ask","arguments":` + args + extra +
		`,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + caps + `}}}`
}

// TestRoundTripFieldsReachTheTool: the tool sees the form elicitation capability as declared
// (an empty elicitation object counts as form, url alone does not), requestState and
// inputResponses as sent; malformed ones are -32602 naming the path; the legacy era carries none.
func TestRoundTripFieldsReachTheTool(t *testing.T) {
	cases := []struct {
		name, caps, extra string
		form, url         bool
		state             string
		responses         []string
		code              int
		msg               string
	}{
		{name: "no capabilities", caps: `{}`},
		{name: "form", caps: `{"elicitation":{"form":{}}}`, form: true},
		{name: "empty elicitation counts as form", caps: `{"elicitation":{}}`, form: true},
		{name: "form and url", caps: `{"elicitation":{"form":{},"url":{}}}`, form: true, url: true},
		{name: "url only", caps: `{"elicitation":{"url":{}}}`, url: true},
		{name: "sampling only", caps: `{"sampling":{}}`},
		{name: "round 2", caps: `{"elicitation":{}}`, form: true, extra: `"requestState":"abc","inputResponses":{"confirm":{"action":"accept","content":{"confirm":true}},"extra":{"foo":1}}`,
			state: "abc", responses: []string{"confirm", "extra"}},
		{name: "requestState not a string", caps: `{}`, extra: `"requestState":42`, code: CodeInvalidParams, msg: "params.requestState: must be a string"},
		{name: "inputResponses null", caps: `{}`, extra: `"inputResponses":null`, code: CodeInvalidParams, msg: "params.inputResponses: must be an object"},
		{name: "an input response not an object", caps: `{}`, extra: `"inputResponses":{"confirm":12345}`, code: CodeInvalidParams, msg: "params.inputResponses.confirm: must be an object"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var seen []roundTripSeen
			rec, resp := post(t, askServer(&seen), with(modernHeaders("tools/call"), "Mcp-Name", "ask"), modernCall(tc.caps, `{}`, tc.extra))
			if tc.code != 0 {
				if resp.Error == nil || resp.Error.Code != tc.code || !strings.Contains(resp.Error.Message, tc.msg) || len(seen) != 0 {
					t.Fatalf("want %d %q before the tool ran, got %s (tool ran %d times)", tc.code, tc.msg, rec.Body, len(seen))
				}
				return
			}
			if len(seen) != 1 || !seen[0].modern {
				t.Fatalf("the tool saw %+v: %s", seen, rec.Body)
			}
			rt := seen[0].rt
			var keys []string
			for k := range rt.InputResponses {
				keys = append(keys, k)
			}
			if rt.FormElicitation != tc.form || rt.URLElicitation != tc.url || rt.RequestState != tc.state || rt.HasRequestState != (tc.state != "") || len(keys) != len(tc.responses) {
				t.Fatalf("round trip %+v, want form %v state %q responses %v", rt, tc.form, tc.state, tc.responses)
			}
		})
	}
	var seen []roundTripSeen
	post(t, askServer(&seen), with(legacyHeaders), `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask","arguments":{},"requestState":"abc","inputResponses":{"confirm":{}}}}`)
	if len(seen) != 1 || seen[0].modern {
		t.Fatalf("legacy: the tool saw %+v, want no round trip", seen)
	}
}

// TestInputRequiredOnTheWire: on the modern era an asking tool's answer is an
// InputRequiredResult (resultType, inputRequests, requestState, serverInfo; no content or
// isError), a rejecting tool's is its JSON-RPC error; the legacy era never carries an input
// request: a tool that asks there is an internal error.
func TestInputRequiredOnTheWire(t *testing.T) {
	var seen []roundTripSeen
	srv := askServer(&seen)
	h := with(modernHeaders("tools/call"), "Mcp-Name", "ask")
	rec, resp := post(t, srv, h, modernCall(`{"elicitation":{}}`, `{"Do":"ask"}`, ""))
	if resp.Error != nil || string(resp.Result["resultType"]) != `"input_required"` || string(resp.Result["requestState"]) != `"opaque"` {
		t.Fatalf("ask: %s", rec.Body)
	}
	var ir map[string]InputRequest
	if json.Unmarshal(resp.Result["inputRequests"], &ir) != nil || ir["confirm"].Method != "elicitation/create" {
		t.Fatalf("inputRequests: %s", rec.Body)
	}
	for _, k := range []string{"content", "isError", "structuredContent"} {
		if _, ok := resp.Result[k]; ok {
			t.Errorf("an InputRequiredResult carries %s: %s", k, rec.Body)
		}
	}
	if !strings.Contains(string(resp.Result["_meta"]), "io.modelcontextprotocol/serverInfo") {
		t.Errorf("no serverInfo: %s", rec.Body)
	}

	rec, resp = post(t, srv, h, modernCall(`{}`, `{"Do":"reject"}`, ""))
	if rec.Code != 200 || resp.Error == nil || resp.Error.Code != CodeInvalidParams || !strings.Contains(string(resp.Error.Data), "CONFIRMATION_INVALID") {
		t.Fatalf("reject: %d %s", rec.Code, rec.Body)
	}

	rec, resp = post(t, srv, legacyHeaders, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask","arguments":{"Do":"ask"}}}`)
	if resp.Error == nil || resp.Error.Code != CodeInternalError || strings.Contains(rec.Body.String(), "input_required") {
		t.Fatalf("legacy ask: %s", rec.Body)
	}
	rec, resp = post(t, srv, legacyHeaders, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask","arguments":{}}}`)
	if resp.Error != nil || strings.Contains(rec.Body.String(), "resultType") {
		t.Fatalf("legacy complete: %s", rec.Body)
	}
}
