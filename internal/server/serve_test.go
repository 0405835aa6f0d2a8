package server

import (
	"net"
	"strings"
	"testing"
)

// TestListenSaysHowToPickAnotherPort: a port in use is reported with the way to choose another
// (before anything is served, so nothing announces an address that was never bound).
func TestListenSaysHowToPickAnotherPort(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	_, err = Listen(ln.Addr().String())
	if err == nil || !strings.Contains(err.Error(), "ADDR=") || !strings.Contains(err.Error(), "MINDVAULT_ADDR") {
		t.Fatalf("Listen on a taken port = %v", err)
	}
}
