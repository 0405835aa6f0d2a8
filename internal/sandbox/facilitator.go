package sandbox

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"math/big"
	"net/http"
	"reflect"
	"strings"

	"github.com/stellar/go-stellar-sdk/network"
	"github.com/stellar/go-stellar-sdk/xdr"

	"github.com/mindvault/mcp-endpoint/internal/clients/x402"
)

// The paywall (x402 v2, Stellar exact scheme) and the in-process facilitator that verifies
// and settles payments against the token model (docs/sandbox.md "The x402 paywall").

const (
	x402Network       = "stellar:testnet" // the sandbox poses as testnet
	x402TimeoutSecs   = 300               // maxTimeoutSeconds offered
	x402LedgerSeconds = ledgerSeconds     // the facilitator's ledger-time estimate
)

// x402 reason codes the facilitator answers (the exact-scheme verification reasons).
const (
	reasonInvalidPayload       = "invalid_payload"
	reasonInvalidVersion       = "invalid_x402_version"
	reasonUnsupportedScheme    = "unsupported_scheme"
	reasonNetworkMismatch      = "network_mismatch"
	reasonInvalidNetwork       = "invalid_network"
	reasonInvalidRequirements  = "invalid_payment_requirements"
	reasonInsufficientFunds    = "insufficient_funds"
	reasonMalformed            = "invalid_exact_stellar_payload_malformed"
	reasonWrongOperation       = "invalid_exact_stellar_payload_wrong_operation"
	reasonUnsafeSource         = "invalid_exact_stellar_payload_unsafe_tx_or_op_source"
	reasonWrongAsset           = "invalid_exact_stellar_payload_wrong_asset"
	reasonWrongFunction        = "invalid_exact_stellar_payload_wrong_function_name"
	reasonFacilitatorIsPayer   = "invalid_exact_stellar_payload_facilitator_is_payer"
	reasonWrongRecipient       = "invalid_exact_stellar_payload_wrong_recipient"
	reasonWrongAmount          = "invalid_exact_stellar_payload_wrong_amount"
	reasonSimulationFailed     = "invalid_exact_stellar_payload_simulation_failed"
	reasonFeeBelowMinimum      = "invalid_exact_stellar_payload_fee_below_minimum"
	reasonNoAuthEntries        = "invalid_exact_stellar_payload_no_auth_entries"
	reasonCredentialType       = "invalid_exact_stellar_payload_unsupported_credential_type"
	reasonFacilitatorInAuth    = "invalid_exact_stellar_payload_facilitator_in_auth"
	reasonSubinvocations       = "invalid_exact_stellar_payload_has_subinvocations"
	reasonMissingSignature     = "invalid_exact_stellar_payload_missing_payer_signature"
	reasonPendingSignatures    = "invalid_exact_stellar_payload_unexpected_pending_signatures"
	reasonExpirationTooFar     = "invalid_exact_stellar_signature_expiration_too_far"
	reasonSubmissionFailed     = "settle_exact_stellar_transaction_submission_failed"
	reasonTransactionFailed    = "settle_exact_stellar_transaction_failed"
	reasonUnexpectedSettleFail = "unexpected_settle_error"
)

// The x402 documents are the product's wire types (clients/x402), as the ScVals are its
// codec's: x402.Requirement, Required, Payload and Settlement, pinned there by golden tests.

// paymentResource is the resource a PAYMENT-REQUIRED describes; the paying side only echoes
// it, so it has no type of its own there.
type paymentResource struct {
	URL         string `json:"url"`
	Description string `json:"description"`
	MimeType    string `json:"mimeType"`
}

// offer is what one paid request asks for.
type offer struct {
	resource paymentResource
	req      x402.Requirement
}

// newOffer asks units of USDC (7-decimal) paid to payTo, fees sponsored.
func (s *Sandbox) newOffer(path, description, mimeType string, units int64, payTo string) offer {
	return offer{
		resource: paymentResource{URL: s.APIURL + path, Description: description, MimeType: mimeType},
		req: x402.Requirement{Scheme: "exact", Network: x402Network, Amount: big.NewInt(units).String(),
			Asset: s.USDCContractID, PayTo: payTo, MaxTimeoutSeconds: x402TimeoutSecs,
			Extra: map[string]any{"areFeesSponsored": true}},
	}
}

