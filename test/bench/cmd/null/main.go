// Command null is the null net/http handler of `make bench`: the endpoint's own answer bytes
// (NULL_RESPONSE, a file holding its JSON-RPC response to the measured request) under each
// request's id (package nullrpc), served on MINDVAULT_ADDR by net/http and nothing else. It is
// the reference of the local cold start and the floor of the loopback load.
package main

import (
	"fmt"
	"net/http"
	"os"

	"github.com/mindvault/mcp-endpoint/test/bench/nullrpc"
)

func main() {
	raw, err := os.ReadFile(os.Getenv("NULL_RESPONSE"))
	var answer *nullrpc.Answer
	if err == nil {
		answer, err = nullrpc.New(raw)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "null: NULL_RESPONSE must name a file holding a JSON-RPC response:", err)
		os.Exit(2)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", answer.Handler())
	if err := http.ListenAndServe(os.Getenv("MINDVAULT_ADDR"), mux); err != nil {
		fmt.Fprintln(os.Stderr, "null:", err)
		os.Exit(1)
	}
}
