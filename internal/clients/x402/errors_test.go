package x402

import (
	"fmt"
	"testing"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/clients/soroban"
)

// TestTokenErrors: the USDC token's numbers during a payment simulation.
func TestTokenErrors(t *testing.T) {
	cases := []struct {
		n      int
		code   string
		cat    errmap.Category
		name   string
		detail string
	}{
		{10, errmap.CodeInsufficientUSDC, errmap.CategoryPayment, "BalanceError", "insufficient USDC balance (USDC token error #10 BalanceError)"},
		{13, errmap.CodeTrustlineMissing, errmap.CategoryPayment, "TrustlineMissing", "USDC trustline missing (USDC token error #13 TrustlineMissing)"},
		{6, errmap.CodeAccountMissing, errmap.CategoryNotFound, "AccountMissing", "Stellar account not found (USDC token error #6 AccountMissing)"},
		{11, errmap.CodePaymentRejected, errmap.CategoryPayment, "BalanceDeauthorized", "payment rejected (USDC token error #11 BalanceDeauthorized)"},
		{77, errmap.CodePaymentRejected, errmap.CategoryPayment, "Unknown", "payment rejected (USDC token error #77 Unknown)"},
	}
	for _, c := range cases {
		t.Run(fmt.Sprint(c.n), func(t *testing.T) {
			err := soroban.SimulationFailure(fmt.Sprintf("HostError: Error(Contract, #%d)", c.n), errmap.SourceX402, TokenErrors)
			d := errmap.FromError(err, errmap.Call{Operation: "Buy failed"}).Diagnostic
			if d.Code != c.code || d.Category != string(c.cat) || d.Detail != c.detail || d.Source != "x402" {
				t.Errorf("%s/%s %q", d.Code, d.Category, d.Detail)
			}
			if d.Upstream["contractError"] != c.n || d.Upstream["contractErrorName"] != c.name {
				t.Errorf("upstream %v", d.Upstream)
			}
		})
	}
}

// TestReasons: a settlement's reason refines the 402 after paying.
func TestReasons(t *testing.T) {
	const apiKey = "mv_4f9a1c2e8b7d6a5f4e3d2c1b0a9f8e7d"
	cases := []struct {
		reason, code, detail string
		upstream             any
	}{
		{"insufficient_funds", errmap.CodeInsufficientUSDC, "insufficient USDC balance (insufficient_funds)", "insufficient_funds"},
		{"payment_required", errmap.CodePaymentRequired, "payment required (payment_required)", "payment_required"},
		{"invalid_exact_stellar_payload_simulation_failed", errmap.CodePaymentRejected, "payment rejected (invalid_exact_stellar_payload_simulation_failed)", "invalid_exact_stellar_payload_simulation_failed"},
		{"settle_exact_stellar_transaction_failed", errmap.CodePaymentRejected, "payment rejected (settle_exact_stellar_transaction_failed)", "settle_exact_stellar_transaction_failed"},
		{"invalid_network", errmap.CodePaymentRejected, "payment rejected (invalid_network)", "invalid_network"},
		{"Not A Token <script>", errmap.CodePaymentRequired, "payment required", nil},
		{apiKey, errmap.CodePaymentRequired, "payment required", nil},
	}
	for _, c := range cases {
		t.Run(c.reason, func(t *testing.T) {
			f := reasonFacts(errmap.Facts{Source: errmap.SourceX402, Operation: "Buy failed [402]", Status: 402, Body: []byte(`{}`), ExecutionStarted: true}, c.reason)
			got := errmap.Map(f)
			d := got.Diagnostic
			if d.Code != c.code || d.Category != string(errmap.CategoryPayment) || d.Detail != c.detail {
				t.Errorf("%s/%s %q", d.Code, d.Category, d.Detail)
			}
			if d.Upstream["x402Reason"] != c.upstream {
				t.Errorf("upstream %v", d.Upstream)
			}
		})
	}
}
