// Command mcp is the deployed Lambda binary and takes no arguments: under the Lambda runtime API
// (Lambda's, or the emulator's) it serves Function URL events, otherwise plain HTTP on
// MINDVAULT_ADDR, both through the one handler of package server. It serves the public networks
// only: the sandbox is linked into cmd/mindvault-local and never into this binary, so
// STELLAR_NETWORK=sandbox here is a configuration problem that every authenticated request reports.
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
	ln, err := server.Listen(b.Config.Addr)
	if err == nil {
		err = server.ServeOn(ln, b.Handler, b.Logger)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "mcp:", err)
		os.Exit(1)
	}
}
