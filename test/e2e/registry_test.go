package e2e_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mindvault/mcp-endpoint/internal/credentials"
)

// ownedBy returns an on-chain id created by the given account.
func ownedBy(e *env, address string) string {
	e.t.Helper()
	for _, id := range e.sb.RegistryIDs() {
		if r, ok := e.sb.RegistryResource(id); ok && r.Creator == address {
			return id
		}
	}
	e.t.Fatalf("no on-chain resource is owned by %s", address)
	return ""
}

func TestRegistryReads(t *testing.T) {
	e := newEnv(t, nil)
	demoID := ownedBy(e, e.sb.Demo.Address)

	t.Run("info", func(t *testing.T) {
		e := e.in(t)
		out := e.ok("mindvault_registry_info", e.call("mindvault_registry_info", ``))
		if out["contractId"] != e.sb.RegistryContract || out["live"] == nil {
			t.Fatalf("info: %v", out)
		}
		e.faults("service=rpc,target=simulateTransaction,kind=drop")
		out = e.ok("mindvault_registry_info", e.call("mindvault_registry_info", ``))
		if out["live"] != nil || !strings.Contains(out["liveError"].(string), "network") {
			t.Fatalf("info must answer with liveError when the chain is unreachable: %v", out)
		}
	})
	t.Run("lookup found", func(t *testing.T) {
		e := e.in(t)
		e.faults("")
		out := e.ok("mindvault_registry_lookup", e.call("mindvault_registry_lookup", `{"resourceId":"`+demoID+`"}`))
		if out["found"] != true || out["creator"] != e.sb.Demo.Address || !strings.Contains(out["price"].(string), ".") || len(strings.Split(out["price"].(string), ".")[1]) != 7 {
			t.Fatalf("lookup: %v", out)
		}
	})
	t.Run("lookup missing is soft", func(t *testing.T) {
		e := e.in(t)
		out := e.ok("mindvault_registry_lookup", e.call("mindvault_registry_lookup", `{"resourceId":"nosuchid"}`))
		if out["found"] != false || !strings.Contains(out["next"].(string), "mindvault_register_onchain") {
			t.Fatalf("missing: %v", out)
		}
	})
	t.Run("lookup of an id that cannot be on chain makes no call", func(t *testing.T) {
		e := e.in(t)
		e.faults("")
		out := e.ok("mindvault_registry_lookup", e.call("mindvault_registry_lookup", `{"resourceId":"Has-Capitals"}`))
		if out["found"] != false || e.sb.Count("rpc", "*") != 0 {
			t.Fatalf("want a soft miss without RPC calls: %v, %d calls", out, e.sb.Count("rpc", "*"))
		}
	})
	t.Run("list pages", func(t *testing.T) {
		e := e.in(t)
		all := e.sb.RegistryIDs()
		out := e.ok("mindvault_registry_list", e.call("mindvault_registry_list", `{"limit":2}`))
		if out["count"].(float64) != 2 || out["nextStart"].(float64) != 2 {
			t.Fatalf("page: %v", out)
		}
		out = e.ok("mindvault_registry_list", e.call("mindvault_registry_list", fmt.Sprintf(`{"start":%d}`, len(all))))
		if out["count"].(float64) != 0 || out["nextStart"] != nil || out["message"] == nil {
			t.Fatalf("empty page must be soft: %v", out)
		}
		e.fails("mindvault_registry_list", e.call("mindvault_registry_list", `{"limit":21}`),
			failure{category: "validation", code: "INVALID_ARGUMENTS", source: "request"})
	})
	t.Run("consistency", func(t *testing.T) {
		e := e.in(t)
		e.faults("")
		out := e.ok("mindvault_check_consistency", e.call("mindvault_check_consistency", `{"resourceId":"rustguide"}`))
		if out["apiFound"] != true || out["onchainFound"] != true || len(out["mismatches"].(map[string]any)) != 0 {
			t.Fatalf("consistency: %v", out)
		}
		out = e.ok("mindvault_check_consistency", e.call("mindvault_check_consistency", `{"resourceId":"sorobanaudit"}`))
		if out["apiFound"] != true || out["onchainFound"] != false {
			t.Fatalf("api only: %v", out)
		}
	})
	t.Run("contract and host errors", func(t *testing.T) {
		cases := []struct {
			plan string
			want failure
		}{
			{"service=rpc,target=simulateTransaction,kind=contracterror,code=6", failure{category: "auth", code: "CONTRACT_UNAUTHORIZED", source: "registry"}},
			{"service=rpc,target=simulateTransaction,kind=contracterror,code=17", failure{category: "validation", code: "CONTRACT_INVALID_INPUT", source: "registry"}},
			{"service=rpc,target=simulateTransaction,kind=contracterror,code=1", failure{category: "conflict", code: "ALREADY_REGISTERED", source: "registry"}},
			{"service=rpc,target=simulateTransaction,kind=contracterror,code=14", failure{category: "conflict", code: "ALREADY_OWNER", source: "registry"}},
			{"service=rpc,target=simulateTransaction,kind=contracterror,code=99", failure{category: "contract", code: "CONTRACT_ERROR", source: "registry"}},
			{"service=rpc,target=simulateTransaction,kind=nocontract", failure{category: "contract", code: "CONTRACT_MISSING", source: "registry"}},
			{"service=rpc,target=simulateTransaction,kind=archived", failure{category: "contract", code: "STATE_ARCHIVED", source: "registry"}},
			{"service=rpc,target=simulateTransaction,kind=status,status=429,retry-after=9", failure{category: "rate_limit", code: "RATE_LIMITED", source: "rpc", status: 429, retryAfter: 9}},
			{"service=rpc,target=simulateTransaction,kind=status,status=503", failure{category: "server", code: "SERVER_ERROR", source: "rpc", status: 503}},
			{"service=rpc,target=simulateTransaction,kind=malformed", failure{category: "server", code: "MALFORMED_RESPONSE", source: "rpc", status: 200}},
		}
		for _, tc := range cases {
			for _, tool := range []string{"mindvault_registry_lookup", "mindvault_registry_list", "mindvault_check_consistency"} {
				t.Run(tool+"/"+tc.plan, func(t *testing.T) {
					e := e.in(t)
					e.faults(tc.plan)
					args := `{"resourceId":"` + demoID + `"}`
					if tool == "mindvault_registry_list" {
						args = `{}`
					}
					e.fails(tool, e.call(tool, args), tc.want)
				})
			}
		}
	})
	t.Run("rpc timeout on reads", func(t *testing.T) {
		e := newEnv(t, map[string]string{"MINDVAULT_RPC_TIMEOUT_MS": "300"})
		e.faults("service=rpc,target=simulateTransaction,kind=delay,delay=5s")
		e.fails("mindvault_registry_lookup", e.call("mindvault_registry_lookup", `{"resourceId":"`+demoID+`"}`),
			failure{category: "timeout", code: "TIMEOUT", source: "rpc", next: "MINDVAULT_RPC_TIMEOUT_MS"})
	})
}

