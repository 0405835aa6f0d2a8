package stellarrpc_test

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	rpc "github.com/stellar/go-stellar-sdk/protocols/rpc"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/clients/stellarrpc"
	dt "github.com/mindvault/mcp-endpoint/internal/testkit/downstreamtest"
)

const hash = "d666bcd218a1b0925ee01d0ccbe4d900bc269f4fe9fcff2f7c0740214c9833e6"

func client(url string) *stellarrpc.Client {
	return stellarrpc.New(dt.Service(errmap.SourceRPC, url+"/rpc"))
}

func result(v string) dt.Answer { return dt.JSON(`{"jsonrpc":"2.0","id":1,"result":` + v + `}`) }

// Every method is one JSON-RPC 2.0 POST to the RPC URL itself, with a fresh id each time.
func TestRequestsSent(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name   string
		answer dt.Answer
		call   func(*stellarrpc.Client) error
		method string
		params any // nil = no params member
	}{
		{"getTransaction", result(`{"status":"NOT_FOUND"}`),
			func(c *stellarrpc.Client) error { _, err := c.GetTransaction(ctx, hash); return err }, "getTransaction", map[string]any{"hash": hash}},
		{"getHealth", result(`{"status":"healthy"}`),
			func(c *stellarrpc.Client) error { _, err := c.GetHealth(ctx); return err }, "getHealth", nil},
		{"getNetwork", result(`{"passphrase":"P","protocolVersion":23}`),
			func(c *stellarrpc.Client) error { _, err := c.GetNetwork(ctx); return err }, "getNetwork", nil},
		{"getLatestLedger", result(`{"id":"x","sequence":7}`),
			func(c *stellarrpc.Client) error { _, err := c.GetLatestLedger(ctx); return err }, "getLatestLedger", nil},
		{"any method through Call", result(`{}`),
			func(c *stellarrpc.Client) error {
				var out map[string]any
				return c.Call(ctx, "sendTransaction", map[string]string{"transaction": "AAAA"}, &out)
			}, "sendTransaction", map[string]any{"transaction": "AAAA"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := dt.New(t, tc.answer)
			if err := tc.call(client(srv.URL)); err != nil {
				t.Fatal(err)
			}
			got := srv.Only(t)
			if got.Method != "POST" || got.Path != "/rpc" || got.Query != "" || got.Header.Get("Content-Type") != "application/json" {
				t.Fatalf("sent %s %s?%s (%s)", got.Method, got.Path, got.Query, got.Header.Get("Content-Type"))
			}
			var env map[string]any
			if err := json.Unmarshal([]byte(got.Body), &env); err != nil {
				t.Fatal(err)
			}
			params, hasParams := env["params"]
			if env["jsonrpc"] != "2.0" || env["method"] != tc.method || env["id"] != float64(1) || hasParams != (tc.params != nil) ||
				(tc.params != nil && !reflect.DeepEqual(params, tc.params)) {
				t.Fatalf("envelope = %s", got.Body)
			}
		})
	}
}

