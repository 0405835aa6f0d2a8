package e2e_test

import (
	"encoding/json"
	"strings"
	"testing"

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
