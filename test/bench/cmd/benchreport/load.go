package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mindvault/mcp-endpoint/internal/sandbox"
	"github.com/mindvault/mcp-endpoint/internal/server/local"
	"github.com/mindvault/mcp-endpoint/test/bench"
)

// loadResult is one bounded load run.
type loadResult struct {
	tool, impl       string
	clients          int
	requests, errors int
	firstErr         string
	elapsed          time.Duration
	p50, p90, p99    time.Duration
	max              time.Duration
	apiPerRequest    float64 // sandbox API requests per request (preview only)
	limit            string  // which bound ended the run
}

func (l loadResult) rps() float64 {
	if l.elapsed <= 0 {
		return 0
	}
	return float64(l.requests) / l.elapsed.Seconds()
}

// peakRSS is a server process's peak resident set (VmHWM) after all its load runs.
type peakRSS struct {
	impl  string
	bytes int64
}

// loadCase is one request of the loopback load and what a correct answer to it looks like.
type loadCase struct {
	tool, body string
	cheap      func([]byte) error // on every answer
	full       func([]byte) error // on every 50th
}

var loadCases = []loadCase{
	{"tools/list", bench.BodyToolsList, wantResult, checkListBody},
	{"validation failure", bench.BodyValidation, wantFailure, checkBody(func(r *bench.Response) error {
		if r.Error != nil && r.Error.Code != -32602 {
			return fmt.Errorf("JSON-RPC error %d", r.Error.Code)
		}
		return nil
	})},
	{"unknown tool", bench.BodyUnknownTool, wantFailure, checkBody(bench.CheckUnknownTool)},
	{"mindvault_preview", bench.BodyPreview, wantResult, checkPreviewBody},
}

// loadImpls are the servers each case is driven against, in this order.
var loadImpls = []string{"ours", "gosdk", "gosdk-raw", "null"}

// loads starts the sandbox in this process and three servers as processes of their own on
// 127.0.0.1 — the endpoint (the host Lambda binary in its local HTTP mode, pointed at the
// sandbox as `make sandbox` would), the Go SDK peer, and the null handler (one process per
// case, answering the endpoint's bytes for it) — drives each case against each with a bounded
// closed loop, and reads each server's peak RSS at the end.
func loads(o options, dir string, clients int, dur time.Duration, maxReq int) ([]loadResult, []peakRSS, error) {
	sb, err := sandbox.Start(sandbox.Options{})
	if err != nil {
		return nil, nil, err
	}
	defer sb.Close()
	env := []string{"PATH=" + os.Getenv("PATH"), "MINDVAULT_AUTH=none"}
	for k, v := range local.Env(sb) {
		env = append(env, k+"="+v)
	}
	var procs []*serverProc
	defer func() {
		for _, p := range procs {
			p.proc.stop()
		}
	}()
	ours, err := startServer("ours", o.bootstrap, env, dir)
	if err != nil {
		return nil, nil, err
	}
	procs = append(procs, ours)

	// The endpoint's own answers: the peer serves its tool list, the null handlers its bytes.
	answers := map[string]string{}
	for _, c := range loadCases {
		raw, err := post(ours.url, c.body)
		if err == nil {
			err = c.cheap(raw)
		}
		if err == nil {
			err = c.full(raw)
		}
		if err != nil {
			return nil, nil, fmt.Errorf("ours, %s: %w", c.tool, err)
		}
		path := filepath.Join(dir, "answer-"+strings.ReplaceAll(c.tool, "/", "-")+".json")
		if err := os.WriteFile(path, raw, 0o600); err != nil {
			return nil, nil, err
		}
		answers[c.tool] = path
	}
	peer, err := startServer("gosdk", o.peer, []string{"PATH=" + os.Getenv("PATH"), "PEER_TOOLS=" + answers["tools/list"], "PEER_API_URL=" + sb.APIURL}, dir)
	if err != nil {
		return nil, nil, err
	}
	procs = append(procs, peer)
	rawPeer, err := startServer("gosdk-raw", o.peer, []string{"PATH=" + os.Getenv("PATH"), "PEER_TOOLS=" + answers["tools/list"], "PEER_API_URL=" + sb.APIURL, "PEER_RAW=1"}, dir)
	if err != nil {
		return nil, nil, err
	}
	procs = append(procs, rawPeer)
	nulls := map[string]*serverProc{}
	for _, c := range loadCases {
		n, err := startServer("null", o.null, []string{"PATH=" + os.Getenv("PATH"), "NULL_RESPONSE=" + answers[c.tool]}, dir)
		if err != nil {
			return nil, nil, err
		}
		procs = append(procs, n)
		nulls[c.tool] = n
	}

	var out []loadResult
	for _, c := range loadCases {
		for _, impl := range loadImpls {
			srv := map[string]*serverProc{"ours": ours, "gosdk": peer, "gosdk-raw": rawPeer, "null": nulls[c.tool]}[impl]
			sb.ResetCounts()
			r := drive(srv.url, c, clients, dur, maxReq)
			r.tool, r.impl = c.tool, impl
			if c.tool == "mindvault_preview" && r.requests > 0 && impl != "null" {
				// warm-up requests hit the sandbox too
				r.apiPerRequest = float64(sb.Count(sandbox.ServiceAPI, "*")) / float64(r.requests+warmup)
			}
			logf("load %s/%s: %d requests in %s, %.0f req/s, p50 %s ms, p99 %s ms, %d errors",
				r.tool, r.impl, r.requests, r.elapsed.Round(time.Millisecond), r.rps(), bench.Ms(r.p50), bench.Ms(r.p99), r.errors)
			out = append(out, r)
		}
	}
	var rss []peakRSS
	for _, s := range []*serverProc{ours, peer, rawPeer, nulls["tools/list"]} {
		if n, err := vmHWM(s.proc.cmd.Process.Pid); err == nil {
			name := s.impl
			if s == nulls["tools/list"] {
				name = "null (its tools/list process)"
			}
			rss = append(rss, peakRSS{impl: name, bytes: n})
		} else {
			logf("peak RSS of %s: %v", s.impl, err)
		}
	}
	return out, rss, nil
}

