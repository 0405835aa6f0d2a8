// Package mcp serves MCP over JSON-RPC on one POST endpoint: the HTTP rules, the envelope, the two
// eras (the stateless 2026-07-28 revision, and the initialize-based 2025-11-25 and 2025-06-18),
// method dispatch and the channel table of docs/protocol.md. It keeps no sessions: every request is
// classified and answered on its own.
package mcp

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"runtime/debug"
	"sync"
	"time"

	"github.com/mindvault/mcp-endpoint/internal/obs"
	"github.com/mindvault/mcp-endpoint/internal/redact"
)

// Server is the MCP endpoint as an http.Handler.
type Server struct {
	Info                 ServerInfo
	Instructions         string
	Tools                ToolSet
	Prompts              PromptSet // prompts/list and prompts/get; nil leaves both unknown (-32601)
	Surface              *Surface  // the operator's tool surface and a request's narrowing; nil: every tool
	MaxBodyBytes         int64     // bounds a request body (413 above it)
	AllowedOrigins       []string  // the Origin values accepted besides loopback ones (when allowed)
	AllowLoopbackOrigins bool      // accepts http(s)://localhost|127.0.0.1|[::1] origins (local mode)
	// Unavailable, when set, is a startup problem (bad configuration): every JSON-RPC
	// request is answered -32603 with this message instead of being served half-configured.
	Unavailable error
	ListTTL     time.Duration // the ttlMs advertised on server/discover, tools/list and prompts/list
	CallTimeout time.Duration // bounds a tools/call without a deadline (local mode; Lambda has one)
	Logger      *slog.Logger  // one line per request; nil discards
	Metrics     io.Writer     // CloudWatch EMF lines for tool calls (stdout under Lambda); nil: none
	// Admit, when set, is asked before a served tool runs whether the request may call it: a
	// non-nil answer is written instead of any JSON-RPC response (inbound auth's OAuth step-up
	// 403, auth.ScopeRefusal). It sees the call as decoded here, so the body is decoded once.
	Admit func(ctx context.Context, tool string) http.HandlerFunc
	// Caller names the authenticated caller of a request for its log line (the OAuth subject);
	// nil or "" adds nothing. It must never return a credential.
	Caller func(context.Context) string

	onDecode func()   // tests: called on every envelope decoding
	consts   constSet // the answers that never change, encoded on first use
	narrowed sync.Map // viewKey → *constSet: the same answers for a narrowed surface
}

// entry records what one request did, for its log line.
type entry struct {
	id       string
	method   string
	tool     string // params.name as sent
	metric   string // the Tool metric dimension: a registered tool name or obs.Unknown
	version  string // the MCP-Protocol-Version header as sent
	era      string // "modern" (stateless, with _meta) or "legacy" (initialize-based)
	surface  string // the narrowed surface the request saw ("" for every tool), e.g. "catalog,ops;read-only"
	status   int
	outcome  string
	code     string // the failure's code (error.data or the tool diagnostic), e.g. CANCELLED
	rpcCode  int
	panicked bool
	withheld bool // the response held a secret that could not be removed and was replaced
	calls    []obs.Call
}

// endpointPath is where the endpoint is served (and, with a Surface, its narrowed forms under it).
const endpointPath = "/mcp"

// ServeHTTP answers a request that passed the HTTP guards; called without them, it goes through
// Handler, so no request escapes the guards or its log line.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	e := stateOf(r.Context()).entry
	if e == nil {
		Handler(s).ServeHTTP(w, r)
		return
	}
	ctx := r.Context()
	if s.onDecode != nil {
		s.onDecode()
	}
	// The one decoding a request gets, of the bytes limitBody read (Handler ran it).
	req, isResponse, bad := decodeEnvelope(r.Body.(*memBody).b)
	if bad != nil {
		e.status = http.StatusBadRequest
		writeRPCError(w, e, req.ID, e.status, bad.Code, bad.Message, nil)
		return
	}
	e.method = req.Method
	e.version = headerValue(r, "Mcp-Protocol-Version")
	if isResponse || req.ID == nil {
		// Notifications (and stray responses) are accepted without a body.
		e.status = http.StatusAccepted
		w.WriteHeader(e.status)
		return
	}
	if s.Unavailable != nil {
		// Retrying cannot help until the operator fixes the configuration.
		writeRPCError(w, e, req.ID, http.StatusOK, CodeInternalError, "Server misconfigured: "+s.Unavailable.Error(),
			map[string]any{"correlationId": e.id, "retry": "no"})
		return
	}

	v, problem := s.viewOf(r)
	if problem != "" {
		writeRPCError(w, e, req.ID, http.StatusBadRequest, CodeInvalidRequest, "Bad Request: "+problem, nil)
		return
	}
	e.surface = v.String()
	out := s.dispatch(ctx, r, req, e, v)
	if out.refusal != nil {
		sw := &statusWriter{ResponseWriter: w}
		out.refusal(sw, r)
		e.status = sw.status
		return
	}
	if out.constant != nil {
		e.status = http.StatusOK
		writeConstant(w, e, req.ID, out.constant)
		return
	}
	if out.err != nil {
		writeRPCError(w, e, req.ID, out.status, out.err.Code, out.err.Message, out.err.Data)
		return
	}
	e.status = http.StatusOK
	writeJSON(w, e, e.status, response{JSONRPC: "2.0", ID: req.ID, Result: out.result})
}

// outcome is what a method produced: a result (or a pre-encoded constant), or an error.
type outcome struct {
	result   any
	constant *redact.Constant
	err      *CallError
	status   int
	refusal  http.HandlerFunc // Admit's answer, written as it is
}

// statusWriter remembers the status an Admit refusal wrote, for the log line.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

