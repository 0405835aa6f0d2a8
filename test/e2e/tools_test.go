package e2e_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"strings"
	"testing"

	"github.com/stellar/go-stellar-sdk/keypair"

	"github.com/mindvault/mcp-endpoint/internal/credentials"
)

// firstIDs browses the seeded catalog and returns its ids and one verified id.
func firstIDs(e *env) (ids []string, verified string) {
	out := e.ok("mindvault_browse", e.call("mindvault_browse", `{"limit":100}`))
	for _, r := range out["resources"].([]any) {
		m := r.(map[string]any)
		ids = append(ids, m["id"].(string))
		if m["verificationStatus"] == "verified" && verified == "" {
			verified = m["id"].(string)
		}
	}
	if len(ids) == 0 || verified == "" {
		e.t.Fatal("the sandbox catalog has no verified resource")
	}
	return ids, verified
}

func TestCatalogTools(t *testing.T) {
	e := newEnv(t, nil)
	ids, verified := firstIDs(e)

	t.Run("browse filters and sorts", func(t *testing.T) {
		e := e.in(t)
		out := e.ok("mindvault_browse", e.call("mindvault_browse", `{"sort":"price_asc","limit":100}`))
		prev := new(big.Rat)
		for _, r := range out["resources"].([]any) {
			p, _ := new(big.Rat).SetString(r.(map[string]any)["price"].(string))
			if p.Cmp(prev) < 0 {
				t.Fatalf("not sorted by price: %v", out["resources"])
			}
			prev = p
		}
		if int(out["count"].(float64)) != len(ids) || out["total"] == nil {
			t.Errorf("count/total wrong: %v", out)
		}
		links := e.ok("mindvault_browse", e.call("mindvault_browse", `{"resourceType":"link","limit":100}`))
		for _, r := range links["resources"].([]any) {
			if r.(map[string]any)["resourceType"] != "link" {
				t.Fatalf("type filter not applied: %v", r)
			}
		}
	})
	t.Run("browse pages", func(t *testing.T) {
		e := e.in(t)
		out := e.ok("mindvault_browse", e.call("mindvault_browse", `{"limit":2}`))
		if out["count"].(float64) != 2 || out["nextOffset"] == nil {
			t.Fatalf("first page: %v", out)
		}
		last := e.ok("mindvault_browse", e.call("mindvault_browse", fmt.Sprintf(`{"limit":100,"offset":%d}`, len(ids)-1)))
		if last["count"].(float64) != 1 || last["nextOffset"] != nil {
			t.Fatalf("last page: %v", last)
		}
	})
	t.Run("browse empty page is a success", func(t *testing.T) {
		e := e.in(t)
		out := e.ok("mindvault_browse", e.call("mindvault_browse", `{"offset":1000}`))
		if out["count"].(float64) != 0 || !strings.Contains(out["message"].(string), "offset 1000") {
			t.Fatalf("empty page: %v", out)
		}
		out = e.ok("mindvault_browse", e.call("mindvault_browse", `{"minPrice":"100000"}`))
		if out["count"].(float64) != 0 || out["message"] != "No resources match minPrice 100000." {
			t.Fatalf("no match: %v", out)
		}
	})
	t.Run("search no match", func(t *testing.T) {
		e := e.in(t)
		out := e.ok("mindvault_search", e.call("mindvault_search", `{"query":"zzqx-nothing"}`))
		if out["count"].(float64) != 0 || out["message"] != `No resources match "zzqx-nothing".` {
			t.Fatalf("search miss: %v", out)
		}
	})
	t.Run("search needs a criterion", func(t *testing.T) {
		e := e.in(t)
		r := e.call("mindvault_search", `{"limit":5}`)
		e.fails("mindvault_search", r, failure{category: "validation", code: "INVALID_ARGUMENTS", source: "request", retry: "after_correction"})
		if !strings.Contains(r.Content[0].Text, "/query") {
			t.Errorf("the cross-field issue must name /query: %s", r.Content[0].Text)
		}
	})
	t.Run("search price range", func(t *testing.T) {
		e := e.in(t)
		r := e.call("mindvault_search", `{"minPrice":"5","maxPrice":"1"}`)
		e.fails("mindvault_search", r, failure{category: "validation", code: "INVALID_ARGUMENTS", source: "request"})
		if !strings.Contains(r.Content[0].Text, "/minPrice") {
			t.Errorf("want /minPrice: %s", r.Content[0].Text)
		}
	})
	t.Run("preview", func(t *testing.T) {
		e := e.in(t)
		out := e.ok("mindvault_preview", e.call("mindvault_preview", `{"resourceId":"`+verified+`"}`))
		if out["id"] != verified || out["priceUsdc"] != out["price"] || !strings.Contains(out["price"].(string), ".") || len(strings.Split(out["price"].(string), ".")[1]) != 7 {
			t.Fatalf("preview: %v", out)
		}
	})
	t.Run("preview of a missing id", func(t *testing.T) {
		e := e.in(t)
		e.fails("mindvault_preview", e.call("mindvault_preview", `{"resourceId":"nosuchthing"}`),
			failure{category: "not_found", code: "NOT_FOUND", source: "api", status: 404, retry: "after_correction", next: "mindvault_browse"})
	})
	t.Run("publish status settled", func(t *testing.T) {
		e := e.in(t)
		out := e.ok("mindvault_publish_status", e.call("mindvault_publish_status", `{"resourceId":"`+verified+`"}`))
		if out["settled"] != true || out["verificationStatus"] != "verified" || out["attempts"].(float64) != 1 {
			t.Fatalf("publish status: %v", out)
		}
	})
	t.Run("agent status", func(t *testing.T) {
		e := e.in(t)
		out := e.ok("mindvault_agent_status", e.call("mindvault_agent_status", ``))
		if out["pricePerVerification"] != "0.1000000" {
			t.Fatalf("agent status: %v", out)
		}
	})
}

