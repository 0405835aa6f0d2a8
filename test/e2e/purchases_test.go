package e2e_test

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"math/big"
	"strings"
	"testing"
	"time"
)

// Delivering what was bought, refusing repeat purchases and reporting the balance after:
// every assertion is checked against what the sandbox holds (its bytes, its ledger of
// payments, its balances, the paid requests it received), not against the result alone.

// sha256Hex is the hex SHA-256 of b.
func sha256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// TestBuyDeliversTheFile: a file is delivered as an embedded resource whose bytes are the
// seller's, described in access by size and SHA-256, with the receipt from the X-Payment-*
// headers and the balance after; a small text comes inline as text. The JSON never carries
// the bytes.
func TestBuyDeliversTheFile(t *testing.T) {
	e := newEnv(t, nil)
	cases := []struct {
		id, args, mime, price string
		delivery              string
	}{
		{"rustguide", `{"resourceId":"rustguide"}`, "application/pdf", "1.50", "inline"},
		{"agentpromptpack", `{"resourceId":"agentpromptpack"}`, "application/zip", "3.00", "inline"},
		{"diagramset", `{"resourceId":"diagramset"}`, "image/png", "8.00", "inline"},
		{"stellarcheatsheet", `{"resourceId":"stellarcheatsheet","maxPriceUsdc":"30"}`, "text/markdown", "25", "content"},
	}
	for _, tc := range cases {
		t.Run(tc.id, func(t *testing.T) {
			e := e.in(t)
			e.faults("")
			want, _, ok := e.sb.FileContent(tc.id)
			if !ok {
				t.Fatalf("%s is not a sandbox file", tc.id)
			}
			var meta struct {
				PublisherWallet string `json:"publisherWallet"`
			}
			getJSON(t, e.sb.APIURL+"/resources/"+tc.id+"/meta", &meta)
			before := usdc(e, e.sb.Demo.Address)
			r := e.call("mindvault_buy", tc.args)
			out := e.ok("mindvault_buy", r)
			if n := e.sb.PaidRequests("GET /resources/*"); n != 1 {
				t.Fatalf("paid requests = %d, want 1", n)
			}
			acc, _ := out["access"].(map[string]any)
			if acc == nil || acc["delivery"] != tc.delivery || acc["sha256"] != sha256Hex(want) || acc["size"] != float64(len(want)) ||
				!strings.HasPrefix(acc["contentType"].(string), tc.mime) {
				t.Fatalf("access %v, want %s delivery of %d bytes with sha256 %s", acc, tc.delivery, len(want), sha256Hex(want))
			}
			if len(r.Content) != 2 {
				t.Fatalf("want the JSON block and the delivered block, got %d blocks", len(r.Content))
			}
			block := r.Content[1]
			switch tc.delivery {
			case "inline":
				if block.Type != "resource" || block.Resource == nil || block.Resource.URI != "mindvault://resources/"+tc.id ||
					block.Resource.URI != acc["uri"] || block.Resource.MimeType != tc.mime {
					t.Fatalf("resource block %+v, access %v", block.Resource, acc)
				}
				got, err := base64.StdEncoding.DecodeString(block.Resource.Blob)
				if err != nil || string(got) != string(want) {
					t.Fatalf("the blob is not the seller's %d bytes (err %v, %d bytes)", len(want), err, len(got))
				}
				if strings.Contains(r.Content[0].Text, block.Resource.Blob[:64]) || acc["content"] != nil {
					t.Fatal("the JSON repeats the bytes")
				}
			case "content":
				if block.Type != "text" || block.Text != string(want) || acc["content"] != string(want) {
					t.Fatalf("text block %q, access.content %v", block.Text, acc["content"])
				}
			}
			rc, _ := out["receipt"].(map[string]any)
			if rc == nil || len(rc["paymentId"].(string)) != 36 || rat(rc["amount"].(string)).Cmp(rat(tc.price)) != 0 || len(rc["amount"].(string)) < 9 || rc["paidTo"] != meta.PublisherWallet || rc["paidAt"] == nil {
				t.Fatalf("receipt %v, want the X-Payment-* headers", rc)
			}
			// The demo wallet publishes agentpromptpack: paying itself moves nothing.
			charged := rat(tc.price)
			if meta.PublisherWallet == e.sb.Demo.Address {
				charged = new(big.Rat)
			}
			after := usdc(e, e.sb.Demo.Address)
			if s, _ := out["usdcBalanceAfter"].(string); s == "" || rat(s).Cmp(after) != 0 || new(big.Rat).Sub(before, after).Cmp(charged) != 0 {
				t.Fatalf("usdcBalanceAfter %v, Horizon before %s after %s, price %s", out["usdcBalanceAfter"],
					before.FloatString(7), after.FloatString(7), tc.price)
			}
			if out["usdcBalance"] != nil || out["settlement"] != "confirmed" {
				t.Fatalf("result %v", out)
			}
		})
	}
}