func (o offer) requirementJSON() []byte {
	b, _ := json.Marshal(o.req)
	return b
}

func (o offer) header(errText string) string {
	resource, _ := json.Marshal(o.resource)
	b, _ := json.Marshal(x402.Required{X402Version: 2, Error: errText, Resource: resource, Accepts: []json.RawMessage{o.requirementJSON()}})
	return base64.StdEncoding.EncodeToString(b)
}

// rejection is a failed verification or settlement: an x402 reason code and a message.
// settling marks a failure after verification passed, which the real paywall reports in
// PAYMENT-RESPONSE (errorReason, with the transaction's hash once one was submitted); a
// failed verification it reports in PAYMENT-REQUIRED.error alone.
type rejection struct {
	reason, message string
	settling        bool
	tx              string
}

// payment is a verified PAYMENT-SIGNATURE.
type payment struct {
	payer  string
	env    xdr.TransactionEnvelope
	amount int64
}

// paymentSignature returns the request's PAYMENT-SIGNATURE; without one it answers the 402
// that asks for o and returns false.
func (s *Sandbox) paymentSignature(w http.ResponseWriter, r *http.Request, o offer) (string, bool) {
	if h := strings.TrimSpace(r.Header.Get("PAYMENT-SIGNATURE")); h != "" {
		return h, true
	}
	write402(w, o, "Payment required", nil)
	return "", false
}

// write402 is the paywall's 402 as @x402/express answers it: body {} and either
// PAYMENT-REQUIRED (whose error is "Payment required", or the facilitator's reason when a
// payment failed verification) or, when a verified payment failed to settle, PAYMENT-RESPONSE
// {success: false, errorReason} alone.
func write402(w http.ResponseWriter, o offer, errText string, failed *x402.Settlement) {
	h := w.Header()
	if failed != nil {
		h.Set("PAYMENT-RESPONSE", x402.EncodeSettlement(*failed))
		h.Set("Access-Control-Expose-Headers", "PAYMENT-RESPONSE")
	} else {
		h.Set("PAYMENT-REQUIRED", o.header(errText))
	}
	h.Set("Cache-Control", "no-store")
	writeJSONRaw(w, http.StatusPaymentRequired, `{}`)
}

// FacilitatorMessageHeader carries the sandbox facilitator's own words for a refusal (a host
// error, a sendTransaction status), for the sandbox's tests and a person reading the
// answer; the real paywall sends no such header and the product never reads it.
const FacilitatorMessageHeader = "X-Sandbox-Facilitator-Message"

func (s *Sandbox) refuse(w http.ResponseWriter, o offer, payer string, rej *rejection) {
	w.Header().Set(FacilitatorMessageHeader, strings.Join(strings.Fields(rej.message), " "))
	if !rej.settling {
		write402(w, o, rej.reason, nil)
		return
	}
	write402(w, o, "", &x402.Settlement{Success: false, ErrorReason: rej.reason, ErrorMessage: rej.message,
		Transaction: rej.tx, Network: x402Network, Payer: payer})
}

// checkPayment verifies a payment without settling it; on failure it answers the 402.
func (s *Sandbox) checkPayment(w http.ResponseWriter, o offer, header string) bool {
	unlock := s.lockChain()
	p, rej := s.verifyLocked(header, o.requirementJSON(), s.LatestLedger())
	unlock()
	if rej != nil {
		payer := ""
		if p != nil {
			payer = p.payer
		}
		s.refuse(w, o, payer, rej)
		return false
	}
	return true
}

// settlePayment verifies and settles a payment; on failure it answers the 402. On success
// it sets PAYMENT-RESPONSE and returns the settlement.
func (s *Sandbox) settlePayment(w http.ResponseWriter, o offer, header string) (*x402.Settlement, bool) {
	st, payer, rej := s.settle(header, o.requirementJSON())
	if rej != nil {
		s.refuse(w, o, payer, rej)
		return nil, false
	}
	w.Header().Set("PAYMENT-RESPONSE", x402.EncodeSettlement(*st))
	w.Header().Set("Access-Control-Expose-Headers", "PAYMENT-RESPONSE")
	return st, true
}

