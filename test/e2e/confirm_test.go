package e2e_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mindvault/mcp-endpoint/internal/sandbox"
)

// Form elicitation as a client declares it in the request's _meta (an empty object counts).
const (
	capsForm  = `{"elicitation":{"form":{}}}`
	capsEmpty = `{"elicitation":{}}`
	capsURL   = `{"elicitation":{"url":{}}}`
	capsNone  = `{}`
)

// modernAnswer is a decoded modern tools/call response: a result (complete or input_required)
// or a JSON-RPC error.
type modernAnswer struct {
	status int
	raw    string
	Result struct {
		ResultType    string `json:"resultType"`
		InputRequests map[string]struct {
			Method string `json:"method"`
			Params struct {
				Mode            string          `json:"mode"`
				Message         string          `json:"message"`
				RequestedSchema json.RawMessage `json:"requestedSchema"`
				URL             string          `json:"url"`
				ElicitationID   string          `json:"elicitationId"`
			} `json:"params"`
		} `json:"inputRequests"`
		RequestState string `json:"requestState"`
	} `json:"result"`
	Error *struct {
		Code    int            `json:"code"`
		Message string         `json:"message"`
		Data    map[string]any `json:"data"`
	} `json:"error"`
	call result // the result as a tool result (complete)
}

// modern sends a 2026-07-28 tools/call with the client capabilities caps; round2, when set,
// is appended to params (requestState, inputResponses).
func (e *env) modern(tool, args, caps, round2 string) modernAnswer {
	e.t.Helper()
	rec := httptest.NewRecorder()
	e.b.Handler.ServeHTTP(rec, mcpRequest(context.Background(), "/mcp", modernBody(tool, args, caps, round2), e.token))
	a, err := decodeModern(rec.Code, rec.Body.String())
	if err != nil {
		e.t.Fatal(err)
	}
	return a
}

// modernBody is the 2026-07-28 tools/call request env.modern and cluster.modern send.
func modernBody(tool, args, caps, round2 string) string {
	params := `"name":"` + tool + `","arguments":` + args +
		`,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + caps + `}`
	if round2 != "" {
		params += "," + round2
	}
	return `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{` + params + `}}`
}

// decodeModern decodes the answer to a modern tools/call, answered with HTTP status.
func decodeModern(status int, raw string) (modernAnswer, error) {
	a := modernAnswer{status: status, raw: raw}
	var whole struct {
		Result result `json:"result"`
	}
	if err := json.Unmarshal([]byte(raw), &a); err != nil {
		return a, fmt.Errorf("response: %v: %s", err, raw)
	}
	if err := json.Unmarshal([]byte(raw), &whole); err != nil {
		return a, fmt.Errorf("response: %v: %s", err, raw)
	}
	a.call = whole.Result
	a.call.raw = a.raw
	return a, nil
}

// The user's answers, as an elicitation result.
const (
	accept      = `{"action":"accept","content":{"confirm":true}}`
	acceptFalse = `{"action":"accept","content":{"confirm":false}}`
	decline     = `{"action":"decline"}`
	cancel      = `{"action":"cancel"}`
)

// answer is the params of round 2: the state echoed and the user's answer ("" for none).
func answer(state, confirm string) string {
	s, _ := json.Marshal(state)
	out := `"requestState":` + string(s)
	if confirm != "" {
		out += `,"inputResponses":{"confirm":` + confirm + `}`
	}
	return out
}

// asked asserts an InputRequiredResult with one form elicitation and returns it.
func (e *env) asked(a modernAnswer) (state, message string) {
	e.t.Helper()
	return askedFor(e.t, a)
}

// askedFor is asked for any endpoint (an env's or a cluster's).
func askedFor(t testing.TB, a modernAnswer) (state, message string) {
	t.Helper()
	if a.status != 200 || a.Error != nil || a.Result.ResultType != "input_required" || a.Result.RequestState == "" {
		t.Fatalf("want an input_required result with a requestState, got %d %s", a.status, a.raw)
	}
	ir, ok := a.Result.InputRequests["confirm"]
	if !ok || len(a.Result.InputRequests) != 1 || ir.Method != "elicitation/create" || ir.Params.Mode != "form" {
		t.Fatalf("want one form elicitation under confirm: %s", a.raw)
	}
	var schema struct {
		Type       string `json:"type"`
		Properties map[string]struct {
			Type    string `json:"type"`
			Default *bool  `json:"default"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	_ = json.Unmarshal(ir.Params.RequestedSchema, &schema)
	c := schema.Properties["confirm"]
	if schema.Type != "object" || c.Type != "boolean" || c.Default == nil || *c.Default || len(schema.Required) != 1 || schema.Required[0] != "confirm" {
		t.Fatalf("requestedSchema must be one required boolean confirm defaulting to false: %s", ir.Params.RequestedSchema)
	}
	return a.Result.RequestState, ir.Params.Message
}

