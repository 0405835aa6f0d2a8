package x402

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/stellar/go-stellar-sdk/keypair"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/clients/transport"
)

// Client performs paid requests; its Signer also asks the chain about signed payments.
type Client struct {
	Svc *transport.Service // source x402, timeout MINDVAULT_PAYMENT_TIMEOUT_MS
	*Signer
}

// Service is the paid requests' service; callers use it to report an answer they cannot use.
func (c *Client) Service() *transport.Service { return c.Svc }

// Outcome is a completed paid (or free) request.
type Outcome struct {
	Response    *transport.Response
	Paid        bool // the paid request was sent and answered
	Amount      *big.Int
	Requirement *Requirement
	Settlement  *Settlement // the decoded PAYMENT-RESPONSE, if any
	Confirmed   bool        // Settlement proves this payment settled (Settlement.Confirms)
	ExpiresAt   time.Time
}

// Offer is the first answer to a request that may be paid: Free (Response is the answer) or
// the payment it asks for, checked against the policy, with nothing signed. The caller
// approves Quote, then Sign and Send pay it once.
type Offer struct {
	Response *transport.Response // when Free; not the payment, so its failures are not started
	Quote    Quote               // what the payment would pay (zero when Free)
	req      transport.Request
	required *Required
	chosen   *Requirement
	amount   *big.Int
	intent   *Intent
}

// Free reports an answer that asked for no payment.
func (o *Offer) Free() bool { return o.chosen == nil }

// Offer sends req unpaid: a non-402 is Free; a 402's requirement is selected and checked
// against policy, every refusal before anything is signed.
func (c *Client) Offer(ctx context.Context, req transport.Request, policy Policy) (*Offer, error) {
	req.Read = false
	first, err := c.Svc.Do(ctx, req)
	if err != nil {
		// A preparatory step, not the payment: nothing was paid, so the default state "no" is right.
		return nil, errmap.MarkNotStarted(err)
	}
	first.Write = false
	if first.Status != http.StatusPaymentRequired {
		return &Offer{Response: first}, nil
	}
	pr, err := ParseRequired(first.Header, first.Body)
	if err != nil {
		return nil, err
	}
	r, amount, err := Select(pr, policy)
	if err != nil {
		return nil, err
	}
	return &Offer{Quote: Quote{Amount: new(big.Int).Set(amount), Asset: r.Asset, PayTo: r.PayTo, Network: r.Network},
		req: req, required: pr, chosen: r, amount: amount, intent: policy.Intent}, nil
}

// Sign signs the offer's payment by kp (call it only once the payment is approved).
func (c *Client) Sign(ctx context.Context, o *Offer, kp *keypair.Full) (*Signed, error) {
	if o.Free() {
		return nil, errors.New("x402: a free answer has no payment to sign")
	}
	return c.Signer.Sign(ctx, kp, o.required, o.chosen, o.amount, o.intent)
}