// TestBuyTooLargeToDeliver: a file the preview announces above MINDVAULT_MAX_INLINE_BYTES is
// refused before anything is paid (a small text is not: it travels as text); one that turns
// out larger only in the paid answer is an error that says the money left, with the receipt
// and the transaction, or that the outcome is unknown when the settlement is not proven.
func TestBuyTooLargeToDeliver(t *testing.T) {
	e := newEnv(t, map[string]string{"MINDVAULT_MAX_INLINE_BYTES": "100"})
	pdf, _, _ := e.sb.FileContent("rustguide")
	if len(pdf) <= 100 {
		t.Fatalf("the sandbox PDF (%d bytes) must exceed the 100-byte limit of this test", len(pdf))
	}
	t.Run("announced size above the limit: refused before paying", func(t *testing.T) {
		for _, args := range []string{`{"resourceId":"rustguide"}`, `{"resourceId":"rustguide","dryRun":true}`} {
			e := e.in(t)
			e.faults("")
			before := usdc(e, e.sb.Demo.Address)
			r := e.call("mindvault_buy", args)
			e.fails("mindvault_buy", r, failure{category: "validation", code: "DELIVERY_TOO_LARGE", source: "x402", retry: "no", next: "Nothing was paid"})
			if r.Meta.Diag.ExecutionStarted || !strings.Contains(r.Content[0].Text, itoa(len(pdf))+" bytes") || !strings.Contains(r.Content[0].Text, "100 bytes") {
				t.Fatalf("want executionStarted false, the size and the limit: %s", r.raw)
			}
			if e.sb.PaidRequests("*") != 0 || e.sb.Count("api", "GET /resources/*") != 0 || usdc(e, e.sb.Demo.Address).Cmp(before) != 0 {
				t.Fatal("something was requested or paid")
			}
		}
	})
	t.Run("a small text is delivered whatever the limit", func(t *testing.T) {
		e := e.in(t)
		e.faults("")
		md, _, _ := e.sb.FileContent("datasetcard")
		out := e.ok("mindvault_buy", e.call("mindvault_buy", `{"resourceId":"datasetcard"}`))
		if len(md) <= 100 || out["access"].(map[string]any)["content"] != string(md) {
			t.Fatalf("text of %d bytes: %v", len(md), out["access"])
		}
	})
	t.Run("larger than announced, settled", func(t *testing.T) {
		e := e.in(t)
		var meta map[string]any
		getJSON(t, e.sb.APIURL+"/resources/rustguide/meta", &meta)
		delete(meta, "size")
		body, _ := json.Marshal(meta)
		e.faults(jsonPlan(map[string]any{"service": "api", "target": "GET /resources/*/meta", "kind": "status", "status": 200, "body": string(body), "count": 1}))
		r := e.call("mindvault_buy", `{"resourceId":"rustguide","allowRepeat":true}`)
		e.fails("mindvault_buy", r, failure{category: "validation", code: "DELIVERY_TOO_LARGE", source: "x402", status: 200, state: "yes", retry: "no",
			next: "do not buy rustguide again"})
		d := paymentExpiry(t, r)
		if !r.Meta.Diag.ExecutionStarted || len(d.TxHash) != 64 || e.sb.PaidRequests("GET /resources/*") != 1 {
			t.Fatalf("want the paid request once and its settlement hash: %s", r.raw)
		}
		if tx := e.ok("mindvault_tx_status", e.call("mindvault_tx_status", `{"txHash":"`+d.TxHash+`"}`)); tx["status"] != "SUCCESS" {
			t.Fatalf("the reported settlement is not on chain: %v", tx)
		}
		for _, want := range []string{"receipt: payment ", d.TxHash, itoa(len(pdf)) + " bytes", "get the file from the seller", "MINDVAULT_MAX_INLINE_BYTES"} {
			if !strings.Contains(r.Content[0].Text, want) {
				t.Errorf("text lacks %q: %s", want, r.Content[0].Text)
			}
		}
	})
	t.Run("larger than announced, settlement not proven", func(t *testing.T) {
		e := e.in(t)
		var meta map[string]any
		getJSON(t, e.sb.APIURL+"/resources/datasetcard/meta", &meta)
		delete(meta, "size")
		delete(meta, "mimeType")
		body, _ := json.Marshal(meta)
		plan := []any{
			map[string]any{"service": "api", "target": "GET /resources/*/meta", "kind": "status", "status": 200, "body": string(body), "count": 1},
			map[string]any{"service": "api", "target": "GET /resources/*", "paid": "true", "kind": "status", "status": 200, "body": strings.Repeat("x", 70<<10)},
		}
		raw, _ := json.Marshal(plan)
		e.faults(string(raw))
		r := e.call("mindvault_buy", `{"resourceId":"datasetcard","allowRepeat":true}`)
		e.fails("mindvault_buy", r, failure{category: "validation", code: "DELIVERY_TOO_LARGE", source: "x402", status: 200, state: "unknown", retry: "no",
			next: "do not buy datasetcard again before"})
		if d := paymentExpiry(t, r); d.PaymentExpiresAt == "" || d.TxHash != "" || e.sb.PaidRequests("GET /resources/*") != 1 {
			t.Fatalf("want the payment's expiry, no hash, one paid request: %s", r.raw)
		}
	})
}

