package mcp

import "testing"

// envelopeBenchBodies are the bodies the envelope decoder meets most: a legacy tools/list, a
// legacy tools/call and a modern tools/call with its _meta.
var envelopeBenchBodies = []struct{ name, body string }{
	{"legacy-list", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`},
	{"legacy-call", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"mindvault_preview","arguments":{"resourceId":"rustguide"}}}`},
	{"modern-call", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"mindvault_browse","arguments":{"query":"rust","limit":5,"tags":["go","rust"]},` + metaModern + `}}`},
}

// BenchmarkDecodeEnvelope is the cost of reading one body into a request: measured, never
// asserted (the handler-level numbers are bench/'s).
func BenchmarkDecodeEnvelope(b *testing.B) {
	for _, c := range envelopeBenchBodies {
		body := []byte(c.body)
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, _, bad := decodeEnvelope(body); bad != nil {
					b.Fatal(bad.Message)
				}
			}
		})
	}
}
