package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mindvault/mcp-endpoint/bench"
	"github.com/mindvault/mcp-endpoint/local"
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

func (l loadResult) rps() float64 { return float64(l.requests) / l.elapsed.Seconds() }

// loads serves our handler and the Go SDK peer on 127.0.0.1 (httptest) and drives each with
// a bounded closed loop for tools/list and for preview.
func loads(clients int, dur time.Duration, maxReq int) ([]loadResult, error) {
	b := local.Boot(bench.SandboxEnv(nil), io.Discard)
	defer b.Close()
	if b.Err != nil {
		return nil, fmt.Errorf("boot: %w", b.Err)
	}
	tools, err := bench.ListTools(b.Handler)
	if err != nil {
		return nil, err
	}
	peer, err := bench.NewPeer(tools, b.Sandbox.APIURL, bench.PeerHTTPClient())
	if err != nil {
		return nil, err
	}
	var out []loadResult
	for _, c := range []struct {
		tool, body string
		check      func([]byte) error
	}{
		{"tools/list", bench.BodyToolsList, checkListBody},
		{"mindvault_preview", bench.BodyPreview, checkPreviewBody},
	} {
		for _, impl := range []struct {
			name string
			h    http.Handler
		}{{"ours", b.Handler}, {"gosdk", peer}} {
			srv := httptest.NewServer(impl.h) // 127.0.0.1:0
			b.Sandbox.ResetCounts()
			r := drive(srv.URL+"/mcp", c.body, c.check, clients, dur, maxReq)
			srv.Close()
			r.tool, r.impl = c.tool, impl.name
			if c.tool == "mindvault_preview" && r.requests > 0 {
				// warm-up requests hit the sandbox too
				r.apiPerRequest = float64(b.Sandbox.Count("api", "*")) / float64(r.requests+warmup)
			}
			logf("load %s/%s: %d requests in %s, %.0f req/s, p50 %s ms, p99 %s ms, %d errors",
				r.tool, r.impl, r.requests, r.elapsed.Round(time.Millisecond), r.rps(), bench.Ms(r.p50), bench.Ms(r.p99), r.errors)
			out = append(out, r)
		}
	}
	return out, nil
}

const warmup = 200

// drive runs `clients` closed-loop clients until dur has passed or maxReq requests were sent.
func drive(url, body string, check func([]byte) error, clients int, dur time.Duration, maxReq int) loadResult {
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
		req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
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
		// Every answer gets the cheap check; every 50th the full decode.
		if !bytes.Contains(raw, []byte(`"result":`)) || bytes.Contains(raw, []byte(`"isError":true`)) {
			return d, fmt.Errorf("not a successful result: %s", bench.Trim(string(raw), 200))
		}
		if full {
			if err := check(raw); err != nil {
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