// invalid asserts the JSON-RPC -32602 of a requestState that cannot be acted on.
func (e *env) invalid(a modernAnswer) {
	e.t.Helper()
	if a.Error == nil || a.Error.Code != -32602 || a.Error.Data["code"] != "CONFIRMATION_INVALID" || !strings.Contains(a.Error.Message, "nothing was done") {
		e.t.Fatalf("want -32602 with data.code CONFIRMATION_INVALID, got %s", a.raw)
	}
}

// usdc is the demo wallet's USDC balance in units, as the sandbox ledger holds it.
func (e *env) usdc() int64 {
	e.t.Helper()
	units, ok := e.sb.USDCBalance(e.sb.Demo.Address)
	if !ok {
		e.t.Fatal("no demo balance")
	}
	return units
}

const buyRust = `{"resourceId":"rustguide"}`

// TestConfirmPurchase: on the modern era a purchase asks first, after every check a real
// purchase runs (preview, balance, the 402 and its price) and signs nothing — not even a
// simulation of the payment — until the user accepts; the sandbox counts what was paid.
func TestConfirmPurchase(t *testing.T) {
	e := newEnv(t, nil)
	before := e.usdc()
	e.faults("")
	state, msg := e.asked(e.modern("mindvault_buy", buyRust, capsForm, ""))
	for _, want := range []string{"Pay 1.5 USDC", "to Northwind Labs (GCYTRL7RDAWOBLGPXD4JN4FAQXR6TOZ42O6VZSVQKN47OHFSRDXOBVQW)", `"Rust Ownership Field Guide" (rustguide)`, "on sandbox", "Balance after: 98.5 USDC"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
	if e.sb.Count(sandbox.ServiceAPI, "GET /resources/rustguide") != 1 || e.sb.Count(sandbox.ServiceRPC, "simulateTransaction") != 0 {
		t.Errorf("round 1 must read the 402 and sign nothing: %d GET, %d simulations",
			e.sb.Count(sandbox.ServiceAPI, "GET /resources/rustguide"), e.sb.Count(sandbox.ServiceRPC, "simulateTransaction"))
	}
	nothingPaid := func(t *testing.T) {
		t.Helper()
		if n := e.sb.PaidRequests("GET /resources/rustguide"); n != 0 || e.usdc() != before {
			t.Fatalf("%d paid requests, balance %d (was %d): something was paid", n, e.usdc(), before)
		}
	}
	nothingPaid(t)

	t.Run("tampered state", func(t *testing.T) {
		e := e.in(t)
		last := state[len(state)-1:]
		flip := map[string]string{"A": "B"}[last]
		if flip == "" {
			flip = "A"
		}
		for _, bad := range []string{state[:len(state)-1] + flip, strings.Replace(state, "mv1.", "mv1.x", 1), state + "x", "mv1.e30.AAAA"} {
			e.invalid(e.modern("mindvault_buy", buyRust, capsForm, answer(bad, accept)))
		}
		nothingPaid(t)
	})
	t.Run("other arguments", func(t *testing.T) {
		e := e.in(t)
		e.invalid(e.modern("mindvault_buy", `{"resourceId":"rustguide","maxPriceUsdc":"5"}`, capsForm, answer(state, accept)))
		e.invalid(e.modern("mindvault_buy", `{"resourceId":"rustguide","allowRepeat":true}`, capsForm, answer(state, accept)))
		// A read-only tool never asks, and ignores round-trip fields it did not ask for.
		e.ok("mindvault_preview", e.modern("mindvault_preview", buyRust, capsForm, answer(state, accept)).call)
		nothingPaid(t)
	})
	t.Run("no answer asks again", func(t *testing.T) {
		e := e.in(t)
		again, _ := e.asked(e.modern("mindvault_buy", buyRust, capsForm, answer(state, "")))
		if again == state {
			t.Error("the fresh round 1 repeated the old state")
		}
		nothingPaid(t)
	})
	t.Run("declined", func(t *testing.T) {
		for name, a := range map[string]string{"decline": decline, "cancel": cancel, "confirm false": acceptFalse, "confirm missing": `{"action":"accept","content":{}}`} {
			t.Run(name, func(t *testing.T) {
				e := e.in(t)
				r := e.modern("mindvault_buy", buyRust, capsForm, answer(state, a))
				e.fails("mindvault_buy", r.call, failure{category: "payment", code: "CONFIRMATION_DECLINED", source: "request", retry: "no"})
				nothingPaid(t)
			})
		}
	})
	t.Run("accepted: paid exactly once", func(t *testing.T) {
		e := e.in(t)
		// Unknown answers next to confirm are ignored.
		r := e.modern("mindvault_buy", buyRust, capsForm, answer(state, accept)[:len(answer(state, accept))-1]+`,"extra":{"action":"accept","content":{"x":1}}}`)
		out := e.ok("mindvault_buy", r.call)
		if n := e.sb.PaidRequests("GET /resources/rustguide"); n != 1 {
			t.Fatalf("%d paid requests, want exactly 1", n)
		}
		if got := e.usdc(); got != before-15000000 || out["usdcBalanceAfter"] != "98.5000000" {
			t.Fatalf("balance %d (was %d), usdcBalanceAfter %v", got, before, out["usdcBalanceAfter"])
		}
		// The same accepted round 2 again, even with the repeat guard off: the balance it was
		// approved in is gone, so nothing is paid twice.
		r = e.modern("mindvault_buy", buyRust, capsForm, answer(state, accept))
		if !r.call.IsError || r.call.Meta.Diag == nil || r.call.Meta.Diag.StateChanged != "no" {
			t.Fatalf("a replayed acceptance must be refused: %s", r.raw)
		}
		if n := e.sb.PaidRequests("GET /resources/rustguide"); n != 1 {
			t.Fatalf("%d paid requests after the replay, want still 1", n)
		}
	})
}

// TestConfirmReplayRefused: an accepted round 2 sent again after it paid is refused by the
// balance it was approved in, also where nothing else would stop a second purchase.
func TestConfirmReplayRefused(t *testing.T) {
	e := newEnv(t, nil)
	e.faults("")
	args := `{"resourceId":"rustguide","allowRepeat":true}`
	state, _ := e.asked(e.modern("mindvault_buy", args, capsForm, ""))
	e.ok("mindvault_buy", e.modern("mindvault_buy", args, capsForm, answer(state, accept)).call)
	r := e.modern("mindvault_buy", args, capsForm, answer(state, accept))
	e.fails("mindvault_buy", r.call, failure{category: "payment", code: "CONFIRMATION_STALE", source: "request", retry: "after_action"})
	if n := e.sb.PaidRequests("GET /resources/rustguide"); n != 1 {
		t.Fatalf("%d paid requests, want 1", n)
	}
}

// TestConfirmPriceChangedBetweenRounds: what round 2 would pay is compared with what the user
// approved: a raised price is PRICE_CHANGED, a lowered one CONFIRMATION_STALE, and nothing is
// paid either way, although the preview and the 402 agree on the new price.
func TestConfirmPriceChangedBetweenRounds(t *testing.T) {
	for _, tc := range []struct{ price, code string }{{"2", "PRICE_CHANGED"}, {"1", "CONFIRMATION_STALE"}} {
		t.Run(tc.price, func(t *testing.T) {
			e := newEnv(t, nil)
			before := e.usdc()
			e.faults("")
			state, _ := e.asked(e.modern("mindvault_buy", buyRust, capsForm, ""))
			if err := e.sb.SetPrice("rustguide", tc.price); err != nil {
				t.Fatal(err)
			}
			r := e.modern("mindvault_buy", buyRust, capsForm, answer(state, accept))
			e.fails("mindvault_buy", r.call, failure{category: "payment", code: tc.code, source: "request", retry: "after_action"})
			if n := e.sb.PaidRequests("GET /resources/rustguide"); n != 0 || e.usdc() != before {
				t.Fatalf("%d paid requests, balance %d (was %d)", n, e.usdc(), before)
			}
		})
	}
}

// TestConfirmNotAsked: without the means to ask — the legacy era, a client that did not declare
// form elicitation, the policy off, a dry run — the call behaves as before this feature: no
// input request, the argument guards decide, and a purchase pays at once.
func TestConfirmNotAsked(t *testing.T) {
	cases := []struct {
		name, caps, args string
		env              map[string]string
		legacy           bool
		paid             int
	}{
		{name: "legacy era", legacy: true, args: buyRust, paid: 1},
		{name: "no capabilities", caps: capsNone, args: buyRust, paid: 1},
		{name: "url elicitation only", caps: capsURL, args: buyRust, paid: 1},
		{name: "policy off", caps: capsForm, args: buyRust, env: map[string]string{"MINDVAULT_CONFIRM": "off"}, paid: 1},
		{name: "dry run", caps: capsForm, args: `{"resourceId":"rustguide","dryRun":true}`, paid: 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, tc.env)
			e.faults("")
			var r result
			if tc.legacy {
				r = e.call("mindvault_buy", tc.args)
			} else {
				a := e.modern("mindvault_buy", tc.args, tc.caps, "")
				if a.Result.ResultType != "complete" || strings.Contains(a.raw, "inputRequests") {
					t.Fatalf("want a complete result, got %s", a.raw)
				}
				r = a.call
			}
			e.ok("mindvault_buy", r)
			if n := e.sb.PaidRequests("GET /resources/rustguide"); n != tc.paid {
				t.Fatalf("%d paid requests, want %d", n, tc.paid)
			}
		})
	}
	t.Run("a state this endpoint cannot have issued", func(t *testing.T) {
		e := newEnv(t, map[string]string{"MINDVAULT_CONFIRM": "off"})
		e.faults("")
		e.invalid(e.modern("mindvault_buy", buyRust, capsForm, answer("mv1.e30.AAAA", accept)))
		if n := e.sb.PaidRequests("GET /resources/rustguide"); n != 0 {
			t.Fatalf("%d paid requests", n)
		}
	})
}