// TestRepeatPurchase: a wallet that already bought a resource is refused before anything is
// paid, with the earlier receipt and the call that buys again on purpose; allowRepeat: true
// buys again; mindvault_purchase_history lists the purchases newest first.
func TestRepeatPurchase(t *testing.T) {
	e := newEnv(t, nil)
	first := e.ok("mindvault_buy", e.call("mindvault_buy", `{"resourceId":"zkprimer"}`))
	firstReceipt := first["receipt"].(map[string]any)

	for _, args := range []string{`{"resourceId":"zkprimer"}`, `{"resourceId":"zkprimer","dryRun":true}`} {
		e.faults("")
		before := usdc(e, e.sb.Demo.Address)
		r := e.call("mindvault_buy", args)
		e.fails("mindvault_buy", r, failure{category: "conflict", code: "ALREADY_PURCHASED", source: "x402", retry: "no",
			next: `call mindvault_buy with {"allowRepeat":true,"resourceId":"zkprimer"}`})
		for _, want := range []string{firstReceipt["paymentId"].(string), first["txHash"].(string), "6.2500000 USDC"} {
			if !strings.Contains(r.Content[0].Text, want) {
				t.Errorf("the refusal lacks the earlier receipt's %q: %s", want, r.Content[0].Text)
			}
		}
		// The next action is a look; paying again is the user's decision (prose only).
		if !strings.Contains(r.raw, `"nextAction":{"tool":"mindvault_purchase_history","arguments":{"resourceId":"zkprimer"}}`) {
			t.Errorf("the refusal's nextAction is not the purchase history: %s", r.raw)
		}
		if r.Meta.Diag.ExecutionStarted || e.sb.PaidRequests("*") != 0 || e.sb.Count("api", "GET /resources/*") != 0 ||
			usdc(e, e.sb.Demo.Address).Cmp(before) != 0 {
			t.Fatal("a refused repeat purchase requested or paid something")
		}
	}

	e.faults("")
	again := e.ok("mindvault_buy", e.call("mindvault_buy", `{"resourceId":"zkprimer","allowRepeat":true}`))
	if e.sb.PaidRequests("GET /resources/*") != 1 || again["settlement"] != "confirmed" || again["txHash"] == first["txHash"] {
		t.Fatalf("allowRepeat did not buy again: %v", again)
	}
	if got := e.sb.Purchases(e.sb.Demo.Address); len(got) != 2 {
		t.Fatalf("the API recorded %v, want two purchases", got)
	}
	if n := e.sb.Count("api", "GET /buyers/*/payments"); n != 0 {
		t.Errorf("allowRepeat read the purchase history %d times; it has nothing to guard", n)
	}

	hist := e.ok("mindvault_purchase_history", e.call("mindvault_purchase_history", `{"resourceId":"zkprimer"}`))
	ps := hist["purchases"].([]any)
	if hist["count"] != 2.0 || hist["total"] != 2.0 || len(ps) != 2 || hist["address"] != e.sb.Demo.Address {
		t.Fatalf("history %v", hist)
	}
	newest := ps[0].(map[string]any)
	if newest["txHash"] != again["txHash"] || newest["paymentId"] != again["receipt"].(map[string]any)["paymentId"] ||
		newest["title"] != "Zero-Knowledge Primer" || newest["amount"] != "6.2500000" || newest["paidAt"] == nil || newest["source"] != "journal" {
		t.Fatalf("newest purchase %v, want the second buy %v", newest, again)
	}
	limited := e.ok("mindvault_purchase_history", e.call("mindvault_purchase_history", `{"limit":1}`))
	if limited["count"] != 1.0 || limited["total"] != 2.0 || !strings.Contains(limited["message"].(string), "newest 1 of 2") {
		t.Fatalf("limit 1: %v", limited)
	}
	other := e.ok("mindvault_purchase_history", e.call("mindvault_purchase_history", `{"resourceId":"rustguide"}`))
	if other["count"] != 0.0 || len(other["purchases"].([]any)) != 0 || !strings.Contains(other["message"].(string), "record of a purchase of rustguide") {
		t.Fatalf("no purchase of rustguide: %v", other)
	}
}

