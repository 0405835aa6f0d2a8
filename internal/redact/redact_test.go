package redact

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/url"
	"strings"
	"testing"
)

// shapeless is a secret no shape rule recognises: only the exact rule can catch it.
const shapeless = "PlainKey7f3a9c2e1bXYZ"

// forms are the ways a downstream or an encoder can spell a secret.
func forms(s string) map[string]string {
	b := []byte(s)
	return map[string]string{
		"raw":               s,
		"lower":             strings.ToLower(s),
		"upper":             strings.ToUpper(s),
		"base64":            base64.StdEncoding.EncodeToString(b),
		"base64url":         base64.URLEncoding.EncodeToString(b),
		"base64 raw":        base64.RawStdEncoding.EncodeToString(b),
		"base64url raw":     base64.RawURLEncoding.EncodeToString(b),
		"hex":               hex.EncodeToString(b),
		"HEX":               strings.ToUpper(hex.EncodeToString(b)),
		"basic credential":  base64.StdEncoding.EncodeToString([]byte("user:" + s)),
		"inside base64 +1":  base64.StdEncoding.EncodeToString([]byte("x" + s + "tail")),
		"inside base64 +2":  base64.StdEncoding.EncodeToString([]byte("xy" + s + "tail")),
		"inside base64 +3":  base64.StdEncoding.EncodeToString([]byte("xyz" + s + "tail")),
		"query escaped":     url.QueryEscape(s),
		"json escaped":      jsonString(s, true),
		"base64 in a query": url.QueryEscape(base64.StdEncoding.EncodeToString(b)),
	}
}

// leaks reports the longest run of s that survives in out, when it is long enough to matter.
func leaks(out, s string) bool {
	const fragment = 8
	for i := 0; i+fragment <= len(s); i++ {
		if strings.Contains(out, s[i:i+fragment]) {
			return true
		}
	}
	return false
}

func TestValuesEveryForm(t *testing.T) {
	for _, secret := range []string{shapeless, "p@ss w/rd&more\"q<uote>", "SBX7QXRGGJXHC2HOLJVXKD3VZ7MUQEOL3FPB6K3UEV6DGKYJNEGRZQKB"} {
		v := NewValues([]string{secret})
		for name, f := range forms(secret) {
			got := v.Replace("before " + f + " after")
			if !strings.Contains(got, Marker) {
				t.Errorf("%q %s: not redacted: %q", secret, name, got)
			}
			raw := f
			switch name {
			case "basic credential", "inside base64 +1", "inside base64 +2", "inside base64 +3":
				// Only the characters that depend on the secret alone are known; the few
				// mixed with the neighbours' bits stay. The marker must cover the rest.
				kept := len(got) - len(Marker) - len("before  after")
				if covered := len(f) - kept; covered < 4*len(secret)/3-4 {
					t.Errorf("%q %s: only %d of %d characters redacted: %q", secret, name, covered, len(f), got)
				}
				continue
			}
			if strings.Contains(got, raw) {
				t.Errorf("%q %s: %q survived: %q", secret, name, raw, got)
			}
		}
	}
	if NewValues([]string{"short", ""}) != nil {
		t.Error("values under MinLength runes must be ignored")
	}
	var none *Values
	if none.Replace("x "+shapeless) != "x "+shapeless {
		t.Error("a nil set replaces nothing")
	}
}

func TestValuesLongestFirst(t *testing.T) {
	v := NewValues([]string{"correct-horse", "correct-horse-battery-staple"})
	if got := v.Replace("x correct-horse-battery-staple y"); got != "x "+Marker+" y" {
		t.Errorf("a value containing another must go whole: %q", got)
	}
}

