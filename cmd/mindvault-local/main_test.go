package main

import (
	"bytes"
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/mindvault/mcp-endpoint/internal/ledger/ledgertest"
)

// TestMain runs main itself when the test binary is started as the command (runMain).
func TestMain(m *testing.M) {
	if os.Getenv("MINDVAULT_LOCAL_RUN_MAIN") == "1" {
		main()
		os.Exit(0)
	}
	code := m.Run()
	ledgertest.Stop() // the dynalite server of TestSpendingCommand, if it started one
	os.Exit(code)
}

// runMain runs this test binary as mindvault-local with env added to a clean environment.
func runMain(t *testing.T, env ...string) (stdout, stderr string, code int) {
	t.Helper()
	// A server that (wrongly) starts never exits on its own: the bound turns that into a failure.
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0])
	cmd.Env = append([]string{"MINDVAULT_LOCAL_RUN_MAIN=1", "HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH")}, env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

// TestRefusesAConfigurationItCannotServe: a local server with a configuration problem exits
// non-zero with one line naming the variable, before any banner or "serving" line, instead of
// answering every request with -32603.
func TestRefusesAConfigurationItCannotServe(t *testing.T) {
	cases := []struct{ name, env, want string }{
		{"mistyped network", "STELLAR_NETWORK=testnte", "STELLAR_NETWORK"},
		{"bad number", "MINDVAULT_MAX_AUTO_PAY_USDC=lots", "MINDVAULT_MAX_AUTO_PAY_USDC"},
		// No AWS credentials anywhere (the environment is clean, HOME empty): said at once, not
		// after probing instance metadata (pointed at a closed loopback port here, in case).
		{"no AWS credentials", "MINDVAULT_CREDENTIALS=secretsmanager:mindvault/local/", "no AWS credentials found: set AWS_PROFILE"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// Port 0 would serve if the configuration were accepted: the exit proves it was not.
			stdout, stderr, code := runMain(t, "MINDVAULT_ADDR=127.0.0.1:0", "MINDVAULT_CREDENTIALS=env",
				"AWS_EC2_METADATA_SERVICE_ENDPOINT=http://127.0.0.1:9", c.env) // the last of a name wins
			if code != 2 {
				t.Fatalf("exit %d, want 2; stderr:\n%s", code, stderr)
			}
			lines := strings.Split(strings.TrimSpace(stderr), "\n")
			if len(lines) != 1 || !strings.HasPrefix(lines[0], "mindvault-local: not serving:") || !strings.Contains(lines[0], c.want) {
				t.Fatalf("want one line naming %s, got:\n%s", c.want, stderr)
			}
			if stdout != "" || strings.Contains(stderr, "profiles in") || strings.Contains(stderr, "serving MCP") {
				t.Fatalf("a banner was printed for a configuration that is not served:\n%s%s", stdout, stderr)
			}
		})
	}
}

// TestPortInUseIsOneError: a taken address is the one line saying how to pick another, with
// no banner announcing a server that never started.
func TestPortInUseIsOneError(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	stdout, stderr, code := runMain(t, "MINDVAULT_ADDR="+ln.Addr().String(), "STELLAR_NETWORK=testnet", "MINDVAULT_CREDENTIALS=env")
	if code != 1 || !strings.Contains(stderr, "ADDR=") {
		t.Fatalf("exit %d, want 1 and how to pick another address; stderr:\n%s", code, stderr)
	}
	if stdout != "" || strings.Contains(stderr, "MindVault MCP endpoint:") || strings.Contains(stderr, "profiles in") || strings.Contains(stderr, "serving MCP") {
		t.Fatalf("a banner was printed for an address that is not ours:\n%s%s", stdout, stderr)
	}
}
