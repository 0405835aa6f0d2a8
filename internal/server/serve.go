package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// Listen binds addr, saying how to pick another address when it is taken; ServeOn then serves.
func Listen(addr string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil && errors.Is(err, syscall.EADDRINUSE) {
		return nil, fmt.Errorf("%w: another process serves %s; pick another address, e.g. ADDR=127.0.0.1:8081 make run (or MINDVAULT_ADDR)", err, addr)
	}
	return ln, err
}

// ServeOn runs h as a plain HTTP server on a listener Listen bound until SIGINT or SIGTERM,
// then drains in-flight requests.
func ServeOn(ln net.Listener, h http.Handler, logger *slog.Logger) error {
	addr := ln.Addr().String()
	srv := &http.Server{
		Addr:              addr,
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      CallTimeout + 10*time.Second,
		IdleTimeout:       2 * time.Minute,
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// The address is bound: "serving" is announced only once it is ours.
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
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
