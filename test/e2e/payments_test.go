package e2e_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/big"
	"strings"
	"sync"
	"testing"

	"github.com/mindvault/mcp-endpoint/internal/credentials"
	"github.com/mindvault/mcp-endpoint/internal/testkit/smtest"
)

// usdc reads an account's USDC balance (7-decimal string) straight from the sandbox Horizon.
func usdc(e *env, address string) *big.Rat {
	e.t.Helper()
	var acct struct {
		Balances []struct {
			Balance string `json:"balance"`
			Code    string `json:"asset_code"`
			Issuer  string `json:"asset_issuer"`
		} `json:"balances"`
	}
	getJSON(e.t, e.sb.HorizonURL+"/accounts/"+address, &acct)
	for _, b := range acct.Balances {
		if b.Code == "USDC" && b.Issuer == e.sb.USDCIssuer {
			r, _ := new(big.Rat).SetString(b.Balance)
			return r
		}
	}
	return new(big.Rat)
}

func rat(s string) *big.Rat { r, _ := new(big.Rat).SetString(s); return r }

// addProfile stores a seeded account as a profile.
func addProfile(e *env, name, account, apiKey string) {
	e.t.Helper()
	a, ok := e.sb.Account(account)
	if !ok {
		e.t.Fatalf("no seeded account %s", account)
	}
	if err := e.b.Deps.Store.Create(context.Background(), credentials.Profile{Name: name, SecretKey: a.Secret, APIKey: apiKey}); err != nil {
		e.t.Fatal(err)
	}
}

// noSecrets asserts that no planted or real secret reached a result or the log.
func noSecrets(e *env, raw ...string) {
	e.t.Helper()
	secrets := []string{e.sb.Demo.Secret, e.sb.DemoAPIKey}
	for _, a := range e.sb.Accounts() {
		if a.Secret != "" {
			secrets = append(secrets, a.Secret)
		}
	}
	all := append(raw, e.logs.String())
	for _, s := range secrets {
		for _, r := range all {
			if strings.Contains(r, s) {
				e.t.Fatalf("a secret reached a result or the log")
			}
		}
	}
}

func TestBuyEndToEnd(t *testing.T) {
	e := newEnv(t, nil)
	creator, _ := e.sb.Account("creator")
	buyerBefore, sellerBefore := usdc(e, e.sb.Demo.Address), usdc(e, creator.Address)

	r := e.call("mindvault_buy", `{"resourceId":"rustguide"}`)
	out := e.ok("mindvault_buy", r)
	if out["txHash"] == nil || len(out["txHash"].(string)) != 64 || out["amountUsdc"] != "1.5000000" || out["settlement"] != "confirmed" {
		t.Fatalf("buy: %v", out)
	}
	if acc := out["access"].(map[string]any); acc["url"] == nil && acc["contentType"] == nil {
		t.Fatalf("no access: %v", out)
	}
	price := rat("1.5")
	if got := new(big.Rat).Sub(buyerBefore, usdc(e, e.sb.Demo.Address)); got.Cmp(price) != 0 {
		t.Errorf("buyer paid %s, want 1.5", got.FloatString(7))
	}
	if got := new(big.Rat).Sub(usdc(e, creator.Address), sellerBefore); got.Cmp(price) != 0 {
		t.Errorf("creator received %s, want 1.5", got.FloatString(7))
	}
	if n := e.sb.PaidRequests("GET /resources/*"); n != 1 {
		t.Errorf("paid requests = %d, want 1", n)
	}
	tx := e.ok("mindvault_tx_status", e.call("mindvault_tx_status", `{"txHash":"`+out["txHash"].(string)+`"}`))
	if tx["status"] != "SUCCESS" {
		t.Fatalf("the settlement is not on chain: %v", tx)
	}
	noSecrets(e, r.raw)
}

