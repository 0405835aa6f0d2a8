package main

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/mindvault/mcp-endpoint/test/bench"
)

// invokePath is RIE's Invoke API route for its one function.
const invokePath = "/2015-03-31/functions/function/invocations"

// coldRun is one cold start: exec of the emulator to its listening socket, exec to the first
// invoke's answer (the cold start), and a second, warm invoke on its own.
type coldRun struct {
	impl                string
	listen, first, warm time.Duration
}

// localRun is one start of a binary as a plain local HTTP server.
type localRun struct {
	impl  string
	first time.Duration
}

// target is a binary whose start is timed, with the environment it needs beyond the
// function's own.
type target struct {
	impl, bin string
	env       []string
}

type sizes struct {
	arm64, arm64Zip, host int64
	peerArm64             int64 // the Go SDK peer, same flags
}

// binarySizes stats the built binaries and deflates the arm64 one as the deploy zip would.
func binarySizes(arm64, host, peerArm64 string) (sizes, error) {
	var s sizes
	if arm64 == "" {
		return s, errors.New("no -arm64 binary given")
	}
	st, err := os.Stat(arm64)
	if err != nil {
		return s, err
	}
	s.arm64 = st.Size()
	data, err := os.ReadFile(arm64)
	if err != nil {
		return s, err
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.CreateHeader(&zip.FileHeader{Name: "bootstrap", Method: zip.Deflate})
	if err != nil {
		return s, err
	}
	if _, err := w.Write(data); err != nil {
		return s, err
	}
	if err := zw.Close(); err != nil {
		return s, err
	}
	s.arm64Zip = int64(buf.Len())
	if host != "" {
		if st, err := os.Stat(host); err == nil {
			s.host = st.Size()
		}
	}
	if peerArm64 != "" {
		if st, err := os.Stat(peerArm64); err == nil {
			s.peerArm64 = st.Size()
		}
	}
	return s, nil
}

// functionEnv is the function's environment under the emulator: what `sam local invoke`
// sets (as infra/invoke does) on the deployed network setting, built from scratch so the
// caller's shell cannot change it.
func functionEnv() []string {
	return []string{
		"PATH=" + os.Getenv("PATH"),
		"AWS_SAM_LOCAL=true",
		"AWS_LAMBDA_FUNCTION_HANDLER=bootstrap",
		"AWS_LAMBDA_FUNCTION_NAME=McpFunction",
		"AWS_LAMBDA_FUNCTION_MEMORY_SIZE=256",
		"AWS_LAMBDA_FUNCTION_TIMEOUT=30",
		"AWS_LAMBDA_LOG_FORMAT=JSON",
		"AWS_LAMBDA_LOG_LEVEL=INFO",
		"AWS_ACCESS_KEY_ID=defaultkey",
		"AWS_SECRET_ACCESS_KEY=defaultsecret",
		"AWS_REGION=us-east-1",
		"AWS_DEFAULT_REGION=us-east-1",
		"STELLAR_NETWORK=testnet",
		"MINDVAULT_AUTH=none",
	}
}

func freePort() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// proc is a started child in its own process group.
type proc struct {
	cmd    *exec.Cmd
	exited chan struct{}
}

func start(cmd *exec.Cmd) (*proc, error) {
	// Own process group so the stop reaches the bootstrap RIE starts; parent-death signal so
	// nothing outlives this command.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &proc{cmd: cmd, exited: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(p.exited) }()
	return p, nil
}

// stop kills the process group this command started (by its id) and waits for the child.
func (p *proc) stop() {
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	select {
	case <-p.exited:
	case <-time.After(5 * time.Second):
	}
}

var noProxy = &http.Client{Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true}, Timeout: 30 * time.Second}

// coldStarts times n fresh emulator+bootstrap processes of each target, alternating between
// the targets round by round so that a change in the machine's load hits them alike.
func coldStarts(rie, eventFile string, targets []target, n int) ([]coldRun, error) {
	for _, p := range []string{rie, eventFile} {
		if _, err := os.Stat(p); err != nil {
			return nil, err
		}
	}
	rieAbs, _ := filepath.Abs(rie)
	event, err := os.ReadFile(eventFile)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "benchreport-rie-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	var runs []coldRun
	for i := 0; i < n; i++ {
		for _, t := range targets {
			if t.bin == "" {
				return nil, fmt.Errorf("no binary for %s", t.impl)
			}
			bootAbs, _ := filepath.Abs(t.bin)
			var run coldRun
			var err error
			for attempt := 0; attempt < 3; attempt++ { // a port taken between probe and bind
				run, err = coldStartOnce(rieAbs, bootAbs, t.env, dir, event, i)
				if err == nil || !errors.Is(err, errExitedAtStart) {
					break
				}
			}
			if err != nil {
				return runs, fmt.Errorf("%s run %d: %w", t.impl, i+1, err)
			}
			run.impl = t.impl
			runs = append(runs, run)
		}
	}
	return runs, nil
}

