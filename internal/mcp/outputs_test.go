package mcp

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/mindvault/mcp-endpoint/internal/obs"
	"github.com/mindvault/mcp-endpoint/internal/redact"
)

// hostile is what an attacker puts in a request field: 10 KB with line breaks, an ANSI escape,
// a NUL and a forged JSON log field.
var hostile = strings.Repeat("x", 5000) + "\n\r\x1b[31m\x00\"level\":\"ERROR\"\u2028" + strings.Repeat("y", 5000)

// TestRequestFieldsBoundedAndMetricsClosed: whatever the caller sends as method, tool name or
// protocol version, the log line holds at most obs.MaxField printable runes of it, and the
// EMF Tool dimension is a registered tool name or "unknown".
func TestRequestFieldsBoundedAndMetricsClosed(t *testing.T) {
	name, _ := json.Marshal(hostile)
	cases := []struct {
		name, body string
		headers    map[string]string
		emfTool    string // "" = no metric line
		logged     []string
	}{
		{"unknown tool", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":` + string(name) + `,"arguments":{}}}`, legacyHeaders, "unknown", []string{"tool"}},
		{"unknown tool of a registered shape", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"mindvault_not_a_tool","arguments":{}}}`, legacyHeaders, "unknown", nil},
		{"registered tool", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{}}}`, legacyHeaders, "echo", nil},
		{"unknown method", `{"jsonrpc":"2.0","id":1,"method":` + string(name) + `}`, legacyHeaders, "", []string{"method"}},
		{"protocol version header", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, with(legacyHeaders, "MCP-Protocol-Version", hostile), "", []string{"protocolVersion"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var logs, metrics bytes.Buffer
			srv := newTestServer(&logs)
			srv.MaxBodyBytes = 1 << 20
			srv.Metrics = &metrics
			post(t, srv, c.headers, c.body)

			var line map[string]any
			if err := json.Unmarshal(logs.Bytes(), &line); err != nil || strings.Count(logs.String(), "\n") != 1 {
				t.Fatalf("want one JSON log line: %q", logs.String())
			}
			for k, v := range line {
				s, ok := v.(string)
				if !ok {
					continue
				}
				if n := utf8.RuneCountInString(s); n > obs.MaxField && k != "msg" && k != "time" {
					t.Errorf("log field %s holds %d runes", k, n)
				}
				if strings.IndexFunc(s, func(r rune) bool { return unicode.IsControl(r) || r == '\u2028' }) >= 0 {
					t.Errorf("log field %s holds a control character: %q", k, s)
				}
			}
			for _, k := range c.logged {
				if s, _ := line[k].(string); !strings.HasPrefix(s, "xxxx") {
					t.Errorf("log field %s should keep the start of the value: %q", k, s)
				}
			}
			if c.emfTool == "" {
				if metrics.Len() != 0 {
					t.Errorf("no metric for a request that is not a tool call: %s", metrics.String())
				}
				return
			}
			var emf struct {
				Tool     string `json:"Tool"`
				Category string `json:"Category"`
			}
			if err := json.Unmarshal([]byte(strings.SplitN(metrics.String(), "\n", 2)[0]), &emf); err != nil {
				t.Fatalf("EMF: %v: %q", err, metrics.String())
			}
			if emf.Tool != c.emfTool {
				t.Errorf("EMF Tool = %.80q, want %q", emf.Tool, c.emfTool)
			}
			if strings.Contains(metrics.String(), "xxxx") || strings.Contains(metrics.String(), "not_a_tool") {
				t.Error("the caller's tool name reached a metric")
			}
		})
	}
}

// TestResponseOutputBoundary: a registered secret that a tool (or a downstream through it)
// puts in a result leaves in no form, and the response stays valid JSON; a response holding a
// secret in a form that cannot be cut out is withheld, logged, and says the call may have run.
func TestResponseOutputBoundary(t *testing.T) {
	const secret = "Zq7PlainProtocolSecret42"
	const numberSecret = "73194628507316492" // a value the answer can only hold as a number
	if err := redact.Register(secret, numberSecret); err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	srv := newTestServer(&logs)
	srv.Logger = slog.New(slog.NewJSONHandler(&logs, nil))
	args, _ := json.Marshal(map[string]string{
		"raw": secret, "b64": base64.StdEncoding.EncodeToString([]byte(secret)), "in text": "a " + secret + " b",
	})
	rec, resp := post(t, srv, legacyHeaders, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":`+string(args)+`}}`)
	if !json.Valid(rec.Body.Bytes()) || resp.Result == nil {
		t.Fatalf("want a valid result: %s", rec.Body)
	}
	for _, f := range []string{secret, base64.StdEncoding.EncodeToString([]byte(secret))} {
		if strings.Contains(rec.Body.String(), f) {
			t.Fatalf("%q reached the response: %s", f, rec.Body)
		}
	}
	if !strings.Contains(rec.Body.String(), redact.Marker) {
		t.Fatalf("the secret should be marked: %s", rec.Body)
	}

	logs.Reset()
	// The request's id is the value as a number: the marker cannot stand in its place.
	rec, resp = post(t, srv, legacyHeaders, `{"jsonrpc":"2.0","id":`+numberSecret+`,"method":"tools/call","params":{"name":"echo","arguments":{}}}`)
	if strings.Contains(rec.Body.String(), numberSecret) || resp.Error == nil || resp.Error.Code != CodeInternalError ||
		!strings.Contains(resp.Error.Message, "withheld") || !strings.Contains(resp.Error.Message, "mindvault_tx_status") {
		t.Fatalf("want the response withheld: %s", rec.Body)
	}
	if !strings.Contains(logs.String(), `"withheld":true`) || !strings.Contains(logs.String(), `"level":"ERROR"`) {
		t.Fatalf("a withheld response is logged at ERROR: %s", logs.String())
	}
}
