package e2e_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
)

// The tests of this file hold the endpoint to the answers of the real MindVault server
// (internal/sandbox/testdata/realapi): each drives one of its quirks through the wire, from
// the sandbox answering as that server does or from a fault that replays its recorded answer.

// withAPIKey gives the demo profile the sandbox's publisher key.
func withAPIKey(t *testing.T, e *env) {
	t.Helper()
	demo, _ := e.b.Deps.Store.Get(context.Background(), "demo")
	demo.APIKey = e.sb.DemoAPIKey
	if err := e.b.Deps.Store.Update(context.Background(), demo); err != nil {
		t.Fatal(err)
	}
}

func b64JSON(v any) string {
	b, _ := json.Marshal(v)
	return base64.StdEncoding.EncodeToString(b)
}

// TestRealAgentStatusStrings: the real server sends avgConfidence "0.93" and totalEarned
// "1.1000"; the agent status and a publish dry run read it (the dry run failed on it).
func TestRealAgentStatusStrings(t *testing.T) {
	e := newEnv(t, nil)
	withAPIKey(t, e)
	out := e.ok("mindvault_agent_status", e.call("mindvault_agent_status", `{}`))
	if _, ok := out["avgConfidence"].(float64); !ok || out["pricePerVerification"] != "0.1000000" {
		t.Fatalf("agent status: %v", out)
	}
	real := `{"agent":{"name":"MindVault Verification Agent","walletAddress":"` + e.sb.Demo.Address +
		`","network":"stellar:testnet","pricePerVerification":"0.10","currency":"USDC","status":"active"},` +
		`"stats":{"totalVerifications":11,"verified":11,"rejected":0,"totalEarned":"1.1000","avgConfidence":"0.93"},"usage":{"estimatedCostUsd":"0.019800"},"recentActivity":[]}`
	e.faults(jsonPlan(map[string]any{"service": "api", "target": "GET /agent/status", "kind": "status", "status": 200, "body": real}))
	out = e.ok("mindvault_agent_status", e.call("mindvault_agent_status", `{}`))
	if out["avgConfidence"] != 0.93 {
		t.Fatalf("avgConfidence = %v, want 0.93", out["avgConfidence"])
	}
	args := `{"title":"Shim Guide","description":"d","price":"2.5","externalUrl":"https://example.org/shim","dryRun":true}`
	if out := e.ok("mindvault_publish", e.call("mindvault_publish", args)); out["dryRun"] != true {
		t.Fatalf("dry run: %v", out)
	}
}

// TestRealPaymentRefusalReasons: the real paywall answers a refused payment with body {} and
// the facilitator's reason in a header, PAYMENT-REQUIRED.error at verify and
// PAYMENT-RESPONSE.errorReason at settlement; line 1 and the diagnostic carry it, and each
// reason has its own code and advice.
func TestRealPaymentRefusalReasons(t *testing.T) {
	e := newEnv(t, nil)
	creator, _ := e.sb.Account("creator")
	required := func(reason string) string {
		return b64JSON(map[string]any{"x402Version": 2, "error": reason,
			"resource": map[string]any{"url": e.sb.APIURL + "/resources/llmprompts", "description": "d", "mimeType": ""},
			"accepts": []any{map[string]any{"scheme": "exact", "network": "stellar:testnet", "amount": "15000000", "asset": e.sb.USDCContractID,
				"payTo": creator.Address, "maxTimeoutSeconds": 300, "extra": map[string]any{"areFeesSponsored": true}}}})
	}
	settle := func(reason, tx string) string {
		return b64JSON(map[string]any{"success": false, "errorReason": reason, "payer": e.sb.Demo.Address, "transaction": tx, "network": "stellar:testnet"})
	}
	cases := []struct {
		name, header string
		want         failure
		line1        string
	}{
		{"simulation failed at verify", "PAYMENT-REQUIRED:" + required("invalid_exact_stellar_payload_simulation_failed"),
			failure{category: "payment", code: "PAYMENT_SIMULATION_FAILED", source: "x402", status: 402, retry: "after_action", next: "USDC balance and trustline"},
			"simulation of the transfer failed (too little USDC, no trustline, or a used or expired authorization) (invalid_exact_stellar_payload_simulation_failed)"},
		{"submission failed at settlement", "PAYMENT-RESPONSE:" + settle("settle_exact_stellar_transaction_submission_failed", ""),
			// The settle step failed: nothing proves the transfer did not land, so the payment
			// journal lets the chain decide (the outcome is unknown until the authorization expires).
			failure{category: "server", code: "SETTLEMENT_FAILED", source: "x402", status: 402, retry: "no", state: "unknown", next: "Do not pay again before"},
			"refused by the network (settle_exact_stellar_transaction_submission_failed)"},
		{"wrong amount at verify", "PAYMENT-REQUIRED:" + required("invalid_exact_stellar_payload_wrong_amount"),
			failure{category: "payment", code: "UNSUPPORTED_REQUIREMENT", source: "x402", status: 402, retry: "no", next: "nothing was paid"},
			"does not accept this payment's form (invalid_exact_stellar_payload_wrong_amount)"},
		{"transaction failed after submission", "PAYMENT-RESPONSE:" + settle("settle_exact_stellar_transaction_failed", strings.Repeat("c0ffee00", 8)),
			failure{category: "payment", code: "PAYMENT_REJECTED", source: "x402", status: 402, retry: "no", state: "unknown", next: strings.Repeat("c0ffee00", 8)},
			"did not see it succeed"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := e.in(t)
			e.faults("service=api,target=GET /resources/*,paid=true,kind=status,status=402,body={},header=" + tc.header)
			r := e.call("mindvault_buy", `{"resourceId":"llmprompts","allowRepeat":true}`)
			e.fails("mindvault_buy", r, tc.want)
			if line1 := strings.Split(r.Content[0].Text, "\n")[0]; !strings.Contains(line1, tc.line1) {
				t.Errorf("line 1 %q lacks %q", line1, tc.line1)
			}
			if strings.Contains(r.Content[0].Text, "fund it with USDC") {
				t.Errorf("advice guesses funds: %s", r.Content[0].Text)
			}
		})
	}
}