// withRegistry runs f against an empty registry bounded to limit values and restores it after.
func withRegistry(t *testing.T, limit int) {
	t.Helper()
	registry.mu.Lock()
	saved, savedExact, savedMax := registry.values, registry.exact.Load(), maxValues
	registry.values, maxValues = nil, limit
	registry.exact.Store(nil)
	registry.mu.Unlock()
	t.Cleanup(func() {
		registry.mu.Lock()
		registry.values, maxValues = saved, savedMax
		registry.exact.Store(savedExact)
		registry.mu.Unlock()
	})
}

func TestRegister(t *testing.T) {
	withRegistry(t, 3)
	if got := Exact("k " + shapeless); got != "k "+shapeless {
		t.Fatalf("nothing registered yet: %q", got)
	}
	if err := Register(shapeless, "", "short"); err != nil {
		t.Fatal(err)
	}
	if !Known(shapeless) || Known("short") {
		t.Fatal("registered the wrong values")
	}
	b64 := base64.StdEncoding.EncodeToString([]byte(shapeless))
	if got := Exact("k " + shapeless + " " + b64); got != "k "+Marker+" "+Marker {
		t.Fatalf("Exact: %q", got)
	}
	if err := Register(strings.Repeat("x", MaxValueBytes+1)); !errors.Is(err, ErrTooLong) {
		t.Fatalf("too long: %v", err)
	}
	if err := Register("second-value", shapeless, "third-value"); err != nil {
		t.Fatal(err)
	}
	if err := Register("fourth-value"); !errors.Is(err, ErrFull) {
		t.Fatalf("full: %v", err)
	}
	if err := Register(shapeless); err != nil {
		t.Fatalf("a known value needs no room: %v", err)
	}
	if Known("fourth-value") {
		t.Fatal("a refused value must not be half registered")
	}
}

func TestOwnKeepsAdviceExternalDoesNot(t *testing.T) {
	withRegistry(t, 10)
	if err := Register(shapeless); err != nil {
		t.Fatal(err)
	}
	advice := []string{
		"the env credential store is read-only; configure MINDVAULT_CREDENTIALS=dir:<path> or secretsmanager:<prefix> to create profiles",
		"Set MINDVAULT_API_KEY=<key> and MINDVAULT_AGENT_SECRET=<seed>, then retry.",
		"Send Authorization: Bearer <token>; the token=value pairs are checked by digest.",
		"password: see the operator",
	}
	for _, a := range advice {
		if got := Own(a); got != a {
			t.Errorf("Own changed the product's advice:\n got %q\nwant %q", got, a)
		}
		if got := External(a); got == a {
			t.Errorf("External should treat %q as a possible secret", a)
		}
	}
	for in, want := range map[string]string{
		"upstream said api_key=abc123xyz":                               "upstream said api_key=" + Marker,
		"key " + shapeless + " leaked":                                  "key " + Marker + " leaked",
		"seed SBX7QXRGGJXHC2HOLJVXKD3VZ7MUQEOL3FPB6K3UEV6DGKYJNEGRZQKB": "seed " + Marker,
	} {
		if got := External(in); got != want {
			t.Errorf("External(%q) = %q, want %q", in, got, want)
		}
	}
	if got := Own("advice with " + shapeless + " and mv_0123456789abcdef0123"); got != "advice with "+Marker+" and "+Marker {
		t.Errorf("Own must still redact known values and unambiguous shapes: %q", got)
	}
}