// TestPublishStatusPendingWaits: a pending resource with no verdict waits for its fee, which
// waiting cannot bring, so a wait answers at once; a verdict still being recorded is polled
// until the wait runs out.
func TestPublishStatusPendingWaits(t *testing.T) {
	// Long and self-contained: harness_test.go, "Which tests run in parallel".
	t.Parallel()
	e := newEnv(t, nil)
	out := e.ok("mindvault_browse", e.call("mindvault_browse", `{"verificationStatus":"pending","limit":100}`))
	var pending string
	for _, r := range out["resources"].([]any) {
		pending = r.(map[string]any)["id"].(string)
	}
	if pending == "" {
		t.Fatal("no pending resource is listed in the sandbox catalog")
	}
	t.Run("waiting for the fee answers at once", func(t *testing.T) {
		e := e.in(t)
		r := e.ok("mindvault_publish_status", e.call("mindvault_publish_status", `{"resourceId":"`+pending+`","waitSeconds":3}`))
		if r["settled"] != false || r["timedOut"] != false || r["attempts"].(float64) != 1 || r["waitingFor"] != "fee" {
			t.Fatalf("pending without its fee: %v", r)
		}
	})
	t.Run("a verdict being recorded is waited for", func(t *testing.T) {
		e := e.in(t)
		e.faults(jsonPlan(map[string]any{"service": "api", "target": "GET /resources/*/verification", "kind": "status", "status": 200,
			"body": `{"resourceId":"` + pending + `","status":"pending","listed":false,"verification":{"isOriginal":true,"confidence":0.9,"flags":[],"checkedAt":"2025-06-04T12:00:00.000Z"}}`}))
		r := e.ok("mindvault_publish_status", e.call("mindvault_publish_status", `{"resourceId":"`+pending+`","waitSeconds":3}`))
		if r["settled"] != false || r["timedOut"] != true || r["attempts"].(float64) < 2 || r["waitingFor"] != "verification" {
			t.Fatalf("pending with a wait: %v", r)
		}
	})
}

func TestWalletInfo(t *testing.T) {
	e := newEnv(t, nil)
	store := e.b.Deps.Store
	for _, name := range []string{"notrust", "otherissuer", "zero"} {
		a, ok := e.sb.Account(name)
		if !ok {
			t.Fatalf("no seeded account %s", name)
		}
		if err := store.Create(context.Background(), credentials.Profile{Name: name, SecretKey: a.Secret}); err != nil {
			t.Fatal(err)
		}
	}
	// A profile whose account does not exist on the network.
	if err := store.Create(context.Background(), credentials.Profile{Name: "fresh", SecretKey: newSeed(t)}); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		profile, status string
		note            bool
	}{
		{"", "funded", false}, // the demo profile is the sandbox default
		{"notrust", "no_trustline", true},
		{"otherissuer", "no_trustline", true},
		{"zero", "zero", true},
		{"fresh", "missing", true},
	}
	for _, tc := range cases {
		t.Run(tc.status+"/"+tc.profile, func(t *testing.T) {
			e := e.in(t)
			args := `{}`
			if tc.profile != "" {
				args = `{"profile":"` + tc.profile + `"}`
			}
			out := e.ok("mindvault_wallet_info", e.call("mindvault_wallet_info", args))
			usdc := out["usdc"].(map[string]any)
			if usdc["status"] != tc.status || usdc["issuer"] != e.sb.USDCIssuer {
				t.Fatalf("usdc = %v", usdc)
			}
			if _, has := out["note"]; has != tc.note {
				t.Errorf("note presence = %v: %v", has, out["note"])
			}
			checkReserve(t, e, out)
		})
	}
	t.Run("unknown profile", func(t *testing.T) {
		e := e.in(t)
		e.fails("mindvault_wallet_info", e.call("mindvault_wallet_info", `{"profile":"ghost"}`),
			failure{category: "auth", code: "CREDENTIALS_MISSING", source: "credentials", retry: "after_action"})
	})
}

