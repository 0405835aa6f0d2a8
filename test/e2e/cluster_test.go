package e2e_test

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mindvault/mcp-endpoint/internal/ledger/ledgertest"
	"github.com/mindvault/mcp-endpoint/internal/sandbox"
	"github.com/mindvault/mcp-endpoint/internal/server/local"
)

// A cluster is what Lambda runs: several instances of the deployed binary that share nothing
// but the downstreams. Here they are OS processes of functions/mcp in its plain-HTTP mode, and
// the downstreams are the sandbox, run by the test process so its fault plans and request
// counts work as in the in-process env. A guarantee that must hold across instances (a payment
// made once per intent, a daily budget) is tested by sending calls to several processes at
// once: a mutex or a map in one process proves nothing there.

// clusterBudget bounds every request a cluster sends, and so the test that sends them.
const clusterBudget = 2 * time.Minute

// clusterProcAttr is set where the OS can tie a child's life to the test process's
// (cluster_linux_test.go), so no endpoint process outlives a test process that is killed.
var clusterProcAttr *syscall.SysProcAttr

type cluster struct {
	t       *testing.T
	sb      *sandbox.Sandbox
	ctx     context.Context // every request's; its deadline is clusterBudget
	client  *http.Client
	procs   []*clusterProc
	token   string                     // the bearer token of every request (vars["test.token"]), "" for none
	schemas map[string]json.RawMessage // outputSchema by tool, from process 0's tools/list
}

// clusterProc is one endpoint process.
type clusterProc struct {
	url    string // http://127.0.0.1:PORT/mcp
	cmd    *exec.Cmd
	stderr *syncBuffer // its log, shown when the test fails
	exited chan struct{}
	err    error // Wait's result, once exited is closed
}

// newCluster starts the sandbox and n processes of the deployed binary pointed at it, each
// with local.Env(sb), fastRetries, open inbound auth, one confirmation key for all, vars, and
// an address of its own; it returns once every process answers tools/list. Cleanup stops them.
func newCluster(t *testing.T, n int, vars map[string]string) *cluster {
	t.Helper()
	bin := deployedBinary(t)
	sb, err := sandbox.Start(sandbox.Options{ApplyDelay: fastApply})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sb.Close) // registered first, so it runs after every process has stopped
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	all := local.Env(sb)
	for k, v := range fastRetries {
		all[k] = v
	}
	// Outside Lambda the binary already defaults to MINDVAULT_AUTH=none; set it so a change of
	// that default cannot turn every cluster request into a 401. Without a shared key each
	// process would generate its own, and a requestState one issued would not verify in another
	// (under Lambda there would be no confirmation at all).
	all["MINDVAULT_AUTH"] = "none"
	all["MINDVAULT_PAUSE_FILE"] = filepath.Join(t.TempDir(), "spending-pause.json") // not the developer's
	all["MINDVAULT_CONFIRM_KEY"] = base64.StdEncoding.EncodeToString(key)
	for k, v := range vars {
		all[k] = v
	}
	token := all["test.token"]
	delete(all, "test.token")
	// Nothing of the test process's own environment: a MINDVAULT_* or AWS_LAMBDA_RUNTIME_API
	// set in the developer's shell must not change what the processes are.
	var env []string
	for k, v := range all {
		env = append(env, k+"="+v)
	}
	ctx, cancel := context.WithTimeout(context.Background(), clusterBudget)
	c := &cluster{t: t, sb: sb, ctx: ctx, schemas: map[string]json.RawMessage{}, token: token,
		client: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}}
	t.Cleanup(func() { cancel(); c.client.CloseIdleConnections() })
	for i := 0; i < n; i++ {
		c.spawn(i, bin, env)
	}
	for i := range c.procs {
		c.await(i)
	}
	return c
}

// handedOut are the addresses freeAddr gave: the kernel hands a port that was just closed to
// the next listener on :0 again, so two processes started back to back (or by tests running in
// parallel) could be given the same one before either bound it.
var (
	handedOutMu sync.Mutex
	handedOut   = map[string]bool{}
)

