package e2e_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mindvault/mcp-endpoint/internal/credentials"
)

// onceDiag is the part of the diagnostic these tests read, decoded from the raw result.
type onceDiag struct {
	Code             string `json:"code"`
	Category         string `json:"category"`
	Status           int    `json:"status"`
	Detail           string `json:"detail"`
	Retry            string `json:"retry"`
	StateChanged     string `json:"stateChanged"`
	TxHash           string `json:"txHash"`
	ExecutionStarted bool   `json:"executionStarted"`
	PaymentExpiresAt string `json:"paymentExpiresAt"`
	NextAction       *struct {
		Tool      string         `json:"tool"`
		Arguments map[string]any `json:"arguments"`
	} `json:"nextAction"`
}

func diagOf(t *testing.T, r result) onceDiag {
	t.Helper()
	var resp struct {
		Result struct {
			Meta struct {
				Diag onceDiag `json:"io.mindvault/error"`
			} `json:"_meta"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(r.raw), &resp); err != nil {
		t.Fatalf("result: %v", err)
	}
	return resp.Result.Meta.Diag
}

// onceRoute is one request that must never leave twice, and the tool call that sends it.
type onceRoute struct {
	name    string
	service string // fault service
	target  string // fault target
	paid    bool   // the fault matches only the request carrying the payment
	// location is the redirect target: the request's own path, so following it would
	// repeat exactly the same request.
	location func(id string) string
	// setup prepares what the call needs and returns an id for location and call ("" if none).
	setup func(e *env, n int) string
	call  func(e *env, n int, id string) result
	sent  func(e *env) int // how many such requests the downstream saw
	// created is true when the tool changed state before this request (publish's resource
	// exists before the verification is paid): stateChanged may then be "yes".
	created bool
	tx      bool // the request carries a transaction whose hash the result must name
}

// TestNonRetryableRequestsLeaveOnce: every request that is paid or not safe to repeat is
// sent exactly once whatever the downstream answers — a redirect to the same URL (which a
// client following redirects would resend), a connection dropped after the request was
// read (which net/http replays on a reused connection), a malformed 2xx, a 5xx, a timeout —
// and the result never claims an outcome it did not see: stateChanged is "unknown" (or
// "yes" when something was provably created before), never "no". The count comes from the
// sandbox, not from the product.
func TestNonRetryableRequestsLeaveOnce(t *testing.T) {
	// Long and self-contained: harness_test.go, "Which tests run in parallel".
	t.Parallel()
	publish := func(e *env, n int) result {
		return e.call("mindvault_publish", fmt.Sprintf(`{"title":"Once %d","price":"1","externalUrl":"https://example.org/once/%d"}`, n, n))
	}
	routes := []onceRoute{
		{name: "buy paid GET resource", service: "api", target: "GET /resources/*", paid: true,
			location: func(string) string { return "/resources/llmprompts" },
			// Each case its own purchase (allowRepeat, a key of its own): an unknown outcome
			// left by one case blocks its intent until the chain decides (docs/once.md).
			call: func(e *env, n int, _ string) result {
				return e.call("mindvault_buy", fmt.Sprintf(`{"resourceId":"llmprompts","allowRepeat":true,"idempotencyKey":"leave-once-%d"}`, n))
			},
			sent: func(e *env) int { return e.sb.PaidRequests("GET /resources/*") }},
		{name: "publish paid POST verify-content", service: "api", target: "POST /verify-content", paid: true, created: true,
			location: func(string) string { return "/verify-content" },
			call:     func(e *env, n int, _ string) result { return publish(e, n) },
			sent:     func(e *env) int { return e.sb.PaidRequests("POST /verify-content") }},
		{name: "publish POST resources", service: "api", target: "POST /resources",
			location: func(string) string { return "/resources" },
			call:     func(e *env, n int, _ string) result { return publish(e, n) },
			sent:     func(e *env) int { return e.sb.Count("api", "POST /resources") }},
		{name: "register POST publishers", service: "api", target: "POST /publishers",
			location: func(string) string { return "/publishers" },
			call: func(e *env, n int, _ string) result {
				// A profile without a key: one that holds a key is refused before the API.
				zero, _ := e.sb.Account("zero")
				_ = e.b.Deps.Store.Create(context.Background(), credentials.Profile{Name: fmt.Sprintf("reg%d", n), SecretKey: zero.Secret})
				return e.call("mindvault_register", fmt.Sprintf(`{"name":"Once %d","email":"once%d@example.org","profile":"reg%d"}`, n, n, n))
			},
			sent: func(e *env) int { return e.sb.Count("api", "POST /publishers") }},
		{name: "setup_wallet sponsor POST create", service: "sponsor", target: "POST /create",
			location: func(string) string { return "/create" },
			call: func(e *env, n int, _ string) result {
				return e.call("mindvault_setup_wallet", fmt.Sprintf(`{"profile":"once%d"}`, n))
			},
			sent: func(e *env) int { return e.sb.Count("sponsor", "POST /create") }},
		{name: "set_price sendTransaction", service: "rpc", target: "sendTransaction", tx: true,
			location: func(string) string { return "/" },
			call: func(e *env, n int, _ string) result {
				return e.call("mindvault_set_price", fmt.Sprintf(`{"resourceId":"%s","price":"%d.5"}`, ownedBy(e, e.sb.Demo.Address), n+1))
			},
			sent: func(e *env) int { return e.sb.Count("rpc", "sendTransaction") }},
		{name: "register_onchain POST register", service: "api", target: "POST /resources/*/register",
			location: func(id string) string { return "/resources/" + id + "/register" },
			// A verified resource that is not on chain yet: publish it with its registration failing.
			setup: func(e *env, n int) string {
				e.faults("service=api,target=POST /resources/*/register,kind=status,status=502,count=1")
				out := e.ok("mindvault_publish", publish(e, 1000+n))
				if out["verificationStatus"] != "verified" || out["onchainStatus"] != "failed" {
					e.t.Fatalf("setup publish: %v", out)
				}
				return out["resourceId"].(string)
			},
			call: func(e *env, _ int, id string) result {
				return e.call("mindvault_register_onchain", `{"resourceId":"`+id+`"}`)
			},
			// The wallet signed the transaction the API submits: its hash is known.
			tx:   true,
			sent: func(e *env) int { return e.sb.Count("api", "POST /resources/*/register") }},
	}
	type cell struct {
		name     string
		rule     func(r onceRoute, id string) string // the fault, without service/target/paid
		redirect int
		// malformed: a paid 2xx of the wrong shape delivered nothing; it is an error that
		// says the money left ("yes", with a settlement proof) or may have ("unknown").
		malformed bool
	}
	cells := []cell{}
	for _, status := range []int{301, 302, 307, 308} {
		cells = append(cells, cell{name: fmt.Sprint(status), redirect: status, rule: func(r onceRoute, id string) string {
			return fmt.Sprintf("kind=status,status=%d,header=Location:%s", status, r.location(id))
		}})
	}
	cells = append(cells,
		cell{name: "drop", rule: func(onceRoute, string) string { return "kind=drop" }},
		cell{name: "malformed 2xx", malformed: true, rule: func(onceRoute, string) string { return "kind=malformed" }},
		cell{name: "empty 2xx", malformed: true, rule: func(onceRoute, string) string { return "kind=empty,status=200" }},
		cell{name: "5xx", rule: func(onceRoute, string) string { return "kind=status,status=502" }},
		// The stall outlasts the 3 s service timeout, which starts before the stall does. The
		// sandbox frees a stalled read when the client gives up, but a POST whose body it has
		// not read runs its stall out (then does its work, as a slow server would) and the
		// sandbox's Close waits for it: 2 s of margin, not 17.
		cell{name: "timeout", rule: func(onceRoute, string) string { return "kind=delay,delay=5s" }},
	)
	// Each route has an env of its own and the routes run at once: every route has a timeout
	// cell, which waits out the service timeout.
	names := make([]string, len(routes))
	for i, rt := range routes {
		names[i] = rt.name
	}
	concurrently(t, names, func(t *testing.T, i int) {
		rt := routes[i]
		// Short service timeouts keep the timeout cells quick; loopback answers far faster.
		e := newEnv(t, map[string]string{
			"MINDVAULT_HTTP_TIMEOUT_MS": "3000", "MINDVAULT_PAYMENT_TIMEOUT_MS": "3000", "MINDVAULT_RPC_TIMEOUT_MS": "3000",
		})
		demo, _ := e.b.Deps.Store.Get(context.Background(), "demo")
		demo.APIKey = e.sb.DemoAPIKey
		if err := e.b.Deps.Store.Update(context.Background(), demo); err != nil {
			t.Fatal(err)
		}
		for n, c := range cells {
			t.Run(c.name, func(t *testing.T) {
				e := e.in(t)
				id := ""
				if rt.setup != nil {
					id = rt.setup(e, n)
				}
				// count=1: were the request repeated, the repeat would succeed, so a
				// double send shows up as a count of 2 (and often as a false success).
				plan := fmt.Sprintf("service=%s,target=%s,%s,count=1", rt.service, rt.target, c.rule(rt, id))
				if rt.paid {
					plan += ",paid=true"
				}
				e.faults(plan)
				r := rt.call(e, n, id)
				if got := rt.sent(e); got != 1 {
					t.Fatalf("the downstream saw %d such requests, want exactly 1 (plan %q): %s", got, plan, r.raw)
				}
				if !r.IsError {
					t.Fatalf("want an error result, got %s", r.raw)
				}
				d := diagOf(t, r)
				okState := d.StateChanged == "unknown" || (rt.created && d.StateChanged == "yes")
				if c.malformed && rt.paid {
					okState = d.StateChanged == "unknown" || d.StateChanged == "yes"
				}
				if !okState || d.Retry != "no" {
					t.Fatalf("stateChanged %q retry %q: the request left and its outcome is not proven: %s", d.StateChanged, d.Retry, r.raw)
				}
				if c.redirect != 0 && (d.Status != c.redirect || !strings.Contains(d.Detail, "redirect")) {
					t.Errorf("a redirect must be reported as such with its status: %s", r.raw)
				}
				// After the payment left, only its expiry says when paying again is safe (publish
				// may report "yes" for the resource it created, but the payment stays open).
				if rt.paid && !c.malformed && d.PaymentExpiresAt == "" {
					t.Errorf("an unknown payment outcome must say when the payment expires: %s", r.raw)
				}
				// A purchase whose outcome is unknown points at the purchase history, which
				// settles it, with the caller's own arguments.
				if rt.name == "buy paid GET resource" && d.StateChanged == "unknown" &&
					(d.NextAction == nil || d.NextAction.Tool != "mindvault_purchase_history" || d.NextAction.Arguments["resourceId"] == nil) {
					t.Errorf("an unknown purchase must name mindvault_purchase_history as nextAction: %s", r.raw)
				}
				if rt.tx {
					if len(d.TxHash) != 64 || d.NextAction == nil || d.NextAction.Tool != "mindvault_tx_status" || d.NextAction.Arguments["txHash"] != d.TxHash {
						t.Fatalf("an unknown write outcome must carry the hash and a mindvault_tx_status nextAction: %s", r.raw)
					}
				}
			})
		}
	})
}

// TestWriteWaitIsBounded: a write whose confirmation never comes answers after
// MINDVAULT_WRITE_WAIT_MS, not at the invocation deadline; a getTransaction the RPC refuses
// for good ends the wait at once; transient getTransaction failures keep it polling.
func TestWriteWaitIsBounded(t *testing.T) {
	// Long and self-contained: harness_test.go, "Which tests run in parallel".
	t.Parallel()
	e := newEnv(t, map[string]string{"MINDVAULT_WRITE_WAIT_MS": "2500"})
	demoID := ownedBy(e, e.sb.Demo.Address)
	cases := []struct {
		name, plan string
		wantErr    bool
		maxElapsed time.Duration // generous: only "far below the invocation deadline" matters
		status     int
		polls      func(n int) bool // getTransaction requests the sandbox saw
	}{
		{"getTransaction forbidden", "service=rpc,target=getTransaction,kind=status,status=403", true, 15 * time.Second, 403,
			func(n int) bool { return n == 1 }},
		{"getTransaction not found at HTTP level", "service=rpc,target=getTransaction,kind=status,status=404", true, 15 * time.Second, 404,
			func(n int) bool { return n == 1 }},
		{"transient getTransaction failures", "service=rpc,target=getTransaction,kind=status,status=429,count=2", false, 15 * time.Second, 0,
			func(n int) bool { return n >= 3 }},
		// Last, and it must stay last: this call ends because the wait ran out, not because a
		// poll was answered, so its last getTransaction can still be on its way to the sandbox
		// when the call returns. On a loaded machine the sandbox then counted it after the next
		// case reset the counts ("getTransaction polled 2 times" for a 403 that ends the wait at
		// once). Every other case ends on an answer, so nothing of it is left in flight.
		{"never confirmed", "service=rpc,target=sendTransaction,kind=nocommit", true, 15 * time.Second, 0,
			func(n int) bool { return n >= 1 }},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := e.in(t)
			e.faults(tc.plan)
			// The invocation deadline is far away: the write wait alone must end the call.
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			start := time.Now()
			r := e.callCtx(ctx, "mindvault_set_price", fmt.Sprintf(`{"resourceId":"%s","price":"%d.25"}`, demoID, i+2))
			elapsed := time.Since(start)
			if !strings.Contains(tc.plan, "nocommit") { // a nocommit transaction is dropped, never applied
				defer settle(e, r)
			}
			if elapsed > tc.maxElapsed {
				t.Fatalf("answered after %v, want within the write wait (2.5 s) plus slack", elapsed)
			}
			if n := e.sb.Count("rpc", "sendTransaction"); n != 1 {
				t.Fatalf("sendTransaction sent %d times, want 1", n)
			}
			if n := e.sb.Count("rpc", "getTransaction"); !tc.polls(n) {
				t.Fatalf("getTransaction polled %d times", n)
			}
			if !tc.wantErr {
				e.ok("mindvault_set_price", r)
				return
			}
			if !r.IsError {
				t.Fatalf("want an error: %s", r.raw)
			}
			d := diagOf(t, r)
			if d.StateChanged != "unknown" || d.Retry != "no" || len(d.TxHash) != 64 || d.Status != tc.status || !d.ExecutionStarted {
				t.Fatalf("want a started write, stateChanged unknown with the hash (status %d): %s", tc.status, r.raw)
			}
			if d.NextAction == nil || d.NextAction.Tool != "mindvault_tx_status" || d.NextAction.Arguments["txHash"] != d.TxHash {
				t.Fatalf("want a mindvault_tx_status nextAction for the hash: %s", r.raw)
			}
			if !strings.Contains(r.Content[0].Text, d.TxHash) {
				t.Fatalf("the text must name the hash: %s", r.Content[0].Text)
			}
		})
	}
}

// settle waits until the write a case sent (if any) has left the sandbox's pending queue, so
// the next case's transaction from the same account gets a fresh sequence number instead of
// TRY_AGAIN_LATER.
func settle(e *env, r result) {
	e.t.Helper()
	e.faults("")
	hash := diagOf(e.t, r).TxHash
	if hash == "" {
		return
	}
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		out := e.ok("mindvault_tx_status", e.call("mindvault_tx_status", `{"txHash":"`+hash+`"}`))
		if out["status"] != "NOT_FOUND" {
			return
		}
	}
}

// TestUnreadableSendIsUnknown: a sendTransaction answered 200 with something that is not a
// readable answer leaves the write's outcome unknown (the envelope left), with the hash the
// product computed before sending and the lookup as the next step — never "no, retry".
func TestUnreadableSendIsUnknown(t *testing.T) {
	e := newEnv(t, nil)
	demoID := ownedBy(e, e.sb.Demo.Address)
	bodies := map[string]string{
		"not JSON":         `service=rpc,target=sendTransaction,kind=malformed,body=<html>ok</html>`,
		"unknown status":   `[{"service":"rpc","target":"sendTransaction","kind":"malformed","body":"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"status\":\"QUEUED\",\"hash\":\"x\"}}"}]`,
		"result not a map": `[{"service":"rpc","target":"sendTransaction","kind":"malformed","body":"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":\"PENDING\"}"}]`,
		"empty":            `service=rpc,target=sendTransaction,kind=empty,status=200`,
	}
	for name, plan := range bodies {
		t.Run(name, func(t *testing.T) {
			e := e.in(t)
			e.faults(plan)
			r := e.call("mindvault_set_price", `{"resourceId":"`+demoID+`","price":"7"}`)
			if n := e.sb.Count("rpc", "sendTransaction"); n != 1 {
				t.Fatalf("sendTransaction sent %d times", n)
			}
			d := diagOf(t, r)
			if !r.IsError || d.StateChanged != "unknown" || d.Retry != "no" || len(d.TxHash) != 64 {
				t.Fatalf("want stateChanged unknown with the hash: %s", r.raw)
			}
			if d.NextAction == nil || d.NextAction.Tool != "mindvault_tx_status" || d.NextAction.Arguments["txHash"] != d.TxHash ||
				!strings.Contains(r.Content[0].Text, "mindvault_tx_status") {
				t.Fatalf("want the lookup as the next step: %s", r.raw)
			}
		})
	}
}
