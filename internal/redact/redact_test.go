package redact

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// shapeless is a secret no shape rule recognises: only the exact rule can catch it.
const shapeless = "PlainKey7f3a9c2e1bXYZ"

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

// known reports whether v is a registered value.
func known(v string) bool {
	registry.mu.Lock()
	defer registry.mu.Unlock()
	_, ok := registry.values[v]
	return ok
}

func TestRegister(t *testing.T) {
	withRegistry(t, 3)
	if got := Exact("k " + shapeless); got != "k "+shapeless {
		t.Fatalf("nothing registered yet: %q", got)
	}
	if err := Register(shapeless, "", "short"); err != nil {
		t.Fatal(err)
	}
	if !known(shapeless) || known("short") {
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
	if known("fourth-value") {
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
	// A number that holds a secret cannot keep the marker: the document is withheld.
	if err := Register("12345678901"); err != nil {
		t.Fatal(err)
	}
	if got, ok := JSON([]byte(`{"n":12345678901,"m":2}`), nil); ok {
		t.Fatalf("number: %s %v", got, ok)
	}
	// The digits of an escape are not characters of the text: \u2028 is one separator.
	if err := Register("2028abcdefgh"); err != nil {
		t.Fatal(err)
	}
	if got, ok := JSON([]byte(`{"a":"\u2028abcdefgh"}`), nil); !ok || string(got) != `{"a":"\u2028abcdefgh"}` {
		t.Fatalf("escape boundary: %s %v", got, ok)
	}
}

// leaks reports whether out holds eight characters of s in a row.
func leaks(out, s string) bool {
	for i := 0; i+8 <= len(s); i++ {
		if strings.Contains(out, s[i:i+8]) {
			return true
		}
	}
	return false
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
		got, ok := JSON([]byte(doc), v)
		if !ok {
			return
		}
		if !json.Valid(got) {
			t.Fatalf("broken JSON: %q -> %q", doc, got)
		}
		if v.Replace(string(got)) != string(got) {
			t.Fatalf("secret survived: %q", got)
		}
	})
}

// TestRegisterMergesWindows: values registered one at a time (each merged into the set
// without hashing the earlier ones again) redact what the same values compiled at once do.
func TestRegisterMergesWindows(t *testing.T) {
	withRegistry(t, 10)
	all := []string{secretKinds["api key"], secretKinds["wallet secret"], "short1", secretKinds["confirmation key"]}
	for _, v := range all {
		if err := Register(v); err != nil {
			t.Fatal(err)
		}
	}
	whole := NewValues(all)
	for _, s := range []string{
		"a " + all[0] + " b " + all[1][10:40] + " c short1 d " + base64.StdEncoding.EncodeToString([]byte(all[3])),
		"nothing here but " + all[0][:15],
	} {
		if got, want := Exact(s), whole.Replace(s); got != want || !strings.Contains(whole.Replace(all[0]), Marker) {
			t.Errorf("merged %q, compiled at once %q", got, want)
		}
	}
}
