package e2e_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mindvault/mcp-endpoint/internal/tools"
)

// bothEras are the revisions every wire test here runs on: one legacy, the modern one.
var bothEras = []string{"2025-11-25", "2026-07-28"}

const modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

// wire sends one JSON-RPC request on era (params is the inside of the params object, without
// _meta; name the Mcp-Name header) and returns the HTTP status and body.
func (e *env) wire(ctx context.Context, era, method, params, name string) (int, string) {
	e.t.Helper()
	if era == "2026-07-28" {
		if params != "" {
			params += ","
		}
		params += modernMeta
	}
	body := `{"jsonrpc":"2.0","id":5,"method":"` + method + `"`
	if params != "" {
		body += `,"params":{` + params + `}`
	}
	body += `}`
	req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(body)).WithContext(ctx)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("MCP-Protocol-Version", era)
	req.Header.Set("Mcp-Method", method)
	if name != "" {
		req.Header.Set("Mcp-Name", name)
	}
	rec := httptest.NewRecorder()
	e.b.Handler.ServeHTTP(rec, req)
	return rec.Code, rec.Body.String()
}

// callEra calls a tool on era within ctx and decodes its result.
func (e *env) callEra(ctx context.Context, era, tool, args string) result {
	e.t.Helper()
	status, body := e.wire(ctx, era, "tools/call", `"name":"`+tool+`","arguments":`+args, tool)
	var resp struct {
		Result result `json:"result"`
		Error  any    `json:"error"`
	}
	if status != http.StatusOK || json.Unmarshal([]byte(body), &resp) != nil || resp.Error != nil {
		e.t.Fatalf("%s on %s: HTTP %d %s", tool, era, status, body)
	}
	resp.Result.raw = body
	return resp.Result
}

// logSince returns the log lines written after mark (a length of e.logs).
func (e *env) logSince(mark int) string {
	return e.logs.String()[mark:]
}

// TestRateLimitStatesAWait: a 429 that names no wait (no Retry-After, no retryAfterSeconds in
// the body, no reset header) still tells the agent how long to wait, on both eras and for
// every downstream that can send one; a 429 that names a wait keeps it.
func TestRateLimitStatesAWait(t *testing.T) {
	e := newEnv(t, nil)
	cases := []struct {
		name, plan, tool, args string
		service, target        string
		want                   failure
		sent                   int // requests the downstream received (reads are retried)
	}{
		{"api without a wait", `service=api,target=GET /resources/*/meta,kind=status,status=429,body={"error":"Too many requests"}`,
			"mindvault_preview", `{"resourceId":"rustguide"}`, "api", "GET /resources/*/meta",
			failure{category: "rate_limit", code: "RATE_LIMITED", source: "api", status: 429, retry: "after_wait", retryAfter: 5,
				next: "Wait 5 s (the service did not say how long), then retry."}, 3},
		{"rpc without a wait", "service=rpc,target=getTransaction,kind=status,status=429",
			"mindvault_tx_status", `{"txHash":"` + strings.Repeat("cd", 32) + `"}`, "rpc", "getTransaction",
			failure{category: "rate_limit", code: "RATE_LIMITED", source: "rpc", status: 429, retry: "after_wait", retryAfter: 5,
				next: "Wait 5 s (the service did not say how long)"}, 3},
		{"sponsor without a wait (not retried)", "service=sponsor,target=POST /create,kind=status,status=429",
			"mindvault_setup_wallet", `{"profile":"ratelimited"}`, "sponsor", "POST /create",
			failure{category: "rate_limit", code: "RATE_LIMITED", source: "sponsor", status: 429, retry: "after_wait", retryAfter: 5,
				next: "Wait 5 s (the service did not say how long)"}, 1},
		{"a stated wait is kept", "service=api,target=GET /resources/*/meta,kind=status,status=429,retry-after=7",
			"mindvault_preview", `{"resourceId":"rustguide"}`, "api", "GET /resources/*/meta",
			failure{category: "rate_limit", code: "RATE_LIMITED", source: "api", status: 429, retry: "after_wait", retryAfter: 7,
				next: "Wait 7 s, then retry."}, 1}, // longer than the retry policy waits: surfaces at once
	}
	for _, era := range bothEras {
		for _, tc := range cases {
			t.Run(era+"/"+tc.name, func(t *testing.T) {
				e := e.in(t)
				e.faults(tc.plan)
				r := e.callEra(t.Context(), era, tc.tool, tc.args)
				e.fails(tc.tool, r, tc.want)
				if n := e.sb.Count(tc.service, tc.target); n != tc.sent {
					t.Errorf("%s %s received %d requests, want %d", tc.service, tc.target, n, tc.sent)
				}
			})
		}
	}
}

