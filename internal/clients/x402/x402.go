// Package x402 is the paying side of x402 v2 with the Stellar `exact` scheme: it reads a 402's
// PAYMENT-REQUIRED, picks the requirement the endpoint is configured for, refuses before signing
// when it does not fit (scheme, network, asset, fee sponsorship, the caller's cap, the previewed
// price), signs the payment's USDC `transfer` authorisation and decodes PAYMENT-RESPONSE. A paid
// request is sent at most once; an outcome after that which is not a clear answer is stateChanged
// "unknown" with the signed payment's expiry, after which it can no longer settle.
package x402

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/stellar/go-stellar-sdk/keypair"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/clients/soroban"
	"github.com/mindvault/mcp-endpoint/internal/clients/transport"
	"github.com/mindvault/mcp-endpoint/internal/redact/lazyre"
	"github.com/mindvault/mcp-endpoint/validate"
)

// Requirement is one PaymentRequirements entry; Raw is echoed verbatim as `accepted`
// because servers compare it field by field.
type Requirement struct {
	Scheme            string          `json:"scheme"`
	Network           string          `json:"network"`
	Amount            string          `json:"amount"`
	Asset             string          `json:"asset"`
	PayTo             string          `json:"payTo"`
	MaxTimeoutSeconds int             `json:"maxTimeoutSeconds"`
	Extra             map[string]any  `json:"extra,omitempty"`
	Raw               json.RawMessage `json:"-"`
}

// Required is a decoded PAYMENT-REQUIRED (x402 v2).
type Required struct {
	X402Version int               `json:"x402Version"`
	Error       string            `json:"error,omitempty"`
	Resource    json.RawMessage   `json:"resource,omitempty"`
	Accepts     []json.RawMessage `json:"accepts"`
	Extensions  json.RawMessage   `json:"extensions,omitempty"`
}

// Policy is what the caller accepts to pay.
type Policy struct {
	Network   string   // e.g. stellar:testnet
	Asset     string   // the configured USDC contract
	Cap       *big.Int // most units the caller allows (maxPriceUsdc)
	Previewed *big.Int // the price seen before paying, in units; nil when unknown
	// Intent, when set, gives the auth entry its nonce (Intent.Nonce), so however many calls
	// carry the intent the network settles at most one; nil is a new payment on purpose.
	Intent *Intent
	// PayTo, when set, is the only payee allowed (the listing's): PAYEE_MISMATCH otherwise.
	PayTo string
}

// Intent is what a payment is for: a kind and its parts (e.g. "buy", payer, network, resource id).
type Intent struct {
	Kind  string
	Parts []string
}

// Nonce is the first 8 bytes (big-endian) of SHA-256("mindvault-intent-v1" ‖ 0 ‖ kind ‖ 0 ‖
// part ‖ …); a part holding a NUL byte is replaced by its hash, so the join is unambiguous.
func (i *Intent) Nonce() int64 {
	h := sha256.New()
	h.Write([]byte("mindvault-intent-v1"))
	for _, p := range append([]string{i.Kind}, i.Parts...) {
		if strings.IndexByte(p, 0) >= 0 {
			sum := sha256.Sum256([]byte(p))
			p = hex.EncodeToString(sum[:])
		}
		h.Write([]byte{0})
		h.Write([]byte(p))
	}
	return int64(binary.BigEndian.Uint64(h.Sum(nil)[:8]))
}

// MaxTimeoutSeconds is the longest validity a seller may ask for a signed payment, which can
// settle until it expires (x402 sellers ask for 60 to 300 s).
const MaxTimeoutSeconds = 600

// Quote is what a payment about to be sent pays, from the selected requirement.
type Quote struct {
	Amount  *big.Int
	Asset   string
	PayTo   string
	Network string
}

// refuse is a refusal before anything was signed or sent.
func refuse(code, detail string) *errmap.Error {
	return errmap.Wrap(errors.New(detail), errmap.Facts{
		Source: errmap.SourceX402, Code: code, Detail: detail,
	})
}

// ParseRequired decodes a 402's v2 PAYMENT-REQUIRED header (a v1 body is refused).
func ParseRequired(h http.Header, body []byte) (*Required, error) {
	raw := strings.TrimSpace(h.Get("PAYMENT-REQUIRED"))
	if raw == "" {
		var v1 struct {
			X402Version int `json:"x402Version"`
		}
		if json.Unmarshal(body, &v1) == nil && v1.X402Version == 1 {
			return nil, refuse(errmap.CodeUnsupportedRequirement, "the server offers x402 v1 only, which the Stellar exact scheme does not support")
		}
		return nil, refuse(errmap.CodePaymentRequired, "payment required, but the 402 carries no PAYMENT-REQUIRED header")
	}
	dec, err := base64.StdEncoding.DecodeString(raw)
	if err != nil {
		return nil, refuse(errmap.CodeUnsupportedRequirement, "PAYMENT-REQUIRED is not base64")
	}
	var pr Required
	if err := json.Unmarshal(dec, &pr); err != nil || pr.X402Version != 2 {
		return nil, refuse(errmap.CodeUnsupportedRequirement, "PAYMENT-REQUIRED is not an x402 v2 document")
	}
	return &pr, nil
}

