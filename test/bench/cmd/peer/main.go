// Command peer serves the Go SDK peer of `make bench` as its own process on loopback, so
// that the loopback load compares the endpoint, the peer and the null handler the same way:
// three processes behind the same HTTP stack. PEER_TOOLS names a file holding the endpoint's
// tools/list response (the peer serves the same tool entries), PEER_API_URL is the sandbox
// API its mindvault_preview calls, MINDVAULT_ADDR the address to listen on. PEER_RAW=1 serves
// the tools through the SDK's low-level Server.AddTool instead of the generic mcp.AddTool.
package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"

	"github.com/mindvault/mcp-endpoint/test/bench"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "peer:", err)
		os.Exit(1)
	}
}

func run() error {
	raw, err := os.ReadFile(os.Getenv("PEER_TOOLS"))
	if err != nil {
		return fmt.Errorf("PEER_TOOLS: %w", err)
	}
	var list struct {
		Result struct {
			Tools []json.RawMessage `json:"tools"`
		} `json:"result"`
	}
	if err := json.Unmarshal(raw, &list); err != nil || len(list.Result.Tools) == 0 {
		return fmt.Errorf("PEER_TOOLS does not hold a tools/list response: %v", err)
	}
	h, err := bench.NewPeer(list.Result.Tools, os.Getenv("PEER_API_URL"), bench.PeerHTTPClient(), os.Getenv("PEER_RAW") == "1")
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	return http.ListenAndServe(os.Getenv("MINDVAULT_ADDR"), mux)
}