// TestRealRegisterKeepsTheKey: a profile that already holds a publisher API key is refused
// before the API is called (the API shows a key once; a second registration would overwrite
// it), and the stored key stays.
func TestRealRegisterKeepsTheKey(t *testing.T) {
	e := newEnv(t, nil)
	withAPIKey(t, e)
	r := e.call("mindvault_register", `{"name":"Demo Again","email":"again@example.org"}`)
	e.fails("mindvault_register", r, failure{category: "conflict", code: "ALREADY_REGISTERED", source: "credentials", retry: "no", next: "mindvault_setup_wallet"})
	if n := e.sb.Count("api", "POST /publishers"); n != 0 {
		t.Fatalf("the API was called %d times", n)
	}
	demo, _ := e.b.Deps.Store.Get(context.Background(), "demo")
	if demo.APIKey != e.sb.DemoAPIKey {
		t.Fatal("the stored key changed")
	}
}

// TestRealRegisterOnchainAdvice: the real server's refusals of register/prepare each get
// their own true next step, and a 500's detail is kept.
func TestRealRegisterOnchainAdvice(t *testing.T) {
	e := newEnv(t, nil)
	withAPIKey(t, e)
	// draftnotes is the demo publisher's, pending: its fee is unpaid.
	r := e.call("mindvault_register_onchain", `{"resourceId":"draftnotes"}`)
	e.fails("mindvault_register_onchain", r, failure{category: "payment", code: "PAYMENT_REQUIRED", source: "api", status: 400, retry: "after_action",
		next: `call mindvault_publish with resourceId draftnotes`})
	// rustguide is another publisher's.
	r = e.call("mindvault_register_onchain", `{"resourceId":"rustguide"}`)
	e.fails("mindvault_register_onchain", r, failure{category: "auth", code: "FORBIDDEN", source: "api", status: 403, next: "publisher that created this resource"})
	// vectordbbench is the demo publisher's, already on chain.
	r = e.call("mindvault_register_onchain", `{"resourceId":"vectordbbench"}`)
	e.fails("mindvault_register_onchain", r, failure{category: "conflict", code: "ALREADY_REGISTERED", source: "api", status: 409, retry: "no", next: "no action needed"})

	cases := []struct {
		name, body string
		status     int
		want       failure
		line1      string
	}{
		{"wrong key", `{"error":"Invalid API key"}`, 401,
			failure{category: "auth", code: "UNAUTHORIZED", source: "api", status: 401, next: "refused this profile's key"}, "Invalid API key"},
		{"server defect", `{"error":"Failed to build register transaction","detail":"Transaction has not yet been simulated; call AssembledTransaction.simulate first."}`, 500,
			failure{category: "server", code: "SERVER_ERROR", source: "api", status: 500}, "has not yet been simulated"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := e.in(t)
			e.faults(jsonPlan(map[string]any{"service": "api", "target": "GET /resources/*/register/prepare", "kind": "status", "status": tc.status, "body": tc.body}))
			r := e.call("mindvault_register_onchain", `{"resourceId":"vectordbbench"}`)
			e.fails("mindvault_register_onchain", r, tc.want)
			if line1 := strings.Split(r.Content[0].Text, "\n")[0]; !strings.Contains(line1, tc.line1) {
				t.Errorf("line 1 %q lacks %q", line1, tc.line1)
			}
			if strings.Contains(r.Content[0].Text, "Register the profile as a publisher") {
				t.Errorf("advice sends a publisher to register again: %s", r.Content[0].Text)
			}
		})
	}
}

