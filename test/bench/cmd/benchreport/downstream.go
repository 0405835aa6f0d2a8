package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/mindvault/mcp-endpoint/internal/clients/mindvault"
	"github.com/mindvault/mcp-endpoint/internal/server"
	"github.com/mindvault/mcp-endpoint/internal/server/local"
	"github.com/mindvault/mcp-endpoint/test/bench"
)

// toolTrip is the downstream requests one tools/call made, counted by the sandbox.
type toolTrip struct {
	tool, args   string
	minimum      int
	first, again tripCount // the process's first call of the tool, and a repeat
	failure      string    // isError text, if the call failed
}

type tripCount struct{ api, horizon, rpc int }

func (c tripCount) total() int { return c.api + c.horizon + c.rpc }

// parTiming compares a tool whose downstream calls run in parallel with the same calls run
// one at a time.
type parTiming struct {
	tool, latency string
	shipped       time.Duration   // median wall time of the tool call as shipped (parallel)
	alone         []time.Duration // median of each downstream call run alone
	names         []string
	sequential    time.Duration // median of the calls back to back
	n             int
}

func (p parTiming) slowest() time.Duration {
	var s time.Duration
	for _, d := range p.alone {
		s = max(s, d)
	}
	return s
}

func (p parTiming) sumAlone() time.Duration {
	var s time.Duration
	for _, d := range p.alone {
		s += d
	}
	return s
}

type downResult struct {
	trips   []toolTrip
	timings []parTiming
}

// downstream boots the endpoint on the sandbox and measures round trips and parallelism.
func downstream() (*downResult, error) {
	b := local.Boot(bench.SandboxEnv(nil), io.Discard, false)
	defer b.Close()
	if b.Err != nil {
		return nil, fmt.Errorf("boot: %w", b.Err)
	}
	sb := b.Sandbox
	okTx, _ := sb.Transactions()
	res := &downResult{}
	for _, t := range []toolTrip{
		{tool: "mindvault_network_profile", args: `{}`, minimum: 0},
		{tool: "mindvault_preview", args: `{"resourceId":"rustguide"}`, minimum: 1},
		{tool: "mindvault_browse", args: `{}`, minimum: 1},
		{tool: "mindvault_wallet_info", args: `{}`, minimum: 1},
		{tool: "mindvault_tx_status", args: `{"txHash":"` + okTx + `"}`, minimum: 1},
		// API catalog; Horizon account read and root; RPC getHealth, getNetwork and the
		// registry_info simulation (the sponsor probe is not counted here).
		{tool: "mindvault_health", args: `{}`, minimum: 6},
		{tool: "mindvault_publish_status", args: `{"resourceId":"rustguide"}`, minimum: 2},
	} {
		count := func() (tripCount, error) {
			sb.ResetCounts()
			r, err := bench.CallTool(b.Handler, t.tool, t.args)
			if err != nil {
				return tripCount{}, err
			}
			if r.IsError && t.failure == "" {
				t.failure = "isError"
				if len(r.Content) > 0 {
					t.failure = bench.Trim(r.Content[0].Text, 160)
				}
			}
			return tripCount{sb.Count("api", "*"), sb.Count("horizon", "*"), sb.Count("rpc", "*")}, nil
		}
		var err error
		if t.first, err = count(); err != nil {
			return nil, err
		}
		if t.again, err = count(); err != nil {
			return nil, err
		}
		res.trips = append(res.trips, t)
	}

	ctx := context.Background()
	d := b.Deps
	healthChecks := []namedCall{
		{"API ping", func() error { _, err := d.API.Catalog(ctx, mindvault.CatalogQuery{Limit: 1}); return err }},
		{"Horizon root", func() error { _, err := d.Horizon.Root(ctx); return err }},
		{"RPC getHealth", func() error { _, err := d.RPC.GetHealth(ctx); return err }},
		{"RPC getNetwork", func() error { _, err := d.RPC.GetNetwork(ctx); return err }},
	}
	publishChecks := []namedCall{
		{"API meta", func() error { _, err := d.API.Meta(ctx, "rustguide"); return err }},
		{"API verification", func() error { _, err := d.API.Verification(ctx, "rustguide"); return err }},
	}
	const delay = 20 * time.Millisecond
	for _, lat := range []struct {
		name   string
		faults string
		n      int
	}{
		{"loopback", "", 30},
		{fmt.Sprintf("+%s per downstream request (sandbox delay fault)", delay),
			fmt.Sprintf("service=api,kind=delay,delay=%s; service=horizon,kind=delay,delay=%s; service=rpc,kind=delay,delay=%s", delay, delay, delay), 10},
	} {
		if err := sb.SetFaults(lat.faults); err != nil {
			return nil, err
		}
		for _, tc := range []struct {
			tool, args string
			calls      []namedCall
		}{
			{"mindvault_health", `{}`, healthChecks},
			{"mindvault_publish_status", `{"resourceId":"rustguide"}`, publishChecks},
		} {
			pt, err := timeParallel(b.Booted, tc.tool, tc.args, tc.calls, lat.n)
			if err != nil {
				return nil, fmt.Errorf("%s (%s): %w", tc.tool, lat.name, err)
			}
			pt.latency = lat.name
			res.timings = append(res.timings, pt)
		}
	}
	if err := sb.SetFaults(""); err != nil {
		return nil, err
	}
	return res, nil
}

type namedCall struct {
	name string
	fn   func() error
}

// timeParallel measures, n times each (after one warm-up), the tool as shipped, each of its
// downstream calls alone, and the calls back to back; it reports medians.
func timeParallel(b *server.Booted, tool, args string, calls []namedCall, n int) (parTiming, error) {
	pt := parTiming{tool: tool, n: n}
	timeN := func(fn func() error) (time.Duration, error) {
		if err := fn(); err != nil { // warm-up: connections, caches
			return 0, err
		}
		ds := make([]time.Duration, 0, n)
		for i := 0; i < n; i++ {
			t0 := time.Now()
			if err := fn(); err != nil {
				return 0, err
			}
			ds = append(ds, time.Since(t0))
		}
		return bench.Percentile(ds, 50), nil
	}
	var err error
	pt.shipped, err = timeN(func() error {
		r, err := bench.CallTool(b.Handler, tool, args)
		if err == nil && r.IsError {
			err = errors.New("isError result")
		}
		return err
	})
	if err != nil {
		return pt, err
	}
	for _, c := range calls {
		d, err := timeN(c.fn)
		if err != nil {
			return pt, fmt.Errorf("%s alone: %w", c.name, err)
		}
		pt.alone = append(pt.alone, d)
		pt.names = append(pt.names, c.name)
	}
	pt.sequential, err = timeN(func() error {
		for _, c := range calls {
			if err := c.fn(); err != nil {
				return err
			}
		}
		return nil
	})
	return pt, err
}
