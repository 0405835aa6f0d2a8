package obs

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestTraceCollectsConcurrentCalls(t *testing.T) {
	ctx, tr := WithTrace(context.Background())
	var wg sync.WaitGroup
	for range 20 {
		wg.Add(1)
		go func() { defer wg.Done(); Record(ctx, Call{Service: "api"}) }()
	}
	wg.Wait()
	if len(tr.Calls()) != 20 {
		t.Fatalf("got %d calls", len(tr.Calls()))
	}
	Record(context.Background(), Call{}) // no trace: a no-op, not a panic
}

func TestEMF(t *testing.T) {
	var buf bytes.Buffer
	WriteEMF(&buf, time.UnixMilli(1700000000000), "mindvault_preview", "not_found", 12*time.Millisecond,
		[]Call{{Service: "api", Route: "GET /resources/{id}/meta", Attempts: 1, Latency: 5 * time.Millisecond}})
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("want 2 EMF lines, got %d", len(lines))
	}
	var m struct {
		AWS struct {
			Timestamp         int64 `json:"Timestamp"`
			CloudWatchMetrics []struct {
				Namespace string `json:"Namespace"`
			} `json:"CloudWatchMetrics"`
		} `json:"_aws"`
		ToolErrors int    `json:"ToolErrors"`
		Category   string `json:"Category"`
	}
	if err := json.Unmarshal([]byte(lines[0]), &m); err != nil {
		t.Fatal(err)
	}
	if m.AWS.Timestamp != 1700000000000 || m.AWS.CloudWatchMetrics[0].Namespace != Namespace || m.ToolErrors != 1 || m.Category != "not_found" {
		t.Fatalf("EMF line: %s", lines[0])
	}
	buf.Reset()
	WriteEMF(&buf, time.Now(), "", "ok", 0, nil)
	if buf.Len() != 0 {
		t.Fatal("no metric without a tool")
	}
}