func TestBuyFileAndDryRun(t *testing.T) {
	e := newEnv(t, nil)
	before := usdc(e, e.sb.Demo.Address)
	out := e.ok("mindvault_buy", e.call("mindvault_buy", `{"resourceId":"stellarcheatsheet","maxPriceUsdc":"30","dryRun":true}`))
	if out["dryRun"] != true || out["network"] != "sandbox" || out["endpoint"] == nil || out["priceUsdc"] != "25.0000000" ||
		out["amountUsdc"] != "0.0000000" || out["settlement"] != "none" || out["usdcBalance"] == nil {
		t.Fatalf("dry run: %v", out)
	}
	if e.sb.Count("api", "GET /resources/*") != 0 || usdc(e, e.sb.Demo.Address).Cmp(before) != 0 {
		t.Fatal("a dry run sent the paid request or moved funds")
	}
	out = e.ok("mindvault_buy", e.call("mindvault_buy", `{"resourceId":"stellarcheatsheet","maxPriceUsdc":"30"}`))
	acc := out["access"].(map[string]any)
	if !strings.HasPrefix(acc["contentType"].(string), "text/markdown") || acc["size"].(float64) == 0 || acc["content"] == nil {
		t.Fatalf("file access: %v", out)
	}
}

// TestBuyTakesANumberAmount: maxPriceUsdc sent as a JSON number, as agents and the MCP
// Inspector's --tool-arg send it, caps a purchase as the same string does, read exactly: 5 is
// refused before paying, 25.0000000 (the price itself, a number a float64 would hold only
// approximately were it 24.9999999) buys the 25 USDC file and pays 25, and a boolean is -32602
// at the path, saying a string or a number is taken.
func TestBuyTakesANumberAmount(t *testing.T) {
	e := newEnv(t, nil)
	before := usdc(e, e.sb.Demo.Address)
	r := e.call("mindvault_buy", `{"resourceId":"stellarcheatsheet","maxPriceUsdc":5}`)
	e.fails("mindvault_buy", r, failure{category: "payment", code: "PRICE_ABOVE_CAP", source: "x402"})
	if !strings.Contains(r.Content[0].Text, "above maxPriceUsdc 5.0000000") || e.sb.PaidRequests("*") != 0 {
		t.Fatalf("a cap of 5 as a number: %s", r.raw)
	}
	r = e.call("mindvault_buy", `{"resourceId":"stellarcheatsheet","maxPriceUsdc":24.9999999}`)
	e.fails("mindvault_buy", r, failure{category: "payment", code: "PRICE_ABOVE_CAP", source: "x402"})

	out := e.ok("mindvault_buy", e.call("mindvault_buy", `{"resourceId":"stellarcheatsheet","maxPriceUsdc":25.0000000}`))
	if out["amountUsdc"] != "25.0000000" || out["settlement"] != "confirmed" {
		t.Fatalf("buy with a number cap: %v", out)
	}
	paid := new(big.Rat).Sub(before, usdc(e, e.sb.Demo.Address))
	if paid.Cmp(big.NewRat(25, 1)) != 0 || e.sb.PaidRequests("*") != 1 {
		t.Fatalf("paid %s USDC in %d requests, want 25 in 1", paid.FloatString(7), e.sb.PaidRequests("*"))
	}

	r = e.call("mindvault_buy", `{"resourceId":"stellarcheatsheet","maxPriceUsdc":true}`)
	if !r.IsError || r.Meta.Diag == nil || r.Meta.Diag.Code != "INVALID_ARGUMENTS" ||
		!strings.Contains(r.Content[0].Text, "(-32602): ") || !strings.Contains(r.Content[0].Text, "/maxPriceUsdc must be") ||
		!strings.Contains(r.Content[0].Text, "a string or a number") {
		t.Fatalf("a boolean cap: %s", r.raw)
	}
}

