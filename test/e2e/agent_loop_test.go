package e2e_test

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/mindvault/mcp-endpoint/internal/sandbox"
)

// The mechanical agent: a program that reads only the diagnostic (retry, stateChanged,
// nextAction, retryAfterSeconds, needs) and error.data.suggestions, never the prose, and
// follows the rules of docs/errors.md "The agent's loop". Run over every tool and every fault
// the sandbox can inject, each run must end well: recovered (the call it was given succeeds),
// or stopped cleanly. A run is harmful when it pays twice, pays above the cap, needs more than
// maxAgentCalls calls, or follows a nextAction that names a tool the endpoint does not offer or
// arguments the tool refuses.

const maxAgentCalls = 6

// agentCall is one tools/call of the agent.
type agentCall struct {
	tool string
	args map[string]any
}

func (c agentCall) body() string {
	b, _ := json.Marshal(c.args)
	return string(b)
}

// agentReply is what the agent reads of an answer.
type agentReply struct {
	ok          bool
	rpcError    bool
	suggestions []string
	d           *diagnostic
}

func (e *env) agentSend(c agentCall) agentReply {
	e.t.Helper()
	var resp struct {
		Result result `json:"result"`
		Error  *struct {
			Code int `json:"code"`
			Data struct {
				Code        string   `json:"code"`
				Suggestions []string `json:"suggestions"`
			} `json:"data"`
		} `json:"error"`
	}
	e.rpc(callBody(c.tool, c.body()), &resp)
	if resp.Error != nil {
		return agentReply{rpcError: true, suggestions: resp.Error.Data.Suggestions, d: &diagnostic{Code: resp.Error.Data.Code}}
	}
	return agentReply{ok: !resp.Result.IsError, d: resp.Result.Meta.Diag}
}

// agentRun is one run's verdict and why.
type agentRun struct {
	verdict string // recovered | stopped | harmful
	why     string
	calls   int
}

// drive follows the rules from the first call until the run ends.
func (e *env) drive(first agentCall, offered map[string]bool) agentRun {
	goal := first
	cur := first
	afterAction := false // the last call was a nextAction of after_action: the goal comes next
	checks := 0
	safeRetries := 0
	for n := 1; ; n++ {
		if n > maxAgentCalls {
			return agentRun{"harmful", "more than 6 calls", n - 1}
		}
		r := e.agentSend(cur)
		if cur.tool != goal.tool || cur.body() != goal.body() {
			// A call the endpoint told the agent to make: it must exist and its arguments pass.
			if !offered[cur.tool] {
				return agentRun{"harmful", "nextAction names " + cur.tool + ", which the endpoint does not offer", n}
			}
			if r.d != nil && r.d.Code == "INVALID_ARGUMENTS" && !afterCorrection(goal, cur) {
				return agentRun{"harmful", "nextAction " + cur.tool + " has arguments the tool refuses", n}
			}
		}
		switch {
		case r.ok && cur.tool == goal.tool && cur.body() == goal.body():
			return agentRun{"recovered", "", n}
		case r.ok && checks > 0:
			return agentRun{"stopped", "checked the outcome", n}
		case r.ok && afterAction:
			afterAction = false
			cur = goal
			continue
		case r.ok:
			return agentRun{"stopped", "a step succeeded; nothing more to do", n}
		case r.rpcError && len(r.suggestions) > 0 && cur.tool == goal.tool:
			cur = agentCall{tool: r.suggestions[0], args: cur.args}
			goal = cur
			continue
		case r.rpcError || r.d == nil:
			return agentRun{"stopped", "protocol error", n}
		}
		d := r.d
		switch {
		case d.Needs != "":
			return agentRun{"stopped", "needs " + d.Needs, n}
		case d.StateChanged == "yes" || d.StateChanged == "unknown":
			if d.NextAction == nil || checks > 0 {
				return agentRun{"stopped", "state " + d.StateChanged, n}
			}
			if !checkTools[d.NextAction.Tool] {
				return agentRun{"harmful", "after a change the next action " + d.NextAction.Tool + " is not a check", n}
			}
			checks++
			cur = agentCall{tool: d.NextAction.Tool, args: d.NextAction.Arguments}
		case d.Retry == "no":
			return agentRun{"stopped", "retry no (" + d.Code + ")", n}
		case d.Retry == "safe":
			if safeRetries == 2 {
				return agentRun{"stopped", "safe retries spent (" + d.Code + ")", n}
			}
			safeRetries++
		case d.Retry == "after_wait":
			wait := 0
			if d.RetryAfterSeconds != nil {
				wait = *d.RetryAfterSeconds
			}
			time.Sleep(time.Duration(min(wait, 1)) * 10 * time.Millisecond) // the test's clock is short
			if safeRetries == 2 {
				return agentRun{"stopped", "waits spent (" + d.Code + ")", n}
			}
			safeRetries++
		case d.Retry == "after_correction" && d.NextAction != nil:
			cur = agentCall{tool: d.NextAction.Tool, args: d.NextAction.Arguments}
			goal = cur
		case d.Retry == "after_action" && d.NextAction != nil && !afterAction:
			afterAction = true
			cur = agentCall{tool: d.NextAction.Tool, args: d.NextAction.Arguments}
		default:
			return agentRun{"stopped", "retry " + d.Retry + " (" + d.Code + ")", n}
		}
	}
}

