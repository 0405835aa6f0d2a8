package e2e_test

import (
	"strings"
	"testing"
)

// downstream names the call a tool makes first, so a fault there reaches the tool.
type downstream struct {
	tool, args, service, target, source string
	timeoutVar                          string
}

var reads = []downstream{
	{"mindvault_browse", `{}`, "api", "GET /resources", "api", "MINDVAULT_HTTP_TIMEOUT_MS"},
	{"mindvault_search", `{"query":"rust"}`, "api", "GET /resources", "api", "MINDVAULT_HTTP_TIMEOUT_MS"},
	{"mindvault_preview", `{"resourceId":"rustguide"}`, "api", "GET /resources/*/meta", "api", "MINDVAULT_HTTP_TIMEOUT_MS"},
	{"mindvault_publish_status", `{"resourceId":"rustguide"}`, "api", "GET /resources/*/meta", "api", "MINDVAULT_HTTP_TIMEOUT_MS"},
	{"mindvault_agent_status", `{}`, "api", "GET /agent/status", "api", "MINDVAULT_HTTP_TIMEOUT_MS"},
	{"mindvault_wallet_info", `{}`, "horizon", "GET /accounts/*", "horizon", "MINDVAULT_HORIZON_TIMEOUT_MS"},
	{"mindvault_tx_status", `{"txHash":"` + strings.Repeat("ab", 32) + `"}`, "rpc", "getTransaction", "rpc", "MINDVAULT_RPC_TIMEOUT_MS"},
}

// TestReadFailureClasses drives every row of docs/errors.md "HTTP status table" through the fault plan
// into every read tool and checks the mapped result.
func TestReadFailureClasses(t *testing.T) {
	// Long and self-contained: harness_test.go, "Which tests run in parallel".
	t.Parallel()
	type class struct {
		name  string
		fault string // kind and its options
		want  failure
	}
	classes := []class{
		{"network", "kind=drop", failure{category: "network", code: "NETWORK_ERROR", retry: "safe"}},
		{"timeout", "kind=delay,delay=5s", failure{category: "timeout", code: "TIMEOUT", retry: "safe"}},
		{"400", "kind=status,status=400", failure{category: "validation", code: "BAD_REQUEST", status: 400, retry: "after_correction"}},
		{"422", "kind=status,status=422", failure{category: "validation", code: "BAD_REQUEST", status: 422, retry: "after_correction"}},
		{"401", "kind=status,status=401", failure{category: "auth", code: "UNAUTHORIZED", status: 401, retry: "after_action"}},
		{"403", "kind=status,status=403", failure{category: "auth", code: "FORBIDDEN", status: 403, retry: "after_action"}},
		{"429 with Retry-After", "kind=status,status=429,retry-after=7", failure{category: "rate_limit", code: "RATE_LIMITED", status: 429, retry: "after_wait", retryAfter: 7, next: "Wait 7 s"}},
		{"500", "kind=status,status=500", failure{category: "server", code: "SERVER_ERROR", status: 500, retry: "safe"}},
		{"503", "kind=status,status=503", failure{category: "server", code: "SERVER_ERROR", status: 503, retry: "safe"}},
		{"HTML 502", "kind=html,status=502", failure{category: "server", code: "SERVER_ERROR", status: 502, retry: "safe"}},
		{"HTML 429", "kind=html,status=429,retry-after=9", failure{category: "rate_limit", code: "RATE_LIMITED", status: 429, retry: "after_wait", retryAfter: 9}},
		{"empty 504", "kind=empty,status=504", failure{category: "timeout", code: "TIMEOUT", status: 504}},
		{"malformed 2xx", "kind=malformed", failure{category: "server", code: "MALFORMED_RESPONSE", status: 200, retry: "safe"}},
	}
	names := make([]string, len(reads))
	for i, d := range reads {
		names[i] = d.tool
	}
	// The tools run at once, each on its own sandbox: each has a timeout cell, which waits out
	// three attempts.
	concurrently(t, names, func(t *testing.T, i int) {
		d := reads[i]
		e := newEnv(t, map[string]string{
			// Short timeouts so the delay faults stay fast (three attempts, 3 s); retries stay
			// on. Not shorter: the other cells' answers must arrive within it while seven
			// tools run at once on a loaded machine.
			"MINDVAULT_HTTP_TIMEOUT_MS": "1000", "MINDVAULT_HORIZON_TIMEOUT_MS": "1000", "MINDVAULT_RPC_TIMEOUT_MS": "1000",
		})
		for _, c := range classes {
			t.Run(c.name, func(t *testing.T) {
				e := e.in(t)
				e.faults("service=" + d.service + ",target=" + d.target + "," + c.fault)
				want := c.want
				want.source = d.source
				if want.category == "timeout" && want.status == 0 {
					want.next = d.timeoutVar
				}
				r := e.call(d.tool, d.args)
				e.fails(d.tool, r, want)
				if c.name == "404" {
					return
				}
				if strings.Contains(c.name, "timeout") && r.Meta.Diag.ExecutionStarted != true {
					t.Errorf("a read that was sent has executionStarted true")
				}
			})
		}
		t.Run("404", func(t *testing.T) {
			e := e.in(t)
			e.faults("service=" + d.service + ",target=" + d.target + ",kind=status,status=404")
			r := e.call(d.tool, d.args)
			if d.tool == "mindvault_wallet_info" {
				// Horizon's own 404 means "no account yet": a soft result.
				e.ok(d.tool, r)
				return
			}
			e.fails(d.tool, r, failure{category: "not_found", source: d.source, status: 404, retry: "after_correction",
				code: map[bool]string{true: "NOT_FOUND", false: "NOT_FOUND"}[true]})
		})
	})
}

