package obs

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/mindvault/mcp-endpoint/internal/redact"
)

func TestField(t *testing.T) {
	const secret = "FieldSecret9x8y7z6w"
	if err := redact.Register(secret); err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("é", 10_000)
	cases := []struct{ in, want string }{
		{"tools/call", "tools/call"},
		{"a\nb\r\x00c\x1b[31md\u2028e\u200bf\xff", "abc[31mdef"},
		{long, strings.Repeat("é", MaxField-1) + "…"},
		// The secret straddles the cut: it goes first, so no half of it is left.
		{strings.Repeat("x", 50) + secret + "tail-tail-", strings.Repeat("x", 50) + redact.Marker + "tai…"},
	}
	for _, c := range cases {
		got := Field(c.in)
		if got != c.want {
			t.Errorf("Field(%.40q) = %q, want %q", c.in, got, c.want)
		}
		if utf8.RuneCountInString(got) > MaxField {
			t.Errorf("Field kept %d runes", utf8.RuneCountInString(got))
		}
	}
}

// TestEMFDimensionsAreClosed: nothing outside the closed sets becomes a dimension value.
func TestEMFDimensionsAreClosed(t *testing.T) {
	hostile := strings.Repeat("A", 10_000) + "\n\x00"
	cases := []struct {
		tool, outcome, service, route       string
		wantTool, wantCat, wantSvc, wantRte string
	}{
		{"mindvault_preview", "not_found", "api", "GET /resources/{id}/meta", "mindvault_preview", "not_found", "api", "GET /resources/{id}/meta"},
		{"mindvault_health", "ok", "rpc", "getNetwork", "mindvault_health", "ok", "rpc", "getNetwork"},
		{"mindvault_buy", "input_required", "x402", "GET /resources/{id}", "mindvault_buy", "input_required", "x402", "GET /resources/{id}"},
		// The paid requests' routes, as tools/buy.go and tools/publish.go name them.
		{"mindvault_buy", "ok", "x402", "GET /resources/{id} (paid)", "mindvault_buy", "ok", "x402", "GET /resources/{id} (paid)"},
		{"mindvault_publish", "ok", "x402", "POST /verify-content (paid)", "mindvault_publish", "ok", "x402", "POST /verify-content (paid)"},
		// The qualifier is a closed set: once, at the end, spelled so.
		{"mindvault_buy", "ok", "x402", "GET /resources/{id} (free)", "mindvault_buy", "ok", "x402", Unknown},
		{"mindvault_buy", "ok", "x402", "GET /resources/{id} (paid) (paid)", "mindvault_buy", "ok", "x402", Unknown},
		{"mindvault_buy", "ok", "x402", "GET /resources/{id} (paid)\n", "mindvault_buy", "ok", "x402", Unknown},
		{"mindvault_buy", "ok", "x402", "GET /resources/{id}(paid)", "mindvault_buy", "ok", "x402", Unknown},
		{"mindvault_buy", "ok", "x402", "getNetwork (paid)", "mindvault_buy", "ok", "x402", Unknown},
		{hostile, hostile, hostile, hostile, Unknown, Unknown, Unknown, Unknown},
		{"Mindvault Preview", "Server", "API", "GET /x?api_key=1", Unknown, Unknown, Unknown, Unknown},
	}
	for _, c := range cases {
		var buf bytes.Buffer
		WriteEMF(&buf, time.Now(), c.tool, c.outcome, time.Millisecond, []Call{{Service: c.service, Route: c.route, Attempts: 1}})
		lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
		if len(lines) != 2 {
			t.Fatalf("want 2 lines, got %q", buf.String())
		}
		var call struct{ Tool, Category string }
		var down struct{ Service, Route string }
		if json.Unmarshal([]byte(lines[0]), &call) != nil || json.Unmarshal([]byte(lines[1]), &down) != nil {
			t.Fatalf("EMF is not JSON: %q", buf.String())
		}
		if call.Tool != c.wantTool || call.Category != c.wantCat || down.Service != c.wantSvc || down.Route != c.wantRte {
			t.Errorf("dimensions %.40q/%.40q/%.40q/%.40q, want %s/%s/%s/%s", call.Tool, call.Category, down.Service, down.Route, c.wantTool, c.wantCat, c.wantSvc, c.wantRte)
		}
	}
}

// TestEMFAskingIsNotAnError: a call answered with a question to the user counts as a call,
// not as an error.
func TestEMFAskingIsNotAnError(t *testing.T) {
	for outcome, want := range map[string]int{"ok": 0, InputRequired: 0, "payment": 1} {
		var buf bytes.Buffer
		WriteEMF(&buf, time.Now(), "mindvault_buy", outcome, time.Millisecond, nil)
		var line struct{ ToolErrors int }
		if json.Unmarshal(buf.Bytes(), &line) != nil || line.ToolErrors != want {
			t.Errorf("%s: ToolErrors %d, want %d (%s)", outcome, line.ToolErrors, want, buf.String())
		}
	}
}
