package endpoint_test

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/mindvault/mcp-endpoint/endpoint"
	"github.com/mindvault/mcp-endpoint/redact"
)

// TestLoggerOutputBoundary: a known secret leaves the log in no form whatever the kind of the
// attribute that carries it; text from outside gets the shape rules; the endpoint's own message
// keeps its advice.
func TestLoggerOutputBoundary(t *testing.T) {
	const secret = "LogSecretZ9y8x7w6v5"
	const perLogger = "PerLoggerSecret4u3t2"
	if err := redact.Register(secret); err != nil {
		t.Fatal(err)
	}
	for _, lambda := range []bool{false, true} {
		var out syncBuffer
		log := endpoint.NewLogger(lambda, slog.LevelInfo, &out, []string{perLogger})
		advice := "set MINDVAULT_API_KEY=<key> or MINDVAULT_CREDENTIALS=dir:<path>"
		log.With("scoped", "token="+perLogger).Info(advice+" ("+secret+")",
			"map", map[string]any{"nested": []string{"x " + secret}},
			"b64", base64.StdEncoding.EncodeToString([]byte(secret)),
			"err", errors.New("upstream said api_key=abc123xyz"),
			slog.Group("g", "inner", perLogger),
		)
		line := out.String()
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("not one JSON line: %q", line)
		}
		for _, s := range []string{secret, perLogger, base64.StdEncoding.EncodeToString([]byte(secret)), "abc123xyz"} {
			if strings.Contains(line, s) {
				t.Errorf("lambda=%v: %q reached the log: %s", lambda, s, line)
			}
		}
		if !strings.Contains(line, advice) {
			t.Errorf("lambda=%v: the endpoint's own message lost its advice: %s", lambda, line)
		}
	}
}
