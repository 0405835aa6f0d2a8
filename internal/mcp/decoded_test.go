package mcp

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestDecodedOnce: a body a front layer decoded (inbound auth choosing a scope) is decoded
// once in all; the same bytes without it are decoded by the server; a decoding of other bytes
// never answers for the body the server read.
func TestDecodedOnce(t *testing.T) {
	const call = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"buy","arguments":{}}}`
	const other = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"browse","arguments":{}}}`
	cases := []struct {
		name        string
		front, body string // front: the bytes the front layer decoded ("" none)
		decodes     int
		ran         string
	}{
		{"front layer decoded the body", call, call, 1, "buy"},
		{"no front layer", "", call, 1, "buy"},
		{"front layer decoded other bytes", other, call, 2, "buy"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			n := 0
			decodeHook = func() { n++ }
			defer func() { decodeHook = nil }()
			tools := &recordingTools{}
			srv := &Server{Info: ServerInfo{Name: "t", Version: "1"}, Tools: tools}
			req := httptest.NewRequest(http.MethodPost, "/mcp", nil)
			req.Header.Set("Content-Type", "application/json")
			req.Body = io.NopCloser(strings.NewReader(tc.body))
			if tc.front != "" {
				d := Decode([]byte(tc.front))
				req = req.WithContext(WithDecoded(req.Context(), d))
			}
			srv.ServeHTTP(httptest.NewRecorder(), req)
			if n != tc.decodes {
				t.Errorf("%d decodings, want %d", n, tc.decodes)
			}
			if len(tools.ran) != 1 || tools.ran[0] != tc.ran {
				t.Errorf("ran %v, want %s", tools.ran, tc.ran)
			}
		})
	}
}
