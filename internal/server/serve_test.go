package server

import (
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
	var logged strings.Builder
	err = Serve(ln.Addr().String(), http.NotFoundHandler(), slog.New(slog.NewTextHandler(&logged, nil)))
	if err == nil || !strings.Contains(err.Error(), "ADDR=") || !strings.Contains(err.Error(), "MINDVAULT_ADDR") {
		t.Fatalf("Serve on a taken port = %v", err)
	}
	// Nothing announced an address that was never bound.
	if strings.Contains(logged.String(), "serving") {
		t.Fatalf("Serve announced a server it could not start: %s", logged.String())
	}
}
