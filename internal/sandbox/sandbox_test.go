package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stellar/go-stellar-sdk/protocols/horizon"
	protocol "github.com/stellar/go-stellar-sdk/protocols/rpc"
	"github.com/stellar/go-stellar-sdk/support/render/problem"
)

// TestFaultKinds observes every fault kind with a plain http.Client.
func TestFaultKinds(t *testing.T) {
	sb, _ := start(t, "")
	demo := "/accounts/" + sb.Demo.Address
	type req struct {
		service, method, path string
		rpc                   string // JSON-RPC method for service rpc
	}
	api := func(p string) req { return req{service: "api", method: "GET", path: p} }
	hz := func(p string) req { return req{service: "horizon", method: "GET", path: p} }
	rpc := func(m string) req { return req{service: "rpc", method: "POST", path: "/", rpc: m} }
	tests := []struct {
		name  string
		plan  string
		req   req
		check func(t *testing.T, r reply)
	}{
		{"api status default body", "service=api,target=GET /resources,kind=status,status=500", api("/resources"), func(t *testing.T, r reply) {
			expect(t, r, 500, `{"error":"Internal server error"}`, "application/json")
		}},
		{"api 429 with retry-after", "service=api,target=GET /resources/*/meta,kind=status,status=429,retry-after=7", api("/resources/rustguide/meta"), func(t *testing.T, r reply) {
			expect(t, r, 429, `{"code":"RATE_LIMITED","error":"Too many requests","retryAfterSeconds":7}`, "application/json")
			if r.header.Get("Retry-After") != "7" {
				t.Errorf("Retry-After %q", r.header.Get("Retry-After"))
			}
		}},
		{"api status custom body", `[{"service":"api","kind":"status","status":409,"body":"{\"error\":\"price_mismatch\",\"message\":\"a, b\"}"}]`, api("/resources"), func(t *testing.T, r reply) {
			expect(t, r, 409, `{"error":"price_mismatch","message":"a, b"}`, "application/json")
		}},
		{"api status plain body", "service=api,kind=status,status=502,body=upstream down", api("/agent/status"), func(t *testing.T, r reply) {
			expect(t, r, 502, "upstream down", "text/plain")
		}},
		{"api html", "service=api,kind=html,status=502", api("/resources"), func(t *testing.T, r reply) {
			expect(t, r, 502, "", "text/html")
			if !strings.Contains(string(r.body), "<title>502 Bad Gateway</title>") {
				t.Errorf("body %s", r.body)
			}
		}},
		{"api empty", "service=api,kind=empty,status=504", api("/resources"), func(t *testing.T, r reply) {
			expect(t, r, 504, "", "")
		}},
		{"api malformed catalog", "service=api,target=GET /resources,kind=malformed", api("/resources"), func(t *testing.T, r reply) {
			var rows []catalogRow
			if r.status != 200 || json.Unmarshal(r.body, &rows) == nil || !json.Valid(r.body) {
				t.Errorf("want valid JSON that is not an array: %d %s", r.status, r.body)
			}
		}},
		{"api malformed meta", "service=api,target=GET /resources/*/meta,kind=malformed", api("/resources/rustguide/meta"), func(t *testing.T, r reply) {
			var m metaBody
			if r.status != 200 || json.Unmarshal(r.body, &m) == nil {
				t.Errorf("meta decoded despite the wrong shape: %s", r.body)
			}
		}},
		{"header option", "service=api,kind=status,status=503,header=X-Cache:MISS,header=Via:1.1 proxy", api("/resources"), func(t *testing.T, r reply) {
			if r.status != 503 || r.header.Get("X-Cache") != "MISS" || r.header.Get("Via") != "1.1 proxy" {
				t.Errorf("%d %v", r.status, r.header)
			}
		}},
		{"target misses", "service=api,target=GET /agent/status,kind=status,status=500", api("/resources"), func(t *testing.T, r reply) {
			if r.status != 200 {
				t.Errorf("a rule for another route applied: %d", r.status)
			}
		}},
		{"service misses", "service=horizon,kind=status,status=500", api("/resources"), func(t *testing.T, r reply) {
			if r.status != 200 {
				t.Errorf("a rule for another service applied: %d", r.status)
			}
		}},
		{"horizon 429 problem", "service=horizon,target=GET /accounts/*,kind=status,status=429,retry-after=3", hz(demo), func(t *testing.T, r reply) {
			var p problem.P
			mustJSON(t, r.body, &p)
			if r.status != 429 || p.Type != "https://stellar.org/horizon-errors/rate_limit_exceeded" || r.header.Get("Retry-After") != "3" ||
				r.header.Get("X-RateLimit-Remaining") != "0" || !strings.HasPrefix(r.header.Get("Content-Type"), "application/problem+json") {
				t.Errorf("%d %v %s", r.status, r.header, r.body)
			}
		}},
		{"horizon 504 problem", "service=horizon,kind=status,status=504", hz("/"), func(t *testing.T, r reply) {
			var p problem.P
			mustJSON(t, r.body, &p)
			if r.status != 504 || p.Type != "https://stellar.org/horizon-errors/timeout" || p.Title != "Timeout" {
				t.Errorf("%d %s", r.status, r.body)
			}
		}},
		{"horizon empty 504", "service=horizon,kind=empty,status=504", hz(demo), func(t *testing.T, r reply) {
			expect(t, r, 504, "", "")
			if r.header.Get("X-RateLimit-Limit") == "" {
				t.Error("X-RateLimit-* must be on every Horizon response")
			}
		}},
		{"horizon html", "service=horizon,kind=html,status=429", hz(demo), func(t *testing.T, r reply) {
			expect(t, r, 429, "", "text/html")
		}},
		{"horizon malformed account", "service=horizon,target=GET /accounts/*,kind=malformed", hz(demo), func(t *testing.T, r reply) {
			var a horizon.Account
			if r.status != 200 || json.Unmarshal(r.body, &a) == nil || !strings.Contains(string(r.body), `"balances":"100.0000000"`) ||
				!strings.Contains(string(r.body), sb.Demo.Address) {
				t.Errorf("account decoded despite a string balances field: %s", r.body)
			}
		}},
		{"rpc http 429", "service=rpc,kind=status,status=429,retry-after=1", rpc("getHealth"), func(t *testing.T, r reply) {
			expect(t, r, 429, "429 Too Many Requests\n", "text/plain")
			if r.header.Get("Retry-After") != "1" {
				t.Error("no Retry-After")
			}
		}},
		{"rpc http 503 html", "service=rpc,target=getTransaction,kind=html,status=503", rpc("getTransaction"), func(t *testing.T, r reply) {
			expect(t, r, 503, "", "text/html")
		}},
		{"rpcerror", "service=rpc,target=getLatestLedger,kind=rpcerror,code=-32603,message=data stores are not initialized", rpc("getLatestLedger"), func(t *testing.T, r reply) {
			expect(t, r, 200, `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"data stores are not initialized"}}`, "application/json")
		}},
		{"rpcerror default message", "service=rpc,kind=rpcerror,code=-32001", rpc("getHealth"), func(t *testing.T, r reply) {
			expect(t, r, 200, `{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"request exceeded processing limit threshold"}}`, "application/json")
		}},
		{"rpc malformed result", "service=rpc,target=getTransaction,kind=malformed", rpc("getTransaction"), func(t *testing.T, r reply) {
			var env struct{ Result json.RawMessage }
			mustJSON(t, r.body, &env)
			var g protocol.GetTransactionResponse
			if r.status != 200 || env.Result == nil || json.Unmarshal(env.Result, &g) == nil {
				t.Errorf("result decoded despite the wrong shape: %s", r.body)
			}
		}},
		{"rpc malformed any method", "service=rpc,kind=malformed", rpc("getHealth"), func(t *testing.T, r reply) {
			var env struct{ Result json.RawMessage }
			mustJSON(t, r.body, &env)
			var h protocol.GetHealthResponse
			if json.Unmarshal(env.Result, &h) == nil {
				t.Errorf("getHealth result decoded: %s", r.body)
			}
		}},
		{"delay then normal answer", "service=rpc,target=getNetwork,kind=delay,delay=30ms", rpc("getNetwork"), func(t *testing.T, r reply) {
			if r.status != 200 || !strings.Contains(string(r.body), sb.Passphrase) {
				t.Errorf("%d %s", r.status, r.body)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := sb.SetFaults(tt.plan); err != nil {
				t.Fatal(err)
			}
			var r reply
			switch tt.req.service {
			case "api":
				r = get(t, sb.APIURL+tt.req.path)
			case "horizon":
				r = get(t, sb.HorizonURL+tt.req.path)
			default:
				var params any
				if tt.req.rpc == "getTransaction" {
					params = map[string]string{"hash": strings.Repeat("a", 64)}
				}
				r = rpcPost(t, sb, rpcBody(tt.req.rpc, params))
			}
			tt.check(t, r)
		})
	}
}

// expect checks status, an exact body (unless want is "") and the Content-Type prefix
// ("" = no Content-Type at all).
func expect(t *testing.T, r reply, status int, body, contentType string) {
	t.Helper()
	if r.status != status {
		t.Errorf("status %d, want %d (%s)", r.status, status, r.body)
	}
	if body != "" && string(r.body) != body {
		t.Errorf("body %q, want %q", r.body, body)
	}
	if body == "" && contentType == "" && len(r.body) != 0 {
		t.Errorf("want no body, got %q", r.body)
	}
	ct := r.header.Get("Content-Type")
	if (contentType == "" && ct != "") || !strings.HasPrefix(ct, contentType) {
		t.Errorf("Content-Type %q, want %q", ct, contentType)
	}
}

func TestFaultDelayCutShortByClient(t *testing.T) {
	sb, _ := start(t, "service=horizon,kind=delay,delay=10s")
	client := freshClient(150 * time.Millisecond)
	begin := time.Now()
	_, err := client.Get(sb.HorizonURL + "/")
	var ne net.Error
	if err == nil || !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("want a client timeout, got %v", err)
	}
	if time.Since(begin) > 2*time.Second {
		t.Fatal("the client waited for the whole delay")
	}
	// The handler is freed: Close returns promptly even though the delay was 10 s.
	done := make(chan struct{})
	go func() { sb.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(3 * time.Second):
		t.Fatal("Close blocked on a delayed handler")
	}
}

