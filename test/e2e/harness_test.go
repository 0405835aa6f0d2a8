// Package e2e_test drives the endpoint through its HTTP wire against the sandbox, booted as
// `make run` boots it, and as two processes of the deployed binary where a guarantee spans
// instances; one file per area (payments, purchases, writes, publishing, confirmation, the agent's
// loop ...). The tests of payments and writes check what the sandbox recorded, not only what the
// endpoint says. Its budget is 60 s of wall time with -tags node on the shared 2-core machine.
package e2e_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mindvault/mcp-endpoint/internal/sandbox"
	"github.com/mindvault/mcp-endpoint/internal/server/local"
	"github.com/mindvault/mcp-endpoint/internal/testkit/schemacheck"
)

// env is one endpoint booted on the sandbox network, exactly as `make run` boots it.
type env struct {
	t       *testing.T
	b       *local.Booted
	sb      *sandbox.Sandbox
	logs    *syncBuffer
	schemas map[string]json.RawMessage // outputSchema by tool
	token   string                     // bearer token sent with every request, if any
}

type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

// fastRetries keeps retry tests quick; timeouts stay long enough for a slow 2-core machine.
// It also shortens the wait for a write's confirmation: the endpoint polls getTransaction every
// 20 ms instead of every second (the sandbox applies a write after fastApply, see below).
var fastRetries = map[string]string{
	"MINDVAULT_RETRY_BASE_DELAY_MS": "1",
	"MINDVAULT_RETRY_MAX_DELAY_MS":  "40",
	"MINDVAULT_WRITE_POLL_MS":       "20",
}

// fastApply is how long the tests' sandboxes take to apply an accepted transaction (1 s by
// default): long enough that the first getTransaction still sees it pending, short enough that
// the dozens of writes the tests make do not add up to a minute. A test that needs a write to
// stay pending says so with a fault (kind=nocommit) rather than with a clock.
const fastApply = 50 * time.Millisecond

func newEnv(t *testing.T, vars map[string]string) *env {
	t.Helper()
	all := map[string]string{"STELLAR_NETWORK": "sandbox", local.ApplyDelayVar: strconv.Itoa(int(fastApply.Milliseconds())),
		// The test's own spending switch, never the developer's (a pause there would stop every test).
		"MINDVAULT_PAUSE_FILE": filepath.Join(t.TempDir(), "spending-pause.json")}
	for k, v := range fastRetries {
		all[k] = v
	}
	for k, v := range vars {
		all[k] = v
	}
	logs := &syncBuffer{}
	b := local.Boot(func(k string) string { return all[k] }, logs, false)
	t.Cleanup(b.Close)
	if b.Err != nil {
		t.Fatalf("boot: %v", b.Err)
	}
	e := &env{t: t, b: b, sb: b.Sandbox, logs: logs, schemas: map[string]json.RawMessage{}, token: vars["test.token"]}
	var list struct {
		Result struct {
			Tools []struct {
				Name         string          `json:"name"`
				OutputSchema json.RawMessage `json:"outputSchema"`
			} `json:"tools"`
		} `json:"result"`
	}
	e.rpc(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, &list)
	for _, tl := range list.Result.Tools {
		e.schemas[tl.Name] = tl.OutputSchema
	}
	return e
}

// Which tests run in parallel: the longest ones (a few seconds each, mostly waiting on a
// timeout, a write wait or a cluster) that own everything they touch — their own env or
// cluster, no t.Setenv, no os.Stdout swap, no package variable — call t.Parallel, so go test
// runs them two at a time (-parallel is the CPU count) after the quick sequential ones. A test
// that sets the process environment (the Secrets Manager stand-in) or times itself against a
// tight bound stays sequential.

// concurrently runs f(t, i) as the subtests named names, all at once, and returns when every
// one has ended. It is for subtests that spend their time waiting on a clock (a service
// timeout, a write wait), not on the CPU: t.Parallel would run at most -parallel of them (the
// CPU count, 2 here) at a time for no gain. Each subtest must use state of its own, an env of
// its own in particular (fault plans and request counts are per sandbox).
func concurrently(t *testing.T, names []string, f func(t *testing.T, i int)) {
	t.Helper()
	var wg sync.WaitGroup
	for i, name := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t.Run(name, func(t *testing.T) { f(t, i) })
		}()
	}
	wg.Wait()
}