// TestReadRetries: a persistent failure surfaces after exactly MINDVAULT_RETRY_ATTEMPTS
// attempts, a transient one is absorbed, and a long Retry-After surfaces at once.
func TestReadRetries(t *testing.T) {
	e := newEnv(t, map[string]string{"MINDVAULT_RETRY_ATTEMPTS": "4", "MINDVAULT_RETRY_MAX_DELAY_MS": "1000"})
	for _, d := range reads {
		t.Run(d.tool, func(t *testing.T) {
			e := e.in(t)
			e.faults("service=" + d.service + ",target=" + d.target + ",kind=status,status=503")
			e.fails(d.tool, e.call(d.tool, d.args), failure{category: "server", code: "SERVER_ERROR", source: d.source, status: 503})
			if n := e.sb.Count(d.service, d.target); n != 4 {
				t.Errorf("persistent 503: %d attempts, want 4", n)
			}
			e.faults("service=" + d.service + ",target=" + d.target + ",kind=status,status=503,count=2")
			e.ok(d.tool, e.call(d.tool, d.args))
			if n := e.sb.Count(d.service, d.target); n != 3 {
				t.Errorf("transient 503: %d attempts, want 3", n)
			}
			e.faults("service=" + d.service + ",target=" + d.target + ",kind=status,status=429,retry-after=60")
			e.fails(d.tool, e.call(d.tool, d.args), failure{category: "rate_limit", code: "RATE_LIMITED", source: d.source, status: 429, retryAfter: 60})
			if n := e.sb.Count(d.service, d.target); n != 1 {
				t.Errorf("long Retry-After: %d attempts, want 1", n)
			}
		})
	}
}

// TestPlantedSecretsNeverLeave plants the demo wallet's secret, an API key and a bearer
// token in downstream error bodies and headers, and checks every result and log line.
func TestPlantedSecretsNeverLeave(t *testing.T) {
	e := newEnv(t, nil)
	secret := e.sb.Demo.Secret
	apiKey := "mv_" + strings.Repeat("5e", 32)
	token := "tok_" + strings.Repeat("Z9", 20)
	plans := []string{
		`[{"service":"api","target":"*","kind":"status","status":500,"body":"{\"error\":\"boom ` + secret + ` key ` + apiKey + `\"}","header":"X-Debug:Bearer ` + token + `"}]`,
		`[{"service":"api","target":"*","kind":"status","status":400,"body":"{\"error\":{\"message\":\"authorization: Bearer ` + token + `\"}}"}]`,
		`[{"service":"horizon","target":"*","kind":"status","status":400,"body":"{\"type\":\"bad_request\",\"title\":\"x-api-key: ` + apiKey + `\",\"status\":400,\"detail\":\"` + secret + `\"}"}]`,
		`[{"service":"rpc","target":"*","kind":"rpcerror","code":-32602,"message":"secret=` + secret + `"}]`,
		`[{"service":"rpc","target":"*","kind":"status","status":429,"body":"` + secret + `","header":"Retry-After:1"}]`,
	}
	for i, plan := range plans {
		e.faults(plan)
		for _, d := range reads {
			r := e.call(d.tool, d.args)
			for _, s := range []string{secret, apiKey, token} {
				if strings.Contains(r.raw, s) {
					t.Fatalf("plan %d, %s: a planted secret reached the result: %s", i, d.tool, r.raw)
				}
			}
		}
	}
	logs := e.logs.String()
	for _, s := range []string{secret, apiKey, token} {
		if strings.Contains(logs, s) {
			t.Fatalf("a planted secret reached the log")
		}
	}
	if !strings.Contains(logs, `"tool":"mindvault_preview"`) {
		t.Fatalf("the log lines are missing: %s", logs[:min(len(logs), 300)])
	}
}
