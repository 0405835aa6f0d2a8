// Package bench measures the endpoint for `make bench` (test/bench/run.sh, RESULTS.md): its
// in-process handler cost beside two peers, the official Go SDK's stateless handler serving tools
// of the same shapes and a null handler answering our own bytes (Null, package nullrpc), and cold
// start, downstream round trips per tool and a bounded loopback load. `go test ./...` asserts none
// of the figures, only that the peers keep to their definitions.
package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/mindvault/mcp-endpoint/internal/tools"
	"github.com/mindvault/mcp-endpoint/validate"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mindvault/mcp-endpoint/test/bench/nullrpc"
)

// ProtocolVersion is the legacy-wire MCP-Protocol-Version every benchmark request carries.
const ProtocolVersion = "2025-11-25"

// Request bodies of the measured cases.
const (
	BodyToolsList   = `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
	BodyValidation  = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"mindvault_preview","arguments":{}}}`
	BodyUnknownTool = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"mindvault_previews","arguments":{"resourceId":"rustguide"}}}`
	BodyPreview     = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"mindvault_preview","arguments":{"resourceId":"rustguide"}}}`
)

// CallBody is the tools/call body for a tool and its JSON arguments.
func CallBody(tool, args string) string {
	return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args + `}}`
}

// SandboxEnv is the environment the benchmarks boot the endpoint with: the sandbox network
// plus extra overrides.
func SandboxEnv(extra map[string]string) func(string) string {
	env := map[string]string{"STELLAR_NETWORK": "sandbox"}
	for k, v := range extra {
		env[k] = v
	}
	return func(k string) string { return env[k] }
}

// SetHeaders puts the legacy-wire headers on r. Accept names both media types because the
// Go SDK's streamable handler requires it; ours ignores it.
func SetHeaders(h http.Header) {
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json, text/event-stream")
	h.Set("MCP-Protocol-Version", ProtocolVersion)
}

// NewRequest is an in-process POST /mcp request with the legacy-wire headers.
func NewRequest(body []byte) *http.Request {
	r := &http.Request{
		Method:        http.MethodPost,
		URL:           &url.URL{Path: "/mcp"},
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        make(http.Header, 3),
		Body:          io.NopCloser(bytes.NewReader(body)),
		ContentLength: int64(len(body)),
		Host:          "bench.invalid",
		RemoteAddr:    "192.0.2.1:1234",
		RequestURI:    "/mcp",
	}
	SetHeaders(r.Header)
	return r.WithContext(context.Background())
}

// Sink is a reusable in-process ResponseWriter: Reset keeps its buffers.
type Sink struct {
	header http.Header
	Code   int
	Body   bytes.Buffer
}

// NewSink returns an empty Sink.
func NewSink() *Sink { return &Sink{header: http.Header{}} }

// Header implements http.ResponseWriter.
func (s *Sink) Header() http.Header { return s.header }

// WriteHeader implements http.ResponseWriter.
func (s *Sink) WriteHeader(code int) {
	if s.Code == 0 {
		s.Code = code
	}
}

// Write implements http.ResponseWriter.
func (s *Sink) Write(p []byte) (int, error) {
	if s.Code == 0 {
		s.Code = http.StatusOK
	}
	return s.Body.Write(p)
}

// Flush implements http.Flusher (the SDK flushes).
func (s *Sink) Flush() {}

// Reset forgets the previous response.
func (s *Sink) Reset() {
	clear(s.header)
	s.Code = 0
	s.Body.Reset()
}

// Serve runs one request through h and returns the status and body.
func Serve(h http.Handler, body string) (int, []byte) {
	s := NewSink()
	h.ServeHTTP(s, NewRequest([]byte(body)))
	return s.Code, bytes.Clone(s.Body.Bytes())
}

// Response is a decoded JSON-RPC response.
type Response struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// Call runs body through h and decodes the JSON-RPC response; a non-200 status or a body
// that is not a JSON-RPC response is an error.
func Call(h http.Handler, body string) (*Response, error) {
	code, raw := Serve(h, body)
	return DecodeResponse(code, raw)
}

// DecodeResponse checks an HTTP answer and decodes its JSON-RPC response.
func DecodeResponse(code int, raw []byte) (*Response, error) {
	if code != http.StatusOK {
		return nil, fmt.Errorf("HTTP %d: %.300s", code, raw)
	}
	var r Response
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("response is not JSON-RPC: %v: %.300s", err, raw)
	}
	if r.Error == nil && r.Result == nil {
		return nil, fmt.Errorf("response has neither result nor error: %.300s", raw)
	}
	return &r, nil
}

// ToolResult is the part of a tools/call result the measurements check.
type ToolResult struct {
	IsError    bool            `json:"isError"`
	Structured json.RawMessage `json:"structuredContent"`
	Content    []struct {
		Text string `json:"text"`
	} `json:"content"`
}