func TestRegistryWrites(t *testing.T) {
	// Long and self-contained: harness_test.go, "Which tests run in parallel".
	t.Parallel()
	e := newEnv(t, nil)
	demoID := ownedBy(e, e.sb.Demo.Address)
	creator, _ := e.sb.Account("creator")
	otherID := ownedBy(e, creator.Address)

	lookup := func(e *env, id string) map[string]any {
		return e.ok("mindvault_registry_lookup", e.call("mindvault_registry_lookup", `{"resourceId":"`+id+`"}`))
	}
	writes := []struct {
		tool, args, field string
		want              any
	}{
		{"mindvault_set_price", `"price":"2.25"`, "price", "2.2500000"},
		{"mindvault_update_metadata", `"metadata":"ipfs://bafynewpointer"`, "metadata", "ipfs://bafynewpointer"},
		{"mindvault_set_listed", `"listed":false`, "listed", false},
		{"mindvault_set_tags", `"tags":["Go","ai","go"]`, "tags", []any{"go", "ai"}},
	}
	for _, w := range writes {
		t.Run(w.tool, func(t *testing.T) {
			e := e.in(t)
			r := e.call(w.tool, `{"resourceId":"`+demoID+`",`+w.args+`}`)
			out := e.ok(w.tool, r)
			if out["status"] != "success" || len(out["txHash"].(string)) != 64 {
				t.Fatalf("write: %v", out)
			}
			got := lookup(e, demoID)[w.field]
			if fmt.Sprint(got) != fmt.Sprint(w.want) {
				t.Fatalf("read back %s = %v, want %v", w.field, got, w.want)
			}
			tx := e.ok("mindvault_tx_status", e.call("mindvault_tx_status", `{"txHash":"`+out["txHash"].(string)+`"}`))
			if tx["status"] != "SUCCESS" {
				t.Fatalf("the write's transaction: %v", tx)
			}
		})
		t.Run(w.tool+"/not the creator", func(t *testing.T) {
			e := e.in(t)
			before := lookup(e, otherID)
			e.fails(w.tool, e.call(w.tool, `{"resourceId":"`+otherID+`",`+w.args+`}`),
				failure{category: "auth", code: "CONTRACT_UNAUTHORIZED", source: "registry"})
			if fmt.Sprint(lookup(e, otherID)) != fmt.Sprint(before) {
				t.Fatal("a rejected write changed the resource")
			}
		})
	}
	t.Run("transfer ownership", func(t *testing.T) {
		e := e.in(t)
		if err := e.b.Deps.Store.Create(context.Background(), credentials.Profile{Name: "creator", SecretKey: creator.Secret}); err != nil {
			t.Fatal(err)
		}
		out := e.ok("mindvault_transfer_ownership", e.call("mindvault_transfer_ownership",
			`{"resourceId":"`+otherID+`","newCreator":"`+e.sb.Demo.Address+`","profile":"creator"}`))
		if out["newCreator"] != e.sb.Demo.Address || lookup(e, otherID)["creator"] != e.sb.Demo.Address {
			t.Fatalf("transfer: %v", out)
		}
		// Transferring to the wallet that already owns it changes nothing: not sent (writes_test.go).
		again := e.ok("mindvault_transfer_ownership", e.call("mindvault_transfer_ownership",
			`{"resourceId":"`+otherID+`","newCreator":"`+e.sb.Demo.Address+`"}`))
		if again["changed"] != false || again["txHash"] != nil {
			t.Fatalf("transfer to the owner: %v", again)
		}
	})
	t.Run("an id that cannot be on chain is refused before any call", func(t *testing.T) {
		e := e.in(t)
		e.faults("")
		r := e.call("mindvault_set_price", `{"resourceId":"Not_OnChain","price":"1"}`)
		e.fails("mindvault_set_price", r, failure{category: "validation", code: "INVALID_ARGUMENTS", source: "request"})
		if e.sb.Count("rpc", "*") != 0 {
			t.Fatal("the contract was called")
		}
	})
	t.Run("try again later resends the same envelope", func(t *testing.T) {
		e := e.in(t)
		e.faults("service=rpc,target=sendTransaction,kind=tryagain,count=2")
		out := e.ok("mindvault_set_price", e.call("mindvault_set_price", `{"resourceId":"`+demoID+`","price":"3"}`))
		if n := e.sb.Count("rpc", "sendTransaction"); n != 3 {
			t.Fatalf("sendTransaction called %d times, want 3", n)
		}
		if lookup(e, demoID)["price"] != "3.0000000" || out["price"] != "3.0000000" {
			t.Fatal("the resent write did not apply once")
		}
	})
	t.Run("no confirmation before the deadline", func(t *testing.T) {
		e := e.in(t)
		e.faults("service=rpc,target=sendTransaction,kind=nocommit")
		ctx, cancel := context.WithTimeout(context.Background(), 4*time.Second)
		defer cancel()
		r := e.callCtx(ctx, "mindvault_set_price", `{"resourceId":"`+demoID+`","price":"4"}`)
		e.fails("mindvault_set_price", r, failure{category: "timeout", code: "TIMEOUT", source: "rpc", state: "unknown", retry: "no", next: "mindvault_tx_status"})
		if len(r.Meta.Diag.TxHash) != 64 || !strings.Contains(r.Content[0].Text, r.Meta.Diag.TxHash) {
			t.Fatalf("the hash must be reported: %s", r.raw)
		}
	})
	t.Run("mainnet needs confirmation", func(t *testing.T) {
		e := e.in(t)
		e.b.Config.Network = "mainnet"
		defer func() { e.b.Config.Network = "sandbox" }()
		e.faults("")
		e.fails("mindvault_set_listed", e.call("mindvault_set_listed", `{"resourceId":"`+demoID+`","listed":true}`),
			failure{category: "validation", code: "MAINNET_NOT_CONFIRMED", source: "request"})
		if e.sb.Count("rpc", "*") != 0 {
			t.Fatal("something was sent before the mainnet check")
		}
	})
}

// TestWritePollIsConfigured: MINDVAULT_WRITE_POLL_MS sets the pause between a sent write's
// getTransaction polls. A sandbox that applies the write after 800 ms is polled dozens of
// times at 20 ms; at the default 1 s it would be polled twice.
func TestWritePollIsConfigured(t *testing.T) {
	e := newEnv(t, map[string]string{"MINDVAULT_SANDBOX_APPLY_MS": "800"})
	e.sb.ResetCounts()
	e.ok("mindvault_set_price", e.call("mindvault_set_price", `{"resourceId":"`+ownedBy(e, e.sb.Demo.Address)+`","price":"6.5"}`))
	if n := e.sb.Count("rpc", "getTransaction"); n < 5 {
		t.Fatalf("getTransaction polled %d times in 800 ms, want at least 5 at MINDVAULT_WRITE_POLL_MS=20", n)
	}
}