func fail(status, code int, msg string, data map[string]any) outcome {
	return outcome{err: &CallError{Code: code, Message: msg, Data: data}, status: status}
}

// invalidParams is the -32602 (HTTP 200) of params that break their method's schema.
func invalidParams(msg string) *outcome {
	o := fail(http.StatusOK, CodeInvalidParams, msg, nil)
	return &o
}

// writeRPCError writes a JSON-RPC error answer and records it in e for the log line.
func writeRPCError(w http.ResponseWriter, e *entry, id json.RawMessage, status, code int, msg string, data map[string]any) {
	full := errorData(status, code, data)
	e.status, e.rpcCode, e.code = status, code, full["code"].(string)
	writeJSON(w, e, status, response{JSONRPC: "2.0", ID: id, Error: &CallError{Code: code, Message: msg, Data: full}})
}

// writeJSON writes v as the response. This is the output boundary of every answer: the
// encoded bytes lose every secret value the process knows (package redact), whichever
// handler, tool or downstream put it there. A response that cannot be cleaned without breaking
// it is withheld; the tool may have run, so the replacement says to check before retrying.
func writeJSON(w http.ResponseWriter, e *entry, status int, v any) {
	body, err := encodeJSON(v)
	if err != nil {
		status = http.StatusInternalServerError
		body = []byte(`{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error: response could not be encoded","data":{"code":"INTERNAL_ERROR","category":"server","retry":"safe"}}}` + "\n")
	} else if clean, ok := redact.JSON(body, nil); ok {
		body = clean
	} else {
		withhold(w, e, status)
		return
	}
	writeBody(w, status, body)
}

// encodeJSON is v as every answer is encoded: HTML characters unescaped, a newline at the end.
func encodeJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	err := enc.Encode(v)
	return buf.Bytes(), err
}

// withhold answers in place of a response that held a secret that could not be removed.
func withhold(w http.ResponseWriter, e *entry, status int) {
	e.withheld = true
	writeBody(w, status, []byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"`+withheldMessage+`","data":{"code":"INTERNAL_ERROR","category":"server","retry":"no"}}}`+"\n"))
}

// writeBody writes an encoded, already redacted answer, in parts that are never copied.
func writeBody(w http.ResponseWriter, status int, parts ...[]byte) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	for _, p := range parts {
		_, _ = w.Write(p)
	}
}

const withheldMessage = "Internal error: the response was withheld because it contained a secret that could not be removed safely. " +
	"The call may have taken effect (a payment or a write): check with mindvault_wallet_info or mindvault_tx_status before retrying."

// safely runs fn, turning a panic into -32603; the stack goes only to the log.
func (s *Server) safely(ctx context.Context, e *entry, fn func() outcome) (out outcome) {
	defer func() {
		if p := recover(); p != nil {
			e.panicked = true
			if s.Logger != nil {
				s.Logger.ErrorContext(ctx, "panic while serving a request",
					"requestId", obs.Field(e.id), "method", obs.Field(e.method), "tool", obs.Field(e.tool),
					"panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			}
			out = fail(http.StatusOK, CodeInternalError,
				"Internal error (correlation id "+e.id+"); the details are in the server log",
				map[string]any{"correlationId": e.id})
		}
	}()
	return fn()
}

func (s *Server) log(ctx context.Context, e *entry, d time.Duration) {
	if s.Logger == nil {
		return
	}
	// Every value the request chose goes through obs.Field (bounded, no control characters).
	// Room for every attribute below, so the slice is allocated once.
	attrs := make([]slog.Attr, 0, 14)
	attrs = append(attrs,
		slog.String("requestId", obs.Field(e.id)),
		slog.String("method", obs.Field(e.method)),
		slog.Int("status", e.status),
		slog.Float64("durationMs", float64(d.Microseconds())/1000),
	)
	add := func(k, v string, field bool) {
		if v == "" {
			return
		}
		if field {
			v = obs.Field(v)
		}
		attrs = append(attrs, slog.String(k, v))
	}
	add("era", e.era, false)
	add("protocolVersion", e.version, true)
	add("tool", e.tool, true)
	add("surface", e.surface, false)
	if s.Caller != nil {
		add("caller", s.Caller(ctx), true)
	}
	add("outcome", e.outcome, false)
	if e.rpcCode != 0 {
		attrs = append(attrs, slog.Int("rpcCode", e.rpcCode))
	}
	add("code", e.code, false)
	if len(e.calls) > 0 {
		calls := make([]any, len(e.calls))
		for i, c := range e.calls {
			calls[i] = map[string]any{"service": c.Service, "route": c.Route, "status": c.Status,
				"attempts": c.Attempts, "outcome": c.Outcome, "latencyMs": float64(c.Latency.Microseconds()) / 1000}
		}
		attrs = append(attrs, slog.Any("downstream", calls))
	}
	if e.withheld {
		attrs = append(attrs, slog.Bool("withheld", true))
	}
	level := slog.LevelInfo
	if e.panicked || e.withheld || e.rpcCode == CodeInternalError {
		level = slog.LevelError
	}
	// Straight to the handler: Logger.LogAttrs would walk the stack for a source never printed.
	h := s.Logger.Handler()
	if !h.Enabled(ctx, level) {
		return
	}
	rec := slog.NewRecord(time.Now(), level, "mcp request", 0)
	rec.AddAttrs(attrs...)
	_ = h.Handle(ctx, rec)
}

// newID is a correlation id for a request that came without one (outside Lambda, which gives
// each invocation its own). It must be unique, not secret: it is shown to the caller and
// logged. It comes from the runtime's generator (ChaCha8, seeded by the kernel at start) rather
// than crypto/rand, whose first read costs a process's first answer a system call and a timer.
func newID() string {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], rand.Uint64())
	return hex.EncodeToString(b[:])
}