// CallTool runs a tools/call through h. It fails on a JSON-RPC error; a tool-level failure
// (isError) is returned as the result.
func CallTool(h http.Handler, tool, args string) (*ToolResult, error) {
	r, err := Call(h, CallBody(tool, args))
	if err != nil {
		return nil, err
	}
	if r.Error != nil {
		return nil, fmt.Errorf("%s: JSON-RPC error %d: %s", tool, r.Error.Code, r.Error.Message)
	}
	var tr ToolResult
	if err := json.Unmarshal(r.Result, &tr); err != nil {
		return nil, fmt.Errorf("%s: result: %v", tool, err)
	}
	return &tr, nil
}

// ListTools returns the tool entries of h's tools/list, raw.
func ListTools(h http.Handler) ([]json.RawMessage, error) {
	r, err := Call(h, BodyToolsList)
	if err != nil {
		return nil, err
	}
	if r.Error != nil {
		return nil, fmt.Errorf("tools/list: JSON-RPC error %d: %s", r.Error.Code, r.Error.Message)
	}
	var list struct {
		Tools []json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(r.Result, &list); err != nil {
		return nil, err
	}
	if len(list.Tools) == 0 {
		return nil, errors.New("tools/list returned no tools")
	}
	return list.Tools, nil
}

// --- the Go SDK peer -----------------------------------------------------------------------

// previewIn is mindvault_preview's input; the schema the SDK validates against is ours.
type previewIn struct {
	ResourceID string `json:"resourceId"`
}

// previewOut mirrors our mindvault_preview structured content.
type previewOut struct {
	ID                 string `json:"id"`
	Title              string `json:"title"`
	Description        string `json:"description"`
	Price              string `json:"price"`
	PriceUSDC          string `json:"priceUsdc"`
	ResourceType       string `json:"resourceType"`
	VerificationStatus string `json:"verificationStatus"`
	AccessURL          string `json:"accessUrl"`
	OnchainStatus      string `json:"onchainStatus"`
	PublisherWallet    string `json:"publisherWallet"`
}

// apiMeta is the part of the API's GET /resources/{id}/meta body the peer reads.
type apiMeta struct {
	ID                 string `json:"id"`
	Title              string `json:"title"`
	Description        string `json:"description"`
	Price              string `json:"price"`
	ResourceType       string `json:"resourceType"`
	VerificationStatus string `json:"verificationStatus"`
	PublisherWallet    string `json:"publisherWallet"`
	OnchainStatus      string `json:"onchainStatus"`
	AccessURL          string `json:"accessUrl"`
}

// PeerHTTPClient is configured like the endpoint's shared downstream client
// (clients/transport.NewHTTPClient): the default transport with 16 idle connections per host.
func PeerHTTPClient() *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 16
	return &http.Client{Transport: tr, Timeout: 30 * time.Second}
}

// NewPeer builds the Go SDK peer from our tools/list entries (names, titles, input and output
// schemas, annotations): the official SDK's stateless, JSON-response streamable HTTP handler
// serving tools of the same shapes. apiURL is the sandbox API, to which its mindvault_preview
// makes the same single GET of the meta route as ours. The tools go through the SDK's generic
// mcp.AddTool (schemas resolved at start, checked on every call), or with lowLevel through
// Server.AddTool, which hands the arguments over as sent, as our own layer works.
func NewPeer(tools []json.RawMessage, apiURL string, httpc *http.Client, lowLevel bool) (http.Handler, error) {
	server := mcp.NewServer(&mcp.Implementation{Name: "gosdk-peer", Version: "0.0.0"}, nil)
	for _, raw := range tools {
		t := new(mcp.Tool)
		var schemas struct {
			Input  json.RawMessage `json:"inputSchema"`
			Output json.RawMessage `json:"outputSchema"`
		}
		if err := json.Unmarshal(raw, t); err != nil {
			return nil, fmt.Errorf("peer: tool entry: %w", err)
		}
		if err := json.Unmarshal(raw, &schemas); err != nil {
			return nil, fmt.Errorf("peer: tool entry: %w", err)
		}
		// The schemas stay raw JSON (as the SDK's docs suggest), not the map[string]any that
		// decoding into mcp.Tool gives: the SDK then writes them out without re-encoding.
		t.InputSchema = schemas.Input
		if schemas.Output != nil {
			t.OutputSchema = schemas.Output
		}
		add := addPeerTool
		if lowLevel {
			add = addRawPeerTool
		}
		if err := add(server, t, apiURL, httpc); err != nil {
			return nil, err
		}
	}
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server },
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true}), nil
}

