package e2e_test

import (
	"fmt"
	"io"
	"math/big"
	"net/http"
	"slices"
	"strings"
	"testing"
)

func catalogIDs(out map[string]any) []string {
	var ids []string
	for _, r := range out["resources"].([]any) {
		ids = append(ids, r.(map[string]any)["id"].(string))
	}
	slices.Sort(ids)
	return ids
}

// Tag filters match in the sandbox: catalog rows carry the chain's tags, including tags
// changed on chain a moment ago.
func TestSandboxTagFilters(t *testing.T) {
	e := newEnv(t, nil)
	for _, tc := range []struct {
		tool, args string
		want       []string
	}{
		{"mindvault_browse", `{"tags":["rust"]}`, []string{"rustguide"}},
		{"mindvault_browse", `{"tags":["Soroban","stellar"]}`, []string{"stellarcheatsheet"}},
		{"mindvault_search", `{"tags":["agents"]}`, []string{"llmprompts"}},
		{"mindvault_search", `{"query":"prompt","tags":["llm"]}`, []string{"llmprompts"}},
		{"mindvault_browse", `{"tags":["rust","zk"]}`, nil}, // every tag must match
	} {
		t.Run(tc.tool+" "+tc.args, func(t *testing.T) {
			e := e.in(t)
			out := e.ok(tc.tool, e.call(tc.tool, tc.args))
			if got := catalogIDs(out); !slices.Equal(got, tc.want) {
				t.Fatalf("ids %v, want %v (%v)", got, tc.want, out["message"])
			}
		})
	}
	t.Run("after set_tags", func(t *testing.T) {
		e := e.in(t)
		e.ok("mindvault_set_tags", e.call("mindvault_set_tags", `{"resourceId":"vectordbbench","tags":["rust"]}`))
		out := e.ok("mindvault_browse", e.call("mindvault_browse", `{"tags":["rust"]}`))
		if got := catalogIDs(out); !slices.Equal(got, []string{"rustguide", "vectordbbench"}) {
			t.Fatalf("ids %v", got)
		}
	})
}

// A wallet made by setup_wallet in the sandbox is funded like a testnet faucet would fund
// it, the result says so, and the new profile can buy straight away.
func TestSandboxNewWalletCanBuy(t *testing.T) {
	e := newEnv(t, nil)
	out := e.ok("mindvault_setup_wallet", e.call("mindvault_setup_wallet", `{"profile":"newbie"}`))
	addr := out["address"].(string)
	if note, _ := out["note"].(string); !strings.Contains(note, "100.0000000 USDC") || !strings.Contains(note, "faucet") {
		t.Fatalf("no funding note: %v", out)
	}
	if got := usdc(e, addr); got.Cmp(rat("100")) != 0 {
		t.Fatalf("the new wallet holds %s USDC, want 100", got.FloatString(7))
	}
	buy := e.ok("mindvault_buy", e.call("mindvault_buy", `{"resourceId":"rustguide","profile":"newbie"}`))
	if buy["txHash"] == nil {
		t.Fatalf("buy: %v", buy)
	}
	if got := new(big.Rat).Sub(rat("100"), usdc(e, addr)); got.Cmp(rat("1.5")) != 0 {
		t.Fatalf("paid %s, want 1.5", got.FloatString(7))
	}
	if n := e.sb.PaidRequests("GET /resources/*"); n != 1 {
		t.Fatalf("paid requests %d, want 1", n)
	}

	// Without faucet funding the result carries no note.
	e.sb.SetFaucet(0)
	out = e.ok("mindvault_setup_wallet", e.call("mindvault_setup_wallet", `{"profile":"unfunded"}`))
	if _, ok := out["note"]; ok {
		t.Fatalf("note without funding: %v", out)
	}
}