// TestConfirmBoundToTheCaller: a requestState issued to one bearer token is refused for
// another, even one allowed the same profile.
func TestConfirmBoundToTheCaller(t *testing.T) {
	digest := func(tok string) string { s := sha256.Sum256([]byte(tok)); return hex.EncodeToString(s[:]) }
	const tokA, tokB = "token-alpha-7f3a9c", "token-bravo-2b8e1d"
	e := newEnv(t, map[string]string{"MINDVAULT_AUTH": "tokens", "MINDVAULT_ACCESS_TOKENS": digest(tokA) + ":demo," + digest(tokB) + ":demo", "test.token": tokA})
	e.faults("")
	state, _ := e.asked(e.modern("mindvault_buy", buyRust, capsForm, ""))
	b := e.in(t)
	b.token = tokB
	b.invalid(b.modern("mindvault_buy", buyRust, capsForm, answer(state, accept)))
	if n := e.sb.PaidRequests("GET /resources/rustguide"); n != 0 {
		t.Fatalf("another caller's acceptance paid: %d", n)
	}
	e.ok("mindvault_buy", e.modern("mindvault_buy", buyRust, capsForm, answer(state, accept)).call)
	if n := e.sb.PaidRequests("GET /resources/rustguide"); n != 1 {
		t.Fatalf("%d paid requests, want 1", n)
	}
}