func TestBuyRefusesBeforePaying(t *testing.T) {
	e := newEnv(t, nil)
	addProfile(e, "broke", "zero", "")
	addProfile(e, "untrusted", "notrust", "")
	unsponsored := paymentRequired(t, e, false)
	cases := []struct {
		name, args, plan string
		want             failure
		text             string
		action           string // the nextAction expected on the wire, "" when none is checked
	}{
		{"price above the cap", `{"resourceId":"stellarcheatsheet","maxPriceUsdc":"5"}`, "",
			failure{category: "payment", code: "PRICE_ABOVE_CAP", source: "x402"}, "maxPriceUsdc",
			// A look, never the same buy with a raised cap: a higher price is the user's call.
			`"nextAction":{"tool":"mindvault_preview","arguments":{"resourceId":"stellarcheatsheet"}}`},
		{"insufficient USDC", `{"resourceId":"rustguide","profile":"broke"}`, "",
			failure{category: "payment", code: "INSUFFICIENT_USDC", source: "x402"}, "1.5000000 short",
			`"nextAction":{"tool":"mindvault_wallet_info","arguments":{"profile":"broke"}}`},
		{"missing trustline", `{"resourceId":"rustguide","profile":"untrusted"}`, "",
			failure{category: "payment", code: "TRUSTLINE_MISSING", source: "x402"}, "",
			`"nextAction":{"tool":"mindvault_wallet_info","arguments":{"profile":"untrusted"}}`},
		{"402 above the previewed price", `{"resourceId":"rustguide"}`,
			`[{"service":"api","target":"GET /resources/*/meta","kind":"status","status":200,"body":"{\"id\":\"rustguide\",\"title\":\"Rust\",\"price\":\"1.00\",\"publisherWallet\":\"x\"}"}]`,
			failure{category: "payment", code: "PRICE_CHANGED", source: "x402"}, "", ""},
		{"fees not sponsored", `{"resourceId":"rustguide"}`,
			"service=api,target=GET /resources/*,kind=status,status=402,body={},header=PAYMENT-REQUIRED:" + unsponsored,
			failure{category: "payment", code: "FEES_NOT_SPONSORED", source: "x402"}, "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := e.in(t)
			e.faults(tc.plan)
			r := e.call("mindvault_buy", tc.args)
			e.fails("mindvault_buy", r, tc.want)
			if r.Meta.Diag.ExecutionStarted {
				t.Error("executionStarted must be false for a refusal")
			}
			if !strings.Contains(r.Content[0].Text, tc.text) {
				t.Errorf("text %q lacks %q", r.Content[0].Text, tc.text)
			}
			if tc.action != "" && !strings.Contains(r.raw, tc.action) {
				t.Errorf("want %s in %s", tc.action, r.raw)
			}
			if n := e.sb.PaidRequests("*"); n != 0 {
				t.Fatalf("a payment was sent (%d)", n)
			}
		})
	}
	t.Run("mainnet without confirmation", func(t *testing.T) {
		e := e.in(t)
		e.faults("")
		e.b.Config.Network = "mainnet"
		defer func() { e.b.Config.Network = "sandbox" }()
		e.fails("mindvault_buy", e.call("mindvault_buy", `{"resourceId":"rustguide"}`),
			failure{category: "validation", code: "MAINNET_NOT_CONFIRMED", source: "request"})
		if e.sb.Count("api", "*") != 0 {
			t.Fatal("a request was sent")
		}
	})
}

// paymentRequired builds a PAYMENT-REQUIRED header for rustguide with areFeesSponsored set.
func paymentRequired(t *testing.T, e *env, sponsored bool) string {
	creator, _ := e.sb.Account("creator")
	doc := map[string]any{"x402Version": 2, "resource": map[string]any{"url": e.sb.APIURL + "/resources/rustguide"},
		"accepts": []any{map[string]any{"scheme": "exact", "network": "stellar:testnet", "amount": "15000000", "asset": e.sb.USDCContractID,
			"payTo": creator.Address, "maxTimeoutSeconds": 300, "extra": map[string]any{"areFeesSponsored": sponsored}}}}
	b, _ := json.Marshal(doc)
	return base64.StdEncoding.EncodeToString(b)
}

