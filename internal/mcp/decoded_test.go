package mcp

import (
	"bytes"
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

// BenchmarkFrontLayerDecoding is what the scope check's decoding costs the server: answering
// from the front layer's decoding, against decoding the body a second time (before the
// decoding travelled in the context).
func BenchmarkFrontLayerDecoding(b *testing.B) {
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"buy","arguments":{"resourceId":"` +
		strings.Repeat("r", 64) + `","maxPriceUsdc":"1.5","note":"` + strings.Repeat("x", 2048) + `"}}}`)
	srv := &Server{Info: ServerInfo{Name: "t", Version: "1"}, Tools: &recordingTools{}}
	for _, reuse := range []bool{true, false} {
		b.Run(map[bool]string{true: "reused", false: "decoded twice"}[reuse], func(b *testing.B) {
			for range b.N {
				srv.Tools = &recordingTools{}
				req := httptest.NewRequest(http.MethodPost, "/mcp", nil)
				req.Header.Set("Content-Type", "application/json")
				req.Body = io.NopCloser(bytes.NewReader(body))
				d := Decode(body)
				if reuse {
					req = req.WithContext(WithDecoded(req.Context(), d))
				}
				srv.ServeHTTP(httptest.NewRecorder(), req)
			}
		})
	}
}