// TestCancelledIsNotTimeout: when the caller goes away (its request context is cancelled
// while a downstream call is in flight) the failure is CANCELLED in the result and in the log
// line, never TIMEOUT; a write whose outcome is unknown still says how to find out. A real
// deadline stays TIMEOUT.
func TestCancelledIsNotTimeout(t *testing.T) {
	// Long and self-contained: harness_test.go, "Which tests run in parallel".
	t.Parallel()
	e := newEnv(t, map[string]string{"MINDVAULT_HTTP_TIMEOUT_MS": "20000", "MINDVAULT_HORIZON_TIMEOUT_MS": "20000"})
	demoID := ownedBy(e, e.sb.Demo.Address)
	cases := []struct {
		name, plan, tool, args string
		service, target        string // cancel once this downstream has received a request
		deadline               bool   // let a deadline pass instead of cancelling
		want                   failure
	}{
		{"read from the API", "service=api,target=GET /resources/*/meta,kind=delay,delay=60s",
			"mindvault_preview", `{"resourceId":"rustguide"}`, "api", "GET /resources/*/meta", false,
			failure{category: "network", code: "CANCELLED", source: "api", retry: "safe", next: "cancelled before it finished"}},
		{"read from Horizon", "service=horizon,target=GET /accounts/*,kind=delay,delay=60s",
			"mindvault_wallet_info", `{}`, "horizon", "GET /accounts/*", false,
			failure{category: "network", code: "CANCELLED", source: "horizon", retry: "safe", next: "cancelled before it finished"}},
		{"a write waiting for its confirmation", "service=rpc,target=sendTransaction,kind=nocommit",
			"mindvault_set_price", "", "rpc", "getTransaction", false,
			failure{category: "network", code: "CANCELLED", source: "rpc", retry: "no", state: "unknown", next: "mindvault_tx_status"}},
		{"a deadline is still a timeout", "service=api,target=GET /resources/*/meta,kind=delay,delay=60s",
			"mindvault_preview", `{"resourceId":"rustguide"}`, "api", "GET /resources/*/meta", true,
			failure{category: "timeout", code: "TIMEOUT", source: "api", retry: "safe"}},
	}
	for i, era := range bothEras {
		for _, tc := range cases {
			t.Run(era+"/"+tc.name, func(t *testing.T) {
				e := e.in(t)
				e.faults(tc.plan)
				args := tc.args
				if args == "" { // a price of its own per era, so each run is a real change
					args = `{"resourceId":"` + demoID + `","price":"` + []string{"4", "5"}[i] + `"}`
				}
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				if tc.deadline {
					ctx, cancel = context.WithTimeout(t.Context(), 2*time.Second)
					defer cancel()
				} else {
					go func() {
						// Cancel only once the downstream call is really in flight.
						for end := time.Now().Add(30 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
							if e.sb.Count(tc.service, tc.target) > 0 {
								break
							}
						}
						cancel()
					}()
				}
				mark := len(e.logs.String())
				r := e.callEra(ctx, era, tc.tool, args)
				if e.sb.Count(tc.service, tc.target) == 0 {
					t.Fatalf("%s %s never received the call", tc.service, tc.target)
				}
				e.fails(tc.tool, r, tc.want)
				if tc.want.state == "unknown" && len(r.Meta.Diag.TxHash) != 64 {
					t.Errorf("the sent transaction's hash is missing: %s", r.raw)
				}
				logs := e.logSince(mark)
				if !strings.Contains(logs, `"code":"`+tc.want.code+`"`) {
					t.Errorf("log line lacks code %s: %s", tc.want.code, logs)
				}
				if tc.want.code == "CANCELLED" && (strings.Contains(logs, "TIMEOUT") || strings.Contains(r.raw, "TIMEOUT")) {
					t.Errorf("a cancelled call reads as a timeout:\n%s\n%s", r.raw, logs)
				}
			})
		}
	}
}