// TestPaidRequestSentOnce: a paid request that fails is never resent, and a timeout after
// paying reports an unknown outcome with the payment's expiry.
func TestPaidRequestSentOnce(t *testing.T) {
	// Long and self-contained: harness_test.go, "Which tests run in parallel".
	t.Parallel()
	e := newEnv(t, map[string]string{"MINDVAULT_PAYMENT_TIMEOUT_MS": "1500"})
	cases := []struct {
		name, plan string
		want       failure
	}{
		{"503 after paying", "service=api,target=GET /resources/*,paid=true,kind=status,status=503",
			failure{category: "server", code: "SERVER_ERROR", source: "x402", status: 503, state: "unknown", retry: "no"}},
		{"settlement refused", "service=api,target=GET /resources/*,paid=true,kind=status,status=402,body={},header=PAYMENT-RESPONSE:" +
			base64.StdEncoding.EncodeToString([]byte(`{"success":false,"errorReason":"insufficient_funds","transaction":"","network":"stellar:testnet"}`)),
			failure{category: "payment", code: "INSUFFICIENT_USDC", source: "x402", status: 402}},
		{"connection dropped after paying", "service=api,target=GET /resources/*,paid=true,kind=drop,count=1",
			failure{category: "network", code: "NETWORK_ERROR", source: "x402", state: "unknown", retry: "no"}},
		{"timeout after paying", "service=api,target=GET /resources/*,paid=true,kind=delay,delay=10s",
			failure{category: "timeout", code: "TIMEOUT", source: "x402", state: "unknown", retry: "no", next: "expire"}},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := e.in(t)
			e.faults(tc.plan)
			before := usdc(e, e.sb.Demo.Address)
			// Each case its own purchase: an unknown outcome blocks its intent until the chain decides.
			r := e.call("mindvault_buy", fmt.Sprintf(`{"resourceId":"llmprompts","allowRepeat":true,"idempotencyKey":"sent-once-%d"}`, i))
			e.fails("mindvault_buy", r, tc.want)
			if n := e.sb.PaidRequests("GET /resources/*"); n != 1 {
				t.Fatalf("the paid request was sent %d times, want exactly 1", n)
			}
			if tc.want.state == "unknown" && !strings.Contains(r.raw, "paymentExpiresAt") {
				t.Fatalf("no paymentExpiresAt: %s", r.raw)
			}
			if tc.want.state != "unknown" && usdc(e, e.sb.Demo.Address).Cmp(before) != 0 {
				t.Fatal("funds moved on a refused payment")
			}
		})
	}
}