// checkTools are the looks that settle what a change did; after stateChanged yes or unknown
// the next action must be one of them, never the same call again.
var checkTools = map[string]bool{"mindvault_tx_status": true, "mindvault_purchase_history": true, "mindvault_publish_status": true}

// afterCorrection: a corrected call is the goal now, so its own refusal is not a bad step.
func afterCorrection(goal, cur agentCall) bool {
	return goal.tool == cur.tool && goal.body() == cur.body()
}

// agentFaults are the fault plans of the runs: every kind the sandbox injects, on every
// service, persistent (the agent must stop) and once (it may recover).
var agentFaults = func() []string {
	plans := []string{""}
	for _, svc := range []string{"api", "horizon", "rpc", "sponsor"} {
		for _, kind := range []string{"kind=status,status=500", "kind=status,status=503", "kind=status,status=429,retry-after=1",
			"kind=status,status=404", "kind=status,status=401", "kind=status,status=400", "kind=status,status=409",
			"kind=html,status=502", "kind=empty,status=200", "kind=malformed", "kind=drop"} {
			plans = append(plans, "service="+svc+",target=*,"+kind, "service="+svc+",target=*,count=1,"+kind)
		}
	}
	for _, k := range []string{"kind=rpcerror,code=-32603", "kind=tryagain", "kind=nocommit", "kind=archived", "kind=nocontract", "kind=contracterror,code=6"} {
		plans = append(plans, "service=rpc,target=*,"+k, "service=rpc,target=*,count=1,"+k)
	}
	plans = append(plans, "service=api,target=*,paid=true,kind=status,status=402", "service=api,target=*,paid=true,kind=drop,after=true")
	return plans
}()

// agentSkips are the fault kinds the agent's runs leave out, each for its reason: the runs
// measure advice on failures, and these are covered where their outcome is the subject.
var agentSkips = map[string]string{
	sandbox.KindDelay:    "a timeout needs a stall longer than the call's deadline per run (failures_test.go, health_test.go)",
	sandbox.KindOwnKey:   "a custody check of setup_wallet alone (setup_wallet_test.go)",
	sandbox.KindCosigner: "a custody check of setup_wallet alone (setup_wallet_test.go)",
}

// TestAgentFaultsCoverEveryKind: the agent's fault plans use every kind the sandbox defines
// (sandbox.FaultKinds), except the ones agentSkips names, so a new kind joins the runs or is
// skipped on purpose.
func TestAgentFaultsCoverEveryKind(t *testing.T) {
	for _, k := range sandbox.FaultKinds {
		used := slices.ContainsFunc(agentFaults, func(plan string) bool {
			return strings.Contains(plan+",", "kind="+k.Name+",")
		})
		_, skipped := agentSkips[k.Name]
		if used == skipped {
			t.Errorf("kind %s: in the agent's plans %v, skipped %v: want exactly one", k.Name, used, skipped)
		}
	}
}