// TestProtocolErrorsCarryFacts: JSON-RPC errors of the real endpoint carry code, category and
// retry; an unknown tool gets close names, never the whole list.
func TestProtocolErrorsCarryFacts(t *testing.T) {
	e := newEnv(t, nil)
	served := tools.All(e.b.Deps).Names()
	cases := []struct {
		name, method, params, mcpName string
		rpc                           int
		code, category, retry         string
		suggests                      []string // must be among the suggestions; nil = no suggestions key
		msg                           string
	}{
		{"unknown tool", "tools/call", `"name":"mindvault_wallet","arguments":{}`, "mindvault_wallet", -32602,
			"UNKNOWN_NAME", "not_found", "after_correction", []string{"mindvault_wallet_info", "mindvault_setup_wallet"}, `unknown tool "mindvault_wallet" (did you mean mindvault_wallet_info or mindvault_setup_wallet?)`},
		{"unknown tool without a prefix", "tools/call", `"name":"preview","arguments":{}`, "preview", -32602,
			"UNKNOWN_NAME", "not_found", "after_correction", []string{"mindvault_preview"}, `unknown tool "preview" (did you mean mindvault_preview?)`},
		{"unknown tool nothing like any", "tools/call", `"name":"qq","arguments":{}`, "qq", -32602,
			"UNKNOWN_NAME", "not_found", "after_correction", []string{}, `unknown tool "qq"`},
		{"arguments not an object", "tools/call", `"name":"mindvault_preview","arguments":"x"`, "mindvault_preview", -32602,
			"INVALID_REQUEST", "validation", "after_correction", nil, "params.arguments: must be an object"},
		{"unknown method", "resources/list", "", "", -32601,
			"UNKNOWN_NAME", "not_found", "after_correction", nil, "Method not found"},
		{"unknown prompt", "prompts/get", `"name":"purchase"`, "purchase", -32602,
			"UNKNOWN_NAME", "not_found", "after_correction", []string{}, `unknown prompt "purchase"`},
		{"prompt argument missing", "prompts/get", `"name":"troubleshoot","arguments":{}`, "troubleshoot", -32602,
			"INVALID_ARGUMENTS", "validation", "after_correction", nil, "params.arguments.error: is required"},
		{"prompt argument malformed", "prompts/get", `"name":"buy","arguments":{"resourceId":"a b"}`, "buy", -32602,
			"INVALID_ARGUMENTS", "validation", "after_correction", nil, "params.arguments.resourceId: must be 1-128 characters"},
	}
	for _, era := range bothEras {
		for _, tc := range cases {
			t.Run(era+"/"+tc.name, func(t *testing.T) {
				e := e.in(t)
				mark := len(e.logs.String())
				_, body := e.wire(t.Context(), era, tc.method, tc.params, tc.mcpName)
				var resp struct {
					ID    int `json:"id"`
					Error *struct {
						Code    int            `json:"code"`
						Message string         `json:"message"`
						Data    map[string]any `json:"data"`
					} `json:"error"`
				}
				if err := json.Unmarshal([]byte(body), &resp); err != nil || resp.Error == nil || resp.ID != 5 {
					t.Fatalf("want a JSON-RPC error echoing the id: %s", body)
				}
				d := resp.Error.Data
				if resp.Error.Code != tc.rpc || !strings.Contains(resp.Error.Message, tc.msg) {
					t.Errorf("error %d %q, want %d with %q", resp.Error.Code, resp.Error.Message, tc.rpc, tc.msg)
				}
				if d["code"] != tc.code || d["category"] != tc.category || d["retry"] != tc.retry {
					t.Errorf("error.data %v, want %s/%s/%s", d, tc.code, tc.category, tc.retry)
				}
				if _, ok := d["tools"]; ok {
					t.Errorf("error.data lists every tool: %s", body)
				}
				sug, has := d["suggestions"].([]any)
				if (tc.suggests != nil) != has || len(sug) > 3 {
					t.Fatalf("suggestions %v (want key: %v, at most 3)", d["suggestions"], tc.suggests != nil)
				}
				for _, s := range sug {
					if tc.method == "tools/call" && !slices.Contains(served, s.(string)) {
						t.Errorf("suggestion %v is not a tool", s)
					}
				}
				for _, w := range tc.suggests {
					if !slices.Contains(sug, any(w)) {
						t.Errorf("suggestions %v lack %s", sug, w)
					}
				}
				if len(tc.suggests) == 0 && len(sug) != 0 {
					t.Errorf("suggestions %v, want none", sug)
				}
				if !strings.Contains(e.logSince(mark), `"code":"`+tc.code+`"`) {
					t.Errorf("log line lacks the code: %s", e.logSince(mark))
				}
			})
		}
	}
}

