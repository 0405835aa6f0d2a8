package e2e_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// Outcome reporting: a result claims only the payment, settlement, delivery and start of
// execution that the call can prove, whatever the downstreams answer.

// outcomeDiag is the part of the diagnostic these tests read beyond the harness's.
type outcomeDiag struct {
	PaymentExpiresAt string `json:"paymentExpiresAt"`
	TxHash           string `json:"txHash"`
}

func paymentExpiry(t *testing.T, r result) outcomeDiag {
	t.Helper()
	var resp struct {
		Result struct {
			Meta struct {
				Diag outcomeDiag `json:"io.mindvault/error"`
			} `json:"_meta"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(r.raw), &resp); err != nil {
		t.Fatal(err)
	}
	return resp.Result.Meta.Diag
}

const settledHash = "5d0a7f3c9e1b2d4f6a8c0e2b4d6f8a1c3e5b7d9f0a2c4e6b8d1f3a5c7e9b0d2f"

// settlementHeader is a PAYMENT-RESPONSE value.
func settlementHeader(success bool, hash, network, payer string) string {
	b, _ := json.Marshal(map[string]any{"success": success, "transaction": hash, "network": network, "payer": payer})
	return base64.StdEncoding.EncodeToString(b)
}

// jsonPlan is a one-rule fault plan in the JSON form (bodies with commas).
func jsonPlan(rule map[string]any) string {
	b, _ := json.Marshal([]any{rule})
	return string(b)
}

// TestBuyClaimsOnlyWhatIsProven: for every way a paid (or unexpectedly unpaid) answer can
// fall short, buy reports the payment, the settlement and the delivery it can prove, and
// the downstream saw exactly the requests the outcome implies.
func TestBuyClaimsOnlyWhatIsProven(t *testing.T) {
	e := newEnv(t, nil)
	proof := settlementHeader(true, settledHash, "stellar:testnet", e.sb.Demo.Address)
	type want struct {
		fail     *failure // nil: a success
		paid     int      // paid requests the API saw
		started  bool
		expires  bool   // paymentExpiresAt in the diagnostic
		txHash   string // diagnostic or result txHash
		settle   string // result settlement
		amount   string // result amountUsdc
		url      string // result access.url
		contains string // in the text
	}
	malformed := func(state string) *failure {
		return &failure{category: "server", code: "MALFORMED_RESPONSE", source: "x402", status: 200, state: state}
	}
	cases := []struct {
		name, id, plan string
		want           want
	}{
		{"paid 200 of the wrong shape without PAYMENT-RESPONSE", "zkprimer",
			"service=api,target=GET /resources/*,paid=true,kind=malformed",
			want{fail: malformed("unknown"), paid: 1, started: true, expires: true}},
		{"paid 200 JSON that is neither a link nor the file", "rustguide",
			jsonPlan(map[string]any{"service": "api", "target": "GET /resources/*", "paid": "true", "kind": "status", "status": 200, "body": `{"status":"ok","delivered":true}`}),
			want{fail: malformed("unknown"), paid: 1, started: true, expires: true}},
		{"paid 200 with an empty body and no proof", "zkprimer",
			"service=api,target=GET /resources/*,paid=true,kind=empty,status=200",
			want{fail: malformed("unknown"), paid: 1, started: true, expires: true}},
		{"paid 200 with an empty body and a settlement proof", "zkprimer",
			"service=api,target=GET /resources/*,paid=true,kind=empty,status=200,header=PAYMENT-RESPONSE:" + proof,
			want{fail: malformed("yes"), paid: 1, started: true, txHash: settledHash, contains: "do not buy zkprimer again"}},
		{"unpaid 200 with an empty body", "zkprimer",
			"service=api,target=GET /resources/*,paid=false,kind=empty,status=200",
			want{fail: malformed("no"), paid: 0, started: false}},
		{"unpaid 200 with a link is delivered, nothing paid", "zkprimer",
			jsonPlan(map[string]any{"service": "api", "target": "GET /resources/*", "paid": "false", "kind": "status", "status": 200,
				"body": `{"url":"https://example.org/free","receipt":{"paymentId":"p1","amount":"6.25","currency":"USDC","paidTo":"G","paidAt":"x"}}`}),
			want{paid: 0, settle: "none", amount: "0.0000000", url: "https://example.org/free"}},
		{"paid 200 link without PAYMENT-RESPONSE", "zkprimer",
			`service=api,target=GET /resources/*,paid=true,kind=status,status=200,body={"url":"https://example.org/zk"}`,
			want{paid: 1, settle: "unconfirmed", amount: "6.2500000", url: "https://example.org/zk", contains: "no proof of settlement"}},
		{"paid 200 link with an undecodable PAYMENT-RESPONSE", "zkprimer",
			`service=api,target=GET /resources/*,paid=true,kind=status,status=200,body={"url":"https://example.org/zk"},header=PAYMENT-RESPONSE:bm90IGpzb24=`,
			want{paid: 1, settle: "unconfirmed", amount: "6.2500000", url: "https://example.org/zk"}},
		{"paid 200 link with a settlement on another network", "zkprimer",
			`service=api,target=GET /resources/*,paid=true,kind=status,status=200,body={"url":"https://example.org/zk"},header=PAYMENT-RESPONSE:` +
				settlementHeader(true, settledHash, "stellar:pubnet", e.sb.Demo.Address),
			want{paid: 1, settle: "unconfirmed", amount: "6.2500000", url: "https://example.org/zk"}},
		{"paid 200 link with a settlement proof", "zkprimer",
			`service=api,target=GET /resources/*,paid=true,kind=status,status=200,body={"url":"https://example.org/zk"},header=PAYMENT-RESPONSE:` + proof,
			want{paid: 1, settle: "confirmed", amount: "6.2500000", url: "https://example.org/zk", txHash: settledHash}},
		{"a real purchase is confirmed", "zkprimer", "",
			want{paid: 1, settle: "confirmed", amount: "6.2500000", txHash: "any"}},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := e.in(t)
			e.faults(tc.plan)
			// Each case its own purchase: an unknown outcome blocks its intent until the chain decides.
			r := e.call("mindvault_buy", fmt.Sprintf(`{"resourceId":"%s","allowRepeat":true,"idempotencyKey":"outcome-case-%d"}`, tc.id, i))
			if n := e.sb.PaidRequests("GET /resources/*"); n != tc.want.paid {
				t.Fatalf("paid requests = %d, want %d", n, tc.want.paid)
			}
			text := r.Content[0].Text
			if tc.want.contains != "" && !strings.Contains(text, tc.want.contains) {
				t.Errorf("text %q lacks %q", text, tc.want.contains)
			}
			if tc.want.fail != nil {
				e.fails("mindvault_buy", r, *tc.want.fail)
				if r.Meta.Diag.ExecutionStarted != tc.want.started {
					t.Errorf("executionStarted = %v, want %v", r.Meta.Diag.ExecutionStarted, tc.want.started)
				}
				d := paymentExpiry(t, r)
				if (d.PaymentExpiresAt != "") != tc.want.expires {
					t.Errorf("paymentExpiresAt = %q, want present: %v", d.PaymentExpiresAt, tc.want.expires)
				}
				if d.TxHash != tc.want.txHash {
					t.Errorf("txHash = %q, want %q", d.TxHash, tc.want.txHash)
				}
				if r.Meta.Diag.StateChanged != "no" && r.Meta.Diag.Retry != "no" {
					t.Errorf("retry %s after a payment left", r.Meta.Diag.Retry)
				}
				return
			}
			out := e.ok("mindvault_buy", r)
			if out["settlement"] != tc.want.settle || out["amountUsdc"] != tc.want.amount {
				t.Fatalf("settlement %v amountUsdc %v, want %s %s", out["settlement"], out["amountUsdc"], tc.want.settle, tc.want.amount)
			}
			switch tc.want.txHash {
			case "":
				if out["txHash"] != nil || out["explorerUrl"] != nil {
					t.Fatalf("a settlement hash was claimed without proof: %v", out)
				}
			case "any":
				if h, _ := out["txHash"].(string); len(h) != 64 {
					t.Fatalf("no settlement hash: %v", out)
				}
			default:
				if out["txHash"] != tc.want.txHash {
					t.Fatalf("txHash %v, want %s", out["txHash"], tc.want.txHash)
				}
			}
			if tc.want.paid == 0 && out["receipt"] != nil {
				t.Fatalf("a receipt was shown for a purchase that paid nothing: %v", out)
			}
			if tc.want.url != "" {
				if acc, _ := out["access"].(map[string]any); acc == nil || acc["url"] != tc.want.url {
					t.Fatalf("access %v, want url %s", out["access"], tc.want.url)
				}
			}
			if out["usdcBalance"] != nil {
				t.Fatalf("a pre-payment balance was shown after paying: %v", out)
			}
		})
	}
}

// TestPublishFeeClaimsOnlyWhatIsProven: the verification fee is reported as paid only with a
// settlement proof, and a paid answer without a verdict is not read as a rejection.
func TestPublishFeeClaimsOnlyWhatIsProven(t *testing.T) {
	e := newEnv(t, nil)
	demo, _ := e.b.Deps.Store.Get(context.Background(), "demo")
	demo.APIKey = e.sb.DemoAPIKey
	if err := e.b.Deps.Store.Update(context.Background(), demo); err != nil {
		t.Fatal(err)
	}
	args := `{"title":"Fee Proofs","price":"1","externalUrl":"https://example.org/fees"}`

	t.Run("verification answered without PAYMENT-RESPONSE", func(t *testing.T) {
		e := e.in(t)
		e.faults(jsonPlan(map[string]any{"service": "api", "target": "POST /verify-content", "paid": "true", "kind": "status", "status": 200,
			"body": `{"isOriginal":true,"confidence":0.9,"flags":[]}`}))
		out := e.ok("mindvault_publish", e.call("mindvault_publish", args))
		if out["feeSettlement"] != "unconfirmed" || out["feePaidUsdc"] != nil || out["paymentTxHash"] != nil {
			t.Fatalf("a fee was claimed without proof: %v", out)
		}
		if n := e.sb.PaidRequests("POST /verify-content"); n != 1 {
			t.Fatalf("paid requests = %d, want 1", n)
		}
	})
	t.Run("paid answer without a verdict", func(t *testing.T) {
		e := e.in(t)
		e.faults(`service=api,target=POST /verify-content,paid=true,kind=status,status=200,body={}`)
		r := e.call("mindvault_publish", args)
		e.fails("mindvault_publish", r, failure{category: "server", code: "MALFORMED_RESPONSE", source: "x402", status: 200, state: "yes", retry: "no"})
		if !r.Meta.Diag.ExecutionStarted || paymentExpiry(t, r).PaymentExpiresAt == "" || strings.Contains(r.Content[0].Text, "rejected") {
			t.Fatalf("want started, the payment's expiry and no verdict: %s", r.raw)
		}
	})
	t.Run("a real publish proves its fee", func(t *testing.T) {
		e := e.in(t)
		e.faults("")
		out := e.ok("mindvault_publish", e.call("mindvault_publish", args))
		if out["feeSettlement"] != "confirmed" || out["feePaidUsdc"] != "0.1000000" || len(out["paymentTxHash"].(string)) != 64 {
			t.Fatalf("publish: %v", out)
		}
	})
}

// TestExecutionStarted: for a read tool any downstream request starts the operation; for a
// payment or a write only the paid request or the submission does, never a preparatory
// read, a simulation, the unpaid request or a refusal.
func TestExecutionStarted(t *testing.T) {
	// Long and self-contained: harness_test.go, "Which tests run in parallel".
	t.Parallel()
	e := newEnv(t, map[string]string{"MINDVAULT_PAYMENT_TIMEOUT_MS": "1500"})
	demo, _ := e.b.Deps.Store.Get(context.Background(), "demo")
	demo.APIKey = e.sb.DemoAPIKey
	if err := e.b.Deps.Store.Update(context.Background(), demo); err != nil {
		t.Fatal(err)
	}
	demoID := ownedBy(e, e.sb.Demo.Address)
	publish := `{"title":"Started","price":"1","externalUrl":"https://example.org/started"}`
	cases := []struct {
		name, tool, args, plan string
		code                   string
		started                bool
	}{
		{"buy of a missing resource", "mindvault_buy", `{"resourceId":"nosuchresource"}`, "", "NOT_FOUND", false},
		{"buy: the unpaid request answers 404", "mindvault_buy", `{"resourceId":"zkprimer"}`,
			"service=api,target=GET /resources/*,paid=false,kind=status,status=404", "NOT_FOUND", false},
		{"buy: the unpaid request is dropped", "mindvault_buy", `{"resourceId":"zkprimer"}`,
			"service=api,target=GET /resources/*,paid=false,kind=drop", "NETWORK_ERROR", false},
		{"buy: the preview's connection drops", "mindvault_buy", `{"resourceId":"zkprimer"}`,
			"service=api,target=GET /resources/*/meta,kind=drop", "NETWORK_ERROR", false},
		{"buy: the balance read fails", "mindvault_buy", `{"resourceId":"zkprimer"}`,
			"service=horizon,target=GET /accounts/*,kind=status,status=500", "SERVER_ERROR", false},
		{"buy refused before paying", "mindvault_buy", `{"resourceId":"zkprimer","maxPriceUsdc":"1"}`, "", "PRICE_ABOVE_CAP", false},
		{"buy: signing the payment fails at the RPC", "mindvault_buy", `{"resourceId":"zkprimer"}`,
			"service=rpc,target=simulateTransaction,kind=status,status=500", "SERVER_ERROR", false},
		{"buy: the paid request times out", "mindvault_buy", `{"resourceId":"zkprimer"}`,
			"service=api,target=GET /resources/*,paid=true,kind=delay,delay=10s", "TIMEOUT", true},
		{"buy: the paid request answers 503", "mindvault_buy", `{"resourceId":"zkprimer"}`,
			"service=api,target=GET /resources/*,paid=true,kind=status,status=503", "SERVER_ERROR", true},
		{"registry write rejected in simulation", "mindvault_set_price", `{"resourceId":"` + demoID + `","price":"2"}`,
			"service=rpc,target=simulateTransaction,kind=contracterror,code=3", "CONTRACT_INVALID_INPUT", false},
		{"registry write: the sequence read fails", "mindvault_set_price", `{"resourceId":"` + demoID + `","price":"2"}`,
			"service=horizon,target=GET /accounts/*,kind=status,status=500", "SERVER_ERROR", false},
		{"registry write fails when applied", "mindvault_set_price", `{"resourceId":"` + demoID + `","price":"2"}`,
			"service=rpc,target=sendTransaction,kind=contracterror,code=3", "CONTRACT_INVALID_INPUT", true},
		{"registry write: sendTransaction answers an unknown status", "mindvault_set_price", `{"resourceId":"` + demoID + `","price":"2"}`,
			jsonPlan(map[string]any{"service": "rpc", "target": "sendTransaction", "kind": "status", "status": 200,
				"body": `{"jsonrpc":"2.0","id":1,"result":{"status":"SOMETHING_NEW","latestLedger":1,"latestLedgerCloseTime":"1"}}`}),
			"MALFORMED_RESPONSE", true},
		{"publish fails at /agent/status", "mindvault_publish", publish,
			"service=api,target=GET /agent/status,kind=status,status=500", "SERVER_ERROR", false},
		{"publish: creating the resource fails", "mindvault_publish", publish,
			"service=api,target=POST /resources,kind=status,status=500", "SERVER_ERROR", true},
		{"publish: the fee is refused after creation", "mindvault_publish", strings.Replace(publish, `}`, `,"maxFeeUsdc":"0.1"}`, 1),
			`service=api,target=POST /verify-content,paid=false,kind=status,status=402,body={},header=PAYMENT-REQUIRED:` + feeRequired(e, "2000000"),
			"PRICE_ABOVE_CAP", true},
		{"read: preview answers 5xx", "mindvault_preview", `{"resourceId":"zkprimer"}`,
			"service=api,target=GET /resources/*/meta,kind=status,status=500", "SERVER_ERROR", true},
		{"read: a registry lookup rejected in simulation", "mindvault_registry_lookup", `{"resourceId":"` + demoID + `"}`,
			"service=rpc,target=simulateTransaction,kind=contracterror,code=9", "CONTRACT_ERROR", true},
		{"read: wallet info, Horizon 5xx", "mindvault_wallet_info", ``,
			"service=horizon,target=GET /accounts/*,kind=status,status=500", "SERVER_ERROR", true},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := e.in(t)
			e.faults(tc.plan)
			args := tc.args
			if tc.tool == "mindvault_buy" {
				// Each case its own purchase: an unknown outcome blocks its intent until the chain decides.
				args = strings.Replace(args, "{", fmt.Sprintf(`{"allowRepeat":true,"idempotencyKey":"started-case-%d",`, i), 1)
			}
			r := e.call(tc.tool, args)
			if !r.IsError || r.Meta.Diag == nil {
				t.Fatalf("want a failure: %s", r.raw)
			}
			if d := r.Meta.Diag; d.Code != tc.code || d.ExecutionStarted != tc.started {
				t.Fatalf("code %s executionStarted %v, want %s %v: %s", d.Code, d.ExecutionStarted, tc.code, tc.started, r.Content[0].Text)
			}
			if !tc.started && tc.tool == "mindvault_buy" && e.sb.PaidRequests("*") != 0 {
				t.Fatal("a payment was sent")
			}
		})
	}
}

