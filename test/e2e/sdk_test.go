package e2e_test

// Round trips with the official Go SDK client (github.com/modelcontextprotocol/go-sdk, a
// test-only dependency) against the real handler over loopback, on both protocol eras: the
// stateless 2026-07-28 wire (server/discover, per-request _meta) and the legacy initialize
// handshake (2025-11-25, 2025-06-18). A wire recorder in front of the handler checks which era
// the client really used, so a silent fallback from modern to legacy fails the test.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mindvault/mcp-endpoint/internal/config"
	"github.com/mindvault/mcp-endpoint/internal/credentials"
	"github.com/mindvault/mcp-endpoint/internal/server"
)

const (
	sdkTool        = "mindvault_network_profile"
	sdkUnknownTool = "mindvault_no_such_tool"
	sdkErrorMetaID = "io.mindvault/error"
	sdkLine2       = "Source: request validation · Category: validation · Code: INVALID_ARGUMENTS"
)

// sdkWireCall is one POST the client sent: its JSON-RPC method and MCP-Protocol-Version header.
type sdkWireCall struct {
	method, versionHeader string
	modernMeta            bool // params._meta carries io.modelcontextprotocol/protocolVersion
	status                int
}

// sdkWireRecorder wraps the endpoint and records every POST it answers.
type sdkWireRecorder struct {
	next  http.Handler
	mu    sync.Mutex
	calls []sdkWireCall
}

func (w *sdkWireRecorder) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	call := sdkWireCall{method: r.Method + " (no body)", versionHeader: r.Header.Get("MCP-Protocol-Version")}
	if r.Method == http.MethodPost && r.Body != nil {
		body, err := io.ReadAll(r.Body)
		if err == nil {
			r.Body = io.NopCloser(bytes.NewReader(body))
			var msg struct {
				Method string `json:"method"`
				Params struct {
					Meta map[string]json.RawMessage `json:"_meta"`
				} `json:"params"`
			}
			if json.Unmarshal(body, &msg) == nil {
				call.method = msg.Method
				_, call.modernMeta = msg.Params.Meta["io.modelcontextprotocol/protocolVersion"]
			}
		}
	}
	sw := &sdkStatusWriter{ResponseWriter: rw, status: http.StatusOK}
	w.next.ServeHTTP(sw, r)
	call.status = sw.status
	w.mu.Lock()
	w.calls = append(w.calls, call)
	w.mu.Unlock()
}

func (w *sdkWireRecorder) snapshot() []sdkWireCall {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.calls)
}

type sdkStatusWriter struct {
	http.ResponseWriter
	status int
}

func (s *sdkStatusWriter) WriteHeader(code int) {
	s.status = code
	s.ResponseWriter.WriteHeader(code)
}

// sdkErrorLog collects error-level records from the SDK client (it logs, rather than fails, when
// it drops an invalid tool from tools/list).
type sdkErrorLog struct {
	mu   sync.Mutex
	msgs []string
}

func (e *sdkErrorLog) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelError }
func (e *sdkErrorLog) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	b.WriteString(r.Message)
	r.Attrs(func(a slog.Attr) bool {
		b.WriteString(" " + a.String())
		return true
	})
	e.mu.Lock()
	e.msgs = append(e.msgs, b.String())
	e.mu.Unlock()
	return nil
}
func (e *sdkErrorLog) WithAttrs([]slog.Attr) slog.Handler { return e }
func (e *sdkErrorLog) WithGroup(string) slog.Handler      { return e }

func (e *sdkErrorLog) all() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.msgs)
}

func newSDKServer(t *testing.T) (*httptest.Server, *sdkWireRecorder) {
	t.Helper()
	cfg, cfgErr := config.Load(func(string) string { return "" }, false)
	if cfgErr != nil {
		t.Fatalf("config.Load with an empty environment: %v", cfgErr)
	}
	rec := &sdkWireRecorder{next: newHandler(cfg, cfgErr, slog.New(slog.DiscardHandler))}
	srv := httptest.NewServer(rec)
	t.Cleanup(srv.Close)
	return srv, rec
}