// TestPurchaseHistoryNeverBlocksABuy: when the API's history cannot be read the purchase goes
// ahead with a warning; an API without the route (404) means no record, not a failure. A
// repeat purchase the API cannot show is still refused before anything is sent: the journal
// holds the earlier receipt (ALREADY_PURCHASED).
func TestPurchaseHistoryNeverBlocksABuy(t *testing.T) {
	e := newEnv(t, nil)
	e.ok("mindvault_buy", e.call("mindvault_buy", `{"resourceId":"llmprompts"}`))
	t.Run("history 500 on a repeat purchase", func(t *testing.T) {
		e := e.in(t)
		e.faults("service=api,target=GET /buyers/*/payments,kind=status,status=500")
		r := e.call("mindvault_buy", `{"resourceId":"llmprompts"}`)
		e.fails("mindvault_buy", r, failure{category: "conflict", code: "ALREADY_PURCHASED", source: "x402", retry: "no"})
		if e.sb.PaidRequests("GET /resources/*") != 0 || r.Meta.Diag.ExecutionStarted || r.Meta.Diag.StateChanged != "no" {
			t.Fatalf("the repeat purchase was sent: %s", r.raw)
		}
		if !strings.Contains(r.raw, `"nextAction":{"tool":"mindvault_purchase_history"`) {
			t.Fatalf("no look at the history as the next action: %s", r.raw)
		}
	})
	cases := []struct {
		name, plan, id string
		warn           string // "" = no warning
	}{
		{"history connection dropped", "service=api,target=GET /buyers/*/payments,kind=drop", "rustguide", "network"},
		{"history of the wrong shape", "service=api,target=GET /buyers/*/payments,kind=malformed", "gotestingtips", "unexpected response shape"}, // not the demo wallet's own: that adds its own warning
		{"history route missing (404)", "service=api,target=GET /buyers/*/payments,kind=status,status=404", "diagramset", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := e.in(t)
			e.faults(tc.plan)
			out := e.ok("mindvault_buy", e.call("mindvault_buy", `{"resourceId":"`+tc.id+`"}`))
			if e.sb.PaidRequests("GET /resources/*") != 1 || out["settlement"] != "confirmed" {
				t.Fatalf("the purchase did not go ahead: %v", out)
			}
			warnings, _ := out["warnings"].([]any)
			switch {
			case tc.warn == "" && len(warnings) != 0:
				t.Fatalf("unexpected warnings %v", warnings)
			case tc.warn != "" && (len(warnings) != 1 || !strings.Contains(warnings[0].(string), "purchase history could not be read") ||
				!strings.Contains(warnings[0].(string), tc.warn)):
				t.Fatalf("warnings %v, want one naming %q", warnings, tc.warn)
			}
		})
	}
	t.Run("the history tool lists the journal and names the API's failure", func(t *testing.T) {
		e := e.in(t)
		e.faults("service=api,target=GET /buyers/*/payments,kind=status,status=500")
		out := e.ok("mindvault_purchase_history", e.call("mindvault_purchase_history", ""))
		rows, _ := out["purchases"].([]any)
		if len(rows) != 4 || rows[0].(map[string]any)["source"] != "journal" || !strings.Contains(out["message"].(string), "could not be read") {
			t.Fatalf("API 500: %v", out)
		}
	})
	t.Run("404 is no record of the API's", func(t *testing.T) {
		e := e.in(t)
		e.faults("service=api,target=GET /buyers/*/payments,kind=status,status=404")
		out := e.ok("mindvault_purchase_history", e.call("mindvault_purchase_history", ""))
		if out["count"] != 4.0 {
			t.Fatalf("404: %v", out)
		}
	})
	t.Run("no record anywhere", func(t *testing.T) {
		e := e.in(t)
		e.faults("service=api,target=GET /buyers/*/payments,kind=status,status=404")
		out := e.ok("mindvault_purchase_history", e.call("mindvault_purchase_history", `{"resourceId":"zkprimer"}`))
		if out["count"] != 0.0 || !strings.Contains(out["message"].(string), "does not prove the wallet never paid") {
			t.Fatalf("no record: %v", out)
		}
	})
}

