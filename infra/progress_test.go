package infra

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestProgressHeartbeat: infra/progress.sh prints the step and its estimate, a line with the
// elapsed time while the command runs, and how it ended, with the command's exit status. The
// command here ends only once a heartbeat was written, so the test waits on the output, not on
// a clock (the bound only stops a hang).
func TestProgressHeartbeat(t *testing.T) {
	t.Parallel() // each case waits a heartbeat (PROGRESS_EVERY=1): a second of sleeping, not of work
	script := filepath.Join(repoRoot(t), "infra", "progress.sh")
	for _, c := range []struct {
		name, tail string
		code       int
	}{{"ok", "true", 0}, {"failing", "exit 3", 3}} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			out := filepath.Join(t.TempDir(), "out")
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			f, err := os.Create(out)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			wait := `until grep -q "still running" "` + out + `"; do sleep 0.05; done; ` + c.tail
			cmd := exec.CommandContext(ctx, "bash", script, "go build", "about 4 minutes", "--", "bash", "-c", wait)
			cmd.Env = append(os.Environ(), "PROGRESS_EVERY=1")
			cmd.Stdout, cmd.Stderr = f, f
			err = cmd.Run()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			b, _ := os.ReadFile(out)
			text := string(b)
			if code != c.code {
				t.Fatalf("exit %d, want the command's %d:\n%s", code, c.code, text)
			}
			if !strings.HasPrefix(text, "   go build (about 4 minutes)\n") ||
				!regexp.MustCompile(`… go build: still running, \d+ s elapsed \(about 4 minutes\)`).MatchString(text) {
				t.Fatalf("want the step with its estimate, then a heartbeat with the elapsed time:\n%s", text)
			}
			end := "go build: done in "
			if c.code != 0 {
				end = "go build: FAILED (exit 3) after "
			}
			if !strings.Contains(text, end) {
				t.Fatalf("want %q at the end:\n%s", end, text)
			}
		})
	}
}

// TestProgressClosesItsOutput: once the command has ended, progress.sh leaves nothing behind
// that holds its output open. A reader of make's output through a pipe (CI, `make test | tee`,
// these tests' CombinedOutput) otherwise waits out the heartbeat's pending sleep after every
// step. WaitDelay only bounds a failure: with the output closed, Wait returns at exit.
func TestProgressClosesItsOutput(t *testing.T) {
	script := filepath.Join(repoRoot(t), "infra", "progress.sh")
	cmd := exec.Command("bash", script, "step", "estimate", "--", "true")
	cmd.Env = append(os.Environ(), "PROGRESS_EVERY=600")
	cmd.WaitDelay = 10 * time.Second
	out, err := cmd.CombinedOutput()
	if errors.Is(err, exec.ErrWaitDelay) {
		t.Fatalf("the output stayed open after progress.sh exited (the heartbeat's sleep holds it):\n%s", out)
	}
	if err != nil || !strings.Contains(string(out), "step: done in ") {
		t.Fatalf("%v:\n%s", err, out)
	}
}

// TestLongStepsReportProgress: every long step of make run and make test goes through
// progress.sh with an estimate from estimate.sh (make -n shows the commands without running
// them).
func TestLongStepsReportProgress(t *testing.T) {
	for target, want := range map[string][]string{
		"run":        {"building bin/mindvault-local", "estimate.sh build"},
		"check":      {"go vet ./...", "estimate.sh vet", "-- go vet -tags node ./..."},
		"unit":       {"-- go test -count=1 -tags node ./...", "estimate.sh test"}, // CI runs the tests that need Node
		"build-host": {"building bin/bootstrap", "estimate.sh lambda"},
		"build":      {"building bin/arm64/bootstrap"},
	} {
		out, code := runMake(t, repoRoot(t), "-n", target)
		if code != 0 {
			t.Fatalf("make -n %s: exit %d\n%s", target, code, out)
		}
		for _, w := range append(want, "infra/progress.sh") {
			if !strings.Contains(out, w) {
				t.Errorf("make -n %s does not show %q:\n%s", target, w, out)
			}
		}
	}
	// The estimate never downloads or builds: it asks the caches with GOPROXY=off.
	b, err := os.ReadFile(filepath.Join(repoRoot(t), "infra", "estimate.sh"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(string(b), "GOPROXY=off") < 2 {
		t.Error("estimate.sh must ask the Go caches with GOPROXY=off")
	}
}
