package obs

import (
	"encoding/json"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/redact"
)

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
	if !answered {
		errCount = 1
	}
	// Each distinct (metric, dimension values) is a custom metric billed by the hour, so the
	// calls, errors and latency are per tool, and only a failure adds the errors by (tool,
	// category): the pair a failed-payment alarm reads, with no always-zero "ok" pairs and no
	// per-category copies of the calls and the latency (docs/deploy.md "What it costs").
	directives := []any{directive([]string{"Tool"}, "ToolCalls:Count", "ToolErrors:Count", "ToolLatency:Milliseconds")}
	if errCount > 0 {
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
