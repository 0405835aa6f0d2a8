package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/mindvault/mcp-endpoint/internal/redact/lazyre"
	"github.com/mindvault/mcp-endpoint/internal/server"
	"github.com/mindvault/mcp-endpoint/internal/tools"
)

// startupChild marks the fresh process TestFirstAnswersCompileNoPattern runs its check in.
const startupChild = "MINDVAULT_TEST_STARTUP_CHILD"

// TestFirstAnswersCompileNoPattern: booting the deployed configuration and answering the
// constant requests a client starts with (initialize, tools/list on both eras, server/discover,
// prompts/list, ping) compiles no regular expression and defines no tool: every pattern and the
// tools wait for the request that needs them. It runs in a fresh process, since other tests compile patterns.
func TestFirstAnswersCompileNoPattern(t *testing.T) {
	if os.Getenv(startupChild) == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestFirstAnswersCompileNoPattern$", "-test.count=1")
		cmd.Env = append(os.Environ(), startupChild+"=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("in a fresh process: %v\n%s", err, out)
		}
		return
	}
	env := map[string]string{"STELLAR_NETWORK": "testnet", "MINDVAULT_AUTH": "none"}
	b := server.Boot(func(k string) string { return env[k] }, false, io.Discard)
	if b.Err != nil {
		t.Fatal(b.Err)
	}
	const modern = `"params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}`
	for _, c := range []struct{ version, method, body string }{
		{"", "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`},
		{"2025-11-25", "", `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`},
		{"2025-11-25", "", `{"jsonrpc":"2.0","id":3,"method":"prompts/list"}`},
		{"2025-11-25", "", `{"jsonrpc":"2.0","id":4,"method":"ping"}`},
		{"2026-07-28", "tools/list", `{"jsonrpc":"2.0","id":5,"method":"tools/list",` + modern + `}`},
		{"2026-07-28", "server/discover", `{"jsonrpc":"2.0","id":6,"method":"server/discover",` + modern + `}`},
		{"2026-07-28", "prompts/list", `{"jsonrpc":"2.0","id":7,"method":"prompts/list",` + modern + `}`},
	} {
		r := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(c.body))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json, text/event-stream")
		if c.version != "" {
			r.Header.Set("MCP-Protocol-Version", c.version)
		}
		if c.method != "" {
			r.Header.Set("Mcp-Method", c.method)
		}
		w := httptest.NewRecorder()
		b.Handler.ServeHTTP(w, r)
		if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `"result"`) {
			t.Fatalf("%s: HTTP %d %s", c.body, w.Code, w.Body.String())
		}
	}
	if n := lazyre.Compiled(); n != 0 {
		t.Fatalf("booting and answering the constant requests compiled %d patterns", n)
	}
	if n := tools.Defines(); n != 0 {
		t.Fatalf("booting and answering the constant requests defined %d tools; they wait for the first tool call", n)
	}
}