// TestMechanicalAgent runs the agent over every tool × every fault and fails on any harmful
// run. UPDATE_AGENT_SCORE=1 writes the score table into docs/errors.md.
func TestMechanicalAgent(t *testing.T) {
	// Long and self-contained: harness_test.go, "Which tests run in parallel".
	t.Parallel()
	if testing.Short() {
		t.Skip("long: every tool × every fault")
	}
	probe := newEnv(t, nil)
	owned := ownedBy(probe, probe.sb.Demo.Address)
	other := probe.sb.Accounts()[1].Address
	calls := map[string]string{
		"mindvault_agent_status": `{}`, "mindvault_browse": `{"query":"rust"}`, "mindvault_search": `{"query":"rust"}`,
		"mindvault_preview": `{"resourceId":"rustguide"}`, "mindvault_buy": `{"resourceId":"gotestingtips"}`,
		"mindvault_purchase_history": `{}`, "mindvault_wallet_info": `{}`, "mindvault_list_profiles": `{}`,
		"mindvault_setup_wallet": `{"profile":"fresh"}`, "mindvault_register": `{"name":"Agent","email":"agent@example.org","profile":"fresh2"}`,
		"mindvault_publish":        `{"title":"Loop","price":"1","externalUrl":"https://example.org/loop"}`,
		"mindvault_publish_status": `{"resourceId":"rustguide"}`, "mindvault_register_onchain": `{"resourceId":"rustguide"}`,
		"mindvault_registry_info": `{}`, "mindvault_registry_lookup": `{"resourceId":"` + owned + `"}`, "mindvault_registry_list": `{}`,
		"mindvault_check_consistency": `{"resourceId":"` + owned + `"}`, "mindvault_health": `{}`, "mindvault_network_profile": `{}`,
		"mindvault_tx_status": `{"txHash":"` + strings.Repeat("ab", 32) + `"}`,
		"mindvault_set_price": `{"resourceId":"` + owned + `","price":"2.5"}`, "mindvault_set_listed": `{"resourceId":"` + owned + `","listed":false}`,
		"mindvault_set_tags": `{"resourceId":"` + owned + `","tags":["loop"]}`, "mindvault_update_metadata": `{"resourceId":"` + owned + `","metadata":"ipfs://loop"}`,
		"mindvault_transfer_ownership": `{"resourceId":"` + owned + `","newCreator":"` + other + `"}`,
	}
	offered := map[string]bool{}
	for name := range probe.schemas {
		offered[name] = true
		if _, ok := calls[name]; !ok {
			t.Errorf("the agent has no call for %s", name)
		}
	}
	type cell struct{ recovered, stopped, harmful int }
	score := map[string]*cell{}
	var harms []string
	tools := make([]string, 0, len(calls))
	for name := range calls {
		tools = append(tools, name)
	}
	sort.Strings(tools)
	// The runs share one sandbox, and a transfer hands the resource the other registry writes
	// use to another wallet: it goes last, or every later write would meet a creator it is not.
	tools = append(slices.DeleteFunc(tools, func(n string) bool { return n == "mindvault_transfer_ownership" }), "mindvault_transfer_ownership")
	extra := []struct{ tool, args string }{{"mindvault_preveiw", `{"resourceId":"rustguide"}`}, {"mindvault_preview", `{"resourceID":"rustguide"}`},
		{"mindvault_buy", `{"resourceId":"stellarcheatsheet"}`}, {"mindvault_buy", `{"resourceId":"rustguide","profile":"broke"}`}}
	// typo'd tool, typo'd argument, above the cap, an empty wallet
	e := newEnv(t, map[string]string{"MINDVAULT_HTTP_TIMEOUT_MS": "2000", "MINDVAULT_PAYMENT_TIMEOUT_MS": "2000", "MINDVAULT_RPC_TIMEOUT_MS": "2000", "MINDVAULT_WRITE_WAIT_MS": "300"})
	addProfile(e, "broke", "zero", "")
	run := func(tool, args, plan string) {
		e.faults(plan)
		payer := e.sb.Demo.Address
		before, _ := e.sb.USDCBalance(payer)
		records := len(e.sb.Purchases(payer))
		var a map[string]any
		_ = json.Unmarshal([]byte(args), &a)
		res := e.drive(agentCall{tool: tool, args: a}, offered)
		e.faults("")
		after, _ := e.sb.USDCBalance(payer)
		if got := len(e.sb.Purchases(payer)) - records; got > 1 {
			res = agentRun{"harmful", fmt.Sprintf("paid %d times", got), res.calls}
		}
		if spent := before - after; spent > 100_000_000 { // the default cap, 10 USDC
			res = agentRun{"harmful", fmt.Sprintf("paid %d units, above the cap", spent), res.calls}
		}
		c := score[tool]
		if c == nil {
			c = &cell{}
			score[tool] = c
		}
		if os.Getenv("AGENT_DEBUG") != "" && res.verdict == "stopped" && strings.Contains(tool, os.Getenv("AGENT_DEBUG")) {
			t.Logf("stopped: %s %q: %s", tool, plan, res.why)
		}
		switch res.verdict {
		case "recovered":
			c.recovered++
		case "stopped":
			c.stopped++
		default:
			c.harmful++
			harms = append(harms, fmt.Sprintf("%s %s under %q: %s", tool, args, plan, res.why))
		}
	}
	for _, tool := range tools {
		for _, plan := range agentFaults {
			run(tool, calls[tool], plan)
		}
	}
	for _, x := range extra {
		run(x.tool, x.args, "")
	}
	for _, h := range harms {
		t.Error("harmful: " + h)
	}
	var b strings.Builder
	total := cell{}
	b.WriteString("| tool | recovered | stopped cleanly | harmful |\n|---|---|---|---|\n")
	names := make([]string, 0, len(score))
	for name := range score {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		c := score[name]
		total.recovered, total.stopped, total.harmful = total.recovered+c.recovered, total.stopped+c.stopped, total.harmful+c.harmful
		fmt.Fprintf(&b, "| `%s` | %d | %d | %d |\n", name, c.recovered, c.stopped, c.harmful)
	}
	fmt.Fprintf(&b, "| **all %d runs** | %d | %d | %d |\n", total.recovered+total.stopped+total.harmful, total.recovered, total.stopped, total.harmful)
	t.Logf("mechanical agent score:\n%s", b.String())
	if os.Getenv("UPDATE_AGENT_SCORE") == "1" {
		writeBetween(t, "../../docs/errors.md", "<!-- BEGIN AGENT SCORE -->", "<!-- END AGENT SCORE -->", b.String())
	}
}

// writeBetween replaces what stands between two marker lines of a doc.
func writeBetween(t *testing.T, path, begin, end, body string) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := string(raw)
	i, j := strings.Index(s, begin), strings.Index(s, end)
	if i < 0 || j < i {
		t.Fatalf("%s lacks the markers %s … %s", path, begin, end)
	}
	s = s[:i+len(begin)] + "\n" + body + s[j:]
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}