// The default demo profile is the seeded Demo Publisher: it publishes without any setup and
// can register on chain the resources it created, including the seeded one whose pending
// registration never reached the network.
func TestSandboxDemoRegistersItsResources(t *testing.T) {
	e := newEnv(t, nil)
	out := e.ok("mindvault_publish", e.call("mindvault_publish",
		`{"title":"Demo Notes","price":"1.25","externalUrl":"https://example.org/demo-notes"}`))
	if out["onchainStatus"] != "registered" {
		t.Fatalf("publish: %v", out)
	}
	for _, id := range []string{out["resourceId"].(string), "agentpromptpack"} {
		if id == "agentpromptpack" {
			reg := e.ok("mindvault_register_onchain", e.call("mindvault_register_onchain", `{"resourceId":"agentpromptpack"}`))
			if reg["onchainStatus"] != "registered" || reg["txHash"] == nil {
				t.Fatalf("register_onchain: %v", reg)
			}
		}
		look := e.ok("mindvault_registry_lookup", e.call("mindvault_registry_lookup", fmt.Sprintf(`{"resourceId":%q}`, id)))
		if look["found"] != true || look["creator"] != e.sb.Demo.Address {
			t.Fatalf("%s not on chain as demo's: %v", id, look)
		}
	}
}

// play calls a tool on the modern era as a client with form elicitation does: when the tool
// asks for the user's confirmation, the user accepts and the call is sent again with the
// answer. It returns the completed result and the question asked ("" if none).
func (e *env) play(tool, args string) (map[string]any, string) {
	e.t.Helper()
	a := e.modern(tool, args, capsForm, "")
	var asked string
	if a.Result.ResultType == "input_required" {
		var state string
		state, asked = e.asked(a)
		a = e.modern(tool, args, capsForm, answer(state, accept))
	}
	return e.ok(tool, a.call), asked
}

// The sandbox is playable end to end for a wallet it did not seed: a wallet made by
// setup_wallet registers as a publisher, its first publish (confirmed by the user) is
// verified and registered on chain with the new wallet as creator, the seeded link it buys
// opens on the sandbox's own address, and search matches words, not the insides of words.
func TestSandboxNewWalletPlaysEndToEnd(t *testing.T) {
	e := newEnv(t, nil)
	wallet, _ := e.play("mindvault_setup_wallet", `{"profile":"newbie"}`)
	addr := wallet["address"].(string)
	e.play("mindvault_register", `{"profile":"newbie","name":"Newbie Labs","email":"newbie@example.org"}`)
	// The new wallet holds 0 XLM: as on testnet, its on-chain registration (a transaction it
	// signs and pays the fee of) needs XLM someone sends it. TestFirstWriteNeedsXLM covers the
	// refusal without it.
	if err := e.sb.FundXLM(addr, 10_000_000); err != nil {
		t.Fatal(err)
	}

	pub, asked := e.play("mindvault_publish",
		`{"profile":"newbie","title":"Newbie Notes","price":"1.25","externalUrl":"https://example.org/newbie-notes"}`)
	id, _ := pub["resourceId"].(string)
	if !strings.Contains(asked, "verification of \"Newbie Notes\"") {
		t.Fatalf("publish asked %q, want the verification fee's approval", asked)
	}
	if pub["onchainStatus"] != "registered" || pub["verificationStatus"] != "verified" {
		t.Fatalf("publish: %v", pub)
	}
	look, _ := e.play("mindvault_registry_lookup", fmt.Sprintf(`{"resourceId":%q}`, id))
	if look["found"] != true || look["creator"] != addr {
		t.Fatalf("%s not on chain as the new wallet's (%s): %v", id, addr, look)
	}
	if entry, ok := e.sb.RegistryResource(id); !ok || entry.Creator != addr {
		t.Fatalf("the registry holds %+v (%v), want creator %s", entry, ok, addr)
	}

	buy, _ := e.play("mindvault_buy", `{"profile":"newbie","resourceId":"llmprompts"}`)
	access, _ := buy["access"].(map[string]any)
	link, _ := access["url"].(string)
	if access["delivery"] != "link" || !strings.HasPrefix(link, e.sb.APIURL+"/") {
		t.Fatalf("the link is %q, want one on the sandbox's address %s: %v", link, e.sb.APIURL, buy)
	}
	resp, err := http.Get(link)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(page), "LLM Prompt Patterns") {
		t.Fatalf("GET %s: %d %q", link, resp.StatusCode, page)
	}

	found, _ := e.play("mindvault_search", `{"query":"rust"}`)
	if ids := catalogIDs(found); !slices.Contains(ids, "rustguide") || slices.Contains(ids, "stellarcheatsheet") {
		t.Fatalf("search rust found %v: want rustguide, and not stellarcheatsheet (trustlines)", ids)
	}
}