// TestRealConsistencyListed: /meta has no listed; the verification record has it (false once
// the publisher delisted the resource), and an API that says nothing leaves it unknown.
func TestRealConsistencyListed(t *testing.T) {
	e := newEnv(t, nil)
	delisted := `{"resourceId":"rustguide","title":"Rust Ownership Field Guide","status":"verified","listed":false,"publishedAt":"2026-12-05T06:34:47.953Z","verification":null}`
	e.faults(jsonPlan(map[string]any{"service": "api", "target": "GET /resources/*/verification", "kind": "status", "status": 200, "body": delisted}))
	out := e.ok("mindvault_check_consistency", e.call("mindvault_check_consistency", `{"resourceId":"rustguide"}`))
	mm, _ := out["mismatches"].(map[string]any)
	if l, _ := mm["listed"].(map[string]any); l["api"] != "false" || l["onchain"] != "true" || strings.Contains(out["summary"].(string), "agree on price, listing") {
		t.Fatalf("a delisted resource: %v", out)
	}
	e.faults("service=api,target=GET /resources/*/verification,kind=status,status=503")
	out = e.ok("mindvault_check_consistency", e.call("mindvault_check_consistency", `{"resourceId":"rustguide"}`))
	if u, _ := out["unknown"].(map[string]any); u["listed"] == nil || strings.Contains(out["summary"].(string), "listing") {
		t.Fatalf("listed unknown: %v", out)
	}
	e.faults("")
	out = e.ok("mindvault_check_consistency", e.call("mindvault_check_consistency", `{"resourceId":"rustguide"}`))
	if out["summary"] != "API and chain agree on price, listing and creator." {
		t.Fatalf("a listed resource: %v", out)
	}
}

// TestRealVerifyRateLimited: POST /verify-content answers 429 {"code":"RATE_LIMITED",
// "retryAfterSeconds":54} with Retry-After: 54; the endpoint says to wait 54 s, not to fix
// the wallet, and a resume is retry after_wait.
func TestRealVerifyRateLimited(t *testing.T) {
	e := newEnv(t, nil)
	withAPIKey(t, e)
	limited := jsonPlan(map[string]any{"service": "api", "target": "POST /verify-content", "paid": "false", "kind": "status", "status": 429,
		"retry-after": "54", "header": []string{"RateLimit-Limit:10", "RateLimit-Remaining:0"},
		"body": `{"error":"Too many requests","code":"RATE_LIMITED","retryAfterSeconds":54}`})
	e.faults(limited)
	r := e.call("mindvault_publish", `{"resourceId":"draftnotes"}`)
	e.fails("mindvault_publish", r, failure{category: "rate_limit", code: "RATE_LIMITED", source: "x402", status: 429, retry: "after_wait", retryAfter: 54, next: "Wait 54 s"})
	if strings.Contains(r.Content[0].Text, "wallet_info for funds") {
		t.Errorf("advice blames the wallet: %s", r.Content[0].Text)
	}
	e.faults(limited)
	r = e.call("mindvault_publish", `{"title":"Rate Limited Guide","description":"d","price":"1","externalUrl":"https://example.org/rl"}`)
	e.fails("mindvault_publish", r, failure{category: "rate_limit", code: "RATE_LIMITED", source: "x402", status: 429, retry: "no", retryAfter: 54, state: "yes", next: "Wait 54 s"})
	if strings.Contains(r.Content[0].Text, "wallet_info for funds") {
		t.Errorf("advice blames the wallet: %s", r.Content[0].Text)
	}
}