// TestConfirmOnMainnet: on mainnet the user's confirmation replaces confirmMainnet: a modern
// client that can ask is asked instead of refused, and its acceptance lets the call through;
// without the means to ask, the argument guard still refuses.
func TestConfirmOnMainnet(t *testing.T) {
	e := newEnv(t, nil)
	e.b.Config.Network = "mainnet"
	e.faults("")
	e.fails("mindvault_buy", e.call("mindvault_buy", buyRust), failure{category: "validation", code: "MAINNET_NOT_CONFIRMED", source: "request"})
	e.fails("mindvault_buy", e.modern("mindvault_buy", buyRust, capsNone, "").call, failure{category: "validation", code: "MAINNET_NOT_CONFIRMED", source: "request"})
	state, msg := e.asked(e.modern("mindvault_buy", buyRust, capsForm, ""))
	if !strings.Contains(msg, "on mainnet") {
		t.Errorf("message %q does not name mainnet", msg)
	}
	e.ok("mindvault_buy", e.modern("mindvault_buy", buyRust, capsForm, answer(state, accept)).call)
	if n := e.sb.PaidRequests("GET /resources/rustguide"); n != 1 {
		t.Fatalf("%d paid requests, want 1", n)
	}
	// A write asks on mainnet under auto too, and nothing is sent before the answer.
	state, msg = e.asked(e.modern("mindvault_set_price", `{"resourceId":"llmprompts","price":"0.2"}`, capsForm, ""))
	if !strings.Contains(msg, "set_price") || !strings.Contains(msg, "XLM") {
		t.Errorf("message %q", msg)
	}
	if n := e.sb.Count(sandbox.ServiceRPC, "sendTransaction"); n != 0 {
		t.Fatalf("%d transactions sent before the answer", n)
	}
	e.ok("mindvault_set_price", e.modern("mindvault_set_price", `{"resourceId":"llmprompts","price":"0.2"}`, capsForm, answer(state, accept)).call)
	if n := e.sb.Count(sandbox.ServiceRPC, "sendTransaction"); n != 1 {
		t.Fatalf("%d transactions sent, want 1", n)
	}
}

