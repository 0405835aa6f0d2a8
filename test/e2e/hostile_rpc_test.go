package e2e_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stellar/go-stellar-sdk/xdr"
)

// hostileRPC is a Stellar RPC that forwards every call to the sandbox's and lets a test
// rewrite the answers of one method: the facts a wallet signs by (the latest ledger, the
// simulated auth entries, a write's simulation) then come from a node that lies, which the
// endpoint cannot tell from an honest one. The sandbox starts inside the endpoint's boot (or
// the cluster's start), so the upstream is set after it; SOROBAN_RPC_URL already names this.
type hostileRPC struct {
	URL      string
	upstream atomic.Value // string: the sandbox's RPC URL
	mu       sync.Mutex
	rewrite  map[string]func(req []byte, result map[string]json.RawMessage)
	calls    map[string]int
}

func newHostileRPC(t *testing.T) *hostileRPC {
	t.Helper()
	h := &hostileRPC{rewrite: map[string]func([]byte, map[string]json.RawMessage){}, calls: map[string]int{}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	h.URL = "http://" + ln.Addr().String()
	return h
}

// on rewrites the results of method from now on (nil: passed on unchanged); f sees the request.
func (h *hostileRPC) on(method string, f func(req []byte, result map[string]json.RawMessage)) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.rewrite[method] = f
}

func (h *hostileRPC) count(method string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.calls[method]
}

func (h *hostileRPC) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req struct {
		Method string `json:"method"`
	}
	_ = json.Unmarshal(body, &req)
	h.mu.Lock()
	h.calls[req.Method]++
	f := h.rewrite[req.Method]
	h.mu.Unlock()
	up, _ := h.upstream.Load().(string)
	resp, err := http.Post(up, "application/json", bytes.NewReader(body))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	if f != nil {
		var env map[string]json.RawMessage
		var result map[string]json.RawMessage
		if json.Unmarshal(out, &env) == nil && json.Unmarshal(env["result"], &result) == nil {
			f(body, result)
			env["result"], _ = json.Marshal(result)
			out, _ = json.Marshal(env)
		}
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(resp.StatusCode)
	_, _ = w.Write(out)
}

// TestSigningFactsFromAHostileRPC: a latest ledger far ahead (in sequence or close time) or an
// auth entry for another contract than the payment's asset is refused before the wallet signs
// anything, and nothing reaches the seller.
func TestSigningFactsFromAHostileRPC(t *testing.T) {
	rpc := newHostileRPC(t)
	c := newCluster(t, 1, map[string]string{"SOROBAN_RPC_URL": rpc.URL})
	rpc.upstream.Store(c.sb.RPCURL)
	raw := func(v any) json.RawMessage { b, _ := json.Marshal(v); return b }
	for _, tc := range []struct {
		name, method string
		rewrite      func([]byte, map[string]json.RawMessage)
		simulations  int // simulateTransaction calls the product may make before refusing
	}{
		{"a ledger four billion ahead", "getLatestLedger", func(_ []byte, r map[string]json.RawMessage) { r["sequence"] = raw(4_000_000_000) }, 0},
		{"a ledger closing in ten days", "getLatestLedger", func(_ []byte, r map[string]json.RawMessage) {
			r["closeTime"] = raw(strconv.FormatInt(time.Now().Add(240*time.Hour).Unix(), 10)) // a string on the wire
		}, 0},
		{"an auth entry for another contract", "simulateTransaction", func(_ []byte, r map[string]json.RawMessage) {
			var results []map[string]json.RawMessage
			if json.Unmarshal(r["results"], &results) != nil || len(results) == 0 {
				return
			}
			var auth []string
			if json.Unmarshal(results[0]["auth"], &auth) != nil || len(auth) == 0 {
				return
			}
			var e xdr.SorobanAuthorizationEntry
			if xdr.SafeUnmarshalBase64(auth[0], &e) != nil || e.RootInvocation.Function.ContractFn == nil {
				return
			}
			var other xdr.ContractId
			other[0] = 7
			e.RootInvocation.Function.ContractFn.ContractAddress = xdr.ScAddress{Type: xdr.ScAddressTypeScAddressTypeContract, ContractId: &other}
			b, _ := e.MarshalBinary()
			auth[0] = base64.StdEncoding.EncodeToString(b)
			results[0]["auth"] = raw(auth)
			r["results"] = raw(results)
		}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rpc.on(tc.method, tc.rewrite)
			defer rpc.on(tc.method, nil)
			c.sb.ResetCounts()
			before := rpc.count("simulateTransaction")
			r := c.call(0, "mindvault_buy", `{"resourceId":"gotestingtips","allowRepeat":true}`)
			if !r.IsError || r.Meta.Diag == nil || r.Meta.Diag.StateChanged != "no" || r.Meta.Diag.ExecutionStarted {
				t.Fatalf("want a refusal before anything was signed: %s", tail(r.raw, 500))
			}
			if n := c.sb.PaidRequests("*"); n != 0 {
				t.Fatalf("%d paid requests reached the seller", n)
			}
			if n := rpc.count("simulateTransaction") - before; n > tc.simulations {
				t.Fatalf("%d simulations, want at most %d (a signed entry must not be sent)", n, tc.simulations)
			}
		})
	}
}

// TestHostileSellerValidity: a seller asking for a payment valid for half a year, or for a
// validity that wraps the ledger count, for an amount in a non-canonical form, or paid to a
// contract, is refused before anything is signed.
func TestHostileSellerValidity(t *testing.T) {
	e := newEnv(t, nil)
	for _, tc := range []struct {
		secs          int64
		amount, payTo string
		says          string
	}{
		{18_000_000, "7500000", "", "600 s"}, {6 << 32, "7500000", "", "600 s"}, {601, "7500000", "", "600 s"},
		{300, "+7500000", "", "canonical"}, {300, "07500000", "", "canonical"},
		{300, "7500000", "contract", "account (G…)"},
	} {
		payTo, secs := e.sb.Demo.Address, tc.secs
		if tc.payTo == "contract" {
			payTo = e.sb.USDCContractID
		}
		doc := map[string]any{"x402Version": 2, "resource": map[string]any{"url": e.sb.APIURL + "/resources/gotestingtips"},
			"accepts": []any{map[string]any{"scheme": "exact", "network": e.sb.X402Network, "amount": tc.amount,
				"asset": e.sb.USDCContractID, "payTo": payTo, "maxTimeoutSeconds": secs,
				"extra": map[string]any{"areFeesSponsored": true}}}}
		b, _ := json.Marshal(doc)
		e.faults("service=api,target=GET /resources/gotestingtips,paid=false,kind=status,status=402,header=PAYMENT-REQUIRED: " + base64.StdEncoding.EncodeToString(b))
		r := e.call("mindvault_buy", `{"resourceId":"gotestingtips","allowRepeat":true}`)
		e.fails("mindvault_buy", r, failure{category: "payment", code: "UNSUPPORTED_REQUIREMENT", source: "x402", retry: "no", status: 0})
		if e.sb.Count("rpc", "simulateTransaction") != 0 || e.sb.PaidRequests("*") != 0 || !strings.Contains(r.Content[0].Text, tc.says) {
			t.Fatalf("%+v: signed or sent something, or did not say why (%q): %s", tc, tc.says, tail(r.raw, 400))
		}
	}
}
