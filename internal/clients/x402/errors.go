package x402

import (
	"cmp"
	"strconv"
	"strings"

	"github.com/mindvault/mcp-endpoint/errmap"
)

// tokenErrors is the Stellar Asset Contract's error table (the USDC token).
var tokenErrors = map[int]string{
	1: "InternalError", 2: "OperationNotSupported", 3: "AlreadyInitialized", 4: "Unauthorized",
	5: "Authentication", 6: "AccountMissing", 7: "AccountIsNotClassic", 8: "NegativeAmount",
	9: "Allowance", 10: "BalanceError", 11: "BalanceDeauthorized", 12: "Overflow", 13: "TrustlineMissing",
}

// TokenErrors is the USDC token's soroban.ContractErrors.
func TokenErrors(n int) (code, name, detail string) {
	name = cmp.Or(tokenErrors[n], "Unknown")
	code = cmp.Or(map[int]string{10: errmap.CodeInsufficientUSDC, 13: errmap.CodeTrustlineMissing, 6: errmap.CodeAccountMissing}[n], errmap.CodePaymentRejected)
	return code, name, errmap.Phrase(code) + " (USDC token error #" + strconv.Itoa(n) + " " + name + ")"
}

// reason is the code a facilitator reason maps to and what it means for the payer.
type reason struct{ code, meaning string }

// reasons is the facilitator's vocabulary (@x402/core 2.9, @x402/stellar exact).
var reasons = map[string]reason{
	"insufficient_funds": {errmap.CodeInsufficientUSDC, "the wallet holds less USDC than the price"},
	"payment_required":   {errmap.CodePaymentRequired, "the seller still asks for a payment"},
	"invalid_exact_stellar_payload_simulation_failed": {errmap.CodePaymentSimFailed,
		"the facilitator's simulation of the transfer failed (too little USDC, no trustline, or a used or expired authorization)"},
	"payment_expired": {errmap.CodeTxExpired, "the signed payment expired before the facilitator checked it"},
	"invalid_exact_stellar_signature_expiration_too_far": {errmap.CodeUnsupportedRequirement,
		"the payment's authorization stays valid longer than the facilitator accepts"},
	"invalid_exact_stellar_payload_missing_payer_signature": {errmap.CodePaymentRejected,
		"the facilitator found no valid payer signature on the authorization"},
	"invalid_exact_stellar_payload_unexpected_pending_signatures": {errmap.CodePaymentRejected,
		"the facilitator found an authorization left unsigned"},
	"settle_exact_stellar_transaction_submission_failed": {errmap.CodeSettlementFailed,
		"the facilitator's submission of the transaction was refused by the network"},
	"settle_exact_stellar_transaction_signing_failed": {errmap.CodeSettlementFailed, "the facilitator could not sign the transaction"},
	"settle_exact_stellar_fee_bump_signing_failed":    {errmap.CodeSettlementFailed, "the facilitator could not sign the fee bump"},
	"settle_exact_stellar_signer_selection_failed":    {errmap.CodeSettlementFailed, "the facilitator had no signer free"},
	"unexpected_settle_error":                         {errmap.CodeSettlementFailed, "the facilitator failed while settling"},
	"settle_exact_stellar_transaction_failed":         {errmap.CodePaymentRejected, "the submitted transaction failed or was not confirmed in time"},
	"unexpected_verify_error":                         {errmap.CodeServerError, "the facilitator failed while verifying the payment"},
	"before_verify_hook_error":                        {errmap.CodeServerError, "the seller's verification hook failed"},
	"before_settle_hook_error":                        {errmap.CodeServerError, "the seller's settlement hook failed"},
	"duplicate_settlement":                            {errmap.CodePaymentRejected, "the facilitator has already settled this payment"},
}

// formReasons say the facilitator does not accept the payment's form: only configuration changes that.
var formReasons = []string{
	"unsupported_scheme", "invalid_scheme", "network_mismatch", "invalid_network", "invalid_x402_version",
	"invalid_payment_requirements", "invalid_payload", "invalid_exact_stellar_payload_",
}

// reasonOf is the code and meaning of a reason: the table, the form reasons, else a refusal.
func reasonOf(r string) reason {
	if k, ok := reasons[r]; ok {
		return k
	}
	for _, p := range formReasons {
		if r == p || (strings.HasSuffix(p, "_") && strings.HasPrefix(r, p)) {
			return reason{errmap.CodeUnsupportedRequirement, "the facilitator does not accept this payment's form"}
		}
	}
	if strings.HasPrefix(r, "settle_") {
		return reason{errmap.CodeSettlementFailed, "the facilitator could not settle the payment"}
	}
	return reason{errmap.CodePaymentRejected, "the facilitator refused the payment"}
}

// reasonFacts records a facilitator's reason; one that is not a code token, or looks like a
// secret, refines nothing.
func reasonFacts(f errmap.Facts, r string) errmap.Facts {
	r = strings.TrimSpace(r)
	if !IsReasonToken(r) {
		return f
	}
	k := reasonOf(r)
	f.Code = k.code
	f.Upstream.X402Reason = r
	f.UpstreamDetail = k.meaning + " (" + r + ")"
	return f
}

// IsReasonToken reports a value that can be a facilitator's reason: one lower-snake code token
// that is not secret-like. "Payment required", the paywall's text for a first 402, is not one.
func IsReasonToken(r string) bool {
	return len(errmap.CodeTokens([]string{r})) == 1 && errmap.NewRedactor(nil).Redact(r) == r && strings.ToLower(r) == r
}