// askedCalls are calls of every state-changing tool that reach the point of paying or sending
// on the sandbox, in an order in which each can succeed after the previous ones.
var askedCalls = []struct {
	tool, args, wants string
	payment           bool
}{
	{"mindvault_buy", buyRust, "Pay 1.5 USDC", true},
	{"mindvault_publish", `{"title":"Confirmed guide","price":"2","externalUrl":"https://example.org/confirmed"}`, `verification of "Confirmed guide" (a new resource`, true},
	{"mindvault_publish", `{"resourceId":"draftnotes"}`, "verification of resource draftnotes", true},
	{"mindvault_register_onchain", `{"resourceId":"agentpromptpack"}`, "registration of resource agentpromptpack", false},
	{"mindvault_set_price", `{"resourceId":"llmprompts","price":"0.2"}`, "set_price", false},
	{"mindvault_update_metadata", `{"resourceId":"llmprompts","metadata":"ipfs://confirmed"}`, "update_metadata", false},
	{"mindvault_set_listed", `{"resourceId":"llmprompts","listed":false}`, "set_listed", false},
	{"mindvault_set_tags", `{"resourceId":"llmprompts","tags":["confirmed"]}`, "set_tags", false},
	{"mindvault_transfer_ownership", `{"resourceId":"llmprompts","newCreator":"GBBD47IF6LWK7P7MDEVSCWR7DPUWV3NY3DTQEVFL4NAT4AQH3ZLLFLA5"}`, "transfer_ownership", false},
	{"mindvault_setup_wallet", `{"profile":"fresh"}`, "new Stellar wallet", false},
	{"mindvault_register", `{"name":"Confirmed Publisher","email":"confirmed@example.org","profile":"fresh"}`, "as a MindVault publisher", false},
}

// effects counts what changes state on the sandbox: paid requests, API writes, transactions
// sent and sponsored accounts created. (The unpaid request a paid route answers with 402 is a
// read of the price, not an effect.)
func (e *env) effects() int {
	n := e.sb.PaidRequests("*") + e.sb.Count(sandbox.ServiceRPC, "sendTransaction") + e.sb.Count(sandbox.ServiceSponsor, "*")
	for _, write := range []string{"POST /resources", "POST /publishers", "POST /resources/*/register"} {
		n += e.sb.Count(sandbox.ServiceAPI, write)
	}
	return n
}

