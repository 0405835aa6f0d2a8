package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/mindvault/mcp-endpoint/test/bench"
)

// eraProbe is one 2026-07-28 request sent to a server and what it answered.
type eraProbe struct {
	impl, request string
	status        int
	answer        string // the parts of the answer the report compares
}

// modernMeta is the per-request _meta of the 2026-07-28 revision (docs/protocol.md "Modern
// requests"): its version and the client's capabilities, here none.
const modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

// eraRequests are the probes: discovery, the list, a tool call (a validation failure, which
// needs no downstream), and initialize, which the revision no longer has.
var eraRequests = []struct{ name, method, tool, body string }{
	{"server/discover", "server/discover", "", `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + modernMeta + `}}`},
	{"tools/list", "tools/list", "", `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{` + modernMeta + `}}`},
	{"tools/call (validation failure)", "tools/call", "mindvault_preview", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"mindvault_preview","arguments":{},` + modernMeta + `}}`},
	{"initialize (not in the era)", "initialize", "", `{"jsonrpc":"2.0","id":4,"method":"initialize","params":{"protocolVersion":"2026-07-28","capabilities":{},"clientInfo":{"name":"bench","version":"0"},` + modernMeta + `}}`},
}

// eraProbes starts ours and the Go SDK peer as local servers and sends each the 2026-07-28
// requests, recording the status and the era's fields of each answer.
func eraProbes(ours, peer, listFile, dir string) ([]eraProbe, error) {
	env := []string{"PATH=" + os.Getenv("PATH"), "STELLAR_NETWORK=testnet"}
	var out []eraProbe
	for _, t := range []struct{ impl, bin, raw string }{{"ours", ours, ""}, {"gosdk", peer, ""}, {"gosdk-raw", peer, "1"}} {
		s, err := startServer(t.impl, t.bin, append(env, "PEER_TOOLS="+listFile, "PEER_API_URL=http://127.0.0.1:9", "PEER_RAW="+t.raw), dir)
		if err != nil {
			return out, err
		}
		for _, r := range eraRequests {
			status, raw, err := postModern(s.url, r.method, r.tool, r.body)
			if err != nil {
				s.proc.stop()
				return out, fmt.Errorf("%s %s: %w", t.impl, r.name, err)
			}
			out = append(out, eraProbe{impl: t.impl, request: r.name, status: status, answer: eraFields(raw)})
		}
		s.proc.stop()
	}
	return out, nil
}

func postModern(url, method, tool, body string) (int, []byte, error) {
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", method)
	if tool != "" {
		req.Header.Set("Mcp-Name", tool)
	}
	client := &http.Client{Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true}, Timeout: 10 * time.Second}
	resp, err := client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, raw, err
}

// eraFields summarises an answer by the fields the 2026-07-28 revision adds or the error it
// gave.
func eraFields(raw []byte) string {
	var r struct {
		Error *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
		Result map[string]json.RawMessage `json:"result"`
	}
	if json.Unmarshal(raw, &r) != nil {
		return "not JSON-RPC: " + bench.Trim(string(raw), 80)
	}
	if r.Error != nil {
		return fmt.Sprintf("error %d: %s", r.Error.Code, bench.Trim(r.Error.Message, 80))
	}
	var parts []string
	for _, k := range []string{"resultType", "supportedVersions", "ttlMs", "cacheScope", "isError"} {
		if v, ok := r.Result[k]; ok {
			parts = append(parts, k+"="+string(v))
		}
	}
	if m, ok := r.Result["_meta"]; ok && strings.Contains(string(m), "io.modelcontextprotocol/serverInfo") {
		parts = append(parts, "_meta serverInfo")
	}
	if c, ok := r.Result["capabilities"]; ok {
		parts = append(parts, "capabilities="+string(c))
	}
	if len(parts) == 0 {
		return "result without the era's fields"
	}
	return strings.Join(parts, ", ")
}
