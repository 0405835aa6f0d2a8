package tools

import (
	"encoding/json"
	"testing"

	"github.com/mindvault/mcp-endpoint/internal/config"
)

// FuzzToolArguments runs arbitrary arguments through every tool's validation boundary: it
// must never panic, and every issue must carry a JSON-pointer path and a rule.
func FuzzToolArguments(f *testing.F) {
	for _, s := range []string{`{}`, `{"resourceId":"a"}`, `{"tags":["A","a",1]}`, `{"limit":1e400}`, `{"price":"0.00000001"}`, `[]`, "{\"x\":\"\xff\"}",
		`{"resourceId":"a","resourceId":"b"}`, `{"tags":[{"k":1,"k":2}]}`, `{"price":"` + "99999999999999999999999999999999" + `"}`, `{"profile":".."}`,
		`{"price":1e-8}`, `{"maxPriceUsdc":1e9999999999}`, `{"minPrice":-0.0,"maxPrice":12345678901234567890.5}`} {
		f.Add(s)
	}
	cfg, err := config.Load(func(string) string { return "" }, false)
	if err != nil {
		f.Fatal(err)
	}
	reg := All(&Deps{Config: cfg})
	f.Fuzz(func(t *testing.T, args string) {
		for _, tool := range reg.Tools() {
			for _, is := range tool.Model().Check(json.RawMessage(args)) {
				if is.Rule == "" || (is.Path != "" && is.Path[0] != '/') {
					t.Fatalf("%s: bad issue %+v", tool.Definition().Name, is)
				}
			}
		}
	})
}