var errExitedAtStart = errors.New("emulator exited at start")

func coldStartOnce(rie, bootstrap string, env []string, dir string, event []byte, i int) (coldRun, error) {
	var run coldRun
	emu, err := freePort()
	if err != nil {
		return run, err
	}
	api, err := freePort()
	if err != nil {
		return run, err
	}
	logFile, err := os.Create(filepath.Join(dir, fmt.Sprintf("rie-%d.log", i)))
	if err != nil {
		return run, err
	}
	defer logFile.Close()
	cmd := exec.Command(rie, "--log-level", "error",
		"--runtime-interface-emulator-address", emu, "--runtime-api-address", api, bootstrap)
	cmd.Dir = dir
	cmd.Env = append(functionEnv(), env...)
	cmd.Stdout, cmd.Stderr = logFile, logFile

	t0 := time.Now()
	p, err := start(cmd)
	if err != nil {
		return run, err
	}
	defer p.stop()
	if err := waitListening(emu, p.exited, 5*time.Second); err != nil {
		return run, err
	}
	run.listen = time.Since(t0)
	url := "http://" + emu + invokePath
	if err := invoke(url, event, "bench-cold"); err != nil {
		return run, fmt.Errorf("first invoke: %w", err)
	}
	run.first = time.Since(t0)
	t1 := time.Now()
	if err := invoke(url, event, "bench-warm"); err != nil {
		return run, fmt.Errorf("warm invoke: %w", err)
	}
	run.warm = time.Since(t1)
	return run, nil
}

// pollEvery is how often a starting server is tried: fine enough that the quantisation stays
// small beside a start of a few milliseconds, coarse enough to leave the CPUs to the start.
const pollEvery = 200 * time.Microsecond

// waitListening polls a loopback port every pollEvery until it accepts.
func waitListening(addr string, exited <-chan struct{}, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		conn, err := net.DialTimeout("tcp", addr, 100*time.Millisecond)
		if err == nil {
			conn.Close()
			return nil
		}
		select {
		case <-exited:
			return errExitedAtStart
		case <-time.After(pollEvery):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s did not listen within %s", addr, limit)
		}
	}
}

// invoke posts one event and checks the Function URL response is a tools/list result.
func invoke(url string, event []byte, id string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(event))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Amzn-RequestId", id)
	resp, err := noProxy.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("emulator HTTP %d: %s", resp.StatusCode, bench.Trim(string(body), 300))
	}
	var fr struct {
		StatusCode int    `json:"statusCode"`
		Body       string `json:"body"`
		ErrorType  string `json:"errorType"`
	}
	if err := json.Unmarshal(body, &fr); err != nil || fr.ErrorType != "" || fr.StatusCode != http.StatusOK {
		return fmt.Errorf("function response: %s", bench.Trim(string(body), 300))
	}
	if !strings.Contains(fr.Body, `"mindvault_preview"`) {
		return fmt.Errorf("not a tools/list result: %s", bench.Trim(fr.Body, 300))
	}
	return nil
}

// coldStartsLocal times n starts of each target as a local HTTP server (no emulator): exec
// to the first tools/list answer, which isolates the process start and Boot. The targets
// alternate round by round.
func coldStartsLocal(targets []target, n int) ([]localRun, error) {
	dir, err := os.MkdirTemp("", "benchreport-local-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	var runs []localRun
	for i := 0; i < n; i++ {
		for _, t := range targets {
			bootAbs, _ := filepath.Abs(t.bin)
			addr, err := freePort()
			if err != nil {
				return runs, err
			}
			cmd := exec.Command(bootAbs)
			cmd.Dir = dir
			cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "STELLAR_NETWORK=testnet", "MINDVAULT_ADDR=" + addr}, t.env...)
			cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
			t0 := time.Now()
			p, err := start(cmd)
			if err != nil {
				return runs, err
			}
			_, err = firstLocalAnswer("http://"+addr+"/mcp", p.exited, 5*time.Second)
			d := time.Since(t0)
			p.stop()
			if err != nil {
				return runs, fmt.Errorf("%s run %d: %w", t.impl, i+1, err)
			}
			runs = append(runs, localRun{impl: t.impl, first: d})
		}
	}
	return runs, nil
}