// in returns the environment bound to a subtest, so its failures stop the subtest only.
func (e *env) in(t *testing.T) *env {
	c := *e
	c.t = t
	return &c
}

// faults replaces the sandbox fault plan and its request counts.
func (e *env) faults(plan string) {
	e.t.Helper()
	if err := e.sb.SetFaults(plan); err != nil {
		e.t.Fatal(err)
	}
	e.sb.ResetCounts()
}

func (e *env) rpc(body string, out any) string {
	e.t.Helper()
	return e.rpcCtx(context.Background(), body, out)
}

// mcpRequest is the POST /mcp request of body that every env and cluster helper sends, to the
// in-process handler (url "/mcp") or to an endpoint process. Its headers are those a client of
// the body's era sends: a body whose params._meta names a revision (the modern era) carries it
// in MCP-Protocol-Version and repeats its method and params.name in Mcp-Method and Mcp-Name;
// any other body is a legacy 2025-11-25 request. token, when set, is the bearer token.
func mcpRequest(ctx context.Context, url, body, token string) *http.Request {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		panic(err) // the tests' own URLs always parse
	}
	req.Header.Set("Content-Type", "application/json")
	var msg struct {
		Method string `json:"method"`
		Params struct {
			Name string `json:"name"`
			Meta struct {
				Version string `json:"io.modelcontextprotocol/protocolVersion"`
			} `json:"_meta"`
		} `json:"params"`
	}
	_ = json.Unmarshal([]byte(body), &msg) // a body that is not a request is sent as legacy
	if v := msg.Params.Meta.Version; v != "" {
		req.Header.Set("MCP-Protocol-Version", v)
		req.Header.Set("Mcp-Method", msg.Method)
		if msg.Params.Name != "" {
			req.Header.Set("Mcp-Name", msg.Params.Name)
		}
	} else {
		req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	return req
}

// rpcCtx sends a request whose context carries ctx's deadline, as Lambda's does.
func (e *env) rpcCtx(ctx context.Context, body string, out any) string {
	e.t.Helper()
	req := mcpRequest(ctx, "/mcp", body, e.token)
	rec := httptest.NewRecorder()
	e.b.Handler.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		e.t.Fatalf("HTTP %d: %s", rec.Code, rec.Body)
	}
	if out != nil {
		if err := json.Unmarshal(rec.Body.Bytes(), out); err != nil {
			e.t.Fatalf("response: %v: %s", err, rec.Body)
		}
	}
	return rec.Body.String()
}

// result is a decoded tools/call result.
type result struct {
	raw        string
	IsError    bool            `json:"isError"`
	Structured json.RawMessage `json:"structuredContent"`
	Content    []struct {
		Type     string `json:"type"`
		Text     string `json:"text"`
		Resource *struct {
			URI      string `json:"uri"`
			MimeType string `json:"mimeType"`
			Blob     string `json:"blob"`
		} `json:"resource"`
	} `json:"content"`
	Meta struct {
		Diag *diagnostic `json:"io.mindvault/error"`
	} `json:"_meta"`
}

type diagnostic struct {
	Code              string         `json:"code"`
	Category          string         `json:"category"`
	Source            string         `json:"source"`
	Status            int            `json:"status"`
	Retry             string         `json:"retry"`
	RetryAfterSeconds *int           `json:"retryAfterSeconds"`
	ExecutionStarted  bool           `json:"executionStarted"`
	StateChanged      string         `json:"stateChanged"`
	Next              string         `json:"next"`
	Upstream          map[string]any `json:"upstream"`
	TxHash            string         `json:"txHash"`
	PaymentExpiresAt  string         `json:"paymentExpiresAt"`
	Needs             string         `json:"needs"`
	NextAction        *struct {
		Tool      string         `json:"tool"`
		Arguments map[string]any `json:"arguments"`
	} `json:"nextAction"`
}

func (e *env) call(tool, args string) result {
	e.t.Helper()
	return e.callCtx(context.Background(), tool, args)
}

// callCtx calls a tool within ctx (its deadline plays the invocation deadline).
func (e *env) callCtx(ctx context.Context, tool, args string) result {
	e.t.Helper()
	var resp struct {
		Result result `json:"result"`
		Error  any    `json:"error"`
	}
	raw := e.rpcCtx(ctx, callBody(tool, args), &resp)
	if resp.Error != nil {
		e.t.Fatalf("%s: JSON-RPC error %v", tool, resp.Error)
	}
	resp.Result.raw = raw
	return resp.Result
}

