package redact

import (
	"strings"
	"testing"
)

// benchValues are a process's usual secrets: a wallet seed, an API key, a bearer token and a
// key with characters every escaper spells differently.
var benchValues = []string{
	"SBU2RRGLXH3E5CQHTD3ODLDF2BWDCYUSSBLLZ5GNW7JXHDIYKXZWHOKR",
	"mv_4f9a1c2e8b7d6a5f4e3d2c1b0a9f8e7d",
	"tok_9f8e7d6c5b4a39281706",
	"Qx7/Lm+Tz&Rk<9>Pw",
}

func benchReplace(b *testing.B, s string) {
	v := NewValues(benchValues)
	v.Replace(s)
	b.SetBytes(int64(len(s)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		v.Replace(s)
	}
}

// BenchmarkReplacePlain: a log line without escapes or secrets (the fast path).
func BenchmarkReplacePlain(b *testing.B) {
	benchReplace(b, "mcp request method=tools/call tool=mindvault_browse status=ok duration_ms=12 account=GBBD47IF6LWK7P7MDEVSCWR7DPUWV3NY3DTQEVFL4NAT4AQH3ZLLFLA5")
}

// BenchmarkReplaceJSONDoc: a tool result whose text block holds escaped JSON, as every answer does.
func BenchmarkReplaceJSONDoc(b *testing.B) {
	inner := strings.Repeat(`{\"id\":\"res-42\",\"name\":\"Weather feed\",\"url\":\"https://example.com/a?x=1&y=2\",\"price\":\"0.01\"},`, 20)
	benchReplace(b, `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"[`+inner+`]"}]}}`)
}

// BenchmarkReplaceSecret: a body that echoes a key percent-encoded.
func BenchmarkReplaceSecret(b *testing.B) {
	benchReplace(b, `{"error":"forbidden: api key Qx7%2FLm%2BTz%26Rk%3C9%3EPw is not allowed for GET /resources/42/register/prepare"}`)
}

// BenchmarkNewValues: compiling a call's secrets, which errmap does for every failure.
func BenchmarkNewValues(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		NewValues(benchValues[:2])
	}
}
