package e2e_test

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mindvault/mcp-endpoint/internal/sandbox"
)

// required is a PAYMENT-REQUIRED document asking amount units of USDC for payTo.
func required(e *env, url, amount, payTo string) string {
	doc := map[string]any{"x402Version": 2, "resource": map[string]any{"url": url},
		"accepts": []any{map[string]any{"scheme": "exact", "network": "stellar:testnet", "amount": amount, "asset": e.sb.USDCContractID,
			"payTo": payTo, "maxTimeoutSeconds": 300, "extra": map[string]any{"areFeesSponsored": true}}}}
	b, _ := json.Marshal(doc)
	return base64.StdEncoding.EncodeToString(b)
}

// TestPayOnlyWhomTheListingNames: a seller's 402 that names another payee than the listing
// (the publisher's wallet for a purchase, the verification agent's for a fee) is refused
// before anything is signed: no simulation, no paid request.
func TestPayOnlyWhomTheListingNames(t *testing.T) {
	e := newEnv(t, nil)
	agent, _ := e.sb.Account("agent")
	creator, _ := e.sb.Account("creator")
	for _, tc := range []struct {
		name, tool, args, plan string
	}{
		{"a purchase paid to the verification agent", "mindvault_buy", `{"resourceId":"llmprompts","allowRepeat":true}`,
			"service=api,target=GET /resources/llmprompts,paid=false,kind=status,status=402,body={},header=PAYMENT-REQUIRED:" +
				required(e, e.sb.APIURL+"/resources/llmprompts", "1000000", agent.Address)},
		{"a verification fee paid to a publisher", "mindvault_publish", `{"title":"Payee Check","price":"1","externalUrl":"https://example.org/payee"}`,
			"service=api,target=POST /verify-content,paid=false,kind=status,status=402,body={},header=PAYMENT-REQUIRED:" +
				required(e, e.sb.APIURL+"/verify-content", "1000000", creator.Address)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := e.in(t)
			e.faults(tc.plan)
			r := e.call(tc.tool, tc.args)
			// A publish has created its resource by then (the fee's 402 needs it), so its state
			// changed and the agent looks at it first; a purchase needs the operator.
			if d := r.Meta.Diag; !r.IsError || d == nil || d.Code != "PAYEE_MISMATCH" || d.Retry != "no" ||
				(tc.tool == "mindvault_buy" && d.Needs != "operator") || !strings.Contains(r.Content[0].Text, agent.Address) && tc.tool == "mindvault_buy" {
				t.Fatalf("another payee: %s", tail(r.raw, 500))
			}
			if e.sb.PaidRequests("*") != 0 || e.sb.Count(sandbox.ServiceRPC, "simulateTransaction") != 0 {
				t.Fatalf("something was signed or sent: %d paid requests, %d simulations", e.sb.PaidRequests("*"), e.sb.Count(sandbox.ServiceRPC, "simulateTransaction"))
			}
		})
	}
}

// TestReceiptsNameThePayee: a purchase's result and its journal receipt (in
// mindvault_purchase_history) show the full payee address and the publisher's name.
func TestReceiptsNameThePayee(t *testing.T) {
	e := newEnv(t, nil)
	demo, _ := e.sb.Account("demo")
	var out struct {
		Payee     string `json:"payee"`
		PayeeName string `json:"payeeName"`
	}
	r := e.call("mindvault_buy", `{"resourceId":"llmprompts"}`)
	if r.IsError || json.Unmarshal(r.Structured, &out) != nil || out.Payee != demo.Address || out.PayeeName != "Demo Publisher" {
		t.Fatalf("the purchase's result names %+v, want %s (Demo Publisher): %s", out, demo.Address, tail(r.raw, 400))
	}
	var hist struct {
		Purchases []struct {
			Source    string `json:"source"`
			Payee     string `json:"payee"`
			PayeeName string `json:"payeeName"`
		} `json:"purchases"`
	}
	h := e.call("mindvault_purchase_history", `{}`)
	if h.IsError || json.Unmarshal(h.Structured, &hist) != nil {
		t.Fatalf("purchase history: %s", tail(h.raw, 400))
	}
	for _, p := range hist.Purchases {
		if p.Source == "journal" {
			if p.Payee != demo.Address || p.PayeeName != "Demo Publisher" {
				t.Fatalf("the journal's receipt names %s (%s), want %s (Demo Publisher)", p.Payee, p.PayeeName, demo.Address)
			}
			return
		}
	}
	t.Fatalf("no journal receipt: %s", tail(h.raw, 600))
}
