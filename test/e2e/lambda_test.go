package e2e_test

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/mindvault/mcp-endpoint/internal/config"
	"github.com/mindvault/mcp-endpoint/internal/server"
	"github.com/mindvault/mcp-endpoint/internal/server/funcurl"
)

// TestFunctionURLEventsInProcess runs every events/*.json through the Lambda handler in
// process and compares status and body with the goldens the emulator test also uses, so a
// handler regression shows up in plain `go test` too.
func TestFunctionURLEventsInProcess(t *testing.T) {
	cfg, err := config.Load(func(k string) string { return map[string]string{"MINDVAULT_AUTH": "none"}[k] }, true)
	if err != nil {
		t.Fatal(err)
	}
	handler := funcurl.Handler(newHandler(cfg, nil, server.NewLogger(false, cfg.LogLevel, io.Discard, nil)))
	files, _ := filepath.Glob("../../events/*.json")
	if len(files) < 9 {
		t.Fatalf("expected the events docs/operations.md \"Lambda events and the emulator\" lists, found %d", len(files))
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		t.Run(name, func(t *testing.T) {
			var ev events.LambdaFunctionURLRequest
			readJSON(t, f, &ev)
			var golden struct {
				StatusCode int             `json:"statusCode"`
				Body       json.RawMessage `json:"body"`
			}
			readJSON(t, filepath.Join("../../events/golden", name+".json"), &golden)
			resp, err := handler(context.Background(), ev)
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != golden.StatusCode {
				t.Fatalf("status %d, golden %d", resp.StatusCode, golden.StatusCode)
			}
			var got, want any
			if resp.Body != "" {
				if err := json.Unmarshal([]byte(resp.Body), &got); err != nil {
					t.Fatalf("body is not JSON: %s", resp.Body)
				}
			}
			if len(golden.Body) > 0 && string(golden.Body) != `""` && string(golden.Body) != "null" {
				_ = json.Unmarshal(golden.Body, &want)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("body differs from golden:\n got %s\nwant %s", resp.Body, golden.Body)
			}
		})
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
