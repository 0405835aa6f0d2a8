package infra

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// These tests run the real Makefile with GO pointing at a recording stand-in for the go
// command, so they check what make would run (order, folder, arguments) without compiling.

// fakeGo writes a script that appends "<cwd> <GOOS>/<GOARCH> <args>" to a log per call and
// returns its path and the log's.
func fakeGo(t *testing.T) (goPath, logPath string) {
	t.Helper()
	dir := t.TempDir()
	goPath, logPath = filepath.Join(dir, "go"), filepath.Join(dir, "calls.log")
	script := "#!/bin/sh\necho \"$(pwd) ${GOOS:-host}/${GOARCH:-host} $*\" >> '" + logPath + "'\n"
	if err := os.WriteFile(goPath, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return goPath, logPath
}

func calls(t *testing.T, logPath string) []string {
	t.Helper()
	b, err := os.ReadFile(logPath)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

// runMake runs make in dir with only the environment a developer's shell would give it (no
// variables inherited from a make that runs this test).
func runMake(t *testing.T, dir string, args ...string) (out string, code int) {
	t.Helper()
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make not installed")
	}
	cmd := exec.Command("make", append([]string{"--no-print-directory"}, args...)...)
	cmd.Dir = dir
	for _, kv := range os.Environ() {
		switch k, _, _ := strings.Cut(kv, "="); k {
		case "MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEFILES", "ARTIFACTS_DIR", "EVENT", "SANDBOX", "GO", "URL", "TOKEN", "PROFILE", "RESOURCE":
		default:
			cmd.Env = append(cmd.Env, kv)
		}
	}
	b, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok {
		return string(b), ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return string(b), 0
}

func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// TestSAMBuildCopiesOnlyTheFunctionFolder: sam build copies CodeUri before running make, so
// CodeUri must be a small folder, not the tree with its npm packages and build outputs.
func TestSAMBuildCopiesOnlyTheFunctionFolder(t *testing.T) {
	tpl := loadTemplate(t)
	codeURI, _ := tpl.FunctionProperty("McpFunction", "CodeUri")
	meta, _ := tpl.Resource("McpFunction")["Metadata"].(map[string]any)
	contextPath, _ := meta["ContextPath"].(string)
	uri, _ := codeURI.(string)
	if uri == "" || contextPath == "" {
		t.Fatalf("CodeUri %v, Metadata.ContextPath %v: both must be set", codeURI, meta["ContextPath"])
	}
	var size int64
	err := filepath.WalkDir(filepath.Join(repoRoot(t), uri), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "node_modules" {
			t.Errorf("CodeUri contains %s", p)
		}
		if info, err := d.Info(); err == nil && !d.IsDir() {
			size += info.Size()
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// The function's main is a few KB; anything near this bound means CodeUri grew to a tree.
	if size > 256<<10 {
		t.Fatalf("sam build would copy %d bytes of CodeUri %q; keep it to the function's own folder", size, uri)
	}
	mk, err := os.ReadFile(filepath.Join(repoRoot(t), contextPath, "Makefile"))
	if err != nil {
		t.Fatalf("Metadata.ContextPath %q has no Makefile: %v", contextPath, err)
	}
	if !strings.Contains(string(mk), "\nbuild-McpFunction:") {
		t.Fatal("the Makefile has no build-McpFunction target")
	}
}

// TestSAMBuildTarget runs build-McpFunction the way sam build's makefile workflow does: from a
// scratch copy of CodeUri, with the Makefile named by path and ARTIFACTS_DIR set.
func TestSAMBuildTarget(t *testing.T) {
	root := repoRoot(t)
	goPath, logPath := fakeGo(t)
	scratch, artifacts := t.TempDir(), t.TempDir()
	src := filepath.Join(root, "functions", "mcp", "main.go")
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(scratch, "main.go"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	out, code := runMake(t, scratch, "--makefile", filepath.Join(root, "Makefile"), "build-McpFunction",
		"ARTIFACTS_DIR="+artifacts, "GO="+goPath)
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	got := calls(t, logPath)
	want := root + " linux/arm64 build -tags lambda.norpc,validator_novalidatefn -trimpath -ldflags=-s -w" +
		" -gcflags=github.com/stellar/...=-l -gcflags=github.com/aws/aws-sdk-go-v2/...=-l -gcflags=github.com/aws/smithy-go/...=-l" +
		" -gcflags=github.com/mindvault/mcp-endpoint/internal/clients/...=-l -gcflags=github.com/mindvault/mcp-endpoint/internal/tools/...=-l" +
		" -gcflags=github.com/mindvault/mcp-endpoint/internal/ledger/...=-l -gcflags=github.com/mindvault/mcp-endpoint/internal/credentials/...=-l" +
		" -gcflags=github.com/mindvault/mcp-endpoint/internal/confirm/...=-l -gcflags=github.com/mindvault/mcp-endpoint/internal/config/...=-l" +
		" -o " + artifacts + "/bootstrap ./functions/mcp"
	if len(got) != 1 || got[0] != want {
		t.Fatalf("go calls:\n%s\nwant exactly:\n%s", strings.Join(got, "\n"), want)
	}
}

// TestMakeTargetsCheckArgumentsFirst: a missing or wrong argument stops make before any build
// (nothing compiled, nothing written to /bootstrap), with a message saying what to pass.
func TestMakeTargetsCheckArgumentsFirst(t *testing.T) {
	root := repoRoot(t)
	cases := []struct {
		name     string
		args     []string
		wantCode int
		wantOut  string
		wantGo   []string // substrings of the go calls, in order; nil = go is never called
	}{
		{"build-McpFunction without ARTIFACTS_DIR", []string{"build-McpFunction"}, 2, "set ARTIFACTS_DIR", nil},
		{"build-McpFunction with an empty ARTIFACTS_DIR", []string{"build-McpFunction", "ARTIFACTS_DIR="}, 2, "set ARTIFACTS_DIR", nil},
		{"invoke without EVENT", []string{"invoke"}, 2, "usage: make invoke EVENT=", nil},
		{"invoke with a missing event", []string{"invoke", "EVENT=events/no-such-event.json"}, 2, "events/no-such-event.json does not exist", nil},
		{"invoke with an event builds, then runs", []string{"invoke", "EVENT=events/tools-list-modern.json"}, 0, "",
			[]string{" build -tags lambda.norpc,validator_novalidatefn ", " run ./infra/invoke ", "-events events/tools-list-modern.json -print"}},
		{"deploy-check without URL", []string{"deploy-check"}, 2, "usage: make deploy-check URL=", nil},
		{"deploy-check runs the checker", []string{"deploy-check", "URL=https://abc.lambda-url.us-east-1.on.aws/mcp", "TOKEN=secret-token", "PROFILE=alice"}, 0, "",
			[]string{" run ./infra/deploycheck -url https://abc.lambda-url.us-east-1.on.aws/mcp -profile alice"}},
		{"invoke on the simulators", []string{"invoke", "EVENT=events/tools-list-modern.json", "SANDBOX=1"}, 0, "",
			[]string{" build -tags lambda.norpc,validator_novalidatefn ", " run ./infra/invoke ", "-events events/tools-list-modern.json -print -sandbox"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			goPath, logPath := fakeGo(t)
			out, code := runMake(t, root, append(tc.args, "GO="+goPath)...)
			if code != tc.wantCode || !strings.Contains(out, tc.wantOut) {
				t.Fatalf("exit %d, want %d; output:\n%s\nwant it to contain %q", code, tc.wantCode, out, tc.wantOut)
			}
			all := strings.Join(calls(t, logPath), "\n")
			if tc.wantGo == nil {
				if all != "" {
					t.Fatalf("go was called before the argument check:\n%s", all)
				}
				return
			}
			at := 0
			for _, w := range tc.wantGo {
				i := strings.Index(all[at:], w)
				if i < 0 {
					t.Fatalf("go calls do not contain %q after offset %d:\n%s", w, at, all)
				}
				at += i + len(w)
			}
		})
	}
}

// TestMakeRunHonoursTheAddress: make run serves on MINDVAULT_ADDR from the environment, as
// docs/operations.md lists it, ADDR= on the command line wins, and it says it is building first.
func TestMakeRunHonoursTheAddress(t *testing.T) {
	t.Setenv("MINDVAULT_ADDR", "127.0.0.1:9876")
	out, code := runMake(t, repoRoot(t), "-n", "run")
	if code != 0 || !strings.Contains(out, "MINDVAULT_ADDR=127.0.0.1:9876") || !strings.Contains(out, "building") {
		t.Fatalf("make -n run with MINDVAULT_ADDR set (exit %d):\n%s", code, out)
	}
	out, _ = runMake(t, repoRoot(t), "-n", "run", "ADDR=127.0.0.1:9877")
	if !strings.Contains(out, "MINDVAULT_ADDR=127.0.0.1:9877") {
		t.Fatalf("ADDR= did not win:\n%s", out)
	}
}

// TestMakeDeployCheckPassesTheTokenInTheEnvironment: the bearer token reaches the checker as
// TOKEN in its environment, never among its arguments (which the process list shows) or in
// make's output.
func TestMakeDeployCheckPassesTheTokenInTheEnvironment(t *testing.T) {
	dir := t.TempDir()
	goPath, logPath := filepath.Join(dir, "go"), filepath.Join(dir, "calls.log")
	script := "#!/bin/sh\necho \"args=$* token=$TOKEN\" >> '" + logPath + "'\n"
	if err := os.WriteFile(goPath, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	const token = "tok-3f9a-deploy"
	out, code := runMake(t, repoRoot(t), "deploy-check", "URL=https://abc.lambda-url.us-east-1.on.aws/mcp", "TOKEN="+token, "GO="+goPath)
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	got := strings.Join(calls(t, logPath), "\n")
	args, env, _ := strings.Cut(got, " token=")
	if strings.Contains(args, token) || strings.Contains(out, token) || env != token {
		t.Fatalf("go call %q, make output %q: want the token only in the environment", got, out)
	}
}
