package infra

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stellar/go-stellar-sdk/keypair"

	"github.com/mindvault/mcp-endpoint/internal/auth"
)

// The walkthrough of docs/deploy.md must paste top to bottom: steps 0 to 8 in one shell, then
// "Later". TestDeployDocPastesTopToBottom runs exactly that with set -euo pipefail, the real
// openssl, sha256sum and the shell, and stand-ins on PATH for the commands that would reach
// AWS, Stellar or the endpoint (aws, sam, stellar, curl, make, claude). Each stand-in records
// its arguments and prints what the real command would for the walkthrough to go on (the
// stack's outputs, a key); the test then checks the order of the calls and what they carried.

// walkStubs are the stand-ins, one shell script each; $STUB_LOG collects one record per call:
// the command and its arguments, each ended by NUL, the record ended by \x1e.
const walkStub = `#!/bin/bash
name=$(basename "$0")
{ printf '%s\0' "$name" "$@"; printf '\036'; } >> "$STUB_LOG"
args=" $* "
case "$name" in
aws)
  case "$args" in
  *" sts get-caller-identity "*) echo 123456789012 ;;
  *" create-secret "*) echo '{"ARN":"arn:aws:secretsmanager:us-east-1:123456789012:secret:x"}' ;;
  *"McpUrl"*) echo "$STUB_MCP_URL" ;;
  *"McpFunctionArn"*) echo "arn:aws:lambda:us-east-1:123456789012:function:mindvault-mcp" ;;
  *" describe-stack-resource "*) echo "arn:aws:secretsmanager:us-east-1:123456789012:secret:ConfirmKeySecret-abc" ;;
  esac ;;
stellar)
  case "$args" in
  *" keys secret "*) echo "$STUB_SEED" ;;
  *" keys address "*) echo "$STUB_ADDRESS" ;;
  esac ;;
curl) echo '{}' ;;
esac
exit 0
`

type walkCall struct {
	name string
	args []string
}

func (c walkCall) String() string { return c.name + " " + strings.Join(c.args, " ") }

// has reports whether the call's arguments contain the words in order, consecutive.
func (c walkCall) has(words ...string) bool {
	for i := 0; i+len(words) <= len(c.args); i++ {
		if slicesEqual(c.args[i:i+len(words)], words) {
			return true
		}
	}
	return false
}

