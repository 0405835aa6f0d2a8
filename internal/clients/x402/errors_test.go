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
		{"insufficient_funds", errmap.CodeInsufficientUSDC, "the wallet holds less USDC than the price (insufficient_funds)", "insufficient_funds"},
		{"payment_required", errmap.CodePaymentRequired, "the seller still asks for a payment (payment_required)", "payment_required"},
		{"invalid_exact_stellar_payload_simulation_failed", errmap.CodePaymentSimFailed, "the facilitator's simulation of the transfer failed (too little USDC, no trustline, or a used or expired authorization) (invalid_exact_stellar_payload_simulation_failed)", "invalid_exact_stellar_payload_simulation_failed"},
		{"settle_exact_stellar_transaction_submission_failed", errmap.CodeSettlementFailed, "the facilitator's submission of the transaction was refused by the network (settle_exact_stellar_transaction_submission_failed)", "settle_exact_stellar_transaction_submission_failed"},
		{"settle_exact_stellar_transaction_failed", errmap.CodePaymentRejected, "the submitted transaction failed or was not confirmed in time (settle_exact_stellar_transaction_failed)", "settle_exact_stellar_transaction_failed"},
		{"unexpected_settle_error", errmap.CodeSettlementFailed, "the facilitator failed while settling (unexpected_settle_error)", "unexpected_settle_error"},
		{"payment_expired", errmap.CodeTxExpired, "the signed payment expired before the facilitator checked it (payment_expired)", "payment_expired"},
		{"invalid_exact_stellar_payload_missing_payer_signature", errmap.CodePaymentRejected, "the facilitator found no valid payer signature on the authorization (invalid_exact_stellar_payload_missing_payer_signature)", "invalid_exact_stellar_payload_missing_payer_signature"},
		{"invalid_network", errmap.CodeUnsupportedRequirement, "the facilitator does not accept this payment's form (invalid_network)", "invalid_network"},
		{"invalid_exact_stellar_payload_wrong_amount", errmap.CodeUnsupportedRequirement, "the facilitator does not accept this payment's form (invalid_exact_stellar_payload_wrong_amount)", "invalid_exact_stellar_payload_wrong_amount"},
		{"some_new_reason", errmap.CodePaymentRejected, "the facilitator refused the payment (some_new_reason)", "some_new_reason"},
		{"Not A Token <script>", errmap.CodePaymentRequired, "payment required", nil},
		{apiKey, errmap.CodePaymentRequired, "payment required", nil},
	}
	for _, c := range cases {
		t.Run(c.reason, func(t *testing.T) {
			f := reasonFacts(errmap.Facts{Source: errmap.SourceX402, Operation: "Buy failed [402]", Status: 402, Body: []byte(`{}`), ExecutionStarted: true}, c.reason)
			got := errmap.Map(f)
			d := got.Diagnostic
			if d.Code != c.code || d.Category != string(errmap.CodeCategory(c.code)) || d.Detail != c.detail {
				t.Errorf("%s/%s %q", d.Code, d.Category, d.Detail)
			}
			if d.Upstream["x402Reason"] != c.upstream {
				t.Errorf("upstream %v", d.Upstream)
			}
		})
	}
}
