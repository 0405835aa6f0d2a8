// Command floor is the trivial handler `make bench` measures the endpoint's cold start against:
// like the Lambda main it serves Function URL events under the Lambda runtime API and plain HTTP on
// MINDVAULT_ADDR otherwise, answering every request with the endpoint's own bytes (FLOOR_RESPONSE)
// under its id (package nullrpc). It imports nothing of the endpoint and does no configuration,
// validation or logging, so its start-up is Go's and aws-lambda-go's alone.
package main

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"os"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"

	"github.com/mindvault/mcp-endpoint/test/bench/nullrpc"
)

func main() {
	raw, err := os.ReadFile(os.Getenv("FLOOR_RESPONSE"))
	var answer *nullrpc.Answer
	if err == nil {
		answer, err = nullrpc.New(raw)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "floor: FLOOR_RESPONSE must name a file holding a JSON-RPC response:", err)
		os.Exit(2)
	}
	if os.Getenv("AWS_LAMBDA_RUNTIME_API") != "" {
		lambda.Start(func(_ context.Context, ev events.LambdaFunctionURLRequest) (events.LambdaFunctionURLResponse, error) {
			body := []byte(ev.Body)
			if ev.IsBase64Encoded {
				if body, err = base64.StdEncoding.DecodeString(ev.Body); err != nil {
					return events.LambdaFunctionURLResponse{StatusCode: http.StatusBadRequest}, nil
				}
			}
			out, ok := answer.Respond(nil, body)
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
	mux := http.NewServeMux()
	mux.Handle("/mcp", answer.Handler())
	if err := http.ListenAndServe(os.Getenv("MINDVAULT_ADDR"), mux); err != nil {
		fmt.Fprintln(os.Stderr, "floor:", err)
		os.Exit(1)
	}
}