// TestRealNotOnchain: the paywall answers 503 chain_unavailable for a resource whose /meta
// says onchainStatus "none": it is not registered, so no wait helps; the buyer is told to
// choose another resource, never to register it.
func TestRealNotOnchain(t *testing.T) {
	e := newEnv(t, nil)
	// sorobanaudit is listed with onchainStatus "none"; the real paywall cannot price it.
	e.faults(jsonPlan(map[string]any{"service": "api", "target": "GET /resources/*", "paid": "false", "kind": "status", "status": 503,
		"body": `{"error":"chain_unavailable","message":"Unable to verify resource price. Please try again later.","resourceId":"sorobanaudit"}`}))
	r := e.call("mindvault_buy", `{"resourceId":"sorobanaudit"}`)
	e.fails("mindvault_buy", r, failure{category: "conflict", code: "CONFLICT", source: "x402", status: 503, retry: "no", next: "Choose another resource"})
	if strings.Contains(r.Content[0].Text, "Retry shortly") || !strings.Contains(r.Content[0].Text, "not registered on chain") {
		t.Errorf("advice: %s", r.Content[0].Text)
	}
	// A registered resource's 503 stays a server failure worth retrying.
	r = e.call("mindvault_buy", `{"resourceId":"llmprompts","allowRepeat":true}`)
	e.fails("mindvault_buy", r, failure{category: "server", code: "CHAIN_UNAVAILABLE", source: "x402", status: 503, retry: "safe"})
}

// TestRealAmounts: every structured amount is a 7-decimal string; a file's receipt parses
// X-Payment-Amount "0.75 USDC" into amount and currency.
func TestRealAmounts(t *testing.T) {
	e := newEnv(t, nil)
	out := e.ok("mindvault_preview", e.call("mindvault_preview", `{"resourceId":"rustguide"}`))
	if out["price"] != "1.5000000" || out["priceUsdc"] != "1.5000000" {
		t.Errorf("preview prices %v %v", out["price"], out["priceUsdc"])
	}
	cat := e.ok("mindvault_browse", e.call("mindvault_browse", `{"limit":100}`))
	for _, row := range cat["resources"].([]any) {
		if p := row.(map[string]any)["price"].(string); len(p) < 9 || p[len(p)-8] != '.' {
			t.Errorf("catalog price %q", p)
		}
	}
	if a := e.ok("mindvault_agent_status", e.call("mindvault_agent_status", `{}`)); a["pricePerVerification"] != "0.1000000" {
		t.Errorf("fee %v", a["pricePerVerification"])
	}
	buy := e.ok("mindvault_buy", e.call("mindvault_buy", `{"resourceId":"rustguide","allowRepeat":true}`))
	rc, _ := buy["receipt"].(map[string]any)
	if rc["amount"] != "1.5000000" || rc["currency"] != "USDC" || buy["amountUsdc"] != "1.5000000" {
		t.Errorf("file receipt %v, amountUsdc %v", rc, buy["amountUsdc"])
	}
	buy = e.ok("mindvault_buy", e.call("mindvault_buy", `{"resourceId":"zkprimer","allowRepeat":true}`))
	if rc, _ := buy["receipt"].(map[string]any); rc["amount"] != "6.2500000" {
		t.Errorf("link receipt %v", rc)
	}
}

// TestRealTagsFromChain: catalog rows carry no tags (the real API keeps them on chain and
// refuses ?tags=), so a tag filter reads the registry instead of matching nothing.
func TestRealTagsFromChain(t *testing.T) {
	e := newEnv(t, nil)
	out := e.ok("mindvault_search", e.call("mindvault_search", `{"tags":["rust"]}`))
	rows, _ := out["resources"].([]any)
	if len(rows) != 1 || rows[0].(map[string]any)["id"] != "rustguide" {
		t.Fatalf("tags [rust]: %v", out)
	}
	if n := e.sb.Count("api", "GET /resources"); n == 0 {
		t.Fatal("no catalog read")
	}
}

// TestRealPreviewFields: the preview keeps what the API returns and a buyer needs: the media
// type, the publisher and, when announced, the size.
func TestRealPreviewFields(t *testing.T) {
	e := newEnv(t, nil)
	out := e.ok("mindvault_preview", e.call("mindvault_preview", `{"resourceId":"rustguide"}`))
	if out["mimeType"] != "application/pdf" || out["publisherName"] == nil || out["publisherName"] == "" || out["sizeBytes"] == nil {
		t.Fatalf("preview %v", out)
	}
}

