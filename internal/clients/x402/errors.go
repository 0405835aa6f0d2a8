package x402

import (
	"strconv"
	"strings"

	"github.com/mindvault/mcp-endpoint/errmap"
)

// tokenErrors is the Stellar Asset Contract's error table: the USDC token is the only
// contract a payment's simulation calls.
var tokenErrors = map[int]string{
	1: "InternalError", 2: "OperationNotSupported", 3: "AlreadyInitialized", 4: "Unauthorized",
	5: "Authentication", 6: "AccountMissing", 7: "AccountIsNotClassic", 8: "NegativeAmount",
	9: "Allowance", 10: "BalanceError", 11: "BalanceDeauthorized", 12: "Overflow", 13: "TrustlineMissing",
}

// TokenErrors is the USDC token's soroban.ContractErrors: #10 BalanceError is
// INSUFFICIENT_USDC, #13 TrustlineMissing TRUSTLINE_MISSING, #6 AccountMissing
// ACCOUNT_MISSING, any other number PAYMENT_REJECTED.
func TokenErrors(n int) (code, name, detail string) {
	name, ok := tokenErrors[n]
	if !ok {
		name = "Unknown"
	}
	switch n {
	case 10:
		code = errmap.CodeInsufficientUSDC
	case 13:
		code = errmap.CodeTrustlineMissing
	case 6:
		code = errmap.CodeAccountMissing
	default:
		code = errmap.CodePaymentRejected
	}
	return code, name, errmap.Phrase(code) + " (USDC token error #" + strconv.Itoa(n) + " " + name + ")"
}

// ReasonCode refines an x402 errorReason / invalidReason: insufficient_funds is
// INSUFFICIENT_USDC, payment_required PAYMENT_REQUIRED, anything else a rejection.
func ReasonCode(reason string) string {
	switch reason {
	case "insufficient_funds":
		return errmap.CodeInsufficientUSDC
	case "payment_required":
		return errmap.CodePaymentRequired
	}
	return errmap.CodePaymentRejected
}

// reasonFacts records a settlement's reason: its code, the reason in upstream, and
// "<phrase> (<reason>)" as what was seen. A reason that is not a code token, or that looks
// like a secret, is not repeated and refines nothing.
func reasonFacts(f errmap.Facts, reason string) errmap.Facts {
	reason = strings.TrimSpace(reason)
	if len(errmap.CodeTokens([]string{reason})) != 1 || errmap.NewRedactor(nil).Redact(reason) != reason {
		return f
	}
	f.Code = ReasonCode(reason)
	f.Upstream.X402Reason = reason
	f.UpstreamDetail = errmap.Phrase(f.Code) + " (" + reason + ")"
	return f
}