// Select picks the `exact` requirement for the configured network and checks it against the
// policy. Every refusal happens here, before anything is signed.
func Select(pr *Required, p Policy) (*Requirement, *big.Int, error) {
	var candidate *Requirement
	for _, raw := range pr.Accepts {
		var r Requirement
		if json.Unmarshal(raw, &r) != nil {
			continue
		}
		r.Raw = raw
		if r.Scheme == "exact" && r.Network == p.Network {
			candidate = &r
			break
		}
	}
	if candidate == nil {
		return nil, nil, refuse(errmap.CodeUnsupportedRequirement, fmt.Sprintf("no exact-scheme payment option for %s", p.Network))
	}
	if candidate.Asset != p.Asset {
		return nil, nil, refuse(errmap.CodeUnsupportedRequirement, "the payment asks for an asset that is not the configured USDC contract")
	}
	if sponsored, _ := candidate.Extra["areFeesSponsored"].(bool); !sponsored {
		return nil, nil, refuse(errmap.CodeFeesNotSponsored, "the server does not sponsor network fees (areFeesSponsored is not true)")
	}
	if !canonicalUnits.MatchString(candidate.Amount) {
		return nil, nil, refuse(errmap.CodeUnsupportedRequirement, "the payment amount is not a positive integer in canonical form")
	}
	amount, _ := new(big.Int).SetString(candidate.Amount, 10)
	if !accountAddress.MatchString(candidate.PayTo) {
		return nil, nil, refuse(errmap.CodeUnsupportedRequirement, "the payee is not a Stellar account (G…) address")
	}
	if p.Cap != nil && amount.Cmp(p.Cap) > 0 {
		return nil, nil, refuse(errmap.CodePriceAboveCap, fmt.Sprintf("the server asks %s USDC, above the cap of %s USDC", decimal(amount), decimal(p.Cap)))
	}
	if p.Previewed != nil && amount.Cmp(p.Previewed) > 0 {
		return nil, nil, refuse(errmap.CodePriceChanged, fmt.Sprintf("the server asks %s USDC, more than the previewed %s USDC", decimal(amount), decimal(p.Previewed)))
	}
	switch {
	case candidate.MaxTimeoutSeconds <= 0:
		candidate.MaxTimeoutSeconds = 300
	case candidate.MaxTimeoutSeconds > MaxTimeoutSeconds:
		return nil, nil, refuse(errmap.CodeUnsupportedRequirement, fmt.Sprintf("the payment would stay valid for %d s, above the %d s this endpoint signs for", candidate.MaxTimeoutSeconds, MaxTimeoutSeconds))
	}
	if p.PayTo != "" && candidate.PayTo != p.PayTo {
		e := refuse(errmap.CodePayeeMismatch, fmt.Sprintf("the seller asks to pay %s, not %s, the payee its listing names; nothing was signed", candidate.PayTo, p.PayTo))
		e.Facts.StateChanged = errmap.StateNo
		return nil, nil, e
	}
	return candidate, amount, nil
}

var (
	// canonicalUnits: the facilitator compares it with the signed amount digit for digit.
	canonicalUnits = lazyre.New(`^[1-9][0-9]{0,37}$`)
	accountAddress = lazyre.New(`^G[A-Z2-7]{55}$`)
)

// Payload is the PAYMENT-SIGNATURE document.
type Payload struct {
	X402Version int             `json:"x402Version"`
	Resource    json.RawMessage `json:"resource,omitempty"`
	Accepted    json.RawMessage `json:"accepted"`
	Payload     struct {
		Transaction string `json:"transaction"`
	} `json:"payload"`
	Extensions json.RawMessage `json:"extensions,omitempty"`
}

// Encode is the PAYMENT-SIGNATURE header value: standard base64 of the JSON.
func (p *Payload) Encode() (string, error) {
	b, err := json.Marshal(p)
	if err != nil {
		return "", err
	}
	return base64.StdEncoding.EncodeToString(b), nil
}

