// Package stellarrpc calls Stellar RPC (JSON-RPC 2.0 over one POST URL) with the
// go-stellar-sdk's protocols/rpc request and response types. It sends through package
// transport instead of the SDK's rpcclient because rpcclient turns HTTP 429/503 into a
// synthetic -32603 and drops the status and Retry-After that the taxonomy needs.
package stellarrpc

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync/atomic"

	rpc "github.com/stellar/go-stellar-sdk/protocols/rpc"

	"github.com/mindvault/mcp-endpoint/clients/transport"
	"github.com/mindvault/mcp-endpoint/errmap"
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
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
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
	resp, err := c.svc.Do(ctx, transport.Request{
		Method: http.MethodPost, Path: "", Body: body,
		Route: method, Read: readMethods[method],
	})
	if err != nil {
		return err
	}
	if !resp.OK() {
		return c.svc.StatusError(resp)
	}
	var env struct {
		Result json.RawMessage `json:"result"`
		Error  *rpcError       `json:"error"`
	}
	trimmed := bytes.TrimSpace(resp.Body)
	if len(trimmed) == 0 || trimmed[0] != '{' || json.Unmarshal(trimmed, &env) != nil {
		return c.svc.Malformed(resp, "the body is not a JSON-RPC response")
	}
	if env.Error != nil {
		e := c.svc.StatusError(resp)
		e.Facts.Status = 0 // HTTP was fine; the failure is the JSON-RPC error object
		e.Facts.RPCCode = env.Error.Code
		e.Facts.Body = nil
		e.Facts.UpstreamDetail = env.Error.Message
		e.Err = fmt.Errorf("%s: rpc error %d", method, env.Error.Code)
		return e
	}
	rb := bytes.TrimSpace(env.Result)
	if len(rb) == 0 || rb[0] != '{' || json.Unmarshal(rb, out) != nil {
		return c.svc.Malformed(resp, method+" result has the wrong shape")
	}
	return nil
}

// GetTransaction looks a transaction up by hash; NOT_FOUND is a normal result.
func (c *Client) GetTransaction(ctx context.Context, hash string) (*rpc.GetTransactionResponse, error) {
	var out rpc.GetTransactionResponse
	if err := c.Call(ctx, "getTransaction", rpc.GetTransactionRequest{Hash: hash}, &out); err != nil {
		return nil, err
	}
	switch out.Status {
	case rpc.TransactionStatusSuccess, rpc.TransactionStatusFailed, rpc.TransactionStatusNotFound:
		return &out, nil
	}
	return nil, malformedStatus(c.svc, "getTransaction status "+out.Status)
}

// GetHealth reads the node's health.
func (c *Client) GetHealth(ctx context.Context) (*rpc.GetHealthResponse, error) {
	var out rpc.GetHealthResponse
	if err := c.Call(ctx, "getHealth", nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// GetNetwork reads the network passphrase and protocol version.
func (c *Client) GetNetwork(ctx context.Context) (*rpc.GetNetworkResponse, error) {
	var out rpc.GetNetworkResponse
	if err := c.Call(ctx, "getNetwork", nil, &out); err != nil {
		return nil, err
	}
	if out.Passphrase == "" {
		return nil, malformedStatus(c.svc, "getNetwork has no passphrase")
	}
	return &out, nil
}

// GetLatestLedger reads the latest ledger.
func (c *Client) GetLatestLedger(ctx context.Context) (*rpc.GetLatestLedgerResponse, error) {
	var out rpc.GetLatestLedgerResponse
	if err := c.Call(ctx, "getLatestLedger", nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

func malformedStatus(svc *transport.Service, what string) *errmap.Error {
	return svc.Malformed(&transport.Response{Status: http.StatusOK}, what)
}