// TestRealReusedIdempotencyKey: the real API answers a reused Idempotency-Key with another
// body by 201 and the first resource (the recorded answer, replayed here: the payment journal
// already refuses a key this endpoint reused itself, so only the API's answer shows it);
// publish refuses that resource as not its own and pays no fee for it (it used to verify the
// second content under the first id).
func TestRealReusedIdempotencyKey(t *testing.T) {
	e := newEnv(t, nil)
	withAPIKey(t, e)
	first := `{"id":"ccvweg2t1cc86ppyygf60hr8","publisherId":"cmpubagent00000000000002","title":"Idem First","description":"first body","price":"1.1",` +
		`"walletAddress":"` + e.sb.Demo.Address + `","resourceType":"link","storagePath":null,"thumbnailPath":null,"contentHash":"74b8822ce431fa6c9b378819c8d3d84a39bd3aaff530bef13f6ebec9f6736466",` +
		`"externalUrl":"https://content.example/idem1","mimeType":null,"verificationStatus":"pending","verificationId":null,"listed":false,"onchainStatus":"none","onchainTxHash":null,` +
		`"createdAt":"2026-12-05T06:40:19.240Z","accessUrl":"http://127.0.0.1:18021/resources/ccvweg2t1cc86ppyygf60hr8"}`
	e.faults(jsonPlan(map[string]any{"service": "api", "target": "POST /resources", "kind": "status", "status": 201, "body": first}))
	r := e.call("mindvault_publish", `{"title":"Idem Second","description":"second body","price":"2.2","externalUrl":"https://example.org/idem2","idempotencyKey":"idem-key-2"}`)
	e.fails("mindvault_publish", r, failure{category: "conflict", code: "CONFLICT", source: "api", status: 201, retry: "no", next: "another idempotencyKey"})
	if !strings.Contains(r.Content[0].Text, "ccvweg2t1cc86ppyygf60hr8") {
		t.Errorf("the failure does not name the first resource: %s", r.Content[0].Text)
	}
	if n := e.sb.Count("api", "POST /verify-content"); n != 0 {
		t.Fatalf("the fee step ran for another resource's content (%d requests)", n)
	}
}

// TestRealPriceChangeSync: after mindvault_set_price the catalog keeps the old price until
// the API's listener catches up (30 s): the write says so, and a purchase refused with
// price_mismatch meanwhile is retry after_wait.
func TestRealPriceChangeSync(t *testing.T) {
	e := newEnv(t, nil)
	out := e.ok("mindvault_set_price", e.call("mindvault_set_price", `{"resourceId":"llmprompts","price":"0.2"}`))
	if s, _ := out["catalogSync"].(string); !strings.Contains(s, "30 s") {
		t.Fatalf("set_price says nothing about the catalog: %v", out)
	}
	r := e.call("mindvault_buy", `{"resourceId":"llmprompts","allowRepeat":true,"maxPriceUsdc":"1"}`)
	e.fails("mindvault_buy", r, failure{category: "conflict", code: "PRICE_MISMATCH", source: "x402", status: 409, retry: "after_wait", retryAfter: 30, next: "Wait 30 s"})
}

// TestRealPriceChangeCatchesUp: with the sandbox's catalog sync shortened, the catalog
// takes the new on-chain price and the purchase goes through at it.
func TestRealPriceChangeCatchesUp(t *testing.T) {
	e := newEnv(t, map[string]string{"MINDVAULT_SANDBOX_CATALOG_SYNC_MS": "1"})
	e.ok("mindvault_set_price", e.call("mindvault_set_price", `{"resourceId":"llmprompts","price":"0.2"}`))
	if p := e.ok("mindvault_preview", e.call("mindvault_preview", `{"resourceId":"llmprompts"}`)); p["price"] != "0.2000000" {
		t.Fatalf("preview after the sync: %v", p["price"])
	}
	if b := e.ok("mindvault_buy", e.call("mindvault_buy", `{"resourceId":"llmprompts","allowRepeat":true,"maxPriceUsdc":"1"}`)); b["amountUsdc"] != "0.2000000" {
		t.Fatalf("buy after the sync: %v", b)
	}
}