// TestBuyReadsInParallel: the preview, the balance and the purchase history are read at the
// same time, so the guard adds no latency: three 2 s stalls take about 2 s, not 4 or 6 (the
// bound leaves almost 2 s for the rest of the call on a loaded machine).
func TestBuyReadsInParallel(t *testing.T) {
	e := newEnv(t, nil)
	e.faults("service=api,target=GET /resources/*/meta,kind=delay,delay=2s;" +
		"service=horizon,target=GET /accounts/*,kind=delay,delay=2s,count=1;" +
		"service=api,target=GET /buyers/*/payments,kind=delay,delay=2s")
	start := time.Now()
	e.ok("mindvault_buy", e.call("mindvault_buy", `{"resourceId":"zkprimer","dryRun":true}`))
	if took := time.Since(start); took > 3900*time.Millisecond {
		t.Fatalf("buy took %s: the reads ran one after another", took)
	}
	if e.sb.Count("api", "GET /buyers/*/payments") != 1 {
		t.Fatal("the purchase history was not read")
	}
}

// TestBuyBalanceAfterOnlyWhenProven: without a settlement proof the charge is not known, so
// usdcBalanceAfter is left out and the message says why.
func TestBuyBalanceAfterOnlyWhenProven(t *testing.T) {
	e := newEnv(t, nil)
	e.faults(`service=api,target=GET /resources/*,paid=true,kind=status,status=200,body={"url":"https://example.org/zk"}`)
	out := e.ok("mindvault_buy", e.call("mindvault_buy", `{"resourceId":"zkprimer"}`))
	if out["settlement"] != "unconfirmed" || out["usdcBalanceAfter"] != nil || !strings.Contains(out["message"].(string), "usdcBalanceAfter is not shown") {
		t.Fatalf("unproven charge: %v", out)
	}
}