// Verify runs the sandbox facilitator's verification of a PAYMENT-SIGNATURE header value
// against one PaymentRequirements object (the JSON of an accepts[] entry) on the current
// state, without settling anything. It returns the x402 reason code of the first failed
// rule, or ok. The rules, in order: x402Version 2; accepted scheme "exact" and the
// requirement's network; accepted deep-equal to the requirement; a v1 envelope with one
// InvokeContract operation; neither the transaction nor the operation sourced by the
// facilitator; contract = asset, function "transfer" with 3 arguments; from not the
// facilitator, to = payTo, amount = the required amount exactly; auth entries: at least one,
// only address credentials, none for the facilitator, no sub-invocations, the payer's entry
// signed and no other entry left unsigned; the payer's signature expiration at most latest
// + ceil(maxTimeoutSeconds/5) + 2; then the transfer re-simulated as the facilitator would
// submit it, which checks the ed25519 signature over the recomputed preimage with the key
// in the signature map (it must be the payer's), the expiration (not before the latest
// ledger), that the nonce was never consumed, and the balances: any failure, a balance too
// low (Error(Contract, #10)) included, is invalid_exact_stellar_payload_simulation_failed;
// last, the fee at least the simulated minimum resource fee (and 100). There is no fee cap.
func (s *Sandbox) Verify(payloadHeader string, requirementJSON []byte) (reason string, ok bool) {
	defer s.lockChain()()
	if _, rej := s.verifyLocked(payloadHeader, requirementJSON, s.LatestLedger()); rej != nil {
		return rej.reason, false
	}
	return "", true
}

// jsonEqual compares two JSON documents by value.
func jsonEqual(a, b []byte) bool {
	decode := func(raw []byte) (any, bool) {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		var v any
		return v, dec.Decode(&v) == nil
	}
	va, ok1 := decode(a)
	vb, ok2 := decode(b)
	return ok1 && ok2 && reflect.DeepEqual(va, vb)
}