func TestJSON(t *testing.T) {
	withRegistry(t, 10)
	if err := Register(shapeless); err != nil {
		t.Fatal(err)
	}
	extra := NewValues([]string{"per-call-secret"})
	inner, _ := json.Marshal(map[string]any{"note": "inner " + shapeless, "quote": `"q"`, "n": 1})
	cases := []struct {
		name string
		doc  any
	}{
		{"string value", map[string]any{"a": "x " + shapeless + " y"}},
		{"escaped string", map[string]any{"a": "line\n\"quoted\" " + shapeless + " \\ end"}},
		{"key", map[string]any{shapeless: 1}},
		{"base64 and hex", []any{base64.StdEncoding.EncodeToString([]byte(shapeless)), hex.EncodeToString([]byte(shapeless))}},
		{"tool result text block", map[string]any{"content": []any{map[string]any{"type": "text", "text": string(inner)}}, "structuredContent": json.RawMessage(inner)}},
		{"per-call secret", map[string]any{"a": "per-call-secret"}},
		{"untouched", map[string]any{"a": "nothing to see", "b": []any{1.5, true, nil}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false)
			if err := enc.Encode(c.doc); err != nil {
				t.Fatal(err)
			}
			got, ok := JSON(buf.Bytes(), extra)
			if !ok {
				t.Fatalf("not redacted: %s", buf.Bytes())
			}
			if !json.Valid(got) {
				t.Fatalf("broken JSON: %s", got)
			}
			for _, s := range []string{shapeless, "per-call-secret", base64.StdEncoding.EncodeToString([]byte(shapeless))} {
				if leaks(string(got), s) {
					t.Fatalf("%q survived: %s", s, got)
				}
			}
			if c.name == "untouched" && !bytes.Equal(got, buf.Bytes()) {
				t.Fatalf("a document without secrets must come back as is: %s", got)
			}
			if c.name == "tool result text block" {
				var res struct {
					Content []struct {
						Text string `json:"text"`
					} `json:"content"`
					Structured json.RawMessage `json:"structuredContent"`
				}
				if err := json.Unmarshal(got, &res); err != nil || !json.Valid([]byte(res.Content[0].Text)) || res.Content[0].Text != string(res.Structured) {
					t.Fatalf("the text block must stay the same valid JSON as structuredContent: %s", got)
				}
			}
		})
	}
	// A number that contains a secret becomes the marker string.
	if err := Register("12345678901"); err != nil {
		t.Fatal(err)
	}
	got, ok := JSON([]byte(`{"n":12345678901,"m":2}`), nil)
	if !ok || string(got) != `{"n":"[REDACTED]","m":2}` {
		t.Fatalf("number: %s %v", got, ok)
	}
	// A match that starts inside an escape sequence is not in the value; cutting the escape
	// would break the document, so it is reported instead.
	if err := Register("2028abcdefgh"); err != nil {
		t.Fatal(err)
	}
	if got, ok := JSON([]byte(`{"a":"\u2028abcdefgh"}`), nil); ok || got != nil {
		t.Fatalf("escape boundary: %s %v", got, ok)
	}
	// A value that spans tokens cannot be removed safely: the caller must withhold.
	if err := Register(`abc","d":"ef`); err != nil {
		t.Fatal(err)
	}
	if _, ok := JSON([]byte(`{"x":"abc","d":"ef"}`), nil); ok {
		t.Fatal("a value spanning tokens must be reported")
	}
}

// FuzzJSON: whatever the document and the secret, the result is valid JSON without the secret,
// or the document is reported as unredactable.
func FuzzJSON(f *testing.F) {
	f.Add(`{"a":"x PlainKey7f3a9c2e1bXYZ y"}`, shapeless)
	f.Add(`["\u00e9PlainKey","\\PlainKey7f3a9c2e1bXYZ\n"]`, shapeless)
	f.Add(`{"t":"{\"k\":\"secret-value\"}","n":123456789}`, "secret-value")
	f.Add(`[1234567,"1234567"]`, "1234567")
	f.Fuzz(func(t *testing.T, doc, secret string) {
		if !json.Valid([]byte(doc)) || len(secret) < MinLength || strings.Contains(secret, Marker) {
			return
		}
		v := NewValues([]string{secret})
		if v == nil {
			return
		}
		rep := func(s string) string { return v.Replace(s) }
		got, ok := jsonRedact([]byte(doc), rep, 0)
		if !ok {
			return
		}
		if !json.Valid(got) {
			t.Fatalf("broken JSON: %q -> %q", doc, got)
		}
		if rep(string(got)) != string(got) {
			t.Fatalf("secret survived: %q", got)
		}
	})
}