// TestLargestInlineFileFitsLambda: a file of exactly the default MINDVAULT_MAX_INLINE_BYTES
// (3 MiB) is delivered, and the whole JSON-RPC answer stays well inside Lambda's 6 MB buffered
// response: the bytes travel once, as base64, never again inside the JSON text block.
func TestLargestInlineFileFitsLambda(t *testing.T) {
	e := newEnv(t, nil)
	var meta map[string]any
	getJSON(t, e.sb.APIURL+"/resources/datasetcard/meta", &meta)
	delete(meta, "size")
	delete(meta, "mimeType")
	body, _ := json.Marshal(meta)
	plan, _ := json.Marshal([]any{
		map[string]any{"service": "api", "target": "GET /resources/*/meta", "kind": "status", "status": 200, "body": string(body), "count": 1},
		map[string]any{"service": "api", "target": "GET /resources/*", "paid": "true", "kind": "status", "status": 200, "body": strings.Repeat("m", 3<<20)},
	})
	e.faults(string(plan))
	raw := e.rpc(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"mindvault_buy","arguments":{"resourceId":"datasetcard"}}}`, nil)
	var resp struct {
		Result result `json:"result"`
	}
	if err := json.Unmarshal([]byte(raw), &resp); err != nil {
		t.Fatal(err)
	}
	out := e.ok("mindvault_buy", resp.Result)
	if acc := out["access"].(map[string]any); acc["delivery"] != "inline" || acc["size"] != float64(3<<20) {
		t.Fatalf("access %v", acc)
	}
	if n := len(raw); n > 6_000_000 || n < 4<<20 {
		t.Fatalf("the answer is %d bytes; a 3 MiB file must take about 4 MiB of base64 and stay under 6 MB", n)
	}
}

// TestPurchaseHistoryShapes: the history is read in each spelling the API may use, ordered
// newest first whatever the API's order, and an answer that cannot be read is an error, not
// an empty history.
func TestPurchaseHistoryShapes(t *testing.T) {
	e := newEnv(t, nil)
	cases := []struct {
		name, body string
		first      map[string]any // newest purchase; nil: want MALFORMED_RESPONSE
		count      float64
	}{
		{"wrapped, id and createdAt, numeric amount",
			`{"payments":[{"id":"p-old","resourceId":"zkprimer","amount":6.25,"createdAt":"2025-06-01T10:00:00.000Z"},` +
				`{"id":"p-new","resourceId":"rustguide","amount":"1.50","currency":"USDC","txHash":"` + settledHash + `","createdAt":"2025-06-02T10:00:00.000Z"}]}`,
			map[string]any{"paymentId": "p-new", "resourceId": "rustguide", "amount": "1.50", "txHash": settledHash, "paidAt": "2025-06-02T10:00:00.000Z"}, 2},
		{"array with paymentId and paidAt",
			`[{"paymentId":"p1","resourceId":"zkprimer","amount":"6.25","paidAt":"2025-06-03T10:00:00Z","title":"Zero-Knowledge Primer"}]`,
			map[string]any{"paymentId": "p1", "resourceId": "zkprimer", "amount": "6.25", "title": "Zero-Knowledge Primer"}, 1},
		{"an entry without a resource", `[{"paymentId":"p1","amount":"1"}]`, nil, 0},
		{"payments that are not a list", `{"payments":{"p1":"zkprimer"}}`, nil, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := e.in(t)
			e.faults(jsonPlan(map[string]any{"service": "api", "target": "GET /buyers/*/payments", "kind": "status", "status": 200, "body": tc.body}))
			r := e.call("mindvault_purchase_history", "")
			if tc.first == nil {
				e.fails("mindvault_purchase_history", r, failure{category: "server", code: "MALFORMED_RESPONSE", source: "api", status: 200})
				return
			}
			out := e.ok("mindvault_purchase_history", r)
			ps := out["purchases"].([]any)
			if out["count"] != tc.count || len(ps) == 0 {
				t.Fatalf("history %v", out)
			}
			for k, v := range tc.first {
				if ps[0].(map[string]any)[k] != v {
					t.Errorf("newest %s = %v, want %v", k, ps[0].(map[string]any)[k], v)
				}
			}
		})
	}
	t.Run("buy reads the same shapes", func(t *testing.T) {
		e := e.in(t)
		e.faults(jsonPlan(map[string]any{"service": "api", "target": "GET /buyers/*/payments", "kind": "status", "status": 200,
			"body": `{"payments":[{"id":"p-old","resourceId":"zkprimer","amount":6.25,"createdAt":"2025-06-01T10:00:00.000Z"}]}`}))
		r := e.call("mindvault_buy", `{"resourceId":"zkprimer"}`)
		e.fails("mindvault_buy", r, failure{category: "conflict", code: "ALREADY_PURCHASED", source: "x402", retry: "no"})
		if !strings.Contains(r.Content[0].Text, "payment p-old, 6.25 USDC") || e.sb.PaidRequests("*") != 0 {
			t.Fatalf("refusal %s", r.Content[0].Text)
		}
	})
}

// TestRepeatFilePurchaseSaysWhatItCosts: the history holds a file purchase's receipt, not its
// bytes, so the refusal of a repeat says that getting them again means paying again, and how much.
func TestRepeatFilePurchaseSaysWhatItCosts(t *testing.T) {
	e := newEnv(t, nil)
	e.ok("mindvault_buy", e.call("mindvault_buy", `{"resourceId":"rustguide"}`))
	r := e.call("mindvault_buy", `{"resourceId":"rustguide"}`)
	e.fails("mindvault_buy", r, failure{category: "conflict", code: "ALREADY_PURCHASED", source: "x402", retry: "no",
		next: `getting them again means buying rustguide again for 1.50 USDC`})
	if strings.Contains(r.raw, `"nextAction":{"tool":"mindvault_buy"`) {
		t.Fatalf("a repeat purchase offered as the next step: %s", r.raw)
	}
}
