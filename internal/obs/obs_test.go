package obs

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
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

// TestEMFDimensionSets: the calls, errors and latency are per tool, and only a failure adds
// its errors by (tool, category): each distinct set of dimension values is a billed metric, so
// a success must create no pair, and no pair carries the calls or the latency.
func TestEMFDimensionSets(t *testing.T) {
	type directive struct {
		Dimensions [][]string
		Metrics    []struct{ Name string }
	}
	sets := func(outcome string) map[string][]string {
		var buf bytes.Buffer
		WriteEMF(&buf, time.Now(), "mindvault_buy", outcome, time.Millisecond, nil)
		var line struct {
			AWS struct{ CloudWatchMetrics []directive } `json:"_aws"`
		}
		if err := json.Unmarshal(buf.Bytes(), &line); err != nil {
			t.Fatal(err)
		}
		out := map[string][]string{}
		for _, d := range line.AWS.CloudWatchMetrics {
			for _, set := range d.Dimensions {
				for _, m := range d.Metrics {
					k := strings.Join(set, "+")
					out[k] = append(out[k], m.Name)
				}
			}
		}
		return out
	}
	for _, tc := range []struct {
		outcome string
		want    map[string][]string
	}{
		{"ok", map[string][]string{"Tool": {"ToolCalls", "ToolErrors", "ToolLatency"}}},
		{InputRequired, map[string][]string{"Tool": {"ToolCalls", "ToolErrors", "ToolLatency"}}},
		{"payment", map[string][]string{"Tool": {"ToolCalls", "ToolErrors", "ToolLatency"}, "Tool+Category": {"ToolErrors"}}},
	} {
		if got := sets(tc.outcome); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: metrics by dimension set %v, want %v", tc.outcome, got, tc.want)
		}
	}
}