func TestSDKClientRoundTrip(t *testing.T) {
	eras := []struct {
		name string
		// requested is ClientSessionOptions.ProtocolVersion; "" is the SDK default, which
		// tries server/discover (2026-07-28) first and falls back to initialize.
		requested string
		want      string
		modern    bool
	}{
		{name: "modern/sdk-default", requested: "", want: "2026-07-28", modern: true},
		{name: "legacy/2025-11-25", requested: "2025-11-25", want: "2025-11-25", modern: false},
		{name: "legacy/2025-06-18", requested: "2025-06-18", want: "2025-06-18", modern: false},
	}
	for _, era := range eras {
		t.Run(era.name, func(t *testing.T) {
			t.Parallel()
			srv, rec := newSDKServer(t)
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()

			logs := &sdkErrorLog{}
			client := mcp.NewClient(&mcp.Implementation{Name: "mindvault-sdk-test", Version: "0.0.0"},
				&mcp.ClientOptions{Logger: slog.New(logs)})
			transport := &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp", MaxRetries: -1}
			cs, err := client.Connect(ctx, transport, &mcp.ClientSessionOptions{ProtocolVersion: era.requested})
			if err != nil {
				t.Fatalf("Connect: %v", err)
			}
			defer cs.Close()

			// --- the negotiated era ---
			init := cs.InitializeResult()
			if init == nil {
				t.Fatal("InitializeResult is nil after Connect")
			}
			if init.ProtocolVersion != era.want {
				t.Fatalf("negotiated protocol version %q, want %q", init.ProtocolVersion, era.want)
			}
			if init.ServerInfo == nil || init.ServerInfo.Name != server.Name || init.ServerInfo.Version != server.Version {
				t.Errorf("serverInfo = %+v, want {Name:%s Version:%s}", init.ServerInfo, server.Name, server.Version)
			}
			if init.Capabilities == nil || init.Capabilities.Tools == nil || init.Capabilities.Prompts == nil {
				t.Errorf("capabilities %+v do not advertise tools and prompts", init.Capabilities)
			}
			if id := cs.ID(); id != "" {
				t.Errorf("stateless endpoint handed out session id %q", id)
			}

			// --- tools/list ---
			list, err := cs.ListTools(ctx, nil)
			if err != nil {
				t.Fatalf("ListTools: %v", err)
			}
			var names []string
			for _, tool := range list.Tools {
				names = append(names, tool.Name)
				schema, ok := tool.InputSchema.(map[string]any)
				if !ok {
					t.Errorf("tool %s: inputSchema is %T, want a JSON object", tool.Name, tool.InputSchema)
					continue
				}
				if schema["type"] != "object" {
					t.Errorf("tool %s: inputSchema.type = %v, want \"object\"", tool.Name, schema["type"])
				}
			}
			if !slices.Contains(names, sdkTool) {
				t.Fatalf("tools/list lacks %s; got %v", sdkTool, names)
			}
			if era.modern && list.TTLMs <= 0 {
				t.Errorf("modern tools/list ttlMs = %d, want > 0", list.TTLMs)
			}

			// --- tools/call: success ---
			ok, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: sdkTool, Arguments: map[string]any{}})
			if err != nil {
				t.Fatalf("CallTool %s: %v", sdkTool, err)
			}
			if ok.IsError {
				t.Fatalf("CallTool %s: isError result: %s", sdkTool, sdkText(ok))
			}
			sc, isMap := ok.StructuredContent.(map[string]any)
			if !isMap {
				t.Fatalf("structuredContent is %T, want a JSON object", ok.StructuredContent)
			}
			if sc["network"] != "testnet" {
				t.Errorf("structuredContent.network = %v, want \"testnet\"", sc["network"])
			}
			var fromText any
			if err := json.Unmarshal([]byte(sdkText(ok)), &fromText); err != nil {
				t.Errorf("success text block is not JSON: %v", err)
			} else if !reflect.DeepEqual(fromText, ok.StructuredContent) {
				t.Errorf("success text block %s differs from structuredContent %v", sdkText(ok), ok.StructuredContent)
			}

			// --- tools/call: unknown argument → isError result, not a protocol error ---
			bad, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: sdkTool, Arguments: map[string]any{"unexpected": 1}})
			if err != nil {
				t.Fatalf("CallTool with an unknown argument: protocol error %v, want an isError result", err)
			}
			if !bad.IsError {
				t.Fatalf("CallTool with an unknown argument: isError false, content %s", sdkText(bad))
			}
			if bad.StructuredContent != nil {
				t.Errorf("isError result carries structuredContent %v", bad.StructuredContent)
			}
			lines := strings.Split(sdkText(bad), "\n")
			if len(lines) != 3 {
				t.Errorf("isError text has %d lines, want 3: %q", len(lines), sdkText(bad))
			}
			if len(lines) < 2 || lines[1] != sdkLine2 {
				t.Errorf("isError text line 2 = %q, want %q", strings.Join(lines[1:min(2, len(lines))], ""), sdkLine2)
			}
			if !strings.Contains(lines[0], "-32602") {
				t.Errorf("isError text line 1 %q does not name -32602", lines[0])
			}
			diag, isMap := bad.Meta[sdkErrorMetaID].(map[string]any)
			if !isMap {
				t.Fatalf("_meta[%q] is %T (%v), want an object", sdkErrorMetaID, bad.Meta[sdkErrorMetaID], bad.Meta)
			}
			if code, _ := diag["jsonrpcCode"].(float64); code != -32602 {
				t.Errorf("_meta[%q].jsonrpcCode = %v, want -32602", sdkErrorMetaID, diag["jsonrpcCode"])
			}
			if diag["category"] != "validation" {
				t.Errorf("_meta[%q].category = %v, want validation", sdkErrorMetaID, diag["category"])
			}

			// --- tools/call: unknown tool → JSON-RPC -32602 ---
			_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: sdkUnknownTool, Arguments: map[string]any{}})
			if err == nil {
				t.Fatal("CallTool of an unknown tool succeeded, want JSON-RPC error -32602")
			}
			var wire *jsonrpc.Error
			if !errors.As(err, &wire) {
				t.Fatalf("unknown tool: error %T %v is not a JSON-RPC error", err, err)
			}
			if wire.Code != jsonrpc.CodeInvalidParams {
				t.Errorf("unknown tool: code %d, want %d (%v)", wire.Code, jsonrpc.CodeInvalidParams, err)
			}
			if !strings.Contains(wire.Message, "unknown tool") || !strings.Contains(wire.Message, sdkUnknownTool) {
				t.Errorf("unknown tool: message %q does not name the unknown tool %q", wire.Message, sdkUnknownTool)
			}
			var data struct {
				Code        string   `json:"code"`
				Category    string   `json:"category"`
				Retry       string   `json:"retry"`
				Suggestions []string `json:"suggestions"`
			}
			if err := json.Unmarshal(wire.Data, &data); err != nil || data.Code != "UNKNOWN_NAME" || data.Category != "not_found" ||
				data.Retry != "after_correction" || data.Suggestions == nil || len(data.Suggestions) > 3 {
				t.Errorf("unknown tool: error.data %s", wire.Data)
			}

			// --- prompts/list and prompts/get ---
			prompts, err := cs.ListPrompts(ctx, nil)
			if err != nil {
				t.Fatalf("ListPrompts: %v", err)
			}
			var promptNames []string
			for _, p := range prompts.Prompts {
				promptNames = append(promptNames, p.Name)
			}
			if !slices.Equal(promptNames, []string{"buy", "publish", "troubleshoot"}) {
				t.Errorf("prompts %v", promptNames)
			}
			got, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "troubleshoot", Arguments: map[string]string{"error": "Buy failed: x\nSource: x402 payment · Category: payment\nNext: y"}})
			if err != nil || len(got.Messages) != 1 {
				t.Fatalf("GetPrompt troubleshoot: %v %+v", err, got)
			}
			if tc, ok := got.Messages[0].Content.(*mcp.TextContent); !ok || !strings.Contains(tc.Text, "> Source: x402 payment") || !strings.Contains(tc.Text, "mindvault_health") {
				t.Errorf("troubleshoot message: %+v", got.Messages[0].Content)
			}
			_, err = cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "troubleshoot"})
			if !errors.As(err, &wire) || wire.Code != jsonrpc.CodeInvalidParams || !strings.Contains(wire.Message, "params.arguments.error") {
				t.Errorf("troubleshoot without its argument: %v, want -32602 naming it", err)
			}

			// --- what went over the wire ---
			calls := rec.snapshot()
			var methods []string
			for _, c := range calls {
				methods = append(methods, c.method)
			}
			if era.modern {
				if !slices.Contains(methods, "server/discover") || slices.Contains(methods, "initialize") {
					t.Errorf("modern era: wire methods %v, want server/discover and no initialize", methods)
				}
			} else if !slices.Contains(methods, "initialize") || slices.Contains(methods, "server/discover") {
				t.Errorf("legacy era: wire methods %v, want initialize and no server/discover", methods)
			}
			for _, c := range calls {
				switch c.method {
				case "tools/list", "tools/call", "prompts/list", "prompts/get":
				default:
					continue
				}
				if c.versionHeader != era.want {
					t.Errorf("%s sent MCP-Protocol-Version %q, want %q", c.method, c.versionHeader, era.want)
				}
				if c.modernMeta != era.modern {
					t.Errorf("%s: params._meta protocolVersion present = %v, want %v", c.method, c.modernMeta, era.modern)
				}
			}
			if errs := logs.all(); len(errs) > 0 {
				t.Errorf("SDK client logged errors: %q", errs)
			}
		})
	}
}

// sdkText returns the text of the result's first text block ("" if none).
func sdkText(res *mcp.CallToolResult) string {
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			return tc.Text
		}
	}
	return ""
}

// newHandler is the endpoint of cfg (whose credential store is env) with an empty environment
// and no inbound tokens, for tests that need no sandbox.
func newHandler(cfg *config.Config, startErr error, logger *slog.Logger) http.Handler {
	store := credentials.NewEnv(func(string) string { return "" }, cfg.DefaultProfile)
	return server.NewHandler(server.Deps(cfg, store), server.Inbound{}, startErr, logger)
}
