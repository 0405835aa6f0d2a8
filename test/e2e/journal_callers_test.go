//go:build node

package e2e_test

import (
	"encoding/json"
	"strconv"
	"testing"
)

// callAs is c.call with a bearer token.
func (c *cluster) callAs(i int, token, tool, args string) result {
	resp, err := c.client.Do(mcpRequest(c.ctx, c.procs[i%len(c.procs)].url, callBody(tool, args), token))
	if err != nil {
		c.t.Errorf("process %d: %v", i%len(c.procs), err)
		return result{}
	}
	defer resp.Body.Close()
	var out struct {
		Result result `json:"result"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		c.t.Errorf("process %d: %v", i%len(c.procs), err)
	}
	return out.Result
}

// TestJournalCallerBudgetsHoldTogether: two callers pay from one wallet at once over two
// processes, each under a caller budget, the wallet under its own. A caller refused by its own
// budget frees nothing of the other's payments, and some calls share an idempotencyKey across
// the callers: whatever the interleaving, what settles never exceeds the wallet's budget.
func TestJournalCallerBudgetsHoldTogether(t *testing.T) {
	t.Parallel()
	const alice, bob = "alice-budget-token-0001", "bob-budget-token-0002"
	c := journalCluster(t, map[string]string{
		"MINDVAULT_AUTH": "tokens", "MINDVAULT_ACCESS_TOKENS": digest(alice) + ":*," + digest(bob) + ":*",
		"MINDVAULT_BUDGET_USDC": "1.5", "MINDVAULT_BUDGET_CALLER_USDC": "1", "test.token": alice,
	})
	payer := c.sb.Demo.Address
	before := c.balance(t, payer)
	for round := range 3 {
		atOnce(8, func(k int) result {
			token := alice
			if k%2 == 1 {
				token = bob
			}
			key := "caller-" + strconv.Itoa(round) + "-" + strconv.Itoa(k/2) // a caller pair shares a key
			return c.callAs(k, token, "mindvault_buy", `{"resourceId":"datasetcard","allowRepeat":true,"idempotencyKey":"`+key+`"}`)
		})
	}
	if spent := before - c.balance(t, payer); spent > 15_000_000 {
		t.Fatalf("%d units settled against a wallet budget of 15000000", spent)
	}
}
