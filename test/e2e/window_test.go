package e2e_test

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/mindvault/mcp-endpoint/internal/redact"
)

// An echo of a secret as a downstream writes it: the text, and the text that spells each
// character of the secret (nil for an encoding of the whole), so a check can ask whether
// redact.Window characters in a row survived.
type echoText struct {
	text  string
	chars []string
}

func charwise(s string, f func(c byte) string, sep string) echoText {
	var e echoText
	for i := 0; i < len(s); i++ {
		c := f(s[i])
		if i > 0 {
			c = sep + c
		}
		e.chars = append(e.chars, c)
	}
	e.text = strings.Join(e.chars, "")
	return e
}

func sprintf(format string) func(byte) string {
	return func(c byte) string { return fmt.Sprintf(format, c) }
}

// windowForms are the forms docs/security.md says a downstream plausibly echoes a secret in.
var windowForms = map[string]func(s string) echoText{
	"as is":         func(s string) echoText { return charwise(s, sprintf("%c"), "") },
	"upper case":    func(s string) echoText { return charwise(strings.ToUpper(s), sprintf("%c"), "") },
	"percent":       func(s string) echoText { return charwise(s, sprintf("%%%02X"), "") },
	"percent lower": func(s string) echoText { return charwise(s, sprintf("%%%02x"), "") },
	"percent twice": func(s string) echoText { return charwise(s, sprintf("%%25%02X"), "") },
	"form": func(s string) echoText {
		return charwise(s, func(c byte) string { return url.QueryEscape(string(c)) }, "")
	},
	"html decimal": func(s string) echoText { return charwise(s, sprintf("&#%d;"), "") },
	"html hex":     func(s string) echoText { return charwise(s, sprintf("&#x%x;"), "") },
	"json escapes": func(s string) echoText { return charwise(s, sprintf(`\u%04x`), "") },
	"full width": func(s string) echoText {
		return charwise(s, func(c byte) string {
			if c > ' ' && c < 0x7F {
				return string(rune(c) + 0xFEE0)
			}
			return string(c)
		}, "")
	},
	"spaces": func(s string) echoText { return charwise(s, sprintf("%c"), " ") },
	"dashes": func(s string) echoText { return charwise(s, sprintf("%c"), "-") },
	"dots":   func(s string) echoText { return charwise(s, sprintf("%c"), ".") },
	"base64": func(s string) echoText { return echoText{text: base64.StdEncoding.EncodeToString([]byte(s))} },
	"base64 +1": func(s string) echoText {
		return echoText{text: base64.StdEncoding.EncodeToString([]byte("u:" + s))[4:]}
	},
	"base64url": func(s string) echoText {
		return echoText{text: base64.RawURLEncoding.EncodeToString([]byte("x" + s))[4:]}
	},
	"hex": func(s string) echoText { return echoText{text: hex.EncodeToString([]byte(s))} },
}

// windowBodies place an echo in a downstream's 400 body: at its start, in its middle, at its
// end, and split across two fields.
var windowBodies = map[string]func(echo string) string{
	"start":  func(e string) string { return jsonBody(map[string]string{"error": e + " is not a valid key"}) },
	"middle": func(e string) string { return jsonBody(map[string]string{"error": "the key " + e + " is not valid"}) },
	"end":    func(e string) string { return jsonBody(map[string]string{"error": "invalid key: " + e}) },
	"split": func(e string) string {
		h := len(e) / 2
		return jsonBody(map[string]string{"error": "key starts " + e[:h], "message": "and ends " + e[h:]})
	},
}