// DecodePayload reads a PAYMENT-SIGNATURE header value.
func DecodePayload(v string) (*Payload, error) {
	b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(v))
	if err != nil {
		return nil, err
	}
	var p Payload
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, err
	}
	return &p, nil
}

// Settlement is a decoded PAYMENT-RESPONSE.
type Settlement struct {
	Success      bool   `json:"success"`
	Transaction  string `json:"transaction"`
	Network      string `json:"network"`
	Payer        string `json:"payer"`
	ErrorReason  string `json:"errorReason,omitempty"`
	ErrorMessage string `json:"errorMessage,omitempty"`
}

// maxSettlementHeader bounds the PAYMENT-RESPONSE value looked at; a real one is ~300 bytes.
const maxSettlementHeader = 4096

// DecodeSettlement reads PAYMENT-RESPONSE (or X-PAYMENT-RESPONSE) strictly, because it lets
// a result claim that money moved: one header, bounded base64 of one JSON object without
// duplicate keys or trailing data, typed fields, and a success names a 64-hex hash (returned
// in lower case) and no errorReason.
func DecodeSettlement(h http.Header) (*Settlement, bool) {
	vs := h.Values("PAYMENT-RESPONSE")
	if len(vs) == 0 {
		vs = h.Values("X-PAYMENT-RESPONSE")
	}
	if len(vs) != 1 {
		return nil, false
	}
	v := strings.TrimSpace(vs[0])
	if v == "" || len(v) > maxSettlementHeader {
		return nil, false
	}
	b, err := base64.StdEncoding.Strict().DecodeString(v)
	var fields map[string]json.RawMessage
	// Duplicate keys are refused: two readers could disagree on which wins.
	if err != nil || json.Unmarshal(b, &fields) != nil || fields == nil || validate.DuplicateKeys(b, "", "") != nil {
		return nil, false
	}

	var s Settlement
	success, ok := fields["success"]
	if !ok || json.Unmarshal(success, &s.Success) != nil || bytes.Equal(success, []byte("null")) {
		return nil, false
	}
	for key, dst := range map[string]*string{
		"transaction": &s.Transaction, "network": &s.Network, "payer": &s.Payer,
		"errorReason": &s.ErrorReason, "errorMessage": &s.ErrorMessage,
	} {
		raw, present := fields[key]
		if !present {
			continue
		}
		if len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, dst) != nil {
			return nil, false
		}
	}
	if s.Success {
		if !txHashRE.MatchString(s.Transaction) || s.ErrorReason != "" {
			return nil, false
		}
		s.Transaction = strings.ToLower(s.Transaction)
	}
	return &s, true
}

var txHashRE = lazyre.New(`^[0-9a-fA-F]{64}$`)

// Confirms reports whether s proves that a payment by payer settled on network: success, a
// transaction hash, the network and the payer (when given) matching.
func (s *Settlement) Confirms(network, payer string) bool {
	return s != nil && s.Success && txHashRE.MatchString(s.Transaction) &&
		s.Network == network && (s.Payer == "" || s.Payer == payer)
}

// EncodeSettlement is the PAYMENT-RESPONSE header value (servers, and the sandbox).
func EncodeSettlement(s Settlement) string {
	b, _ := json.Marshal(s)
	return base64.StdEncoding.EncodeToString(b)
}

// decimal formats 7-decimal units for messages, without trailing zeros.
func decimal(units *big.Int) string {
	return strings.TrimRight(strings.TrimRight(soroban.Decimal(units), "0"), ".")
}

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
		return nil, errmap.With(err, func(f *errmap.Facts) { f.ExecutionStarted = false })
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

// Sign signs the payment of an offer that is not Free by kp (call it only once the payment is
// approved).
func (c *Client) Sign(ctx context.Context, o *Offer, kp *keypair.Full) (*Signed, error) {
	return c.Signer.Sign(ctx, kp, o.required, o.chosen, o.amount, o.intent)
}

// Send sends the request with the signed payment exactly once: never retried, never twice.
func (c *Client) Send(ctx context.Context, o *Offer, signed *Signed) (*Outcome, error) {
	if signed.sent {
		// A bug in the caller, and the first send's outcome is not known here: the payment
		// may have settled, so nothing may pay it again before the signature expires.
		err := errmap.Wrap(errors.New("x402: this signed payment was sent already"), errmap.Facts{Source: errmap.SourceX402,
			Code: errmap.CodeInternalError, Detail: "this signed payment was sent already; it is not sent again"})
		return nil, errmap.MarkPaymentPending(err, signed.ExpiresAt.UTC().Format(time.RFC3339))
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
		if why == "settle_exact_stellar_transaction_failed" && out.Settlement != nil && txHashRE.MatchString(out.Settlement.Transaction) {
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
