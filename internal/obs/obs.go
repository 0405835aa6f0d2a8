// Package obs collects what one request did downstream (service, route, status, attempts,
// latency) so the request's single log line and its metrics can report it. It lives apart
// from both the protocol layer and the clients so neither depends on the other.
package obs

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/redact"
	"github.com/mindvault/mcp-endpoint/internal/redact/lazyre"
)

// Call is one logical downstream call (retries included).
type Call struct {
	Service  string        `json:"service"`
	Route    string        `json:"route"`
	Status   int           `json:"status,omitempty"`
	Attempts int           `json:"attempts"`
	Latency  time.Duration `json:"-"`
	Outcome  string        `json:"outcome"` // "ok", "status", "network", "timeout"
}

// Trace accumulates the calls of one request; safe for concurrent use by parallel calls.
type Trace struct {
	mu    sync.Mutex
	calls []Call
}

type key struct{}

// WithTrace attaches a fresh Trace to ctx.
func WithTrace(ctx context.Context) (context.Context, *Trace) {
	t := &Trace{}
	return context.WithValue(ctx, key{}, t), t
}

// Record adds a call to the request's trace, if it has one.
func Record(ctx context.Context, c Call) {
	if t, ok := ctx.Value(key{}).(*Trace); ok {
		t.mu.Lock()
		t.calls = append(t.calls, c)
		t.mu.Unlock()
	}
}

// Calls returns a copy of the recorded calls.
func (t *Trace) Calls() []Call {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]Call(nil), t.calls...)
}

// MaxField is the longest value, in runes, that a request can put in a log field.
const MaxField = 64

// Field makes a value that came with the request (method, tool name, header, path) fit for a
// log line: known secrets removed first (so the cut cannot leave half of one), control,
// format and line-separator characters and invalid UTF-8 dropped, then cut to MaxField runes
// with "…" marking the cut. A caller can neither flood the log nor forge lines or fields in it.
func Field(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp) || r == utf8.RuneError {
			return -1
		}
		return r
	}, strings.ToValidUTF8(redact.Exact(s), ""))
	if utf8.RuneCountInString(s) <= MaxField {
		return s
	}
	return string([]rune(s)[:MaxField-1]) + "…"
}

// Unknown stands for any value outside a metric dimension's closed set.
const Unknown = "unknown"

var (
	toolName = lazyre.New(`^[a-z][a-z0-9_]{0,63}$`)
	// The shapes the clients write a route in ("GET /resources/{id}/meta", an RPC method
	// name): routes are written by the code, never taken from a request, so a route the code
	// writes must match one (TestEMFDimensionsAreClosed lists them). An HTTP route may end in
	// one qualifier of a closed set: " (paid)" names the x402 requests a payment is attached
	// to (buy's GET /resources/{id}, the publish fee's POST /verify-content).
	httpRoute = lazyre.New(`^[A-Z]{3,7} /[A-Za-z0-9/{}_.-]{0,96}(?: \(paid\))?$`)
	rpcMethod = lazyre.New(`^[A-Za-z][A-Za-z0-9_]{0,63}$`)
)

// InputRequired is the outcome of a tool call answered with a question to the user.
const InputRequired = "input_required"

func closed(s string, in bool) string {
	if in {
		return s
	}
	return Unknown
}

// Namespace is the CloudWatch namespace of the endpoint's metrics.
const Namespace = "MindVault/MCP"

var emfMu sync.Mutex

// WriteEMF writes the CloudWatch Embedded Metric Format lines of a tool call (docs/operations.md
// "Logs and metrics"). Every dimension comes from a closed set (else "unknown"), so a caller can
// neither create metrics (each is billed) nor smuggle text into them.
func WriteEMF(w io.Writer, now time.Time, tool, outcome string, d time.Duration, calls []Call) {
	if w == nil || tool == "" {
		return
	}
	answered, errCount := outcome == "ok" || outcome == InputRequired, 0
	// Each distinct (metric, dimension values) is a custom metric billed by the hour, so the
	// calls, errors and latency are per tool, and only a failure adds the errors by (tool,
	// category): the pair a failed-payment alarm reads, with no always-zero "ok" pairs and no
	// per-category copies of the calls and the latency (docs/deploy.md "What it costs").
	directives := []any{directive([]string{"Tool"}, "ToolCalls:Count", "ToolErrors:Count", "ToolLatency:Milliseconds")}
	if !answered {
		errCount = 1
		directives = append(directives, directive([]string{"Tool", "Category"}, "ToolErrors:Count"))
	}
	lines := []map[string]any{{
		"_aws":      map[string]any{"Timestamp": now.UnixMilli(), "CloudWatchMetrics": directives},
		"Tool":      closed(tool, toolName.MatchString(tool)),
		"Category":  closed(outcome, answered || errmap.Category(outcome).Valid()),
		"ToolCalls": 1, "ToolErrors": errCount, "ToolLatency": float64(d.Microseconds()) / 1000,
	}}
	for _, c := range calls {
		lines = append(lines, map[string]any{
			"_aws": map[string]any{
				"Timestamp":         now.UnixMilli(),
				"CloudWatchMetrics": []any{directive([]string{"Service"}, "DownstreamLatency:Milliseconds")},
			},
			"Service":           closed(c.Service, errmap.Source(c.Service).Valid()),
			"Route":             closed(c.Route, httpRoute.MatchString(c.Route) || rpcMethod.MatchString(c.Route)),
			"Attempts":          c.Attempts,
			"DownstreamLatency": float64(c.Latency.Microseconds()) / 1000,
		})
	}
	emfMu.Lock()
	defer emfMu.Unlock()
	for _, l := range lines {
		b, _ := json.Marshal(l) // strings, ints and finite floats: it cannot fail
		// The metric lines' output boundary, like the responses' and the log's.
		if b, ok := redact.JSON(b, nil); ok {
			_, _ = w.Write(append(b, '\n'))
		}
	}
}

// directive is one CloudWatch metric directive: the metrics, each "Name:Unit", by dims.
func directive(dims []string, metrics ...string) map[string]any {
	ms := make([]any, len(metrics))
	for i, m := range metrics {
		name, unit, _ := strings.Cut(m, ":")
		ms[i] = map[string]string{"Name": name, "Unit": unit}
	}
	return map[string]any{"Namespace": Namespace, "Dimensions": [][]string{dims}, "Metrics": ms}
}
