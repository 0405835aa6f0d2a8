package local_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mindvault/mcp-endpoint/internal/sandbox"
	"github.com/mindvault/mcp-endpoint/internal/server"
	"github.com/mindvault/mcp-endpoint/internal/server/local"
)

// call sends one tools/call to h and returns the JSON-RPC error code (0 for none) and the
// structured result.
func call(t *testing.T, h http.Handler, tool, args string) (int, string, map[string]any) {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args + `}}`
	req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	var resp struct {
		Result struct {
			IsError    bool           `json:"isError"`
			Structured map[string]any `json:"structuredContent"`
			Content    []struct{ Text string }
		} `json:"result"`
		Error *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &resp); err != nil {
		t.Fatalf("HTTP %d: %s", rec.Code, rec.Body)
	}
	if resp.Error != nil {
		return resp.Error.Code, resp.Error.Message, nil
	}
	if resp.Result.IsError {
		t.Fatalf("%s failed: %s", tool, resp.Result.Content[0].Text)
	}
	return 0, "", resp.Result.Structured
}

func envOf(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

// TestBootOnTheSandbox: STELLAR_NETWORK=sandbox starts the simulators and points the endpoint
// at them, the demo profile funded and the default; explicit settings win; a bad fault plan
// is a startup problem naming its variable; Close stops the simulators and removes the
// temporary profile folder.
func TestBootOnTheSandbox(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name        string
		vars        map[string]string
		wantSandbox bool
		wantProfile string
		wantStore   string // "temp": a fresh temporary dir:, else the spec given
		problem     string // the variable a startup problem names; "" = healthy
	}{
		{"sandbox defaults", map[string]string{"STELLAR_NETWORK": "sandbox"}, true, "demo", "temp", ""},
		{"explicit profile and store", map[string]string{"STELLAR_NETWORK": "SANDBOX", "MINDVAULT_DEFAULT_PROFILE": "mine", "MINDVAULT_CREDENTIALS": "dir:" + dir}, true, "mine", "dir:" + dir, ""},
		{"bad fault plan", map[string]string{"STELLAR_NETWORK": "sandbox", "MINDVAULT_SANDBOX_FAULTS": "service=moon,kind=drop"}, false, "demo", "temp", "MINDVAULT_SANDBOX_FAULTS"},
		{"short apply delay", map[string]string{"STELLAR_NETWORK": "sandbox", "MINDVAULT_SANDBOX_APPLY_MS": "50"}, true, "demo", "temp", ""},
		{"bad apply delay", map[string]string{"STELLAR_NETWORK": "sandbox", "MINDVAULT_SANDBOX_APPLY_MS": "1s"}, false, "demo", "temp", "MINDVAULT_SANDBOX_APPLY_MS"},
		{"a public network starts nothing", map[string]string{"STELLAR_NETWORK": "testnet"}, false, "default", "env", ""},
		{"a public network gets a writable store", map[string]string{"STELLAR_NETWORK": "testnet", "XDG_CONFIG_HOME": dir}, false, "default",
			"dir:" + filepath.Join(dir, "mindvault", "profiles"), ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := local.Boot(envOf(c.vars), &strings.Builder{}, false)
			defer b.Close()
			if (b.Sandbox != nil) != c.wantSandbox {
				t.Fatalf("sandbox started: %v, want %v", b.Sandbox != nil, c.wantSandbox)
			}
			if b.Config.DefaultProfile != c.wantProfile {
				t.Fatalf("default profile %q, want %q", b.Config.DefaultProfile, c.wantProfile)
			}
			store := b.Config.Credentials
			if c.wantStore == "temp" {
				if !strings.HasPrefix(store, "dir:") || strings.HasPrefix(store, "dir:"+dir) {
					t.Fatalf("store %q, want a fresh temporary dir:", store)
				}
			} else if store != c.wantStore {
				t.Fatalf("store %q, want %q", store, c.wantStore)
			}
			if c.problem != "" {
				if b.Err == nil || !strings.Contains(b.Err.Error(), c.problem) {
					t.Fatalf("startup problem %v, want one naming %s", b.Err, c.problem)
				}
				if code, msg, _ := call(t, b.Handler, "mindvault_network_profile", `{}`); code != -32603 || !strings.Contains(msg, c.problem) {
					t.Fatalf("a request gets %d %q, want -32603 naming %s", code, msg, c.problem)
				}
				return
			}
			if b.Err != nil {
				t.Fatal(b.Err)
			}
			if !c.wantSandbox {
				if strings.HasPrefix(c.wantStore, "dir:") && b.Deps.Store.ReadOnly() {
					t.Fatal("the default store of a local run is read-only: mindvault_setup_wallet could not create a wallet")
				}
				return
			}
			sb := b.Sandbox
			if b.Config.Network != local.Network || b.Config.HorizonURL != sb.HorizonURL || b.Config.RegistryContract != sb.RegistryContract || len(b.Config.Overrides()) != 0 {
				t.Fatalf("the configuration does not point at the simulators: %+v", b.Config)
			}
			_, _, out := call(t, b.Handler, "mindvault_wallet_info", `{"profile":"demo"}`)
			if out["address"] != sb.Demo.Address || sb.Count(sandbox.ServiceHorizon, "GET /accounts/*") == 0 {
				t.Fatalf("the demo wallet was not read from the simulated Horizon: %v", out)
			}
			b.Close()
			if _, err := http.Get(sb.APIURL + "/resources"); err == nil {
				t.Fatal("the simulators still answer after Close")
			}
			if path, ok := strings.CutPrefix(store, "dir:"); ok && c.wantStore == "temp" {
				if _, err := os.Stat(path); !os.IsNotExist(err) {
					t.Fatalf("the temporary profile folder %s is still there: %v", path, err)
				}
			}
		})
	}
}

