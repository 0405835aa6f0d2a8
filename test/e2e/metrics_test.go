//go:build node

package e2e_test

import (
	"encoding/json"
	"strings"
	"testing"
)

// emfLine is one CloudWatch EMF line as the endpoint writes it.
type emfLine struct {
	Tool              string   `json:"Tool"`
	Service           string   `json:"Service"`
	Route             string   `json:"Route"`
	DownstreamLatency *float64 `json:"DownstreamLatency"`
}

// TestPaidRequestMetricsNameTheirRoute: the DownstreamLatency lines of a paid buy and of a
// publish (which pays the verification fee) name the route the code gave the paid request,
// "GET /resources/{id} (paid)" and "POST /verify-content (paid)", as the request's log line
// does, instead of "unknown"; no downstream call of either is recorded under "unknown".
func TestPaidRequestMetricsNameTheirRoute(t *testing.T) {
	e, metrics := bootLambda(t, map[string]string{"MINDVAULT_AUTH": "none"})
	for tool, args := range map[string]string{
		"mindvault_buy":     `{"resourceId":"rustguide"}`,
		"mindvault_publish": `{"title":"Metrics guide","price":"2","externalUrl":"https://example.org/metrics"}`,
	} {
		if r := e.call(tool, args); r.IsError {
			t.Fatalf("%s failed: %s", tool, r.Content[0].Text)
		}
	}

	paid := map[string]int{}
	var unknown []string
	for _, raw := range strings.Split(strings.TrimSpace(metrics()), "\n") {
		var l emfLine
		if err := json.Unmarshal([]byte(raw), &l); err != nil {
			t.Fatalf("EMF line is not JSON: %q", raw)
		}
		if l.DownstreamLatency == nil {
			continue
		}
		if l.Route == "unknown" {
			unknown = append(unknown, raw)
		}
		if l.Service == "x402" {
			paid[l.Route]++
		}
	}
	// The unpaid first request and the paid one share the route: the 402 answer, then the payment.
	for _, route := range []string{"GET /resources/{id} (paid)", "POST /verify-content (paid)"} {
		if paid[route] != 2 {
			t.Errorf("x402 DownstreamLatency lines with Route %q: %d, want 2 (all x402 routes: %v)", route, paid[route], paid)
		}
	}
	if len(unknown) > 0 {
		t.Errorf("downstream calls recorded under Route unknown:\n%s", strings.Join(unknown, "\n"))
	}
	// The log line of the same requests names the same routes.
	logs := e.logs.String()
	for _, route := range []string{`"route":"GET /resources/{id} (paid)"`, `"route":"POST /verify-content (paid)"`} {
		if !strings.Contains(logs, route) {
			t.Errorf("the log lacks %s", route)
		}
	}
}
