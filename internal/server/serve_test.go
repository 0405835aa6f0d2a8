package server

import (
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
)

// TestServeSaysHowToPickAnotherPort: a port in use is reported with the way to choose another.
func TestServeSaysHowToPickAnotherPort(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	err = Serve(ln.Addr().String(), http.NotFoundHandler(), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err == nil || !strings.Contains(err.Error(), "ADDR=") || !strings.Contains(err.Error(), "MINDVAULT_ADDR") {
		t.Fatalf("Serve on a taken port = %v", err)
	}
}
