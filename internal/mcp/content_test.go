package mcp

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestContentWire: each block carries exactly the fields of its type, and text is not
// HTML-escaped when encoded as the server encodes responses.
func TestContentWire(t *testing.T) {
	cases := []struct {
		name string
		in   Content
		want string
	}{
		{"text", Content{Type: "text", Text: "a <b> & c"}, `{"type":"text","text":"a <b> & c"}`},
		{"empty text keeps its field", Content{Type: "text"}, `{"type":"text","text":""}`},
		{"embedded resource", Content{Type: "resource", Text: "ignored", Resource: &ResourceContents{URI: "mindvault://resources/x", MimeType: "application/pdf", Blob: "JVBERg=="}},
			`{"type":"resource","resource":{"uri":"mindvault://resources/x","mimeType":"application/pdf","blob":"JVBERg=="}}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false)
			err := enc.Encode(tc.in)
			if got := strings.TrimSpace(buf.String()); err != nil || got != tc.want {
				t.Fatalf("got %s (%v), want %s", got, err, tc.want)
			}
		})
	}
}
