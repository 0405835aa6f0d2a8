// Command floor is the trivial handler `make bench` measures the endpoint against: the least a
// Go MCP server on the same runtime path can do. Like the endpoint's Lambda main, it serves
// Function URL events through aws-lambda-go when AWS_LAMBDA_RUNTIME_API is set (the Lambda
// runtime or the emulator) and plain HTTP on MINDVAULT_ADDR otherwise.
//
// It answers every request with the same bytes the endpoint wrote for the measured request:
// FLOOR_RESPONSE names a file holding the endpoint's JSON-RPC response, whose result (or error)
// member is sent back under the request's id. It decodes the request envelope and encodes the
// response with encoding/json, nothing else: no configuration, no validation, no logging. It is
// therefore also the null handler of the loopback load. It imports nothing of the endpoint, so
// its start-up is Go's and aws-lambda-go's alone.
package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"
)

// answer is a JSON-RPC response with a fixed result or error.
type answer struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   json.RawMessage `json:"error,omitempty"`
}

func main() {
	var fixed answer
	raw, err := os.ReadFile(os.Getenv("FLOOR_RESPONSE"))
	if err == nil {
		err = json.Unmarshal(raw, &fixed)
	}
	if err != nil || (fixed.Result == nil && fixed.Error == nil) {
		fmt.Fprintln(os.Stderr, "floor: FLOOR_RESPONSE must name a file holding a JSON-RPC response:", err)
		os.Exit(2)
	}
	fixed.JSONRPC = "2.0"
	if os.Getenv("AWS_LAMBDA_RUNTIME_API") != "" {
		lambda.Start(func(_ context.Context, ev events.LambdaFunctionURLRequest) (events.LambdaFunctionURLResponse, error) {
			body := []byte(ev.Body)
			if ev.IsBase64Encoded {
				if body, err = base64.StdEncoding.DecodeString(ev.Body); err != nil {
					return events.LambdaFunctionURLResponse{StatusCode: http.StatusBadRequest}, nil
				}
			}
			out, ok := respond(fixed, body)
			if !ok {
				return events.LambdaFunctionURLResponse{StatusCode: http.StatusBadRequest}, nil
			}
			return events.LambdaFunctionURLResponse{
				StatusCode: http.StatusOK,
				Headers:    map[string]string{"content-type": "application/json"},
				Body:       string(out),
			}, nil
		})
		return
	}
	http.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		out, ok := respond(fixed, body)
		if err != nil || !ok {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(out)
	})
	if err := http.ListenAndServe(os.Getenv("MINDVAULT_ADDR"), nil); err != nil {
		fmt.Fprintln(os.Stderr, "floor:", err)
		os.Exit(1)
	}
}

// respond decodes the request envelope and encodes the fixed answer under its id.
func respond(fixed answer, body []byte) ([]byte, bool) {
	var env struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  string          `json:"method"`
		Params  json.RawMessage `json:"params"`
	}
	if json.Unmarshal(body, &env) != nil || env.JSONRPC != "2.0" {
		return nil, false
	}
	fixed.ID = env.ID
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if enc.Encode(fixed) != nil {
		return nil, false
	}
	return buf.Bytes(), true
}