// freeAddr is a loopback address no listener holds now and no earlier call returned.
func freeAddr(t *testing.T) string {
	t.Helper()
	handedOutMu.Lock()
	defer handedOutMu.Unlock()
	for range 100 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		l.Close() // the process binds it right away
		if !handedOut[addr] {
			handedOut[addr] = true
			return addr
		}
	}
	t.Fatal("no fresh loopback port in 100 tries")
	return ""
}

// spawn starts process i. It stops on SIGTERM when the test's cleanup cancels its context, is
// killed if it has not after a grace of 3 s, and (on Linux) is killed when the test process dies.
func (c *cluster) spawn(i int, bin string, env []string) {
	t := c.t
	t.Helper()
	addr := freeAddr(t)
	pctx, stop := context.WithCancel(context.Background())
	p := &clusterProc{url: "http://" + addr + "/mcp", stderr: &syncBuffer{}, exited: make(chan struct{})}
	p.cmd = exec.CommandContext(pctx, bin)
	p.cmd.Env = append(env, "MINDVAULT_ADDR="+addr)
	p.cmd.Stderr = p.stderr
	p.cmd.SysProcAttr = clusterProcAttr
	p.cmd.Cancel = func() error { return p.cmd.Process.Signal(syscall.SIGTERM) } // Serve drains, then exits
	p.cmd.WaitDelay = 3 * time.Second                                            // then it is killed
	if err := p.cmd.Start(); err != nil {
		stop()
		t.Fatalf("process %d: %v", i, err)
	}
	go func() { p.err = p.cmd.Wait(); close(p.exited) }()
	c.procs = append(c.procs, p)
	t.Cleanup(func() {
		select {
		case <-p.exited:
			t.Errorf("process %d exited during the test: %v", i, p.err)
		default:
		}
		stop()
		<-p.exited
		if t.Failed() {
			t.Logf("process %d (%s) stderr:\n%s", i, addr, tail(p.stderr.String(), 6000))
		}
	})
}

