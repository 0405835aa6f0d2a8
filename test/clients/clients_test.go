// Package clients_test holds the Go client program that docs/clients.md shows, and runs it: the
// doc's block must be the program byte for byte, and the program, built with the Go SDK the
// module pins, must connect with a bearer token, be asked before it pays, and buy.
package clients_test

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mindvault/mcp-endpoint/internal/server/local"
)

// snippet returns the fenced block docs/clients.md marks with <!-- snippet: name -->.
func snippet(t *testing.T, name string) string {
	t.Helper()
	doc, err := os.ReadFile("../../docs/clients.md")
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile("(?ms)^<!-- snippet: " + regexp.QuoteMeta(name) + " -->\n```[a-z]*\n(.*?)^```$")
	m := re.FindAllStringSubmatch(string(doc), -1)
	if len(m) != 1 {
		t.Fatalf("docs/clients.md has %d blocks marked <!-- snippet: %s -->, want 1", len(m), name)
	}
	return m[0][1]
}

// TestDocShowsTheGoProgram: the Go SDK block of docs/clients.md is gosdk/main.go, so what the
// next test runs is what a reader copies.
func TestDocShowsTheGoProgram(t *testing.T) {
	want, err := os.ReadFile("gosdk/main.go")
	if err != nil {
		t.Fatal(err)
	}
	if got := snippet(t, "go-sdk"); got != string(want) {
		t.Fatalf("the go-sdk block of docs/clients.md differs from test/clients/gosdk/main.go: copy the file into the doc (or the block into the file)\n--- doc ---\n%s", got)
	}
}

// TestGoProgramBuysAfterAsking builds the program and runs it against a sandbox endpoint that
// requires a bearer token: declined, it fails with CONFIRMATION_DECLINED; accepted, it pays.
func TestGoProgramBuysAfterAsking(t *testing.T) {
	const token = "clients-test-token-9f2c"
	sum := sha256.Sum256([]byte(token))
	vars := map[string]string{
		"STELLAR_NETWORK":         "sandbox",
		"MINDVAULT_AUTH":          "tokens",
		"MINDVAULT_ACCESS_TOKENS": hex.EncodeToString(sum[:]) + ":*",
	}
	b := local.Boot(func(k string) string { return vars[k] }, io.Discard, false)
	t.Cleanup(b.Close)
	if b.Err != nil {
		t.Fatalf("boot: %v", b.Err)
	}
	srv := httptest.NewServer(b.Handler) // 127.0.0.1
	t.Cleanup(srv.Close)

	bin := filepath.Join(t.TempDir(), "gosdk")
	if out, err := exec.Command("go", "build", "-o", bin, "./gosdk").CombinedOutput(); err != nil {
		t.Fatalf("go build ./gosdk: %v\n%s", err, out)
	}
	run := func(answer string) (string, error) {
		cmd := exec.Command(bin)
		cmd.Env = append(os.Environ(), "MINDVAULT_URL="+srv.URL+"/mcp", "MINDVAULT_TOKEN="+token)
		cmd.Stdin = strings.NewReader(answer)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	question := `Pay 1.5 USDC to Northwind Labs (G`
	cases := []struct {
		answer string
		ok     bool
		want   []string
	}{
		{"n\n", false, []string{"protocol 2026-07-28", question, "Code: CONFIRMATION_DECLINED"}},
		{"y\n", true, []string{"protocol 2026-07-28", `mindvault_preview: {"id":"rustguide"`, question, `"settlement":"confirmed"`}},
	}
	for _, tc := range cases {
		out, err := run(tc.answer)
		if (err == nil) != tc.ok {
			t.Fatalf("answering %q: exit error %v, want success %v\n%s", tc.answer, err, tc.ok, out)
		}
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Fatalf("answering %q: the output lacks %q\n%s", tc.answer, w, out)
			}
		}
	}
}