func jsonBody(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// windowSurvivor is a stretch of redact.Window characters of the echo that text still holds.
func windowSurvivor(text string, e echoText) string {
	if e.chars == nil {
		for i := 0; i+redact.Window <= len(e.text); i++ {
			if strings.Contains(text, e.text[i:i+redact.Window]) {
				return e.text[i : i+redact.Window]
			}
		}
		return ""
	}
	for i := 0; i+redact.Window <= len(e.chars); i++ {
		if w := strings.Join(e.chars[i:i+redact.Window], ""); strings.Contains(text, w) {
			return w
		}
	}
	return ""
}

// readable is every way a reader sees an answer or a log: its bytes, and every string in it
// decoded, and the strings of the JSON texts those hold, decoded too.
func readable(raw string) string {
	var b strings.Builder
	b.WriteString(raw)
	var walk func(v any, depth int)
	walk = func(v any, depth int) {
		switch x := v.(type) {
		case string:
			b.WriteString("\n" + x)
			var inner any
			if depth < 4 && json.Unmarshal([]byte(x), &inner) == nil {
				walk(inner, depth+1)
			}
		case map[string]any:
			for k, val := range x {
				b.WriteString("\n" + k)
				walk(val, depth)
			}
		case []any:
			for _, val := range x {
				walk(val, depth)
			}
		}
	}
	for _, line := range strings.Split(raw, "\n") {
		var v any
		if json.Unmarshal([]byte(line), &v) == nil {
			walk(v, 0)
		}
	}
	return b.String()
}

// TestNoSecretWindowLeaves is the window rule through the wire: every kind of secret the
// endpoint holds, in every form a downstream plausibly echoes, at the start, in the middle or
// at the end of a 400 body or split across two of its fields, and in an X-Debug header,
// reaches neither the result, the error text, error.data nor the log: no redact.Window
// characters of it in a row.
func TestNoSecretWindowLeaves(t *testing.T) {
	const token = "Zq4x9Lm2Vb7Nc1Kd8Hf3Jg6Tp0Rw5Sy-_AeIoUvXz"
	apiKey := "mv_" + strings.Repeat("3c1f9a0b7e2d4c6a", 4)
	confirmKey := base64.StdEncoding.EncodeToString([]byte("0123456789abcdef>?>?>?>?ghijklmn"))
	e := newEnv(t, map[string]string{
		"MINDVAULT_API_KEY":       apiKey,
		"MINDVAULT_AUTH":          "tokens",
		"MINDVAULT_ACCESS_TOKENS": digest(token) + ":*",
		"MINDVAULT_CONFIRM":       "always",
		"MINDVAULT_CONFIRM_KEY":   confirmKey,
		"test.token":              token,
	})
	// The process holds a profile's wallet secret from the moment it reads the profile.
	e.call("mindvault_wallet_info", `{}`)
	kinds := map[string]string{
		"api key":          apiKey,
		"api key body":     apiKey[3:],
		"wallet secret":    e.sb.Demo.Secret,
		"bearer token":     token,
		"confirmation key": confirmKey,
	}
	var echoes []echoText
	marked := 0
	for kind, secret := range kinds {
		for form, spell := range windowForms {
			echo := spell(secret)
			echoes = append(echoes, echo)
			for pos, body := range windowBodies {
				rules := []map[string]any{}
				for _, target := range []string{"GET /resources/*/meta", "GET /resources"} {
					rules = append(rules, map[string]any{"service": "api", "target": target, "kind": "status", "status": 400,
						"body": body(echo.text), "header": []string{"X-Debug: " + echo.text}})
				}
				plan, _ := json.Marshal(rules)
				e.faults(string(plan))
				for _, call := range []string{callBody("mindvault_preview", `{"resourceId":"rustguide"}`), callBody("mindvault_browse", `{}`)} {
					raw := e.rpc(call, nil)
					if w := windowSurvivor(readable(raw), echo); w != "" {
						t.Errorf("%s / %s / %s: %q reached the answer: %.400s", kind, form, pos, w, raw)
					}
					if strings.Contains(raw, redact.Marker) {
						marked++
					}
				}
			}
		}
	}
	if marked == 0 {
		t.Fatal("no answer met an echo: the faults did not reach the tools")
	}
	logs := readable(e.logs.String())
	for _, echo := range echoes {
		if w := windowSurvivor(logs, echo); w != "" {
			t.Errorf("%q reached the log", w)
		}
	}
}