// callBody is the legacy tools/call request of tool with args ("" for none).
func callBody(tool, args string) string {
	if args == "" {
		args = "{}"
	}
	return `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args + `}}`
}

// ok asserts a success that conforms to the tool's outputSchema and returns it decoded.
func (e *env) ok(tool string, r result) map[string]any {
	e.t.Helper()
	return okResult(e.t, e.schemas, tool, r)
}

// okResult is ok against the outputSchemas by tool of any endpoint (an env's or a cluster's).
func okResult(t testing.TB, schemas map[string]json.RawMessage, tool string, r result) map[string]any {
	t.Helper()
	if len(r.Content) == 0 {
		t.Fatalf("%s: no tool result: %s", tool, r.raw) // a JSON-RPC error, or no answer at all
	}
	if r.IsError {
		t.Fatalf("%s failed: %s", tool, r.Content[0].Text)
	}
	if err := schemacheck.Validate(schemas[tool], r.Structured); err != nil {
		t.Fatalf("%s result does not conform to its outputSchema: %v\n%s", tool, err, r.Structured)
	}
	// Only a purchase delivers more than its JSON: the bought text or file after it.
	if len(r.Content) == 0 || r.Content[0].Type != "text" || r.Content[0].Text != string(r.Structured) ||
		(len(r.Content) > 1 && tool != "mindvault_buy") {
		t.Fatalf("%s: the first and only text block must repeat structuredContent", tool)
	}
	var m map[string]any
	_ = json.Unmarshal(r.Structured, &m)
	return m
}

// failure is what a test expects of an isError result.
type failure struct {
	category, code, source, retry string
	status                        int // 0: no HTTP segment
	retryAfter                    int // 0: not asserted
	next                          string
	state                         string // "" means "no"
}

// sourceLabel is the label per source key of docs/errors.md "Sources".
var sourceLabel = map[string]string{
	"api": "MindVault API", "x402": "x402 payment", "horizon": "Horizon", "rpc": "Soroban RPC",
	"registry": "vault-registry contract", "sponsor": "sponsored-account service",
	"credentials": "credential store", "ledger": "spend ledger", "request": "request validation",
}

func (e *env) fails(tool string, r result, want failure) {
	e.t.Helper()
	if !r.IsError || r.Meta.Diag == nil || len(r.Structured) > 0 {
		e.t.Fatalf("%s: want an isError result with a diagnostic and no structuredContent, got %s", tool, r.raw)
	}
	d := r.Meta.Diag
	lines := strings.Split(r.Content[0].Text, "\n")
	if len(lines) != 3 {
		e.t.Fatalf("%s: want three lines, got %q", tool, r.Content[0].Text)
	}
	line2 := "Source: " + sourceLabel[want.source] + " · Category: " + want.category + " · Code: " + want.code
	if want.status != 0 {
		line2 += " · HTTP " + itoa(want.status)
	}
	if lines[1] != line2 {
		e.t.Errorf("%s: line 2 = %q, want %q", tool, lines[1], line2)
	}
	if d.Category != want.category || d.Code != want.code || d.Source != want.source || d.Status != want.status {
		e.t.Errorf("%s: diagnostic %s/%s/%s/%d, want %s/%s/%s/%d", tool, d.Category, d.Code, d.Source, d.Status, want.category, want.code, want.source, want.status)
	}
	if want.retry != "" && d.Retry != want.retry {
		e.t.Errorf("%s: retry = %s, want %s", tool, d.Retry, want.retry)
	}
	state := want.state
	if state == "" {
		state = "no"
	}
	if d.StateChanged != state {
		e.t.Errorf("%s: stateChanged = %s, want %s", tool, d.StateChanged, state)
	}
	if want.retryAfter != 0 && (d.RetryAfterSeconds == nil || *d.RetryAfterSeconds != want.retryAfter) {
		e.t.Errorf("%s: retryAfterSeconds = %v, want %d", tool, d.RetryAfterSeconds, want.retryAfter)
	}
	if want.next != "" && !strings.Contains(lines[2], want.next) {
		e.t.Errorf("%s: Next %q lacks %q", tool, lines[2], want.next)
	}
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

var jsonMarshal = json.Marshal

func getJSON(t *testing.T, url string, v any) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatal(err)
	}
}
