package sandbox

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"sync"
	"testing"
	"time"
)

// clock is a settable Options.Now so ledger numbers are exact in tests.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }

func (c *clock) advance(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

// start runs a sandbox with a fixed clock for the test and closes it afterwards.
func start(t *testing.T, faults string) (*Sandbox, *clock) {
	t.Helper()
	c := &clock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	sb, err := Start(Options{Faults: faults, Now: c.now, Logf: t.Logf})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(sb.Close)
	return sb, c
}

// freshClient never reuses a connection, so a dropped connection is seen exactly once.
func freshClient(timeout time.Duration) *http.Client {
	return &http.Client{Timeout: timeout, Transport: &http.Transport{DisableKeepAlives: true}}
}

type reply struct {
	status int
	header http.Header
	body   []byte
}

func do(t *testing.T, method, url string, body []byte, header map[string]string) reply {
	t.Helper()
	req, err := http.NewRequest(method, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := freshClient(5 * time.Second).Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return reply{resp.StatusCode, resp.Header, b}
}

func get(t *testing.T, url string) reply { t.Helper(); return do(t, http.MethodGet, url, nil, nil) }

// rpcBody is one JSON-RPC request with id 1.
func rpcBody(method string, params any) []byte {
	req := map[string]any{"jsonrpc": "2.0", "id": 1, "method": method}
	if params != nil {
		req["params"] = params
	}
	b, _ := json.Marshal(req)
	return b
}

func rpcPost(t *testing.T, sb *Sandbox, body []byte) reply {
	t.Helper()
	return do(t, http.MethodPost, sb.RPCURL, body, map[string]string{"Content-Type": "application/json"})
}

// rpcResult calls a method and decodes its result into out, failing on an error object.
func rpcResult(t *testing.T, sb *Sandbox, method string, params, out any) {
	t.Helper()
	r := rpcPost(t, sb, rpcBody(method, params))
	var env struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      int             `json:"id"`
		Result  json.RawMessage `json:"result"`
		Error   *rpcError       `json:"error"`
	}
	if r.status != 200 {
		t.Fatalf("%s: HTTP %d %s", method, r.status, r.body)
	}
	if err := json.Unmarshal(r.body, &env); err != nil {
		t.Fatalf("%s: %v in %s", method, err, r.body)
	}
	if env.Error != nil || env.JSONRPC != "2.0" || env.ID != 1 {
		t.Fatalf("%s: unexpected envelope %s", method, r.body)
	}
	if err := json.Unmarshal(env.Result, out); err != nil {
		t.Fatalf("%s: result does not decode into %T: %v\n%s", method, out, err, env.Result)
	}
}

func mustJSON(t *testing.T, b []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("decode %T: %v in %s", v, err, b)
	}
}