// verifyLocked applies the facilitator's rules (see Verify). The returned payment carries the
// payer as soon as it is known, also with a rejection. The caller holds mu.
func (s *Sandbox) verifyLocked(header string, reqJSON []byte, latest uint32) (*payment, *rejection) {
	w := s.world
	fac := w.pay.facilitator.Address
	bad := func(reason, msg string) *rejection { return &rejection{reason: reason, message: msg} }
	var req x402.Requirement
	if err := json.Unmarshal(reqJSON, &req); err != nil {
		return nil, bad(reasonInvalidRequirements, "the payment requirements are not a JSON object")
	}
	pl, err := x402.DecodePayload(header)
	if err != nil {
		return nil, bad(reasonInvalidPayload, "PAYMENT-SIGNATURE is not base64 of a JSON payment payload")
	}
	if pl.X402Version != 2 {
		return nil, bad(reasonInvalidVersion, "only x402Version 2 is supported for the Stellar exact scheme")
	}
	var acc x402.Requirement
	if err := json.Unmarshal(pl.Accepted, &acc); err != nil {
		return nil, bad(reasonInvalidPayload, "accepted is not a payment requirements object")
	}
	switch {
	case acc.Scheme != "exact" || req.Scheme != "exact":
		return nil, bad(reasonUnsupportedScheme, "only the exact scheme is supported")
	case acc.Network != req.Network:
		return nil, bad(reasonNetworkMismatch, "accepted.network differs from the requirement's")
	case req.Network != x402Network:
		return nil, bad(reasonInvalidNetwork, "the sandbox facilitator settles on "+x402Network+" only")
	case !jsonEqual(pl.Accepted, reqJSON):
		return nil, bad(reasonInvalidRequirements, "accepted does not match the payment requirements offered")
	}
	var env xdr.TransactionEnvelope
	if err := xdr.SafeUnmarshalBase64(pl.Payload.Transaction, &env); err != nil {
		return nil, bad(reasonMalformed, "payload.transaction is not a base64 TransactionEnvelope")
	}
	if env.Type != xdr.EnvelopeTypeEnvelopeTypeTx || env.V1 == nil {
		return nil, bad(reasonMalformed, "payload.transaction is not a v1 transaction envelope")
	}
	inv, why := decodeInvocation(env)
	if why != "" {
		return nil, bad(reasonWrongOperation, why)
	}
	if env.SourceAccount().ToAccountId().Address() == fac || inv.source == fac {
		return nil, bad(reasonUnsafeSource, "the transaction or operation source is the facilitator")
	}
	if cid, err := inv.args.ContractAddress.String(); err != nil || cid != req.Asset {
		return nil, bad(reasonWrongAsset, "the invoked contract is not the required asset")
	}
	if string(inv.args.FunctionName) != "transfer" || len(inv.args.Args) != 3 {
		return nil, bad(reasonWrongFunction, "the operation is not transfer(from, to, amount)")
	}
	from, e1 := argAddress(inv.args.Args[0])
	to, e2 := argAddress(inv.args.Args[1])
	amount, e3 := argI128(inv.args.Args[2])
	if e1 != nil || e2 != nil || e3 != nil {
		return nil, bad(reasonMalformed, "the transfer arguments are not (Address, Address, i128)")
	}
	p := &payment{payer: from, env: env}
	want, ok := new(big.Int).SetString(req.Amount, 10)
	switch {
	case from == fac:
		return p, bad(reasonFacilitatorIsPayer, "the facilitator cannot be the payer")
	case to != req.PayTo:
		return p, bad(reasonWrongRecipient, "the transfer does not pay payTo")
	case !ok || amount.Cmp(want) != 0:
		return p, bad(reasonWrongAmount, "the transfer amount differs from the required amount")
	}
	p.amount = amount.Int64()

	auth := inv.op.Auth
	if len(auth) == 0 {
		return p, bad(reasonNoAuthEntries, "the operation carries no auth entries")
	}
	var payerEntry *xdr.SorobanAuthorizationEntry
	for i := range auth {
		a := &auth[i]
		cr := a.Credentials.Address
		if a.Credentials.Type != xdr.SorobanCredentialsTypeSorobanCredentialsAddress || cr == nil {
			return p, bad(reasonCredentialType, "only SorobanCredentialsAddress auth entries are accepted")
		}
		who, _ := cr.Address.String()
		switch {
		case who == fac:
			return p, bad(reasonFacilitatorInAuth, "an auth entry is for the facilitator")
		case len(a.RootInvocation.SubInvocations) > 0:
			return p, bad(reasonSubinvocations, "an auth entry has sub-invocations")
		case who == from && payerEntry == nil:
			payerEntry = a
		case cr.Signature.Type == xdr.ScValTypeScvVoid:
			return p, bad(reasonPendingSignatures, "an auth entry other than the payer's is unsigned")
		}
	}
	if payerEntry == nil || payerEntry.Credentials.Address.Signature.Type == xdr.ScValTypeScvVoid {
		return p, bad(reasonMissingSignature, "the payer's auth entry is missing or unsigned")
	}
	maxLedger := latest + uint32((req.MaxTimeoutSeconds+x402LedgerSeconds-1)/x402LedgerSeconds)
	if uint32(payerEntry.Credentials.Address.SignatureExpirationLedger) > maxLedger+2 {
		return p, bad(reasonExpirationTooFar, "the signature expires too far in the future")
	}

	// Re-simulate as the facilitator will submit it: its own source, the same operation.
	sim := *inv
	sim.source = fac
	c := sim.call(s.closeTime(latest))
	var nonces []nonceKey
	_, _, _, herr := w.tokenInvoke(c, func(addr string) *hostError {
		nu, e := w.authorize(&sim, addr, latest)
		if nu != nil {
			nonces = append(nonces, nu.nonceKey)
		}
		return e
	})
	if herr != nil {
		msg := "simulation failed: HostError: " + herr.String() + " (" + scText(herr.data) + ")"
		// The real @x402/stellar facilitator does not read the host error: a balance too
		// low (Error(Contract, #10)) is simulation_failed like any other failure.
		return p, bad(reasonSimulationFailed, msg)
	}
	ro, rw := w.tokenFootprint(c, nonces)
	minFee := int64(tokenData(ro, rw, len(nonces)).ResourceFee)
	if fee := int64(env.V1.Tx.Fee); fee < max(minFee, baseFee) {
		return p, bad(reasonFeeBelowMinimum, "the transaction fee is below the minimum resource fee")
	}
	return p, nil
}