func TestPublishFlow(t *testing.T) {
	e := newEnv(t, nil)
	demo, _ := e.b.Deps.Store.Get(context.Background(), "demo")
	demo.APIKey = e.sb.DemoAPIKey
	if err := e.b.Deps.Store.Update(context.Background(), demo); err != nil {
		t.Fatal(err)
	}
	before := usdc(e, e.sb.Demo.Address)
	args := `{"title":"Agent Memory Patterns","description":"How agents remember.","price":"2.5","externalUrl":"https://example.org/memory"}`

	out := e.ok("mindvault_publish", e.call("mindvault_publish", strings.Replace(args, `}`, `,"dryRun":true}`, 1)))
	if out["dryRun"] != true || e.sb.Count("api", "POST /resources") != 0 {
		t.Fatalf("dry run: %v", out)
	}
	r := e.call("mindvault_publish", args)
	out = e.ok("mindvault_publish", r)
	if out["verificationStatus"] != "verified" || out["onchainStatus"] != "registered" || out["feePaidUsdc"] != "0.1000000" || len(out["steps"].([]any)) != 3 {
		t.Fatalf("publish: %v", out)
	}
	if got := new(big.Rat).Sub(before, usdc(e, e.sb.Demo.Address)); got.Cmp(rat("0.1")) != 0 {
		t.Errorf("fee paid %s, want 0.1", got.FloatString(7))
	}
	id := out["resourceId"].(string)
	st := e.ok("mindvault_publish_status", e.call("mindvault_publish_status", `{"resourceId":"`+id+`"}`))
	if st["verificationStatus"] != "verified" {
		t.Fatalf("status after publish: %v", st)
	}
	noSecrets(e, r.raw)

	t.Run("rejected by verification is a success", func(t *testing.T) {
		e := e.in(t)
		out := e.ok("mindvault_publish", e.call("mindvault_publish", `{"title":"A copied essay","price":"1","externalUrl":"https://example.org/copied"}`))
		if out["verificationStatus"] != "rejected" {
			t.Fatalf("rejected: %v", out)
		}
	})
	t.Run("failure after creation says what exists", func(t *testing.T) {
		e := e.in(t)
		e.faults("service=api,target=POST /verify-content,paid=true,kind=status,status=400")
		r := e.call("mindvault_publish", `{"title":"Half Done","price":"1","externalUrl":"https://example.org/half"}`)
		// A 400 after the fee was sent, without proof: the chain shows it not settled yet, so the
		// fee's outcome is unknown until its signature expires (docs/once.md "The journal").
		e.fails("mindvault_publish", r, failure{category: "validation", code: "BAD_REQUEST", source: "x402", status: 400, state: "unknown"})
		if !strings.Contains(r.Content[0].Text, "was created") || !strings.Contains(r.Content[0].Text, "do not publish it again") {
			t.Fatalf("no resume guidance: %s", r.Content[0].Text)
		}
	})
	t.Run("registration failure keeps the publish", func(t *testing.T) {
		e := e.in(t)
		e.faults("service=api,target=POST /resources/*/register,kind=status,status=502,count=1")
		out := e.ok("mindvault_publish", e.call("mindvault_publish", `{"title":"Chain Later","price":"1","externalUrl":"https://example.org/later"}`))
		if out["onchainStatus"] != "failed" {
			t.Fatalf("want onchainStatus failed: %v", out)
		}
		e.faults("")
		id := out["resourceId"].(string)
		reg := e.ok("mindvault_register_onchain", e.call("mindvault_register_onchain", `{"resourceId":"`+id+`"}`))
		if reg["onchainStatus"] != "registered" || reg["txHash"] == nil {
			t.Fatalf("register_onchain: %v", reg)
		}
		look := e.ok("mindvault_registry_lookup", e.call("mindvault_registry_lookup", `{"resourceId":"`+id+`"}`))
		if look["found"] != true || look["creator"] != e.sb.Demo.Address {
			t.Fatalf("not on chain after register_onchain: %v", look)
		}
		e.fails("mindvault_register_onchain", e.call("mindvault_register_onchain", `{"resourceId":"`+id+`"}`),
			failure{category: "conflict", code: "ALREADY_REGISTERED", source: "api", status: 409})
	})
	t.Run("publishing needs an API key", func(t *testing.T) {
		e := e.in(t)
		addProfile(e, "nokey", "zero", "")
		e.fails("mindvault_publish", e.call("mindvault_publish", `{"title":"x","price":"1","externalUrl":"https://example.org/x","profile":"nokey"}`),
			failure{category: "auth", code: "CREDENTIALS_MISSING", source: "credentials"})
	})
}

