package stellarrpc

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/clients/transport"
)

// TestErrors: a JSON-RPC error object in a 2xx answer is classified by its code; an HTTP error
// status keeps its own meaning whatever the body says (the SDK's client would have turned a
// gateway's 429 or 503 into -32603).
func TestErrors(t *testing.T) {
	cases := []struct {
		rpc, status int
		code        string
		cat         errmap.Category
		rpcUp       any
		detail      string
	}{
		{-32603, 200, errmap.CodeServerError, errmap.CategoryServer, -32603, "rpc said no"},
		{-32001, 200, errmap.CodeServerError, errmap.CategoryServer, -32001, "rpc said no"},
		{-32003, 200, errmap.CodeServerError, errmap.CategoryServer, -32003, "rpc said no"},
		{-32098, 200, errmap.CodeServerError, errmap.CategoryServer, -32098, "rpc said no"},
		{-32600, 200, errmap.CodeRPCError, errmap.CategoryContract, -32600, "rpc said no"},
		{-32601, 200, errmap.CodeRPCError, errmap.CategoryContract, -32601, "rpc said no"},
		{-32602, 200, errmap.CodeRPCError, errmap.CategoryContract, -32602, "rpc said no"},
		{-32700, 200, errmap.CodeRPCError, errmap.CategoryContract, -32700, "rpc said no"},
		{-32097, 200, errmap.CodeRPCError, errmap.CategoryContract, -32097, "rpc said no"},
		{7, 200, errmap.CodeRPCError, errmap.CategoryContract, 7, "rpc said no"},
		{-32601, 200, errmap.CodeRPCError, errmap.CategoryContract, -32601, ""}, // no message: the code says it
		{-32603, 429, errmap.CodeRateLimited, errmap.CategoryRateLimit, nil, "rpc said no"},
		{-32603, 503, errmap.CodeServerError, errmap.CategoryServer, nil, "rpc said no"},
		{-32603, 504, errmap.CodeTimeout, errmap.CategoryTimeout, nil, "rpc said no"},
		{-32601, 404, errmap.CodeNotFound, errmap.CategoryNotFound, nil, "rpc said no"},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%d/%d/%q", c.rpc, c.status, c.detail), func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(c.status)
				fmt.Fprintf(w, `{"jsonrpc":"2.0","id":1,"error":{"code":%d,"message":%q}}`, c.rpc, c.detail)
			}))
			defer srv.Close()
			cl := New(&transport.Service{Source: errmap.SourceRPC, BaseURL: srv.URL, Timeout: 5 * time.Second,
				TimeoutVar: "MINDVAULT_RPC_TIMEOUT_MS", Retry: transport.Policy{Attempts: 1}, HTTP: transport.NewHTTPClient()})
			err := cl.Call(context.Background(), "getHealth", nil, &struct{}{})
			d := errmap.FromError(err, errmap.Call{Operation: "Transaction status failed"}).Diagnostic
			if d.Code != c.code || d.Category != string(c.cat) || d.Source != "rpc" {
				t.Errorf("%s/%s/%s", d.Code, d.Category, d.Source)
			}
			if d.Upstream["rpcCode"] != c.rpcUp || d.JSONRPCCode != 0 {
				t.Errorf("upstream %v jsonrpcCode %d (reserved for argument validation)", d.Upstream, d.JSONRPCCode)
			}
			want := c.detail
			if want == "" {
				want = fmt.Sprintf("JSON-RPC error %d", c.rpc)
			}
			if d.Detail != want {
				t.Errorf("detail %q, want %q", d.Detail, want)
			}
			if (c.status >= 300) != (d.Status == c.status) {
				t.Errorf("status %d recorded as %d", c.status, d.Status)
			}
		})
	}
}