// checkReserve recomputes the reserve from the account Horizon serves.
func checkReserve(t *testing.T, e *env, out map[string]any) {
	t.Helper()
	xlm := out["xlm"].(map[string]any)
	resp, err := http.Get(e.sb.HorizonURL + "/accounts/" + out["address"].(string))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == 404 {
		if xlm["reserved"] != "0.0000000" || xlm["available"] != "0.0000000" {
			t.Errorf("missing account must show zeros: %v", xlm)
		}
		return
	}
	var acct struct {
		Sub        int `json:"subentry_count"`
		Sponsoring int `json:"num_sponsoring"`
		Sponsored  int `json:"num_sponsored"`
	}
	b, _ := io.ReadAll(resp.Body)
	_ = json.Unmarshal(b, &acct)
	want := new(big.Rat).SetFrac64(int64(max(0, 2+acct.Sub+acct.Sponsoring-acct.Sponsored))*5, 10)
	got, _ := new(big.Rat).SetString(xlm["reserved"].(string))
	if got.Cmp(want) != 0 {
		t.Errorf("reserved = %s, want %s (sub %d, sponsoring %d, sponsored %d)", xlm["reserved"], want.FloatString(7), acct.Sub, acct.Sponsoring, acct.Sponsored)
	}
	bal, _ := new(big.Rat).SetString(xlm["balance"].(string))
	avail, _ := new(big.Rat).SetString(xlm["available"].(string))
	exp := new(big.Rat).Sub(bal, want)
	if exp.Sign() < 0 {
		exp.SetInt64(0)
	}
	if avail.Cmp(exp) != 0 {
		t.Errorf("available = %s, want %s", xlm["available"], exp.FloatString(7))
	}
}

func TestTxStatus(t *testing.T) {
	e := newEnv(t, nil)
	ok, failed := e.sb.Transactions()
	out := e.ok("mindvault_tx_status", e.call("mindvault_tx_status", `{"txHash":"sha256:`+strings.ToUpper(ok)+`"}`))
	if out["status"] != "SUCCESS" || out["hash"] != ok || out["resultCode"] != "txSUCCESS" || out["ledgerCloseTime"] == nil {
		t.Fatalf("success: %v", out)
	}
	out = e.ok("mindvault_tx_status", e.call("mindvault_tx_status", `{"txHash":"`+failed+`"}`))
	if out["status"] != "FAILED" || out["resultCode"] != "txFAILED" {
		t.Fatalf("failed: %v", out)
	}
	out = e.ok("mindvault_tx_status", e.call("mindvault_tx_status", `{"txHash":"`+strings.Repeat("0", 64)+`"}`))
	if out["status"] != "NOT_FOUND" || out["latestLedger"] == nil || out["message"] == nil {
		t.Fatalf("not found must be a soft result: %v", out)
	}
	e.fails("mindvault_tx_status", e.call("mindvault_tx_status", `{"txHash":"xyz"}`),
		failure{category: "validation", code: "INVALID_ARGUMENTS", source: "request"})
}

func TestHealth(t *testing.T) {
	e := newEnv(t, nil)
	out := e.ok("mindvault_health", e.call("mindvault_health", ``))
	if out["healthy"] != true {
		t.Fatalf("sandbox should be healthy: %v", out)
	}
	e.faults("service=rpc,target=getHealth,kind=status,status=503")
	out = e.ok("mindvault_health", e.call("mindvault_health", ``))
	if out["healthy"] != false {
		t.Fatalf("an unhealthy dependency must be reported: %v", out)
	}
	for _, c := range out["checks"].([]any) {
		m := c.(map[string]any)
		if m["name"] == "Stellar RPC" && (m["ok"] != false || !strings.Contains(m["detail"].(string), "server")) {
			t.Fatalf("rpc check: %v", m)
		}
	}
	if n := e.sb.Count("rpc", "getHealth"); n != 3 {
		t.Errorf("getHealth was tried %d times, want 3 (reads are retried)", n)
	}
}

// newSeed is a fresh wallet secret whose account never exists in the sandbox.
func newSeed(t *testing.T) string {
	t.Helper()
	return keypair.MustRandom().Seed()
}