// serverProc is a started server process and its endpoint URL.
type serverProc struct {
	impl string
	proc *proc
	url  string
}

func startServer(impl, bin string, env []string, dir string) (*serverProc, error) {
	if bin == "" {
		return nil, fmt.Errorf("no binary for %s", impl)
	}
	abs, _ := filepath.Abs(bin)
	addr, err := freePort()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(abs)
	cmd.Dir = dir
	cmd.Env = append(env, "MINDVAULT_ADDR="+addr)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = io.Discard, &limited{w: &stderr, n: 4096}
	p, err := start(cmd)
	if err != nil {
		return nil, err
	}
	s := &serverProc{impl: impl, proc: p, url: "http://" + addr + "/mcp"}
	if _, err := awaitAnswer(s.url, p.exited, 10*time.Second, nil); err != nil {
		p.stop()
		return nil, fmt.Errorf("%s did not start: %w (%s)", impl, err, bench.Trim(stderr.String(), 300))
	}
	return s, nil
}

// limited keeps the first n bytes written to it (a server's start-up errors) and drops the
// rest, such as the endpoint's request log.
type limited struct {
	mu sync.Mutex
	w  *bytes.Buffer
	n  int
}

func (l *limited) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if room := l.n - l.w.Len(); room > 0 {
		l.w.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

// vmHWM reads a process's peak resident set size from /proc.
func vmHWM(pid int) (int64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb * 1024, err
		}
	}
	return 0, errors.New("no VmHWM line")
}

func post(url, body string) ([]byte, error) {
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	bench.SetHeaders(req.Header)
	resp, err := noProxy.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("HTTP %d: %s", resp.StatusCode, bench.Trim(string(raw), 200))
	}
	return raw, nil
}

const warmup = 200