// addPeerTool registers one tool; AddTool panics on a schema it cannot resolve, which
// becomes an error here.
func addPeerTool(server *mcp.Server, t *mcp.Tool, apiURL string, httpc *http.Client) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("peer: tool %s: %v", t.Name, p)
		}
	}()
	if t.Name == "mindvault_preview" {
		mcp.AddTool(server, t, func(ctx context.Context, _ *mcp.CallToolRequest, in previewIn) (*mcp.CallToolResult, *previewOut, error) {
			m, err := getMeta(ctx, httpc, apiURL, in.ResourceID)
			if err != nil {
				return nil, nil, err
			}
			return nil, &previewOut{
				ID: m.ID, Title: m.Title, Description: m.Description, Price: m.Price,
				PriceUSDC: "$" + m.Price + " USDC", ResourceType: m.ResourceType,
				VerificationStatus: m.VerificationStatus, AccessURL: m.AccessURL,
				OnchainStatus: m.OnchainStatus, PublisherWallet: m.PublisherWallet,
			}, nil
		})
		return nil
	}
	// The other tools exist for tools/list (same shapes); calling them is not measured.
	mcp.AddTool(server, t, func(context.Context, *mcp.CallToolRequest, map[string]any) (*mcp.CallToolResult, any, error) {
		return nil, nil, errors.New("not implemented in the benchmark peer")
	})
	return nil
}

// addRawPeerTool registers one tool through the low-level Server.AddTool: no schema is
// resolved and nothing is checked by the SDK; mindvault_preview decodes its arguments with our
// own request model (package validate) and answers like the typed peer.
func addRawPeerTool(server *mcp.Server, t *mcp.Tool, apiURL string, httpc *http.Client) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("peer: tool %s: %v", t.Name, p)
		}
	}()
	if t.Name != "mindvault_preview" {
		server.AddTool(t, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, errors.New("not implemented in the benchmark peer")
		})
		return nil
	}
	server.AddTool(t, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		in, issues := validate.Decode[tools.PreviewInput](req.Params.Arguments)
		if issues != nil {
			msg, _ := json.Marshal(issues)
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "Invalid arguments: " + string(msg)}}}, nil
		}
		m, err := getMeta(ctx, httpc, apiURL, in.ResourceID)
		if err != nil {
			return nil, err
		}
		out := &previewOut{
			ID: m.ID, Title: m.Title, Description: m.Description, Price: m.Price,
			PriceUSDC: "$" + m.Price + " USDC", ResourceType: m.ResourceType,
			VerificationStatus: m.VerificationStatus, AccessURL: m.AccessURL,
			OnchainStatus: m.OnchainStatus, PublisherWallet: m.PublisherWallet,
		}
		text, err := json.Marshal(out)
		if err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{StructuredContent: json.RawMessage(text), Content: []mcp.Content{&mcp.TextContent{Text: string(text)}}}, nil
	})
	return nil
}

func getMeta(ctx context.Context, httpc *http.Client, apiURL, id string) (*apiMeta, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, apiURL+"/resources/"+url.PathEscape(id)+"/meta", nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "gosdk-peer/0.0.0")
	resp, err := httpc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
		return nil, fmt.Errorf("MindVault API: HTTP %d", resp.StatusCode)
	}
	var m apiMeta
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&m); err != nil {
		return nil, fmt.Errorf("MindVault API: %w", err)
	}
	return &m, nil
}

// --- the null handler ------------------------------------------------------------------------

// Null is the floor of the handler benchmarks: nullrpc's handler answering response (the
// very bytes our handler wrote for the request) under each request's id. test/bench/cmd/floor and
// test/bench/cmd/null serve the same answer as processes.
func Null(response []byte) (http.Handler, error) {
	a, err := nullrpc.New(response)
	if err != nil {
		return nil, err
	}
	return a.Handler(), nil
}

// --- statistics ------------------------------------------------------------------------------

// Percentile is the nearest-rank p-th percentile (0 < p <= 100) of ds, which it sorts.
func Percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	slices.Sort(ds)
	rank := int(p/100*float64(len(ds))+0.999999) - 1
	rank = max(0, min(rank, len(ds)-1))
	return ds[rank]
}

// Ms formats a duration in milliseconds with two decimals.
func Ms(d time.Duration) string {
	return fmt.Sprintf("%.2f", float64(d)/float64(time.Millisecond))
}

// Trim shortens s for error messages.
func Trim(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// CheckUnknownTool accepts the answers a call of a tool that does not exist may get: a
// JSON-RPC invalid-params error (ours) or another JSON-RPC error or isError result (a peer).
func CheckUnknownTool(r *Response) error {
	if r.Error != nil {
		return nil
	}
	var tr ToolResult
	if json.Unmarshal(r.Result, &tr) != nil || !tr.IsError {
		return fmt.Errorf("want a failure for an unknown tool, got %.200s", r.Result)
	}
	return nil
}