// TestPromptsThroughTheEndpoint: the real prompts on both eras, declared in the capabilities,
// listed with cache hints on the modern wire, and rendered with the tools they name.
func TestPromptsThroughTheEndpoint(t *testing.T) {
	e := newEnv(t, nil)
	served := tools.All(e.b.Deps).Names()
	for _, era := range bothEras {
		t.Run(era, func(t *testing.T) {
			e := e.in(t)
			// Capabilities.
			method, params := "initialize", `"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}`
			if era == "2026-07-28" {
				method, params = "server/discover", ""
			}
			_, body := e.wire(t.Context(), era, method, params, "")
			var caps struct {
				Result struct {
					Capabilities map[string]any `json:"capabilities"`
				} `json:"result"`
			}
			if json.Unmarshal([]byte(body), &caps) != nil || caps.Result.Capabilities["prompts"] == nil || caps.Result.Capabilities["tools"] == nil {
				t.Fatalf("%s does not declare tools and prompts: %s", method, body)
			}
			// prompts/list.
			_, body = e.wire(t.Context(), era, "prompts/list", "", "")
			var list struct {
				Result struct {
					Prompts []struct {
						Name        string `json:"name"`
						Description string `json:"description"`
						Arguments   []struct {
							Name     string `json:"name"`
							Required bool   `json:"required"`
						} `json:"arguments"`
					} `json:"prompts"`
					TTLMs      *int64 `json:"ttlMs"`
					CacheScope string `json:"cacheScope"`
					ResultType string `json:"resultType"`
				} `json:"result"`
			}
			if err := json.Unmarshal([]byte(body), &list); err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, p := range list.Result.Prompts {
				names = append(names, p.Name)
				if p.Description == "" {
					t.Errorf("prompt %s has no description", p.Name)
				}
			}
			if !slices.Equal(names, []string{"buy", "publish", "troubleshoot"}) {
				t.Fatalf("prompts %v: %s", names, body)
			}
			if req := list.Result.Prompts[2].Arguments; len(req) != 1 || req[0].Name != "error" || !req[0].Required {
				t.Errorf("troubleshoot arguments %+v", req)
			}
			if modern := era == "2026-07-28"; modern != (list.Result.TTLMs != nil && *list.Result.TTLMs > 0 && list.Result.CacheScope == "public" && list.Result.ResultType == "complete") {
				t.Errorf("cache hints on %s: %s", era, body)
			}
			// prompts/get: each prompt renders and names only tools that exist.
			for _, get := range []struct{ name, args string }{
				{"buy", `{"resourceId":"rustguide"}`}, {"buy", `{}`}, {"publish", `{}`},
				{"troubleshoot", `{"error":"Preview failed: Resource not found\nSource: MindVault API · Category: not_found\nNext: Confirm the id."}`},
			} {
				status, body := e.wire(t.Context(), era, "prompts/get", `"name":"`+get.name+`","arguments":`+get.args, get.name)
				var res struct {
					Result struct {
						Messages []struct {
							Role    string `json:"role"`
							Content struct {
								Type, Text string
							} `json:"content"`
						} `json:"messages"`
					} `json:"result"`
				}
				if status != 200 || json.Unmarshal([]byte(body), &res) != nil || len(res.Result.Messages) != 1 || res.Result.Messages[0].Role != "user" {
					t.Fatalf("prompts/get %s: HTTP %d %s", get.name, status, body)
				}
				text := res.Result.Messages[0].Content.Text
				found := 0
				for _, tool := range strings.FieldsFunc(text, func(r rune) bool {
					return !(r == '_' || r >= 'a' && r <= 'z')
				}) {
					if strings.HasPrefix(tool, "mindvault_") {
						found++
						if !slices.Contains(served, tool) {
							t.Errorf("prompt %s names %s, which is not served", get.name, tool)
						}
					}
				}
				if found < 3 {
					t.Errorf("prompt %s names %d tools: %q", get.name, found, text)
				}
			}
		})
	}
}