// feeRequired is a PAYMENT-REQUIRED for the verification fee asking amount units.
func feeRequired(e *env, amount string) string {
	agent, _ := e.sb.Account("agent")
	doc := map[string]any{"x402Version": 2, "resource": map[string]any{"url": e.sb.APIURL + "/verify-content"},
		"accepts": []any{map[string]any{"scheme": "exact", "network": "stellar:testnet", "amount": amount, "asset": e.sb.USDCContractID,
			"payTo": agent.Address, "maxTimeoutSeconds": 300, "extra": map[string]any{"areFeesSponsored": true}}}}
	b, _ := json.Marshal(doc)
	return base64.StdEncoding.EncodeToString(b)
}

// TestPaymentExpiryIsLate: after a paid request whose outcome is unknown, the reported
// expiry is no earlier than the sandbox network can close the signed expiration ledger
// (its ledgers close every 5 s; the expiration is 50 ledgers after the one signed against).
func TestPaymentExpiryIsLate(t *testing.T) {
	e := newEnv(t, map[string]string{"MINDVAULT_PAYMENT_TIMEOUT_MS": "1500"})
	e.faults("service=api,target=GET /resources/*,paid=true,kind=drop")
	before := time.Now()
	r := e.call("mindvault_buy", `{"resourceId":"zkprimer"}`)
	e.fails("mindvault_buy", r, failure{category: "network", code: "NETWORK_ERROR", source: "x402", state: "unknown", retry: "no"})
	at, err := time.Parse(time.RFC3339, paymentExpiry(t, r).PaymentExpiresAt)
	if err != nil {
		t.Fatalf("paymentExpiresAt: %v: %s", err, r.raw)
	}
	if earliest := before.Add(50 * 5 * time.Second); at.Before(earliest) {
		t.Fatalf("expiry %s is before the expiration ledger can close (%s)", at, earliest)
	}
	if latest := time.Now().Add(50*10*time.Second + 2*time.Minute); at.After(latest) {
		t.Fatalf("expiry %s is unreasonably late", at)
	}
}