func TestIDsIncrease(t *testing.T) {
	srv := dt.New(t, result(`{"status":"healthy"}`))
	c := client(srv.URL)
	for range 3 {
		if _, err := c.GetHealth(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	for i, s := range srv.Requests() {
		var env struct{ ID int }
		if json.Unmarshal([]byte(s.Body), &env) != nil || env.ID != i+1 {
			t.Fatalf("request %d has id %d", i, env.ID)
		}
	}
}

func TestDecoding(t *testing.T) {
	ctx := context.Background()
	for _, status := range []string{"SUCCESS", "FAILED", "NOT_FOUND"} {
		tx, err := client(dt.New(t, result(`{"status":"`+status+`","latestLedger":9,"ledger":8}`)).URL).GetTransaction(ctx, hash)
		if err != nil || tx.Status != status || tx.LatestLedger != 9 {
			t.Fatalf("%s: %+v, %v", status, tx, err)
		}
	}
	n, err := client(dt.New(t, result(`{"friendbotUrl":"","passphrase":"Test SDF Network ; September 2015","protocolVersion":23}`)).URL).GetNetwork(ctx)
	if err != nil || n.Passphrase != "Test SDF Network ; September 2015" || n.ProtocolVersion != 23 {
		t.Fatalf("network = %+v, %v", n, err)
	}
	h, err := client(dt.New(t, result(`{"status":"healthy","latestLedger":5}`)).URL).GetHealth(ctx)
	if err != nil || h.Status != "healthy" || h.LatestLedger != 5 {
		t.Fatalf("health = %+v, %v", h, err)
	}
	l, err := client(dt.New(t, result(`{"id":"abc","protocolVersion":23,"sequence":77}`)).URL).GetLatestLedger(ctx)
	if err != nil || l.Sequence != 77 || l.Hash != "abc" {
		t.Fatalf("latest ledger = %+v, %v", l, err)
	}
}

// Failures: a JSON-RPC error object keeps its code (HTTP was fine), an HTTP failure its
// status; a body that is not a JSON-RPC response, or a result of the wrong shape, is
// MALFORMED_RESPONSE. Reads are retried after a 503, sendTransaction never.
func TestFailures(t *testing.T) {
	ctx := context.Background()
	getTx := func(c *stellarrpc.Client) error { _, err := c.GetTransaction(ctx, hash); return err }
	send := func(c *stellarrpc.Client) error {
		var out rpc.SendTransactionResponse
		return c.Call(ctx, "sendTransaction", rpc.SendTransactionRequest{Transaction: "AAAA"}, &out)
	}
	cases := []struct {
		name     string
		answer   dt.Answer
		call     func(*stellarrpc.Client) error
		code     string // "" = the taxonomy's choice
		status   int
		rpcCode  int
		requests int
	}{
		{"JSON-RPC error object", dt.JSON(`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"invalid hash"}}`), getTx, "", 0, -32602, 1},
		{"HTTP 429 on a read is retried", dt.Status(429, `{}`), getTx, "RATE_LIMITED", 429, 0, 2},
		{"HTTP 503 on sendTransaction is not", dt.Status(503, ``), send, "", 503, 0, 1},
		{"not JSON", dt.Answer{Status: 200, Body: "<html>"}, getTx, "MALFORMED_RESPONSE", 200, 0, 1},
		{"a JSON array", dt.JSON(`[]`), getTx, "MALFORMED_RESPONSE", 200, 0, 1},
		{"result not an object", result(`"SUCCESS"`), getTx, "MALFORMED_RESPONSE", 200, 0, 1},
		{"no result at all", dt.JSON(`{"jsonrpc":"2.0","id":1}`), getTx, "MALFORMED_RESPONSE", 200, 0, 1},
		{"an unknown transaction status", result(`{"status":"PENDING"}`), getTx, "MALFORMED_RESPONSE", 200, 0, 1},
		{"a network without passphrase", result(`{"protocolVersion":23}`),
			func(c *stellarrpc.Client) error { _, err := c.GetNetwork(ctx); return err }, "MALFORMED_RESPONSE", 200, 0, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := dt.New(t, tc.answer)
			err := tc.call(client(srv.URL))
			if n := len(srv.Requests()); n != tc.requests {
				t.Fatalf("the RPC received %d requests, want %d", n, tc.requests)
			}
			d := dt.Diagnostic(err)
			if !dt.IsErrmap(err) || (tc.code != "" && d.Code != tc.code) || d.Source != "rpc" || d.Status != tc.status || upstreamRPCCode(d) != tc.rpcCode {
				t.Fatalf("err = %v: %s %s HTTP %d rpc %d", err, d.Code, d.Source, d.Status, upstreamRPCCode(d))
			}
		})
	}
}

// upstreamRPCCode is the JSON-RPC error code the diagnostic reports from the RPC, or 0.
func upstreamRPCCode(d errmap.Diagnostic) int {
	n, _ := d.Upstream["rpcCode"].(int)
	return n
}

func TestTransportFailures(t *testing.T) {
	_, err := stellarrpc.New(dt.Service(errmap.SourceRPC, dt.Refused(t))).GetHealth(context.Background())
	if d := dt.Diagnostic(err); d.Code != "NETWORK_ERROR" || d.Source != "rpc" {
		t.Fatalf("refused: %+v", d)
	}
	_, err = stellarrpc.New(dt.Quick(errmap.SourceRPC, dt.New(t, dt.Answer{Hang: true}).URL)).GetLatestLedger(context.Background())
	if d := dt.Diagnostic(err); d.Code != "TIMEOUT" {
		t.Fatalf("slow: %+v", d)
	}
}
