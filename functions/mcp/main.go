// Command mcp is the Lambda function's main, the binary that is deployed. Under the Lambda
// runtime API (set by Lambda and by the Runtime Interface Emulator) it serves Function URL
// events; otherwise it serves plain HTTP on MINDVAULT_ADDR. Both go through the same handler.
// It takes no arguments.
//
// It serves the public networks only: the offline sandbox and its simulators are linked into
// the local build (cmd/mindvault-local) and never into this one, and STELLAR_NETWORK=sandbox
// here is a configuration problem that every authenticated request reports.
package main

import (
	"fmt"
	"os"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/mindvault/mcp-endpoint/internal/server"
	"github.com/mindvault/mcp-endpoint/internal/server/funcurl"
)

func main() {
	underLambda := os.Getenv("AWS_LAMBDA_RUNTIME_API") != ""
	b := server.Boot(os.Getenv, underLambda, os.Stderr)
	if underLambda {
		lambda.Start(funcurl.Handler(b.Handler))
		return
	}
	if err := server.Serve(b.Config.Addr, b.Handler, b.Logger); err != nil {
		fmt.Fprintln(os.Stderr, "mcp:", err)
		os.Exit(1)
	}
}