func TestFaultDropAndCount(t *testing.T) {
	sb, _ := start(t, "service=api,target=GET /resources,kind=drop,count=1;service=rpc,target=getHealth,kind=drop")
	_, err := freshClient(2 * time.Second).Get(sb.APIURL + "/resources")
	if err == nil || !(errors.Is(err, io.EOF) || strings.Contains(err.Error(), "EOF") || strings.Contains(err.Error(), "reset")) {
		t.Fatalf("want a transport error for a dropped connection, got %v", err)
	}
	if r := get(t, sb.APIURL+"/resources"); r.status != 200 {
		t.Fatalf("count=1 spent, want 200: %d", r.status)
	}
	req, _ := http.NewRequest("POST", sb.RPCURL, strings.NewReader(string(rpcBody("getHealth", nil))))
	req.Header.Set("Content-Type", "application/json")
	if _, err := freshClient(2 * time.Second).Do(req); err == nil {
		t.Fatal("rpc drop: want an error")
	}
	if n := sb.Count("api", "GET /resources"); n != 2 {
		t.Errorf("Count counts faulted requests too: %d", n)
	}
	if n := sb.Count("rpc", "getHealth"); n != 1 {
		t.Errorf("rpc count %d", n)
	}
}

func TestFaultCountExhaustionAndOrder(t *testing.T) {
	sb, _ := start(t, "service=api,target=GET /resources/*/meta,kind=status,status=503,count=2;service=api,kind=status,status=500,count=1")
	var got []int
	for range 4 {
		got = append(got, get(t, sb.APIURL+"/resources/rustguide/meta").status)
	}
	if want := []int{503, 503, 500, 200}; !slices.Equal(got, want) {
		t.Fatalf("statuses %v, want %v (first rule twice, then the catch-all once)", got, want)
	}
	// SetFaults replaces the plan with fresh counts; "" clears it.
	if err := sb.SetFaults("service=api,kind=status,status=418,count=1"); err != nil {
		t.Fatal(err)
	}
	if r := get(t, sb.APIURL+"/resources"); r.status != 418 {
		t.Fatalf("after SetFaults: %d", r.status)
	}
	_ = sb.SetFaults("service=api,kind=status,status=500")
	_ = sb.SetFaults("")
	if r := get(t, sb.APIURL+"/resources"); r.status != 200 {
		t.Fatalf("after clearing: %d", r.status)
	}
}