// Send sends the request with the signed payment exactly once: never retried, never twice.
func (c *Client) Send(ctx context.Context, o *Offer, signed *Signed) (*Outcome, error) {
	if signed.sent {
		return nil, errors.New("x402: this signed payment was sent already")
	}
	signed.sent = true
	paid := o.req
	paid.Header = o.req.Header.Clone()
	if paid.Header == nil {
		paid.Header = http.Header{}
	}
	paid.Header.Set("PAYMENT-SIGNATURE", signed.Header)
	paid.Header.Set("Access-Control-Expose-Headers", "PAYMENT-RESPONSE")
	resp, err := c.Svc.Do(ctx, paid)
	if err != nil {
		return nil, ambiguous(err, signed.ExpiresAt)
	}
	out := &Outcome{Response: resp, Paid: true, Amount: o.amount, Requirement: o.chosen, ExpiresAt: signed.ExpiresAt}
	out.Settlement, _ = DecodeSettlement(resp.Header)
	out.Confirmed = out.Settlement.Confirms(o.chosen.Network, signed.Payer)
	if resp.OK() {
		return out, nil
	}
	expires, failed := signed.ExpiresAt.UTC().Format(time.RFC3339), c.Svc.StatusError(resp)
	switch {
	case out.Confirmed:
		// A proof of settlement decides, whatever status came with it: paid, not delivered.
		hash := out.Settlement.Transaction
		return nil, errmap.With(failed, func(f *errmap.Facts) {
			f.ExecutionStarted, f.StateChanged, f.TxHash = true, errmap.StateYes, hash
			f.Detail = fmt.Sprintf("the payment settled in transaction %s, but the seller answered HTTP %d instead of delivering", hash, resp.Status)
		})
	case resp.Status == http.StatusPaymentRequired:
		// Not settled by this answer, but the signed authorization stays valid until it
		// expires. The paywall answers {} with the facilitator's reason in a header.
		why, stage := refusalReason(resp, out.Settlement)
		if why == "settle_exact_stellar_transaction_failed" && txHashRE.MatchString(out.Settlement.Transaction) {
			// Submitted but not seen to succeed in time: it may still land; its hash says where.
			hash := strings.ToLower(out.Settlement.Transaction)
			return nil, errmap.With(failed, func(f *errmap.Facts) {
				*f = reasonFacts(*f, why)
				f.Detail = fmt.Sprintf("the facilitator submitted the payment in transaction %s but did not see it succeed (%s); do not pay again before %s", hash, why, expires)
				f.ExecutionStarted, f.StateChanged, f.TxHash, f.PaymentExpiresAt = true, errmap.StateUnknown, hash, expires
			})
		}
		proven := ""
		if why != "" && !strings.Contains(why, "settle") {
			proven = why // a verification reason, not one of the settle step, after which the chain decides
		}
		return nil, SentRefused{Verify: proven, error: errmap.With(failed, func(f *errmap.Facts) {
			said := cmp.Or(f.UpstreamDetail, errmap.ReadBody(f.Body).Message)
			f.Code = errmap.CodePaymentRejected
			if why != "" { // a code token (refusalReason), so reasonFacts sets the code and its meaning
				*f = reasonFacts(*f, why)
				said = "refused " + stage + ": " + f.UpstreamDetail
			}
			// What the seller said, when it said something, tells more than this sentence.
			f.UpstreamDetail = said
			f.Detail = "the seller refused the payment, so this answer settled nothing; the signed authorization stays valid until " + expires
			if said != "" {
				// Bounded by MaxDetail: the expiry must survive, so the sentence stays short.
				f.Detail = said + "; nothing settled, the signed authorization stays valid until " + expires
			}
			f.ExecutionStarted, f.StateChanged, f.PaymentExpiresAt = true, errmap.StateNo, expires
		})}
	case transport.MayHaveActed(failed, http.StatusRequestTimeout, http.StatusTooManyRequests):
		// The server may have settled before failing or redirecting (a redirect is never
		// followed with the payment attached: that would be a second payment attempt).
		return nil, ambiguous(failed, signed.ExpiresAt)
	}
	return nil, failed
}

// refusalReason is the facilitator's reason for refusing a sent payment and its stage:
// PAYMENT-RESPONSE.errorReason (at settlement), else PAYMENT-REQUIRED.error (at verification).
func refusalReason(resp *transport.Response, st *Settlement) (why, stage string) {
	if st != nil && IsReasonToken(strings.TrimSpace(st.ErrorReason)) {
		return strings.TrimSpace(st.ErrorReason), "at settlement"
	}
	if pr, err := ParseRequired(resp.Header, resp.Body); err == nil && IsReasonToken(strings.TrimSpace(pr.Error)) {
		return strings.TrimSpace(pr.Error), "at verification"
	}
	return "", ""
}

// SentRefused is a sent payment the seller refused with a 402. Verify is the reason of a
// refusal at verification, which proves nothing settled; without it the chain decides.
type SentRefused struct {
	error
	Verify string
}

// Refusal is the SentRefused in err's chain, if any.
func Refusal(err error) (SentRefused, bool) {
	var s SentRefused
	ok := errors.As(err, &s)
	return s, ok
}

func (e SentRefused) Unwrap() error { return e.error }

// ambiguous marks a failure after the payment may have left: unknown until it expires. A
// paid request that provably never left (the transport leaves ExecutionStarted false) changed nothing.
func ambiguous(err error, expires time.Time) error {
	f, ok := errmap.FactsOf(err)
	if !ok || (f.Transport != errmap.TransportNone && !f.ExecutionStarted) {
		return err
	}
	return errmap.MarkPaymentPending(err, expires.UTC().Format(time.RFC3339))
}

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