// await waits, for at most 30 s, until process i answers tools/list.
func (c *cluster) await(i int) {
	c.t.Helper()
	p := c.procs[i]
	deadline := time.Now().Add(30 * time.Second)
	for {
		select {
		case <-p.exited:
			c.t.Fatalf("process %d exited before it answered: %v\n%s", i, p.err, tail(p.stderr.String(), 2000))
		default:
		}
		status, raw, err := c.post(i, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
		if err == nil && status == http.StatusOK {
			var list struct {
				Result struct {
					Tools []struct {
						Name         string          `json:"name"`
						OutputSchema json.RawMessage `json:"outputSchema"`
					} `json:"tools"`
				} `json:"result"`
			}
			if err := json.Unmarshal([]byte(raw), &list); err != nil || len(list.Result.Tools) == 0 {
				c.t.Fatalf("process %d: tools/list: %v: %s", i, err, raw)
			}
			for _, tl := range list.Result.Tools {
				c.schemas[tl.Name] = tl.OutputSchema
			}
			return
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("process %d did not answer tools/list within 30 s: HTTP %d %v %s\n%s", i, status, err, raw, tail(p.stderr.String(), 2000))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// post sends body to process i (modulo the number of processes) with the headers of its era
// (mcpRequest) and returns the HTTP status and body. It is safe from any goroutine.
func (c *cluster) post(i int, body string) (int, string, error) {
	resp, err := c.client.Do(mcpRequest(c.ctx, c.procs[i%len(c.procs)].url, body, c.token))
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), err
}

// rpc sends the JSON-RPC request body (either era: see mcpRequest) to process i, decodes the
// answer into out unless out is nil and returns it. No answer or one other than HTTP 200 is a
// t.Errorf (never FailNow), so it is safe from any goroutine.
func (c *cluster) rpc(i int, body string, out any) string {
	status, raw, err := c.post(i, body)
	if err == nil && status != http.StatusOK {
		err = fmt.Errorf("HTTP %d", status)
	}
	if err == nil && out != nil {
		err = json.Unmarshal([]byte(raw), out)
	}
	if err != nil {
		c.t.Errorf("process %d: %v: %s", i%len(c.procs), err, raw)
	}
	return raw
}

// call sends a legacy-era tools/call of tool with args ("" for none) to process i (modulo the
// number of processes, so c.all's k can be passed as it is). A call without a tool result (no
// answer, a JSON-RPC error) is a t.Errorf and an empty result whose raw says what came back;
// so it is safe from any goroutine.
func (c *cluster) call(i int, tool, args string) result {
	var resp struct {
		Result result `json:"result"`
		Error  any    `json:"error"`
	}
	raw := c.rpc(i, callBody(tool, args), &resp)
	if resp.Error != nil {
		c.t.Errorf("process %d, %s: JSON-RPC error %v", i%len(c.procs), tool, resp.Error)
		return result{raw: raw}
	}
	resp.Result.raw = raw
	return resp.Result
}

// modern sends a 2026-07-28 tools/call to process i (modulo the number of processes), as
// env.modern does: caps are the client capabilities (capsForm lets the endpoint ask), round2,
// when set, the requestState and inputResponses (answer(state, accept)). No answer is a
// t.Errorf, so it is safe from any goroutine; the answer is decoded whatever its status.
func (c *cluster) modern(i int, tool, args, caps, round2 string) modernAnswer {
	status, raw, err := c.post(i, modernBody(tool, args, caps, round2))
	a, derr := decodeModern(status, raw)
	if err == nil {
		err = derr
	}
	if err != nil {
		c.t.Errorf("process %d, %s: %v", i%len(c.procs), tool, err)
	}
	return a
}

// asked asserts that a (a round 1 on any process) asks for the user's confirmation and returns
// the requestState to echo in round 2, on this process or another. Test goroutine only.
func (c *cluster) asked(a modernAnswer) (state, message string) {
	c.t.Helper()
	return askedFor(c.t, a)
}

// ok asserts a success conforming to the tool's outputSchema and returns it decoded, as env.ok
// does. Test goroutine only: check the results of c.all after it returns.
func (c *cluster) ok(tool string, r result) map[string]any {
	c.t.Helper()
	return okResult(c.t, c.schemas, tool, r)
}

// all sends n calls at once and returns their results in order: f(k) is call k (typically
// c.call(k, ...), which sends it to process k % len(procs)). See atOnce.
func (c *cluster) all(n int, f func(k int) result) []result {
	return atOnce(n, f)
}

// atOnce runs f(0), ..., f(n-1) each on a goroutine of its own, released together by a barrier
// once every one is running, so the calls overlap in the processes instead of queueing in the
// test, and returns what they returned in order. For calls whose answer is not a result, such
// as c.modern round 2s: atOnce(n, func(k int) modernAnswer { ... }).
func atOnce[T any](n int, f func(k int) T) []T {
	out := make([]T, n)
	var ready, done sync.WaitGroup
	start := make(chan struct{})
	ready.Add(n)
	done.Add(n)
	for k := range n {
		go func() {
			defer done.Done()
			ready.Done()
			<-start
			out[k] = f(k)
		}()
	}
	ready.Wait()
	close(start)
	done.Wait()
	return out
}

// deployed is the deployed binary, built once per test binary run and removed by TestMain.
var deployed struct {
	once      sync.Once
	dir, path string
	err       error
}

// deployedBinary builds ./functions/mcp with the plain `go build` of `make run`, not the
// Lambda flags: the tags only trim the binary and the RPC runtime, which the HTTP mode does
// not use, and the plain build reuses what the build cache holds from compiling this test.
func deployedBinary(t *testing.T) string {
	t.Helper()
	deployed.once.Do(buildDeployed)
	if deployed.err != nil {
		t.Fatal(deployed.err)
	}
	return deployed.path
}

func buildDeployed() {
	deployed.dir, deployed.err = os.MkdirTemp("", "mindvault-cluster-")
	if deployed.err != nil {
		return
	}
	deployed.path = filepath.Join(deployed.dir, "mcp")
	if runtime.GOOS == "windows" {
		deployed.path += ".exe"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	// go test puts its own toolchain's bin first on PATH, so this is the same go.
	out, err := exec.CommandContext(ctx, "go", "build", "-o", deployed.path, "github.com/mindvault/mcp-endpoint/functions/mcp").CombinedOutput()
	if err != nil {
		deployed.err = fmt.Errorf("go build ./functions/mcp: %v\n%s", err, out)
	}
}

func TestMain(m *testing.M) {
	flag.Parse()
	// A run of the whole package starts building the deployed binary at once, so that the
	// build (seconds of linking) overlaps the in-process tests instead of holding up the first
	// cluster test; a run narrowed with -run builds it only when a cluster test asks.
	if f := flag.Lookup("test.run"); f != nil && f.Value.String() == "" {
		go deployed.once.Do(buildDeployed)
	}
	code := m.Run()
	deployed.once.Do(func() {}) // waits for a build still under way
	ledgertest.Stop()
	if deployed.dir != "" {
		os.RemoveAll(deployed.dir)
	}
	os.Exit(code)
}

// tail is the end of s, at most n bytes.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

// TestClusterSharesOnlyTheSandbox: two processes of the deployed binary answer on their own
// and share state only through the sandbox: a purchase made through one is in the purchase
// history the other reads from the API, and a confirmation one asked for (its requestState
// signed with the cluster's one key) is accepted by the other and pays once.
func TestClusterSharesOnlyTheSandbox(t *testing.T) {
	// Long and self-contained: harness_test.go, "Which tests run in parallel".
	t.Parallel()
	c := newCluster(t, 2, nil)

	// A free read on each process, then four at once, spread over both.
	for i := range c.procs {
		c.ok("mindvault_browse", c.call(i, "mindvault_browse", ""))
	}
	for _, r := range c.all(4, func(k int) result { return c.call(k, "mindvault_browse", "") }) {
		c.ok("mindvault_browse", r)
	}
	for i, p := range c.procs {
		// A process writes its request's log line after the answer has gone, and the pipe
		// carries it a moment later: wait for it, boundedly.
		n := 0
		for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			if n = strings.Count(p.stderr.String(), `"tool":"mindvault_browse"`); n >= 3 || time.Now().After(deadline) {
				break
			}
		}
		if n < 3 {
			t.Errorf("process %d logged %d browse calls, want its 3", i, n)
		}
	}
	if n := c.sb.PaidRequests("*"); n != 0 {
		t.Fatalf("free reads paid %d requests", n)
	}

	// Bought through process 0, read through process 1: the API attributes no x402 v2 payment
	// (as the real server), and these processes share no ledger, so process 1 knows nothing of
	// it and says that this proves nothing; a deployment shares its journal (journal_cluster_test.go).
	c.sb.ResetCounts()
	c.ok("mindvault_buy", c.call(0, "mindvault_buy", `{"resourceId":"datasetcard","allowRepeat":true}`))
	if n := c.sb.PaidRequests("GET /resources/datasetcard"); n != 1 {
		t.Fatalf("the seller received %d paid requests, want 1", n)
	}
	hist := c.ok("mindvault_purchase_history", c.call(1, "mindvault_purchase_history", `{"resourceId":"datasetcard"}`))
	if hist["count"] != 0.0 || !strings.Contains(hist["message"].(string), "does not prove the wallet never paid") {
		t.Fatalf("process 1's history %v", hist)
	}

	// Round 1 on process 0, round 2 on process 1: the requestState verifies with the shared key.
	c.sb.ResetCounts()
	args := `{"resourceId":"rustguide","allowRepeat":true}`
	state, _ := c.asked(c.modern(0, "mindvault_buy", args, capsForm, ""))
	if n := c.sb.PaidRequests("*"); n != 0 {
		t.Fatalf("round 1 paid %d requests", n)
	}
	c.ok("mindvault_buy", c.modern(1, "mindvault_buy", args, capsForm, answer(state, accept)).call)
	if n := c.sb.PaidRequests("GET /resources/rustguide"); n != 1 {
		t.Fatalf("the seller received %d paid requests after round 2, want 1", n)
	}
}