// TestEveryStateChangingToolAsks: under MINDVAULT_CONFIRM=always every tool that changes
// state asks before it pays or sends anything, and the accepted round 2 then succeeds, so the
// confirmation points of round 2 admit what round 1 asked. The list of tools comes from tools/list, so a new
// state-changing tool fails here until it is covered.
func TestEveryStateChangingToolAsks(t *testing.T) {
	e := newEnv(t, map[string]string{"MINDVAULT_CONFIRM": "always"})
	var list struct {
		Result struct {
			Tools []struct {
				Name        string `json:"name"`
				Annotations struct {
					ReadOnly bool `json:"readOnlyHint"`
				} `json:"annotations"`
			} `json:"tools"`
		} `json:"result"`
	}
	e.rpc(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, &list)
	covered := map[string]bool{}
	for _, c := range askedCalls {
		covered[c.tool] = true
	}
	for _, tl := range list.Result.Tools {
		if !tl.Annotations.ReadOnly && !covered[tl.Name] {
			t.Errorf("%s changes state but askedCalls does not cover it", tl.Name)
		}
	}
	for _, c := range askedCalls {
		t.Run(c.tool+" "+c.args, func(t *testing.T) {
			e := e.in(t)
			e.faults("")
			state, msg := e.asked(e.modern(c.tool, c.args, capsForm, ""))
			if !strings.Contains(msg, c.wants) || !strings.Contains(msg, "on sandbox") {
				t.Errorf("message %q lacks %q or the network", msg, c.wants)
			}
			if n := e.effects(); n != 0 {
				t.Fatalf("round 1 changed something: %d effects", n)
			}
			category := "validation"
			if c.payment {
				category = "payment"
			}
			r := e.modern(c.tool, c.args, capsForm, answer(state, decline))
			e.fails(c.tool, r.call, failure{category: category, code: "CONFIRMATION_DECLINED", source: "request", retry: "no"})
			if e.effects() != 0 {
				t.Fatalf("a decline changed something: %s", r.raw)
			}
			r = e.modern(c.tool, c.args, capsForm, answer(state, accept))
			if r.Result.ResultType != "complete" || r.call.IsError {
				t.Fatalf("accepted round 2 failed: %s", r.raw)
			}
			if e.effects() == 0 {
				t.Fatal("the accepted call changed nothing")
			}
		})
	}
}

// TestConfirmPublishResumeRegistration: resuming a publish whose on-chain registration failed
// registers only, and under always asks first; nothing is registered before the answer.
func TestConfirmPublishResumeRegistration(t *testing.T) {
	e := newEnv(t, map[string]string{"MINDVAULT_CONFIRM": "always"})
	e.faults("service=api,target=POST /resources/*/register,kind=status,status=502,count=1")
	args := `{"title":"Register Later","price":"1","externalUrl":"https://example.org/register-later"}`
	state, _ := e.asked(e.modern("mindvault_publish", args, capsForm, ""))
	out := e.ok("mindvault_publish", e.modern("mindvault_publish", args, capsForm, answer(state, accept)).call)
	id, _ := out["resourceId"].(string)
	if out["onchainStatus"] != "failed" || e.sb.PaidRequests("POST /verify-content") != 1 {
		t.Fatalf("the first publish: %v", out)
	}
	e.faults("")
	resume := `{"resourceId":"` + id + `"}`
	state, msg := e.asked(e.modern("mindvault_publish", resume, capsForm, ""))
	if !strings.Contains(msg, "Register resource "+id) || e.effects() != 0 {
		t.Fatalf("message %q, %d effects before the answer", msg, e.effects())
	}
	res := e.ok("mindvault_publish", e.modern("mindvault_publish", resume, capsForm, answer(state, accept)).call)
	if res["onchainStatus"] != "registered" || e.sb.Count(sandbox.ServiceAPI, "POST /resources/*/register") != 1 || e.sb.PaidRequests("*") != 0 {
		t.Fatalf("resume: %v", res)
	}
}

