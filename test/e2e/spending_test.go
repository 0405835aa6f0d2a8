package e2e_test

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mindvault/mcp-endpoint/internal/ledger"
	"github.com/mindvault/mcp-endpoint/internal/ledger/ledgertest"
	"github.com/mindvault/mcp-endpoint/internal/sandbox"
)

// The operator's controls over spending (docs/security.md "Whom the wallet may pay"): what is
// counted is what reached the sandbox (simulations, paid requests, created resources), never
// what the endpoint says.

// signedNothing fails when anything was simulated, paid or created since the counts in before.
func signedNothing(t *testing.T, sb *sandbox.Sandbox, before [3]int) {
	t.Helper()
	if now := spendCounts(sb); now != before {
		t.Fatalf("something was signed, sent or created: simulations, paid requests, created resources %v, before %v", now, before)
	}
}

func spendCounts(sb *sandbox.Sandbox) [3]int {
	return [3]int{sb.Count(sandbox.ServiceRPC, "simulateTransaction"), sb.PaidRequests("*"), sb.Count(sandbox.ServiceAPI, "POST /resources")}
}

// operatorRefused fails unless r is the operator's refusal code, naming every word of says.
func operatorRefused(t *testing.T, r result, code string, says ...string) {
	t.Helper()
	d := r.Meta.Diag
	if !r.IsError || d == nil || d.Code != code || d.Category != "payment" || d.Needs != "operator" || d.Retry != "no" || d.StateChanged != "no" || d.NextAction != nil {
		t.Fatalf("want %s (payment, needs operator, retry no, state no, no next action): %s", code, tail(r.raw, 700))
	}
	for _, s := range says {
		if !strings.Contains(r.Content[0].Text, s) {
			t.Fatalf("%s does not name %q: %s", code, s, r.Content[0].Text)
		}
	}
}

