//go:build node

package e2e_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/mindvault/mcp-endpoint/internal/ledger"
	"github.com/mindvault/mcp-endpoint/internal/ledger/ledgertest"
)

// The spending pause across processes, through the shared ledger on dynalite: under the build
// tag node (docs/operations.md "Tests"); the other spending tests are in spending_test.go.

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
	p, err := operator.Set(context.Background(), true, by)
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
	if _, err := operator.Set(context.Background(), false, "arn:aws:iam::123456789012:user/ops2"); err != nil {
		t.Fatal(err)
	}
	until(1, false)
	c.ok("mindvault_buy", c.call(1, "mindvault_buy", `{"resourceId":"gotestingtips","allowRepeat":true}`))
	if got := c.settledFor(t, payer, "gotestingtips", balance); got.records != 1 || got.spent != 7_500_000 {
		t.Fatalf("after the resume: %+v, want exactly one payment of 0.75 USDC", got)
	}
}
