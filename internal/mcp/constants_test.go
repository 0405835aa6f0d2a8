package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mindvault/mcp-endpoint/internal/redact"
)

// encodedTools has definitions with characters encoding/json would escape by default, to
// show they are kept as they are.
type encodedTools struct{ fakeTools }

func (encodedTools) Definitions() []json.RawMessage {
	return []json.RawMessage{json.RawMessage(`{"name":"echo","description":"a <b> & c"}`), json.RawMessage(`{"name":"boom"}`)}
}

// serve sends one request body with headers h and returns the recorder.
func serve(s *Server, h map[string]string, body string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(body))
	for k, v := range h {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, req)
	return rec
}

// TestConstantAnswersAreTheGenericBytes: the answers served pre-encoded (tools/list on both
// eras, server/discover, prompts/list on both eras) are byte for byte what writing the result
// object for that request writes, whatever the id, and repeat identically.
func TestConstantAnswersAreTheGenericBytes(t *testing.T) {
	cases := []struct {
		kind           constKind
		method, params string
		modern         bool
	}{
		{toolsList, "tools/list", "", false},
		{toolsList, "tools/list", `,"params":{` + metaModern + `}`, true},
		{discover, "server/discover", `,"params":{` + metaModern + `}`, true},
		{promptsList, "prompts/list", "", false},
		{promptsList, "prompts/list", `,"params":{` + metaModern + `}`, true},
	}
	for _, ts := range []ToolSet{fakeTools{}, encodedTools{}} {
		s := newTestServer(io.Discard)
		s.Tools = ts
		for _, c := range cases {
			for _, id := range []string{`1`, `-7`, `1.5e3`, `"abc"`, `"<a & b>"`, `"\u003c\u00e9"`, ` 42 `} {
				t.Run(fmt.Sprintf("%T %s id %s", ts, c.method, id), func(t *testing.T) {
					h := legacyHeaders
					if c.modern {
						h = modernHeaders(c.method)
					}
					body := `{"jsonrpc":"2.0","id":` + id + `,"method":"` + c.method + `"` + c.params + `}`
					want := httptest.NewRecorder()
					writeJSON(want, &entry{}, http.StatusOK, response{JSONRPC: "2.0", ID: []byte(strings.TrimSpace(id)), Result: s.constResult(fullView, c.kind, c.modern)})
					for i := 0; i < 2; i++ { // the first request encodes, the second reuses
						got := serve(s, h, body)
						if got.Code != http.StatusOK || !bytes.Equal(got.Body.Bytes(), want.Body.Bytes()) {
							t.Fatalf("request %d: HTTP %d\n got  %s\n want %s", i+1, got.Code, got.Body, want.Body)
						}
						if got.Header().Get("Content-Type") != "application/json" || got.Header().Get("Cache-Control") != "no-store" {
							t.Fatalf("headers %v", got.Header())
						}
					}
				})
			}
		}
	}
}

// secretTools lists one tool whose description holds values that become secret later.
type secretTools struct{ fakeTools }

func (secretTools) Definitions() []json.RawMessage {
	return []json.RawMessage{json.RawMessage(`{"name":"echo","description":"uses constant-list-secret-1 and constant-list-secret-2"}`)}
}

// TestConstantAnswersAreRedacted: the pre-encoded answers keep the output redaction. A value
// registered as secret after the list was first encoded and served is removed from it on the
// next request (and again for a second one registered later), on both eras, as is a secret in
// the caller's id; a secret that cannot be removed withholds the answer.
func TestConstantAnswersAreRedacted(t *testing.T) {
	s := newTestServer(io.Discard)
	s.Tools = secretTools{}
	legacy := func(id string) string {
		return serve(s, legacyHeaders, `{"jsonrpc":"2.0","id":`+id+`,"method":"tools/list"}`).Body.String()
	}
	modern := func(id string) string {
		return serve(s, modernHeaders("tools/list"), `{"jsonrpc":"2.0","id":`+id+`,"method":"tools/list","params":{`+metaModern+`}}`).Body.String()
	}
	for _, list := range []func(string) string{legacy, modern} {
		if out := list(`1`); !strings.Contains(out, "constant-list-secret-1") {
			t.Fatalf("unexpected list: %s", out)
		}
	}
	for _, secret := range []string{"constant-list-secret-1", "constant-list-secret-2"} {
		if err := redact.Register(secret, "constant-id-secret"); err != nil {
			t.Fatal(err)
		}
		for _, list := range []func(string) string{legacy, modern} {
			out := list(`"constant-id-secret"`)
			if strings.Contains(out, secret) || !strings.Contains(out, redact.Marker) {
				t.Fatalf("the list was not redacted of %s: %s", secret, out)
			}
			if strings.Contains(out, "constant-id-secret") || !strings.Contains(out, `"id":"`+redact.Marker+`"`) {
				t.Fatalf("the id was not redacted: %s", out)
			}
		}
	}
	// A secret that spans two JSON tokens of the answer cannot be removed: withheld. (The id
	// shares no eight leading characters with the secrets above, which would redact its head.)
	if err := redact.Register(`"span-id-7q","result"`); err != nil {
		t.Fatal(err)
	}
	if out := legacy(`"span-id-7q"`); !strings.Contains(out, "withheld") || strings.Contains(out, "span-id-7q") {
		t.Fatalf("a secret spanning the id and the envelope was not withheld: %s", out)
	}
}