// settle re-verifies a payment and submits it as the facilitator: the client's operation and
// auth entries and sorobanData in a transaction sourced, sequenced and signed by the
// facilitator account (which pays the fee), admitted with sendTransaction's checks (the
// facilitator's next sequence number; TRY_AGAIN_LATER while a transaction from its account
// is queued) and applied at once in the current ledger, so getTransaction knows it as
// SUCCESS. Verification, admission and application happen under one hold of the chain lock:
// no other settlement, simulation or submission runs between the nonce check and the
// nonce's consumption, so of concurrent settlements of one authorization exactly one
// applies and the others find the nonce's entry.
func (s *Sandbox) settle(header string, reqJSON []byte) (*x402.Settlement, string, *rejection) {
	defer s.lockChain()()
	w := s.world
	latest := s.LatestLedger()
	p, rej := s.verifyLocked(header, reqJSON, latest)
	payer := ""
	if p != nil {
		payer = p.payer
	}
	if rej != nil {
		return nil, payer, rej
	}
	var req x402.Requirement
	_ = json.Unmarshal(reqJSON, &req)
	fac := w.pay.facilitator
	if w.queued(fac.Address) { // as sendTransaction answers while the account has one queued
		return nil, payer, &rejection{reason: reasonSubmissionFailed, message: "sendTransaction: TRY_AGAIN_LATER (another transaction from the facilitator account is pending)", settling: true}
	}
	tx := p.env.V1.Tx
	op := tx.Operations[0]
	op.SourceAccount = nil
	tx.Operations = []xdr.Operation{op}
	tx.SourceAccount = xdr.MustMuxedAddress(fac.Address)
	tx.SeqNum = xdr.SequenceNumber(fac.seq + 1)
	tx.Memo = xdr.Memo{Type: xdr.MemoTypeMemoNone}
	tx.Cond = xdr.Preconditions{Type: xdr.PreconditionTypePrecondTime, TimeBounds: &xdr.TimeBounds{
		MinTime: 0, MaxTime: xdr.TimePoint(s.closeTime(latest) + int64(req.MaxTimeoutSeconds))}}
	if tx.Ext.SorobanData != nil {
		tx.Fee = max(tx.Fee, xdr.Uint32(baseFee+int64(tx.Ext.SorobanData.ResourceFee)))
	}
	env := xdr.TransactionEnvelope{Type: xdr.EnvelopeTypeEnvelopeTypeTx, V1: &xdr.TransactionV1Envelope{Tx: tx}}
	h, err := network.HashTransactionInEnvelope(env, w.passphrase)
	if err != nil {
		return nil, payer, &rejection{reason: reasonUnexpectedSettleFail, message: err.Error(), settling: true}
	}
	sig, err := fac.kp.SignDecorated(h[:])
	if err != nil {
		return nil, payer, &rejection{reason: reasonUnexpectedSettleFail, message: err.Error(), settling: true}
	}
	env.V1.Signatures = []xdr.DecoratedSignature{sig}
	inv, code := w.admit(env, h)
	if code != xdr.TransactionResultCodeTxSuccess {
		return nil, payer, &rejection{reason: reasonSubmissionFailed, message: "sendTransaction: ERROR " + resultName(code), settling: true}
	}
	hash := hex.EncodeToString(h[:])
	s.apply(&pendingTx{hash: hash, env: env, inv: inv, due: s.now()})
	if t := w.txs[hash]; t == nil || !t.success {
		return nil, payer, &rejection{reason: reasonTransactionFailed, message: "the settlement transaction " + hash + " failed", settling: true, tx: hash}
	}
	return &x402.Settlement{Success: true, Transaction: hash, Network: x402Network, Payer: payer}, payer, nil
}

// resultName spells a transaction result code as the JS SDK does ("txBadAuth").
func resultName(c xdr.TransactionResultCode) string {
	n := strings.TrimPrefix(c.String(), "TransactionResultCode")
	if n == "" {
		return c.String()
	}
	return strings.ToLower(n[:1]) + n[1:]
}
