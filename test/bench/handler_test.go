package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mindvault/mcp-endpoint/internal/server/local"
)

// fixture is one endpoint booted on the sandbox, the Go SDK peer and the null handlers,
// shared by every benchmark of the process (booted lazily: plain `go test` never boots it).
type fixture struct {
	booted *local.Booted
	peer   http.Handler            // the SDK's generic mcp.AddTool
	raw    http.Handler            // the SDK's low-level Server.AddTool
	null   map[string]http.Handler // by case
}

var (
	fixOnce sync.Once
	fix     *fixture
	fixErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if fix != nil {
		fix.booted.Close()
	}
	os.Exit(code)
}

func getFixture(tb testing.TB) *fixture {
	tb.Helper()
	fixOnce.Do(func() { fix, fixErr = newFixture() })
	if fixErr != nil {
		tb.Fatal(fixErr)
	}
	return fix
}

func newFixture() (*fixture, error) {
	b := local.Boot(SandboxEnv(nil), io.Discard, false)
	if b.Err != nil {
		b.Close()
		return nil, fmt.Errorf("boot: %w", b.Err)
	}
	tools, err := ListTools(b.Handler)
	if err != nil {
		b.Close()
		return nil, err
	}
	f := &fixture{booted: b, null: map[string]http.Handler{}}
	for _, p := range []struct {
		h   *http.Handler
		raw bool
	}{{&f.peer, false}, {&f.raw, true}} {
		if *p.h, err = NewPeer(tools, b.Sandbox.APIURL, PeerHTTPClient(), p.raw); err != nil {
			b.Close()
			return nil, err
		}
	}
	for _, c := range cases {
		code, raw := Serve(b.Handler, c.body)
		r, err := DecodeResponse(code, raw)
		if err == nil {
			err = c.check(r)
		}
		if err == nil {
			f.null[c.name], err = Null(raw)
		}
		if err != nil {
			b.Close()
			return nil, fmt.Errorf("%s (ours): %w", c.name, err)
		}
	}
	return f, nil
}

// benchCase is one measured request and what a correct answer to it looks like.
type benchCase struct {
	name  string
	body  string
	check func(*Response) error
}

var cases = []benchCase{
	{"tools-list", BodyToolsList, checkList},
	{"validation-failure", BodyValidation, checkValidation},
	{"unknown-tool", BodyUnknownTool, CheckUnknownTool},
	{"preview", BodyPreview, checkPreview},
}

func checkList(r *Response) error {
	var list struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if r.Error != nil || json.Unmarshal(r.Result, &list) != nil || len(list.Tools) == 0 {
		return fmt.Errorf("not a tools/list result")
	}
	if !slices.ContainsFunc(list.Tools, func(t struct {
		Name string `json:"name"`
	}) bool {
		return t.Name == "mindvault_preview"
	}) {
		return fmt.Errorf("tools/list has no mindvault_preview")
	}
	return nil
}

// checkValidation accepts either form a validation failure may take: an isError result
// (ours, and the SDK's typed AddTool) or a JSON-RPC invalid-params error.
func checkValidation(r *Response) error {
	if r.Error != nil {
		if r.Error.Code == -32602 {
			return nil
		}
		return fmt.Errorf("JSON-RPC error %d, want -32602 or an isError result", r.Error.Code)
	}
	var tr ToolResult
	if json.Unmarshal(r.Result, &tr) != nil || !tr.IsError {
		return fmt.Errorf("want a validation failure, got %.200s", r.Result)
	}
	return nil
}

func checkPreview(r *Response) error {
	var tr ToolResult
	if r.Error != nil || json.Unmarshal(r.Result, &tr) != nil || tr.IsError {
		return fmt.Errorf("want a successful preview")
	}
	var out struct {
		ID        string `json:"id"`
		PriceUSDC string `json:"priceUsdc"`
	}
	if json.Unmarshal(tr.Structured, &out) != nil || out.ID != "rustguide" || out.PriceUSDC == "" {
		return fmt.Errorf("preview structuredContent: %.200s", tr.Structured)
	}
	return nil
}