func TestSetupWalletAndRegister(t *testing.T) {
	e := newEnv(t, nil)
	r := e.call("mindvault_setup_wallet", `{"profile":"fresh"}`)
	out := e.ok("mindvault_setup_wallet", r)
	if out["created"] != true || !strings.HasPrefix(out["address"].(string), "G") {
		t.Fatalf("setup: %v", out)
	}
	w := e.ok("mindvault_wallet_info", e.call("mindvault_wallet_info", `{"profile":"fresh"}`))
	if w["usdc"].(map[string]any)["status"] != "funded" {
		t.Fatalf("a new sandbox wallet has a USDC trustline and the faucet's test USDC: %v", w)
	}
	e.fails("mindvault_setup_wallet", e.call("mindvault_setup_wallet", `{"profile":"fresh"}`),
		failure{category: "conflict", code: "PROFILE_EXISTS", source: "credentials"})

	reg := e.call("mindvault_register", `{"name":"Fresh Publisher","email":"fresh@example.org","profile":"fresh"}`)
	ro := e.ok("mindvault_register", reg)
	if ro["apiKeyStored"] != true || ro["walletAddress"] != out["address"] {
		t.Fatalf("register: %v", ro)
	}
	p, _ := e.b.Deps.Store.Get(context.Background(), "fresh")
	if !strings.HasPrefix(p.APIKey, "mv_") || strings.Contains(reg.raw, p.APIKey) || strings.Contains(e.logs.String(), p.APIKey) {
		t.Fatal("the API key was not stored, or it leaked")
	}
	// A profile that holds a key is refused before the API (a second key would replace it);
	// a new profile with a taken email meets the API's 409.
	e.fails("mindvault_register", e.call("mindvault_register", `{"name":"Again","email":"fresh@example.org","profile":"fresh"}`),
		failure{category: "conflict", code: "ALREADY_REGISTERED", source: "credentials"})
	if again, _ := e.b.Deps.Store.Get(context.Background(), "fresh"); again.APIKey != p.APIKey {
		t.Fatal("the stored key changed")
	}
	e.ok("mindvault_setup_wallet", e.call("mindvault_setup_wallet", `{"profile":"fresh2"}`))
	e.fails("mindvault_register", e.call("mindvault_register", `{"name":"Again","email":"fresh@example.org","profile":"fresh2"}`),
		failure{category: "conflict", code: "CONFLICT", source: "api", status: 409})
	list := e.ok("mindvault_list_profiles", e.call("mindvault_list_profiles", ``))
	found := false
	for _, x := range list["profiles"].([]any) {
		m := x.(map[string]any)
		if m["name"] == "fresh" && m["publisherRegistered"] == true {
			found = true
		}
	}
	if !found {
		t.Fatalf("list_profiles: %v", list)
	}
	noSecrets(e, r.raw, reg.raw)
	if strings.Contains(r.raw, p.SecretKey) || strings.Contains(e.logs.String(), p.SecretKey) {
		t.Fatal("the new wallet secret leaked")
	}
}

func TestSetupWalletReadOnlyStore(t *testing.T) {
	e := newEnv(t, map[string]string{"MINDVAULT_CREDENTIALS": "env"})
	e.fails("mindvault_setup_wallet", e.call("mindvault_setup_wallet", `{"profile":"x"}`),
		failure{category: "auth", code: "READ_ONLY_STORE", source: "credentials"})
	if e.sb.Count("sponsor", "*") != 0 {
		t.Fatal("a wallet was created that no store could hold")
	}
}

// TestConcurrentSetupWallet: two calls for one name, on both writable stores: exactly one
// profile is created and the other call is a conflict.
func TestConcurrentSetupWallet(t *testing.T) {
	sm := smtest.New()
	t.Cleanup(sm.Close)
	sm.Setenv(t)
	for _, store := range []string{"dir:" + t.TempDir(), "secretsmanager:mindvault/test/"} {
		t.Run(strings.SplitN(store, ":", 2)[0], func(t *testing.T) {
			e := newEnv(t, map[string]string{"MINDVAULT_CREDENTIALS": store})
			var wg sync.WaitGroup
			results := make([]result, 2)
			for i := range results {
				wg.Add(1)
				go func() {
					defer wg.Done()
					results[i] = e.call("mindvault_setup_wallet", `{"profile":"twin"}`)
				}()
			}
			wg.Wait()
			created, conflicts := 0, 0
			for _, r := range results {
				switch {
				case !r.IsError:
					created++
				case r.Meta.Diag.Code == "PROFILE_EXISTS":
					conflicts++
				default:
					t.Fatalf("unexpected: %s", r.raw)
				}
			}
			if created != 1 || conflicts != 1 {
				t.Fatalf("created %d, conflicts %d", created, conflicts)
			}
			names, _ := e.b.Deps.Store.List(context.Background())
			n := 0
			for _, x := range names {
				if x == "twin" {
					n++
				}
			}
			if n != 1 {
				t.Fatalf("profiles named twin: %d", n)
			}
		})
	}
}