// seeded is a sandbox account, known before any sandbox starts (its keys derive from its name),
// so that the environment can name it.
func seeded(t *testing.T, name string) sandbox.Account {
	t.Helper()
	sb, err := sandbox.Start(sandbox.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	a, ok := sb.Account(name)
	if !ok {
		t.Fatalf("no sandbox account %q", name)
	}
	return a
}

// TestPayeeAndResourceLists: a denied payee and a denied resource sign nothing, whatever the
// arguments (a cap raised, a repeat allowed, a key, a dry run), and no argument reaches the
// lists; a payee outside a non-empty allow list signs nothing (a publish's fee to the
// verification agent, refused before the resource is created), while an allowed one pays once.
func TestPayeeAndResourceLists(t *testing.T) {
	t.Run("denied", func(t *testing.T) {
		creator := seeded(t, "creator")
		e := newEnv(t, map[string]string{"MINDVAULT_PAYEES_DENIED": creator.Address, "MINDVAULT_RESOURCES_DENIED": "llmprompts, zkprimer"})
		before := spendCounts(e.sb)
		for _, args := range []string{
			`{"resourceId":"gotestingtips"}`,
			`{"resourceId":"gotestingtips","maxPriceUsdc":"100","allowRepeat":true,"idempotencyKey":"lists-key-0001"}`,
			`{"resourceId":"gotestingtips","dryRun":true}`,
		} {
			operatorRefused(t, e.call("mindvault_buy", args), "PAYEE_NOT_ALLOWED", "MINDVAULT_PAYEES_DENIED", creator.Address)
		}
		// llmprompts is the demo wallet's own: only the resource list refuses it.
		operatorRefused(t, e.call("mindvault_buy", `{"resourceId":"llmprompts","allowRepeat":true,"maxPriceUsdc":"100"}`), "RESOURCE_DENIED", "MINDVAULT_RESOURCES_DENIED", "llmprompts")
		// No argument names the lists: one that tries is not an argument at all.
		r := e.call("mindvault_buy", `{"resourceId":"gotestingtips","payeesAllowed":["`+creator.Address+`"]}`)
		if d := r.Meta.Diag; !r.IsError || d == nil || d.Code != "INVALID_ARGUMENTS" {
			t.Fatalf("an argument that would widen the lists: %s", tail(r.raw, 500))
		}
		signedNothing(t, e.sb, before)
		np := e.ok("mindvault_network_profile", e.call("mindvault_network_profile", `{}`))
		if b, _ := json.Marshal([]any{np["payeesDenied"], np["resourcesDenied"], np["payeesAllowed"]}); string(b) != `[["`+creator.Address+`"],["llmprompts","zkprimer"],null]` {
			t.Fatalf("network_profile shows the lists as %s", b)
		}
	})
	t.Run("allowed", func(t *testing.T) {
		creator, agent := seeded(t, "creator"), seeded(t, "agent")
		e := newEnv(t, map[string]string{"MINDVAULT_PAYEES_ALLOWED": creator.Address})
		before := spendCounts(e.sb)
		for _, args := range []string{`{"title":"Allow List","price":"1","externalUrl":"https://example.org/allow"}`,
			`{"title":"Allow List","price":"1","externalUrl":"https://example.org/allow","maxFeeUsdc":"100","idempotencyKey":"lists-key-0002"}`} {
			operatorRefused(t, e.call("mindvault_publish", args), "PAYEE_NOT_ALLOWED", "MINDVAULT_PAYEES_ALLOWED", agent.Address)
		}
		signedNothing(t, e.sb, before)
		e.ok("mindvault_buy", e.call("mindvault_buy", `{"resourceId":"gotestingtips"}`))
		if n := e.sb.PaidRequests("*"); n != 1 {
			t.Fatalf("the allowed payee: %d paid requests, want 1", n)
		}
	})
}

// TestSpendingPauseAcrossProcesses: the operator pauses spending in the shared ledger (as
// `mindvault-local spending pause` does); the other processes see it within their pause cache
// (200 ms here, polled), refuse every payment with SPENDING_PAUSED before anything is signed,
// keep serving reads, and show the pause in health and network_profile; a resume lets exactly
// one payment through.
func TestSpendingPauseAcrossProcesses(t *testing.T) {
	t.Parallel()
	url := ledgertest.Dynalite(t, "../..")
	table := "pause" + strconv.FormatInt(time.Now().UnixNano(), 36)
	ledgertest.CreateTable(t, url, table)
	c := journalCluster(t, map[string]string{"MINDVAULT_LEDGER": "dynamodb:" + table, "MINDVAULT_PAUSE_CACHE_MS": "200"})
	operator, err := ledger.NewDynamo(ledgertest.Config(), table, url)
	if err != nil {
		t.Fatal(err)
	}
	const by = "arn:aws:iam::123456789012:user/ops"
	spending := func(i int, tool string) map[string]any {
		out := c.ok(tool, c.call(i, tool, `{}`))
		s, _ := out["spending"].(map[string]any)
		return s
	}
	// until polls process i's view of the switch (through network_profile, the read every
	// payment makes too) until it is paused, or not; never a fixed sleep.
	until := func(i int, paused bool) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for spending(i, "mindvault_network_profile")["paused"] != paused {
			if time.Now().After(deadline) {
				t.Fatalf("process %d did not see paused=%v in 30 s (its cache is 200 ms)", i, paused)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	for i := range 2 {
		if s := spending(i, "mindvault_network_profile"); s["paused"] != false {
			t.Fatalf("process %d before the pause: %v", i, s)
		}
	}
	p, err := operator.Pause(context.Background(), by)
	if err != nil {
		t.Fatal(err)
	}
	since := p.Since.UTC().Format(time.RFC3339)
	until(0, true)
	until(1, true)
	before := spendCounts(c.sb)
	payer := c.sb.Demo.Address
	balance := c.balance(t, payer)
	operatorRefused(t, c.call(1, "mindvault_buy", `{"resourceId":"gotestingtips","allowRepeat":true,"maxPriceUsdc":"100"}`), "SPENDING_PAUSED", since, by)
	operatorRefused(t, c.call(0, "mindvault_buy", `{"resourceId":"gotestingtips","idempotencyKey":"pause-key-0001"}`), "SPENDING_PAUSED", since, by)
	operatorRefused(t, c.call(0, "mindvault_publish", `{"title":"Paused","price":"1","externalUrl":"https://example.org/paused"}`), "SPENDING_PAUSED", by)
	signedNothing(t, c.sb, before)
	// Reads keep working.
	c.ok("mindvault_browse", c.call(1, "mindvault_browse", `{"limit":3}`))
	c.ok("mindvault_preview", c.call(1, "mindvault_preview", `{"resourceId":"gotestingtips"}`))
	for _, tool := range []string{"mindvault_health", "mindvault_network_profile"} {
		if s := spending(1, tool); s["paused"] != true || s["since"] != since || s["by"] != by {
			t.Fatalf("%s shows %v, want paused since %s by %s", tool, s, since, by)
		}
	}
	if _, err := operator.Resume(context.Background(), "arn:aws:iam::123456789012:user/ops2"); err != nil {
		t.Fatal(err)
	}
	until(1, false)
	c.ok("mindvault_buy", c.call(1, "mindvault_buy", `{"resourceId":"gotestingtips","allowRepeat":true}`))
	if got := c.settledFor(t, payer, "gotestingtips", balance); got.records != 1 || got.spent != 7_500_000 {
		t.Fatalf("after the resume: %+v, want exactly one payment of 0.75 USDC", got)
	}
}