func TestCount(t *testing.T) {
	sb, _ := start(t, "")
	for _, p := range []string{"/resources", "/resources?limit=1", "/resources/rustguide/meta", "/resources/zkprimer/meta", "/agent/status", "/nowhere"} {
		get(t, sb.APIURL+p)
	}
	get(t, sb.HorizonURL+"/accounts/"+sb.Demo.Address)
	var h protocol.GetHealthResponse
	rpcResult(t, sb, "getHealth", nil, &h)
	rpcResult(t, sb, "getHealth", nil, &h)
	tests := []struct {
		service, target string
		want            int
	}{
		{"api", "GET /resources", 2},
		{"api", "GET /resources/*/meta", 2},
		{"api", "get /resources/*/meta", 2},
		{"api", "* /agent/status", 1},
		{"api", "*", 6},
		{"api", "POST /resources", 0},
		{"horizon", "GET /accounts/*", 1},
		{"horizon", "*", 1},
		{"rpc", "getHealth", 2},
		{"rpc", "getNetwork", 0},
		{"rpc", "*", 2},
		{"api", "not a target", 0},
		{"db", "*", 0},
	}
	for _, tt := range tests {
		if got := sb.Count(tt.service, tt.target); got != tt.want {
			t.Errorf("Count(%q, %q) = %d, want %d", tt.service, tt.target, got, tt.want)
		}
	}
	sb.ResetCounts()
	if sb.Count("api", "*") != 0 || sb.Count("rpc", "*") != 0 {
		t.Error("ResetCounts kept counts")
	}
}

