//go:build node

package ledgertest

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// cliPath is dynalite's command line below the repository root.
var cliPath = filepath.Join("internal", "ledger", "testdata", "dynalite", "node_modules", "dynalite", "cli.js")

const installHint = "install it with `make dynalite` (npm ci --prefix internal/ledger/testdata/dynalite; `make unit` does it too), or run the tests without -tags node"

// ErrNotInstalled is the failure of a machine without node or without the pinned dynalite.
var ErrNotInstalled = errors.New("dynalite is not installed")

// Dynalite is the endpoint URL of the test binary's dynalite, started on first use; root is the
// repository root relative to the calling test's package directory ("../.." for internal/x).
func Dynalite(t testing.TB, root string) string {
	t.Helper()
	dyn.once.Do(func() { dyn.err = start(filepath.Join(root, cliPath)) })
	if dyn.err != nil {
		t.Fatal(dyn.err) // never a skip: the tag is how a run says it has Node
	}
	return dyn.url
}

func start(cli string) error {
	node, err := exec.LookPath("node")
	if err != nil {
		return fmt.Errorf("%w: no node on PATH (Node 20 or later runs it): %v", ErrNotInstalled, err)
	}
	if _, err := os.Stat(cli); err != nil {
		return fmt.Errorf("%w (%s is missing): %s", ErrNotInstalled, cli, installHint)
	}
	var last error
	for attempt := 1; attempt <= 3; attempt++ { // a new port when the free one was taken meanwhile
		port, err := freePort()
		if err != nil {
			return err
		}
		if last = launch(node, cli, port); last == nil {
			return nil
		}
	}
	return fmt.Errorf("dynalite did not start: %w", last)
}

// launch starts dynalite on 127.0.0.1:port and waits for its "listening" line.
func launch(node, cli string, port int) error {
	cmd := exec.Command(node, cli, "--host", "127.0.0.1", "--port", strconv.Itoa(port),
		"--createTableMs", "0", "--deleteTableMs", "0", "--updateTableMs", "0")
	setDeathSignal(cmd)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return err
	}
	done := make(chan struct{})
	listening := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "listening at") {
				close(listening)
				break
			}
		}
		_, _ = io.Copy(io.Discard, stdout)
		_ = cmd.Wait()
		close(done)
	}()
	select {
	case <-listening:
		dyn.cmd, dyn.done, dyn.url = cmd, done, fmt.Sprintf("http://127.0.0.1:%d", port)
		return nil
	case <-done:
		return fmt.Errorf("dynalite exited on port %d: %s", port, strings.TrimSpace(stderr.String()))
	case <-time.After(20 * time.Second):
		_ = cmd.Process.Kill()
		<-done
		return fmt.Errorf("dynalite did not listen on port %d within 20 s: %s", port, strings.TrimSpace(stderr.String()))
	}
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