// TestLambdaBootOnTheSimulators: Env points the Lambda binary's own boot (no sandbox network,
// testnet settings, auth as deployed) at running simulators, which is what `make invoke
// SANDBOX=1` and `make sandbox` rely on: it starts without a problem, every check of
// mindvault_health passes, and the downstreams it names did receive the probes.
func TestLambdaBootOnTheSimulators(t *testing.T) {
	sb, err := sandbox.Start(sandbox.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	vars := local.Env(sb)
	vars["MINDVAULT_AUTH"] = "none" // the emulator's events carry no token
	b := server.Boot(envOf(vars), true, &strings.Builder{})
	if b.Err != nil {
		t.Fatal(b.Err)
	}
	// Every downstream answers; the one problem is the configuration's: under Lambda a memory
	// ledger would remember payments per instance, so paying tools refuse and health says so.
	_, _, out := call(t, b.Handler, "mindvault_health", `{}`)
	checks, _ := out["checks"].([]any)
	for _, c := range checks {
		c := c.(map[string]any)
		switch {
		case c["name"] == "Configuration":
			if c["ok"] != false || !strings.Contains(c["detail"].(string), "MINDVAULT_LEDGER") {
				t.Fatalf("the configuration check must name the missing shared ledger: %v", c)
			}
		case c["ok"] != true:
			t.Fatalf("unhealthy against the simulators: %v", out)
		}
	}
	for _, svc := range []string{sandbox.ServiceAPI, sandbox.ServiceHorizon, sandbox.ServiceRPC} {
		if sb.Count(svc, "*") == 0 {
			t.Errorf("%s received no request", svc)
		}
	}
	_, _, out = call(t, b.Handler, "mindvault_wallet_info", `{}`)
	if out["address"] != sb.Demo.Address {
		t.Fatalf("the default profile is not the demo wallet: %v", out)
	}
}

// TestMistypedNetworkNamesTheValidOnes: the local build answers a mistyped STELLAR_NETWORK with
// the values valid for it, the sandbox among them, not with advice to use make run.
func TestMistypedNetworkNamesTheValidOnes(t *testing.T) {
	b := local.Boot(func(k string) string {
		return map[string]string{"STELLAR_NETWORK": "testnett", "MINDVAULT_AUTH": "none"}[k]
	}, io.Discard, false)
	defer b.Close()
	if b.Err == nil || !strings.Contains(b.Err.Error(), "sandbox") || strings.Contains(b.Err.Error(), "make run") ||
		!strings.Contains(b.Err.Error(), `"testnett"`) {
		t.Fatalf("startup problem %v", b.Err)
	}
}
