package e2e_test

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/mindvault/mcp-endpoint/internal/redact"
	"github.com/mindvault/mcp-endpoint/internal/server"
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
		log := server.NewLogger(lambda, slog.LevelInfo, &out, []string{perLogger})
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

// TestLoggerRedactsEncodedForms: a known key echoed by a downstream percent-encoded (lower
// case, every character, twice), form-encoded, HTML-escaped, JSON-escaped, in base32 or
// mixed-case hex, full-width or spaced out, reaches the log in none of them, whether it sits
// in the message, an attribute or an error.
func TestLoggerRedactsEncodedForms(t *testing.T) {
	const key = "Qx7/Lm+Tz&Rk<9>Pw"
	forms := []string{
		"Qx7%2fLm%2bTz%26Rk%3c9%3ePw",
		"%51%78%37%2F%4C%6D%2B%54%7A%26%52%6B%3C%39%3E%50%77",
		"Qx7%252FLm%252BTz%2526Rk%253C9%253EPw",
		"Qx7/Lm+Tz&amp;Rk&lt;9&gt;Pw",
		"Qx7/Lm+Tz&#38;Rk&#x3c;9&#62;Pw",
		`Qx7\/Lm+Tz\u0026Rk\u003c9\u003ePw`,
		"KF4DOL2MNUVVI6RGKJVTYOJ6KB3Q====",
		"5178372f4C6d2B547a26526B3c393E5077",
		"Ｑｘ７／Ｌｍ＋Ｔｚ＆Ｒｋ＜９＞Ｐｗ",
		"Q x 7 / L m + T z & R k < 9 > P w",
	}
	var out syncBuffer
	log := server.NewLogger(false, slog.LevelInfo, &out, []string{key})
	for _, f := range forms {
		log.Info("upstream answered 403 for "+f, "body", `{"error":"key `+f+` forbidden"}`, "err", errors.New("GET /resources/42/register/prepare?k="+f))
	}
	text := out.String()
	for _, f := range forms {
		if strings.Contains(text, f) {
			t.Errorf("%q reached the log: %s", f, text)
		}
	}
	if strings.Contains(text, key[:8]) || !strings.Contains(text, redact.Marker) {
		t.Errorf("the key is not redacted: %s", text)
	}
}
