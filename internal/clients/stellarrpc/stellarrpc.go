// Package stellarrpc calls Stellar RPC (JSON-RPC 2.0 over one POST URL) with the
// go-stellar-sdk's protocols/rpc request and response types. It sends through package
// transport instead of the SDK's rpcclient because rpcclient turns HTTP 429/503 into a
// synthetic -32603 and drops the status and Retry-After that the taxonomy needs.
package stellarrpc

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"

	rpc "github.com/stellar/go-stellar-sdk/protocols/rpc"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/clients/transport"
)

// Client calls one Stellar RPC endpoint.
type Client struct {
	svc *transport.Service
	id  atomic.Int64
}

// New returns a client over svc (source rpc).
func New(svc *transport.Service) *Client { return &Client{svc: svc} }

// readMethods are safe to retry automatically (docs/errors.md "Retries and deadlines").
var readMethods = map[string]bool{
	"getTransaction": true, "getLatestLedger": true, "getNetwork": true,
	"getLedgerEntries": true, "getHealth": true, "simulateTransaction": true,
}

// rpcError is a JSON-RPC error object.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// Call invokes method with params and decodes the result into out. HTTP failures,
// JSON-RPC error objects and results of the wrong shape all come back as *errmap.Error.
func (c *Client) Call(ctx context.Context, method string, params, out any) error {
	body, err := json.Marshal(struct {
		JSONRPC string `json:"jsonrpc"`
		ID      int64  `json:"id"`
		Method  string `json:"method"`
		Params  any    `json:"params,omitempty"`
	}{"2.0", c.id.Add(1), method, params})
	if err != nil {
		return fmt.Errorf("encode %s: %w", method, err)
	}
	resp, err := c.svc.Fetch(ctx, transport.Request{
		Method: http.MethodPost, Path: "", Body: body,
		Route: method, Read: readMethods[method],
	})
	if err != nil {
		return err
	}
	var env struct {
		Result json.RawMessage `json:"result"`
		Error  *rpcError       `json:"error"`
	}
	if transport.DecodeObject(resp.Body, &env) != nil {
		return c.svc.Malformed(resp, "the body is not a JSON-RPC response")
	}
	if e := env.Error; e != nil {
		// HTTP was fine (a 2xx), so no status is recorded: the failure is the object. Reading the
		// HTTP status at the transport is what lets a gateway's 429 or 503 keep its own meaning
		// instead of the -32603 the SDK's client would synthesise.
		f := errmap.Facts{
			Source: c.svc.Source, Header: resp.Header, TimeoutVar: c.svc.TimeoutVar, ExecutionStarted: resp.Write,
			Code: errmap.CodeRPCError, Upstream: errmap.Upstream{RPCCode: e.Code}, UpstreamDetail: e.Message,
		}
		if serverCodes[e.Code] {
			f.Code = errmap.CodeServerError
		}
		if strings.TrimSpace(e.Message) == "" {
			f.UpstreamDetail = "JSON-RPC error " + strconv.Itoa(e.Code)
		}
		return errmap.Wrap(fmt.Errorf("%s: rpc error %d", method, e.Code), f)
	}
	if transport.DecodeObject(env.Result, out) != nil {
		return c.svc.Malformed(resp, method+" result has the wrong shape")
	}
	return nil
}

// GetTransaction looks a transaction up by hash; NOT_FOUND is a normal result.
func (c *Client) GetTransaction(ctx context.Context, hash string) (*rpc.GetTransactionResponse, error) {
	out, err := call[rpc.GetTransactionResponse](ctx, c, "getTransaction", rpc.GetTransactionRequest{Hash: hash})
	if err != nil {
		return nil, err
	}
	switch out.Status {
	case rpc.TransactionStatusSuccess, rpc.TransactionStatusFailed, rpc.TransactionStatusNotFound:
		return out, nil
	}
	return nil, malformedStatus(c.svc, "getTransaction status "+out.Status)
}

// GetHealth reads the node's health.
func (c *Client) GetHealth(ctx context.Context) (*rpc.GetHealthResponse, error) {
	return call[rpc.GetHealthResponse](ctx, c, "getHealth", nil)
}

// GetNetwork reads the network passphrase and protocol version.
func (c *Client) GetNetwork(ctx context.Context) (*rpc.GetNetworkResponse, error) {
	out, err := call[rpc.GetNetworkResponse](ctx, c, "getNetwork", nil)
	if err == nil && out.Passphrase == "" {
		return nil, malformedStatus(c.svc, "getNetwork has no passphrase")
	}
	return out, err
}

// GetLatestLedger reads the latest ledger.
func (c *Client) GetLatestLedger(ctx context.Context) (*rpc.GetLatestLedgerResponse, error) {
	return call[rpc.GetLatestLedgerResponse](ctx, c, "getLatestLedger", nil)
}

// GetEvents reads contract events; the request's filters are the caller's.
func (c *Client) GetEvents(ctx context.Context, req rpc.GetEventsRequest) (*rpc.GetEventsResponse, error) {
	return call[rpc.GetEventsResponse](ctx, c, "getEvents", req)
}

func call[T any](ctx context.Context, c *Client, method string, params any) (*T, error) {
	out := new(T)
	if err := c.Call(ctx, method, params, out); err != nil {
		return nil, err
	}
	return out, nil
}

// serverCodes are the JSON-RPC codes with which the node says it is itself failing; any other code
// is the node refusing the request: RPC_ERROR with the code in upstream.
var serverCodes = map[int]bool{-32603: true, -32001: true, -32003: true, -32098: true}

func malformedStatus(svc *transport.Service, what string) *errmap.Error {
	return svc.Malformed(&transport.Response{Status: http.StatusOK}, what)
}