// firstLocalAnswer posts tools/list until the server answers and returns the answer, which
// must be a tools/list result.
func firstLocalAnswer(url string, exited <-chan struct{}, limit time.Duration) ([]byte, error) {
	return awaitAnswer(url, exited, limit, []byte(`"mindvault_preview"`))
}

// awaitAnswer posts tools/list until the server answers HTTP 200 with a body containing want
// (anything, when want is nil).
func awaitAnswer(url string, exited <-chan struct{}, limit time.Duration, want []byte) ([]byte, error) {
	deadline := time.Now().Add(limit)
	for {
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(bench.BodyToolsList))
		bench.SetHeaders(req.Header)
		resp, err := noProxy.Do(req)
		if err == nil {
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK || !bytes.Contains(body, want) {
				return nil, fmt.Errorf("HTTP %d: %s", resp.StatusCode, bench.Trim(string(body), 300))
			}
			return body, nil
		}
		select {
		case <-exited:
			return nil, errors.New("exited before answering")
		case <-time.After(pollEvery):
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("no answer within %s", limit)
		}
	}
}

// ofImpl keeps the runs of one implementation.
func ofImpl[T any](runs []T, impl string, f func(T) string) []T {
	var out []T
	for _, r := range runs {
		if f(r) == impl {
			out = append(out, r)
		}
	}
	return out
}

func durations[T any](runs []T, f func(T) time.Duration) []time.Duration {
	out := make([]time.Duration, len(runs))
	for i, r := range runs {
		out[i] = f(r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// pkgInit is one package's init as GODEBUG=inittrace=1 reports it.
type pkgInit struct {
	pkg   string
	clock time.Duration
	bytes int64
}

// initLine is "init PKG @T ms, C ms clock, B bytes, A allocs".
var initLine = regexp.MustCompile(`^init (\S+) @[0-9.]+ ms, ([0-9.]+) ms clock, ([0-9]+) bytes`)

// initTrace starts the bootstrap once in local mode with GODEBUG=inittrace=1 and returns the
// package inits, slowest first: the part of the cold start spent before main.
func initTrace(bootstrap string) ([]pkgInit, error) {
	if bootstrap == "" {
		return nil, errors.New("no -bootstrap given")
	}
	bootAbs, _ := filepath.Abs(bootstrap)
	dir, err := os.MkdirTemp("", "benchreport-init-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	addr, err := freePort()
	if err != nil {
		return nil, err
	}
	var stderr bytes.Buffer
	cmd := exec.Command(bootAbs)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "STELLAR_NETWORK=testnet", "MINDVAULT_ADDR=" + addr, "GODEBUG=inittrace=1"}
	cmd.Stdout, cmd.Stderr = io.Discard, &stderr
	p, err := start(cmd)
	if err != nil {
		return nil, err
	}
	_, err = firstLocalAnswer("http://"+addr+"/mcp", p.exited, 5*time.Second)
	p.stop()
	if err != nil {
		return nil, err
	}
	var out []pkgInit
	for _, l := range strings.Split(stderr.String(), "\n") {
		m := initLine.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		ms, _ := strconv.ParseFloat(m[2], 64)
		b, _ := strconv.ParseInt(m[3], 10, 64)
		out = append(out, pkgInit{pkg: m[1], clock: time.Duration(ms * float64(time.Millisecond)), bytes: b})
	}
	if len(out) == 0 {
		return nil, errors.New("no inittrace lines")
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].clock > out[j].clock })
	return out, nil
}

// captureList starts the bootstrap once as a local server and writes its tools/list answer
// to path: the bytes the trivial handler answers with.
func captureList(bootstrap, path string) error {
	if bootstrap == "" {
		return errors.New("no -bootstrap given")
	}
	abs, _ := filepath.Abs(bootstrap)
	addr, err := freePort()
	if err != nil {
		return err
	}
	cmd := exec.Command(abs)
	cmd.Dir = filepath.Dir(path)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "STELLAR_NETWORK=testnet", "MINDVAULT_ADDR=" + addr}
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	p, err := start(cmd)
	if err != nil {
		return err
	}
	defer p.stop()
	body, err := firstLocalAnswer("http://"+addr+"/mcp", p.exited, 5*time.Second)
	if err != nil {
		return err
	}
	return os.WriteFile(path, body, 0o600)
}