func TestListenersLoopbackAndClose(t *testing.T) {
	before := runtime.NumGoroutine()
	sb, err := Start(Options{Faults: "service=api,target=GET /agent/status,kind=delay,delay=10s"})
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range []string{sb.APIURL, sb.HorizonURL, sb.RPCURL, sb.SponsorURL} {
		if !strings.HasPrefix(u, "http://127.0.0.1:") || strings.HasSuffix(u, "/") {
			t.Errorf("URL %q", u)
		}
	}
	// A request stuck in a delay must not outlive Close.
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", sb.APIURL+"/agent/status", nil)
	tr := &http.Transport{}
	if _, err := (&http.Client{Transport: tr}).Do(req); err == nil {
		t.Fatal("delay did not stall")
	}
	tr.CloseIdleConnections()
	sb.Close()
	sb.Close() // idempotent
	for _, u := range []string{sb.APIURL, sb.HorizonURL, sb.RPCURL, sb.SponsorURL} {
		if _, err := freshClient(time.Second).Get(u); err == nil {
			t.Errorf("%s still answers after Close", u)
		}
	}
	deadline := time.Now().Add(3 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		buf := make([]byte, 1<<16)
		t.Fatalf("%d goroutines before, %d after Close:\n%s", before, n, buf[:runtime.Stack(buf, true)])
	}
}

// TestWatch: a watched value is counted wherever a request carries it (a header, the URL), on
// every service, and requests without it are not.
func TestWatch(t *testing.T) {
	sb, _ := start(t, "")
	sb.SetWatch("eyJ-watched-token")
	send := func(url string, h map[string]string) {
		req, _ := http.NewRequest(http.MethodGet, url, nil)
		for k, v := range h {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	send(sb.APIURL+"/resources", nil)
	send(sb.HorizonURL+"/accounts/"+sb.Demo.Address, map[string]string{"X-Other": "harmless"})
	if n := sb.Watched(); n != 0 {
		t.Fatalf("%d requests counted without the value", n)
	}
	send(sb.APIURL+"/resources", map[string]string{"Authorization": "Bearer eyJ-watched-token"})
	send(sb.HorizonURL+"/accounts/"+sb.Demo.Address+"?t=eyJ-watched-token", nil)
	send(sb.SponsorURL+"/", map[string]string{"X-Forwarded-Token": "x eyJ-watched-token"})
	if n := sb.Watched(); n != 3 {
		t.Fatalf("Watched = %d, want 3", n)
	}
}