// BenchmarkHandler is the in-process cost of one request through ServeHTTP, for each case,
// on our handler, on the Go SDK peer and on the null handler. Named case=/impl= so that
// `benchstat -col /impl` puts the three side by side.
func BenchmarkHandler(b *testing.B) {
	f := getFixture(b)
	impls := []struct {
		name string
		h    func(c benchCase) http.Handler
	}{
		{"ours", func(benchCase) http.Handler { return f.booted.Handler }},
		{"gosdk", func(benchCase) http.Handler { return f.peer }},
		{"gosdk-raw", func(benchCase) http.Handler { return f.raw }},
		{"null", func(c benchCase) http.Handler { return f.null[c.name] }},
	}
	for _, c := range cases {
		for _, impl := range impls {
			h := impl.h(c)
			b.Run("case="+c.name+"/impl="+impl.name, func(b *testing.B) {
				body := []byte(c.body)
				// One checked request first: a fast wrong answer must not pass as a result.
				r, err := DecodeResponse(Serve(h, c.body))
				if err == nil {
					err = c.check(r)
				}
				if err != nil {
					b.Fatalf("%s/%s: %v", c.name, impl.name, err)
				}
				sink := NewSink()
				b.ReportAllocs()
				for b.Loop() {
					sink.Reset()
					h.ServeHTTP(sink, NewRequest(body))
					if sink.Code != http.StatusOK {
						b.Fatalf("HTTP %d: %s", sink.Code, Trim(sink.Body.String(), 300))
					}
				}
				b.ReportMetric(float64(sink.Body.Len()), "resp-bytes")
			})
		}
	}
}

// TestPeerServesSameTools checks that both Go SDK peers list the same tools as our handler
// with the same input schemas, and that their preview answers like ours. It boots the sandbox
// once (well under a second).
func TestPeerServesSameTools(t *testing.T) {
	f := getFixture(t)
	for name, peer := range map[string]http.Handler{"gosdk": f.peer, "gosdk-raw": f.raw} {
		t.Run(name, func(t *testing.T) { peerServesSameTools(t, f.booted.Handler, peer) })
	}
}

func peerServesSameTools(t *testing.T, ourHandler, peer http.Handler) {
	ours, err := ListTools(ourHandler)
	if err != nil {
		t.Fatal(err)
	}
	theirs, err := ListTools(peer)
	if err != nil {
		t.Fatal(err)
	}
	schemas := func(list []json.RawMessage) map[string]string {
		m := map[string]string{}
		for _, raw := range list {
			var tl struct {
				Name        string          `json:"name"`
				InputSchema json.RawMessage `json:"inputSchema"`
			}
			if err := json.Unmarshal(raw, &tl); err != nil {
				t.Fatal(err)
			}
			m[tl.Name] = canonical(t, tl.InputSchema)
		}
		return m
	}
	o, p := schemas(ours), schemas(theirs)
	if len(o) != len(p) {
		t.Errorf("ours lists %d tools, the peer %d", len(o), len(p))
	}
	for name, s := range o {
		ps, ok := p[name]
		switch {
		case !ok:
			t.Errorf("the peer does not list %s", name)
		case ps != s:
			t.Errorf("%s: input schema differs:\nours: %s\npeer: %s", name, s, ps)
		}
	}
	for _, c := range cases {
		r, err := Call(peer, c.body)
		if err == nil {
			err = c.check(r)
		}
		if err != nil {
			t.Errorf("peer %s: %v", c.name, err)
		}
	}
}

// canonical re-encodes JSON with sorted keys.
func canonical(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	out, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(bytes.TrimSpace(out))
}

// TestNullWritesOurBytes holds the floor to its definition: for every measured case and for
// ids of each JSON kind, the null handler built from one answer of ours writes, byte for
// byte, what our handler writes for the same request.
func TestNullWritesOurBytes(t *testing.T) {
	f := getFixture(t)
	for _, c := range cases {
		for _, id := range []string{`1`, `7340032`, `"req-ü\"7"`, `-2.5e3`} {
			body := strings.Replace(c.body, `"id":1`, `"id":`+id, 1)
			code, ours := Serve(f.booted.Handler, body)
			if code != http.StatusOK {
				t.Fatalf("%s id %s: ours HTTP %d: %s", c.name, id, code, Trim(string(ours), 300))
			}
			code, null := Serve(f.null[c.name], body)
			if code != http.StatusOK || !bytes.Equal(null, ours) {
				t.Errorf("%s id %s: the null handler (HTTP %d) wrote\n%s\nours wrote\n%s", c.name, id, code, Trim(string(null), 400), Trim(string(ours), 400))
			}
		}
	}
}
