package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRedactSection: BenchmarkRedact's lines are read beside the handler's and reported as
// ours against the floor.
func TestRedactSection(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out.txt")
	lines := "BenchmarkHandler/case=preview/impl=ours-2  100  5000 ns/op  10 allocs/op\n" +
		"BenchmarkRedact/case=redact-none/impl=ours-2  3000  300000 ns/op  218.00 MB/s  65560 B/op  4 allocs/op\n" +
		"BenchmarkRedact/case=redact-none/impl=floor-2  3000  400000 ns/op  163.00 MB/s  0 B/op  0 allocs/op\n"
	if err := os.WriteFile(out, []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	data, _, err := parseBench(out)
	if err != nil {
		t.Fatal(err)
	}
	var w strings.Builder
	(&report{bench: data}).redactSection(func(format string, args ...any) { fmt.Fprintf(&w, format, args...) })
	if !strings.Contains(w.String(), "| redact-none |") || !strings.Contains(w.String(), "0.75×") {
		t.Fatalf("the redaction row is missing:\n%s", w.String())
	}
}
