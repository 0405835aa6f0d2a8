package mcp

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// countingBody counts the bytes read from a request body and the reads that reached its end.
type countingBody struct {
	r          io.Reader
	bytes, eof int
}

func (c *countingBody) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.bytes += n
	if err == io.EOF {
		c.eof++
	}
	return n, err
}

func (c *countingBody) Close() error { return nil }

// TestReadOnceDecodeOnce: a tool call that passes every guard and Admit is read from the
// wire once and decoded once, in both eras.
func TestReadOnceDecodeOnce(t *testing.T) {
	const call = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"buy","arguments":{}}}`
	for _, modern := range []bool{false, true} {
		decodes := 0
		tools := &recordingTools{}
		admitted := 0
		srv := &Server{Info: ServerInfo{Name: "t", Version: "1"}, Tools: tools,
			Admit:    func(context.Context, string) http.HandlerFunc { admitted++; return nil },
			onDecode: func() { decodes++ }}
		b := call
		req := httptest.NewRequest(http.MethodPost, "/mcp", nil)
		req.Header.Set("Content-Type", "application/json")
		if modern {
			b = strings.Replace(call, `"params":{`, `"params":{`+metaModern+`,`, 1)
			req.Header.Set("MCP-Protocol-Version", "2026-07-28")
			req.Header.Set("Mcp-Method", "tools/call")
			req.Header.Set("Mcp-Name", "buy")
		}
		body := &countingBody{r: strings.NewReader(b)}
		req.Body = body
		Handler(srv).ServeHTTP(httptest.NewRecorder(), req)
		if body.bytes != len(b) || body.eof != 1 || decodes != 1 || admitted != 1 || len(tools.ran) != 1 {
			t.Errorf("modern %v: read %d of %d bytes reaching the end %d times, %d decodings, admitted %d, ran %v; want the body read once, 1 decoding, 1 admission, 1 run",
				modern, body.bytes, len(b), body.eof, decodes, admitted, tools.ran)
		}
	}
}