// TestConfirmKeyNeverLeaves: the confirmation key is a secret like the others: planted in the
// title the question quotes, it appears in no response and no log line.
func TestConfirmKeyNeverLeaves(t *testing.T) {
	const key = "ptuPnMZobcVuLhIx7/uY9RYKxQbmtJ4nhCs37kR78ke+MExu"
	e := newEnv(t, map[string]string{"MINDVAULT_CONFIRM_KEY": key})
	var meta map[string]any
	getJSON(t, e.sb.APIURL+"/resources/rustguide/meta", &meta)
	meta["title"] = "Guide " + key
	body, _ := json.Marshal(meta)
	plan, _ := json.Marshal([]map[string]any{{"service": "api", "target": "GET /resources/*/meta", "kind": "status", "status": 200, "body": string(body)}})
	e.faults(string(plan))
	a := e.modern("mindvault_buy", buyRust, capsForm, "")
	_, msg := e.asked(a)
	if !strings.Contains(msg, "Guide") {
		t.Fatalf("the question does not quote the title: %q", msg)
	}
	raw, _ := json.Marshal(e.logs.String())
	for _, where := range []string{a.raw, e.logs.String(), string(raw)} {
		if strings.Contains(where, key) {
			t.Fatalf("the key leaked: %s", where)
		}
	}
}

// TestConfirmAnswerMustBeAnElicitationResult: an answer that is not an elicitation result is a
// -32602 naming it, and nothing is paid.
func TestConfirmAnswerMustBeAnElicitationResult(t *testing.T) {
	e := newEnv(t, nil)
	e.faults("")
	state, _ := e.asked(e.modern("mindvault_buy", buyRust, capsForm, ""))
	for _, bad := range []string{`{"action":"maybe"}`, `{"content":{"confirm":true}}`, `{"action":7}`} {
		a := e.modern("mindvault_buy", buyRust, capsForm, answer(state, bad))
		e.invalid(a)
		if !strings.Contains(a.Error.Message, "params.inputResponses.confirm") {
			t.Errorf("%s: message %q does not name the answer", bad, a.Error.Message)
		}
	}
	if n := e.sb.PaidRequests("GET /resources/rustguide"); n != 0 {
		t.Fatalf("%d paid requests", n)
	}
}

// TestConfirmAboveCap: on the modern era with form elicitation a price above the cap is a
// question to the user, not a refusal: accepted, exactly the approved amount is paid once;
// declined, nothing. Where nobody can be asked (legacy era) it stays PRICE_ABOVE_CAP, with a
// look as the next step and needs "user", never a buy with a raised cap.
func TestConfirmAboveCap(t *testing.T) {
	e := newEnv(t, nil)
	const args = `{"resourceId":"stellarcheatsheet"}` // 25 USDC, above the default cap of 10
	before := e.usdc()
	r := e.call("mindvault_buy", args)
	e.fails("mindvault_buy", r, failure{category: "payment", code: "PRICE_ABOVE_CAP", source: "x402", retry: "after_action"})
	if !strings.Contains(r.raw, `"needs":"user"`) || strings.Contains(r.raw, `"nextAction":{"tool":"mindvault_buy"`) {
		t.Fatalf("a price above the cap must need the user and never offer a paying next step: %s", r.raw)
	}
	e.faults("")
	state, msg := e.asked(e.modern("mindvault_buy", args, capsForm, ""))
	if !strings.Contains(msg, "Pay 25 USDC") || !strings.Contains(msg, "above your cap of 10 USDC") {
		t.Fatalf("round 1 asked %q", msg)
	}
	if e.sb.PaidRequests("*") != 0 || e.usdc() != before {
		t.Fatal("round 1 paid")
	}
	d := e.modern("mindvault_buy", args, capsForm, answer(state, decline))
	e.fails("mindvault_buy", d.call, failure{category: "payment", code: "CONFIRMATION_DECLINED", source: "request", retry: "no"})
	if e.sb.PaidRequests("*") != 0 || e.usdc() != before {
		t.Fatal("a declined question paid")
	}
	e.ok("mindvault_buy", e.modern("mindvault_buy", args, capsForm, answer(state, accept)).call)
	if n := e.sb.PaidRequests("GET /resources/stellarcheatsheet"); n != 1 || e.usdc() != before-250_000_000 {
		t.Fatalf("%d paid requests, balance %d (was %d): want one payment of 25 USDC", n, e.usdc(), before)
	}
}
