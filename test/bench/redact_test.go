package bench

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/mindvault/mcp-endpoint/internal/redact"
)

// redactSecrets are a process's usual secrets: an API key, a wallet seed, a bearer token.
var redactSecrets = []string{
	"mv_3c1f9a0b7e2d4c6a8f1e3b5d7c9a0e2f4b6d8c0a1e3f5b7d9c2a4e6f8b0d1c3e",
	"SBU2RRGLXH3E5CQHTD3ODLDF2BWDCYUSSBLLZ5GNW7JXHDIYKXZWHOKR",
	"tok_9f8e7d6c5b4a39281706f5e4d3c2b1a0",
}

var registerOnce sync.Once

// answer64K is a tool answer of about 64 KB: a browse result (a JSON text block inside the
// JSON-RPC envelope, so every quote is escaped), with echo placed in one description.
func answer64K(echo string) []byte {
	type item struct {
		ID, Name, Description, URL, Price string
	}
	var items []item
	for i := 0; len(items) < 128; i++ {
		items = append(items, item{"res-" + strings.Repeat("4", i%7+1), "Weather feed", "Hourly observations for the north coast, with a 7-day forecast & alerts <b>free</b>", "https://api.example.com/resources/42?x=1&y=2", "0.01"})
	}
	items[64].Description = "upstream said: " + echo
	inner, _ := json.Marshal(map[string]any{"items": items})
	doc, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 7, "result": map[string]any{
		"content": []map[string]string{{"type": "text", "text": string(inner)}}, "structuredContent": json.RawMessage(inner)}})
	return doc
}

// BenchmarkRedact is the output boundary's one pass over a 64 KB answer (redact.JSON against
// the registry), without a secret in it and with an echo of the API key percent-encoded, beside
// the floor: json.Valid over the same bytes, one pass that does nothing but read them. Named
// case=/impl= so that benchreport and `benchstat -col /impl` put the two side by side.
func BenchmarkRedact(b *testing.B) {
	registerOnce.Do(func() {
		if err := redact.Register(redactSecrets...); err != nil {
			b.Fatal(err)
		}
	})
	for _, c := range []struct{ name, echo string }{
		{"none", "nothing to see"},
		{"echo", strings.ReplaceAll(redactSecrets[0], "_", "%5F")},
	} {
		doc := answer64K(c.echo)
		out, ok := redact.JSON(doc, nil)
		if !ok || strings.Contains(string(out), redactSecrets[0][3:19]) || (c.name == "echo") == (len(out) == len(doc)) {
			b.Fatalf("%s: ok=%v, len %d -> %d", c.name, ok, len(doc), len(out))
		}
		for _, impl := range []struct {
			name string
			f    func([]byte)
		}{
			{"ours", func(d []byte) { redact.JSON(d, nil) }},
			{"floor", func(d []byte) { json.Valid(d) }},
		} {
			b.Run("case=redact-"+c.name+"/impl="+impl.name, func(b *testing.B) {
				b.SetBytes(int64(len(doc)))
				b.ReportAllocs()
				for b.Loop() {
					impl.f(doc)
				}
			})
		}
	}
}