// drive runs `clients` closed-loop clients until dur has passed or maxReq requests were sent.
func drive(url string, c loadCase, clients int, dur time.Duration, maxReq int) loadResult {
	tr := &http.Transport{Proxy: nil, MaxIdleConns: clients * 2, MaxIdleConnsPerHost: clients * 2, IdleConnTimeout: 30 * time.Second}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	res := loadResult{clients: clients}
	var mu sync.Mutex
	fail := func(err error) {
		mu.Lock()
		defer mu.Unlock()
		res.errors++
		if res.firstErr == "" {
			res.firstErr = err.Error()
		}
	}
	one := func(full bool) (time.Duration, error) {
		req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(c.body))
		if err != nil {
			return 0, err
		}
		bench.SetHeaders(req.Header)
		t0 := time.Now()
		resp, err := hc.Do(req)
		if err != nil {
			return 0, err
		}
		raw, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		d := time.Since(t0)
		if err != nil {
			return d, err
		}
		if resp.StatusCode != http.StatusOK {
			return d, fmt.Errorf("HTTP %d: %s", resp.StatusCode, bench.Trim(string(raw), 200))
		}
		if err := c.cheap(raw); err != nil {
			return d, err
		}
		if full {
			if err := c.full(raw); err != nil {
				return d, err
			}
		}
		return d, nil
	}
	for i := 0; i < warmup; i++ {
		if _, err := one(true); err != nil {
			fail(fmt.Errorf("warm-up: %w", err))
			return res
		}
	}

	var sent atomic.Int64
	deadline := time.Now().Add(dur)
	lat := make([][]time.Duration, clients)
	var wg sync.WaitGroup
	start := time.Now()
	for w := 0; w < clients; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mine := make([]time.Duration, 0, maxReq/clients+1)
			for time.Now().Before(deadline) {
				n := sent.Add(1)
				if n > int64(maxReq) {
					break
				}
				d, err := one(n%50 == 0)
				if err != nil {
					fail(err)
					continue
				}
				mine = append(mine, d)
			}
			lat[w] = mine
		}()
	}
	wg.Wait()
	res.elapsed = time.Since(start)
	var all []time.Duration
	for _, l := range lat {
		all = append(all, l...)
	}
	res.requests = len(all) + res.errors
	res.limit = "time"
	if sent.Load() > int64(maxReq) {
		res.limit = "count"
	}
	res.p50 = bench.Percentile(all, 50)
	res.p90 = bench.Percentile(all, 90)
	res.p99 = bench.Percentile(all, 99)
	if len(all) > 0 {
		res.max = all[len(all)-1] // Percentile sorted it
	}
	return res
}

// wantResult is the cheap check of a successful call: a result that is not isError.
func wantResult(raw []byte) error {
	if !bytes.Contains(raw, []byte(`"result":`)) || bytes.Contains(raw, []byte(`"isError":true`)) {
		return fmt.Errorf("not a successful result: %s", bench.Trim(string(raw), 200))
	}
	return nil
}

// wantFailure is the cheap check of a refused call: a JSON-RPC error or an isError result.
func wantFailure(raw []byte) error {
	if !bytes.Contains(raw, []byte(`"error":`)) && !bytes.Contains(raw, []byte(`"isError":true`)) {
		return fmt.Errorf("not a failure: %s", bench.Trim(string(raw), 200))
	}
	return nil
}

func checkBody(check func(*bench.Response) error) func([]byte) error {
	return func(raw []byte) error {
		r, err := bench.DecodeResponse(http.StatusOK, raw)
		if err != nil {
			return err
		}
		return check(r)
	}
}

func checkListBody(raw []byte) error {
	var r struct {
		Result struct {
			Tools []struct {
				Name string `json:"name"`
			} `json:"tools"`
		} `json:"result"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return err
	}
	for _, t := range r.Result.Tools {
		if t.Name == "mindvault_preview" {
			return nil
		}
	}
	return errors.New("tools/list without mindvault_preview")
}

func checkPreviewBody(raw []byte) error {
	var r struct {
		Result struct {
			IsError    bool `json:"isError"`
			Structured struct {
				ID string `json:"id"`
			} `json:"structuredContent"`
		} `json:"result"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return err
	}
	if r.Result.IsError || r.Result.Structured.ID != "rustguide" {
		return fmt.Errorf("not the rustguide preview: %s", bench.Trim(string(raw), 200))
	}
	return nil
}
