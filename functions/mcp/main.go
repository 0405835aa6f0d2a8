// Command mcp is the Lambda function's main. Under the Lambda runtime API (set by Lambda and
// by the Runtime Interface Emulator) it serves Function URL events; otherwise it serves plain
// HTTP on MINDVAULT_ADDR. Both go through the same handler. It takes no arguments.
package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/mindvault/mcp-endpoint/endpoint"
	"github.com/mindvault/mcp-endpoint/funcurl"
)

func main() {
	underLambda := os.Getenv("AWS_LAMBDA_RUNTIME_API") != ""
	b := endpoint.Boot(os.Getenv, underLambda, os.Stderr)
	defer b.Close()
	if underLambda {
		lambda.Start(funcurl.Handler(b.Handler))
		return
	}
	if b.Sandbox != nil {
		fmt.Fprintf(os.Stderr, "sandbox: MindVault API %s, Horizon %s, Stellar RPC %s; default profile %q (%s)\n",
			b.Sandbox.APIURL, b.Sandbox.HorizonURL, b.Sandbox.RPCURL, b.Config.DefaultProfile, b.Sandbox.Demo.Address)
	}
	if err := serve(b.Config.Addr, b.Handler, b.Logger); err != nil {
		fmt.Fprintln(os.Stderr, "mcp:", err)
		b.Close()
		os.Exit(1)
	}
}

// serve runs the local HTTP server until SIGINT or SIGTERM, then drains in-flight requests.
func serve(addr string, h http.Handler, logger *slog.Logger) error {
	srv := &http.Server{
		Addr:              addr,
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      endpoint.CallTimeout + 10*time.Second,
		IdleTimeout:       2 * time.Minute,
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	errc := make(chan error, 1)
	go func() { errc <- srv.ListenAndServe() }()
	logger.Info("serving MCP", "url", "http://"+addr+"/mcp")
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