func slicesEqual(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// arg is the value after flag, "" when absent.
func (c walkCall) arg(flag string) string {
	for i := 0; i+1 < len(c.args); i++ {
		if c.args[i] == flag {
			return c.args[i+1]
		}
	}
	return ""
}

// walkthrough is the script a reader pastes: the ```sh blocks of steps 0 to 8, then "Later".
func walkthrough(t *testing.T, doc string) string {
	t.Helper()
	var main, later []string
	for _, b := range shBlocks(doc) {
		switch {
		case len(b.section) > 1 && b.section[0] >= '0' && b.section[0] <= '8' && b.section[1] == '.':
			main = append(main, b.text)
		case strings.HasPrefix(b.section, "Later"):
			later = append(later, b.text)
		}
	}
	if len(main) < 8 || len(later) < 3 {
		t.Fatalf("docs/deploy.md: %d blocks in steps 0-8 and %d in Later; the walkthrough's structure changed", len(main), len(later))
	}
	return strings.Join(main, "") + strings.Join(later, "")
}

func runWalkthrough(t *testing.T, script string) (calls []walkCall, stdout string, seed string) {
	t.Helper()
	for _, tool := range []string{"bash", "openssl", "sha256sum"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skip(tool + " not installed")
		}
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"aws", "sam", "stellar", "curl", "make", "claude"} {
		if err := os.WriteFile(filepath.Join(bin, name), []byte(walkStub), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	kp := keypair.MustRandom()
	log := filepath.Join(dir, "calls")
	cmd := exec.Command("bash", "-c", "set -euo pipefail\n"+script)
	cmd.Dir = dir
	// Only what a fresh shell has: no AWS or MindVault variables leak in from the test's own.
	cmd.Env = []string{"PATH=" + bin + ":" + os.Getenv("PATH"), "HOME=" + dir, "STUB_LOG=" + log,
		"STUB_MCP_URL=https://abcdefghij.lambda-url.us-east-1.on.aws/mcp", "STUB_SEED=" + kp.Seed(), "STUB_ADDRESS=" + kp.Address()}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("the walkthrough stopped: %v\nstderr:\n%s\nstdout:\n%s", err, errb.String(), out.String())
	}
	raw, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	for _, rec := range strings.Split(strings.TrimSuffix(string(raw), "\x1e"), "\x1e") {
		parts := strings.Split(strings.TrimSuffix(rec, "\x00"), "\x00")
		calls = append(calls, walkCall{name: parts[0], args: parts[1:]})
	}
	return calls, out.String(), kp.Seed()
}

// TestDeployDocPastesTopToBottom: the walkthrough runs in one shell from the first block to
// the last; nothing reaches the stack before sam deploy made it; every secret it stores is
// complete (no placeholder, no variable left unset) and the one the reader's token needs; the
// token the later commands send is the one whose digest was stored; the Stellar CLI appears
// only where the prerequisites say it is needed.
func TestDeployDocPastesTopToBottom(t *testing.T) {
	calls, stdout, seed := runWalkthrough(t, walkthrough(t, readDeployDoc(t)))
	checkWalk(t, calls, stdout, seed)
}

func checkWalk(t *testing.T, calls []walkCall, stdout, seed string) {
	t.Helper()
	// The order, by command and subcommand.
	want := []string{
		"aws sts get-caller-identity",
		"aws secretsmanager create-secret",
		"sam build",
		"sam deploy",
		"aws cloudformation describe-stacks",
		"curl", "curl", "curl", "curl", "curl",
		"make deploy-check",
		"claude mcp add",
		"stellar keys generate", "stellar tx new", "stellar keys secret", "stellar keys address",
		"aws secretsmanager create-secret",
		"aws secretsmanager put-secret-value",
		"aws cloudformation describe-stacks",
		"aws lambda update-function-configuration",
		"aws cloudformation describe-stack-resource",
		"aws secretsmanager put-secret-value",
	}
	var got []string
	for _, c := range calls {
		words := strings.Fields(want[min(len(got), len(want)-1)])
		n := min(len(words)-1, len(c.args))
		got = append(got, strings.TrimSpace(c.name+" "+strings.Join(c.args[:n], " ")))
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("the walkthrough's commands, in order:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	deployed := false
	var token, digest string
	for i, c := range calls {
		where := fmt.Sprintf("command %d (%s)", i+1, c)
		if c.name == "sam" && c.has("deploy") {
			deployed = true
			if c.arg("--stack-name") != "mindvault" {
				t.Fatalf("%s: the stack name did not reach sam deploy", where)
			}
		}
		if (c.arg("--stack-name") != "" || c.name == "aws" && c.has("lambda")) && !deployed {
			t.Fatalf("%s uses the stack before sam deploy created it", where)
		}
		for _, a := range c.args {
			if strings.Contains(a, "S...") || strings.Contains(a, "$") || strings.Contains(a, "<") && strings.Contains(a, ">") {
				t.Fatalf("%s passes a placeholder or an unexpanded variable: %q", where, a)
			}
		}
		switch {
		case c.name == "aws" && c.has("create-secret") && c.arg("--name") == "mindvault/access-tokens":
			v := c.arg("--secret-string")
			tokens, err := auth.ParseTokens(v)
			if err != nil || len(tokens) != 1 || !strings.HasSuffix(v, ":alice") {
				t.Fatalf("%s: the token secret %q is not one token for alice: %v", where, v, err)
			}
			digest = strings.TrimSuffix(v, ":alice")
		case c.name == "curl":
			for j, a := range c.args {
				if a == "-H" && j+1 < len(c.args) && strings.HasPrefix(c.args[j+1], "Authorization: Bearer ") {
					token = strings.TrimPrefix(c.args[j+1], "Authorization: Bearer ")
				}
			}
			if token == "" || c.args[len(c.args)-1] == "" {
				t.Fatalf("%s: no bearer token", where)
			}
			if d := auth.Digest(token); hex.EncodeToString(d[:]) != digest {
				t.Fatalf("%s: the bearer token is not the one whose digest the secret holds", where)
			}
		case c.name == "make":
			if c.args[1] != "URL=https://abcdefghij.lambda-url.us-east-1.on.aws/mcp" || c.args[2] != "TOKEN="+token {
				t.Fatalf("%s: want the stack's URL and the token", where)
			}
		case c.name == "claude":
			if !c.has("--header", "Authorization: Bearer "+token) || !c.has("mindvault", "https://abcdefghij.lambda-url.us-east-1.on.aws/mcp") {
				t.Fatalf("%s: want the stack's URL and the token", where)
			}
		case c.name == "aws" && c.has("create-secret"):
			if c.arg("--name") != "mindvault/profiles/bob" || c.arg("--secret-string") != `{"secretKey":"`+seed+`"}` {
				t.Fatalf("%s: want the profile bob holding the key the Stellar CLI made", where)
			}
		case c.name == "aws" && c.has("put-secret-value") && c.arg("--secret-id") == "mindvault/access-tokens":
			lines := strings.Split(c.arg("--secret-string"), "\n")
			if len(lines) != 2 || lines[0] != digest+":alice" || !strings.HasSuffix(lines[1], ":bob") {
				t.Fatalf("%s: want the first token kept for alice and a second one for bob: %q", where, c.arg("--secret-string"))
			}
			second := regexp.MustCompile(`keep this token \(profile bob\): ([0-9a-f]{64})`).FindStringSubmatch(stdout)
			if second == nil {
				t.Fatalf("%s: the second token is never shown to the reader:\n%s", where, stdout)
			}
			if d := auth.Digest(second[1]); hex.EncodeToString(d[:])+":bob" != lines[1] {
				t.Fatalf("%s: the token shown is not the one stored", where)
			}
		case c.name == "aws" && c.has("put-secret-value"):
			if !strings.HasPrefix(c.arg("--secret-id"), "arn:aws:secretsmanager:") || len(c.arg("--secret-string")) < 44 {
				t.Fatalf("%s: want a new key in the stack's confirmation-key secret", where)
			}
		}
	}
	if !strings.Contains(stdout, "keep this token: ") {
		t.Fatal("the first token is never shown to the reader")
	}
}
