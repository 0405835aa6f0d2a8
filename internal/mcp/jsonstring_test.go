package mcp

import (
	"bytes"
	"encoding/json"
	"testing"
)

// encodingJSON is what encoding/json writes for v with HTML escaping off, as writeJSON does.
func encodingJSON(t testing.TB, v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

var jsonStringSeeds = []string{
	"", "plain", `quote " and \ backslash`, "<b>&amp;</b>", "line\nbreak\r\ttab", "\b\f\x00\x01\x1f\x7f",
	"é ünïcode ✓ 😀", "\u2028\u2029", "bad \xff utf-8 \xc3", "Preview failed: x\nSource: MindVault API · Category: validation\nNext: y",
}

// TestTextContentAsEncodingJSON: a text block is written byte for byte as encoding/json writes
// the struct it stands for, whatever the text holds.
func TestTextContentAsEncodingJSON(t *testing.T) {
	for _, s := range jsonStringSeeds {
		checkTextContent(t, s)
	}
}

func checkTextContent(t testing.TB, s string) {
	got, err := Content{Type: "text", Text: s}.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	want := encodingJSON(t, struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}{"text", s})
	if !bytes.Equal(got, want) {
		t.Fatalf("%q:\n got  %s\n want %s", s, got, want)
	}
}

func FuzzTextContentAsEncodingJSON(f *testing.F) {
	for _, s := range jsonStringSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkTextContent(t, s) })
}
