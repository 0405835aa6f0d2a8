package x402

import (
	"cmp"
	"context"
	"crypto/sha256"
	"fmt"
	"math/big"
	"slices"
	"sync"
	"time"

	"github.com/stellar/go-stellar-sdk/keypair"
	"github.com/stellar/go-stellar-sdk/network"
	rpc "github.com/stellar/go-stellar-sdk/protocols/rpc"
	"github.com/stellar/go-stellar-sdk/strkey"
	"github.com/stellar/go-stellar-sdk/txnbuild"
	"github.com/stellar/go-stellar-sdk/xdr"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/clients/soroban"
	"github.com/mindvault/mcp-endpoint/internal/clients/stellarrpc"
)

// LedgerSeconds turns maxTimeoutSeconds into the expiration ledger, as x402 clients do; erring
// short keeps it inside the facilitator's own estimate, which refuses entries that live too long.
const LedgerSeconds = 6

// An agent told "do not pay again before T" pays again at T, so the expiry must never be
// early: it counts twice the nominal ledger time per remaining ledger, plus a margin for
// clock skew, from the later of the ledger's close time and the moment it was read.
const (
	SlowLedgerSeconds = 10
	ExpiryMargin      = 60 * time.Second
)

// ExpiresAt is when a payment signed against ledger `signed` (closed at closeTime, 0 when
// unknown; read at readAt) with expiration ledger `expiration` can no longer settle, erring
// late and rounded up to a whole second.
func ExpiresAt(closeTime int64, readAt time.Time, signed, expiration uint32) time.Time {
	base := readAt
	if ct := time.Unix(closeTime, 0); closeTime > 0 && ct.After(base) {
		base = ct
	}
	ledgers := int64(0)
	if expiration > signed {
		ledgers = int64(expiration - signed)
	}
	t := base.Add(time.Duration(ledgers)*SlowLedgerSeconds*time.Second + ExpiryMargin)
	if r := t.Truncate(time.Second); r.Before(t) {
		t = r.Add(time.Second)
	}
	return t
}

// Signer builds and signs Stellar exact payments.
type Signer struct {
	RPC        *stellarrpc.Client
	Passphrase string
	// Now is the clock a latest ledger's close time is checked against; nil is time.Now.
	Now func() time.Time
	// Witness, when set, is Horizon's latest ledger: an RPC node far from it would have the
	// payment expire that much later, so a disagreement refuses the payment.
	Witness func(ctx context.Context) (int64, error)
}

// MaxLedgerDrift is how far, in ledgers (about five minutes), the two sources may disagree.
const MaxLedgerDrift = 60

// Signed is a payment ready to send, with what the chain needs to be asked about it later.
type Signed struct {
	Header    string    // PAYMENT-SIGNATURE value
	ExpiresAt time.Time // after this the signed auth entry can no longer settle
	Payer     string
	PayTo     string
	Asset     string
	Amount    *big.Int
	Nonce     int64
	// SignedLedger is the latest ledger when signed; ExpirationLedger the last it can settle in.
	SignedLedger, ExpirationLedger uint32
	Envelope                       string // the signed transfer (base64 XDR), for the chain's verdict
	sent                           bool   // a signed payment leaves once
}

// Sign simulates `transfer(payer, payTo, amount)` from the all-zero source for the payer's
// auth entry, signs it (with the intent's nonce, when there is one), re-simulates and wraps
// the envelope in a v2 payload. A consumed intent nonce is DUPLICATE_PAYMENT before anything
// is sent (the signed entry is worthless then, whoever holds it).
func (s *Signer) Sign(ctx context.Context, kp *keypair.Full, pr *Required, r *Requirement, amount *big.Int, intent *Intent) (*Signed, error) {
	from, _ := soroban.Account(kp.Address()) // a key pair's own address is valid
	to, err := soroban.AddressOf(r.PayTo)
	if err != nil {
		return nil, refuse(errmap.CodeUnsupportedRequirement, "the payee is not a Stellar account or contract address")
	}
	amt, err := soroban.I128(amount)
	if err != nil { // Select bounds it within i128; a signed amount is never a guess
		return nil, refuse(errmap.CodeUnsupportedRequirement, "the amount does not fit in i128")
	}
	call := soroban.Call{Contract: r.Asset, Function: "transfer", Args: []xdr.ScVal{from, to, amt}}

	var (
		witness int64
		wErr    error
		wg      sync.WaitGroup
	)
	if s.Witness != nil {
		wg.Go(func() { witness, wErr = s.Witness(ctx) })
	}
	latest, err := s.RPC.GetLatestLedger(ctx)
	wg.Wait()
	if err = cmp.Or(err, wErr); err != nil {
		return nil, err
	}
	readAt := time.Now()
	if s.Now != nil {
		readAt = s.Now()
	}
	if err := saneLedger(latest.LedgerCloseTime, readAt); err != nil {
		return nil, err
	}
	if s.Witness != nil && (int64(latest.Sequence) > witness+MaxLedgerDrift || int64(latest.Sequence) < witness-MaxLedgerDrift) {
		return nil, soroban.Malformed(errmap.SourceRPC, fmt.Sprintf("Stellar RPC's latest ledger %d is far from Horizon's %d, so no payment expiry can be computed from it; nothing was signed", latest.Sequence, witness))
	}
	// Select bounds MaxTimeoutSeconds, so the ledger count is small and cannot wrap.
	expiration := latest.Sequence + uint32((r.MaxTimeoutSeconds+LedgerSeconds-1)/LedgerSeconds)

	draft, err := soroban.Build(soroban.ZeroAccount, 0, call, nil, nil, txnbuild.MinBaseFee)
	if err != nil {
		return nil, refuse(errmap.CodeUnsupportedRequirement, "the asset is not a contract id")
	}
	sim, err := soroban.Simulate(ctx, s.RPC, draft, errmap.SourceX402, TokenErrors)
	if err != nil {
		return nil, err
	}
	entries, err := soroban.AuthEntries(sim)
	if err != nil || len(entries) != 1 {
		return nil, soroban.Malformed(errmap.SourceX402, "the transfer simulation did not return exactly one auth entry")
	}
	entry := entries[0]
	if err := checkEntry(entry, kp.Address(), call); err != nil {
		return nil, err
	}
	if intent != nil {
		entry.Credentials.Address.Nonce = xdr.Int64(intent.Nonce())
	}
	if err := signEntry(&entry, kp, s.Passphrase, expiration); err != nil {
		return nil, err
	}
	withAuth, err := soroban.Build(soroban.ZeroAccount, 0, call, []xdr.SorobanAuthorizationEntry{entry}, nil, txnbuild.MinBaseFee)
	if err != nil {
		return nil, err
	}
	sim2, err := soroban.Simulate(ctx, s.RPC, withAuth, errmap.SourceX402, TokenErrors)
	if err != nil {
		if soroban.NonceUsed(err) {
			return nil, Duplicate()
		}
		return nil, err
	}
	data, err := soroban.Resources(sim2, errmap.SourceX402, "the transfer")
	if err != nil {
		return nil, err
	}
	// txnbuild adds the resource fee in data to the base fee itself: the total is 100 + resource fee.
	final, err := soroban.Build(soroban.ZeroAccount, 0, call, []xdr.SorobanAuthorizationEntry{entry}, data, txnbuild.MinBaseFee)
	if err != nil {
		return nil, err
	}
	env, err := final.Base64()
	if err != nil {
		return nil, fmt.Errorf("encode payment: %w", err)
	}
	p := &Payload{X402Version: 2, Resource: pr.Resource, Accepted: r.Raw, Extensions: pr.Extensions}
	p.Payload.Transaction = env
	header, err := p.Encode()
	if err != nil {
		return nil, err
	}
	expires := ExpiresAt(latest.LedgerCloseTime, readAt, latest.Sequence, expiration)
	return &Signed{Header: header, ExpiresAt: expires, Payer: kp.Address(), PayTo: r.PayTo, Asset: r.Asset, Amount: new(big.Int).Set(amount),
		Nonce: int64(entry.Credentials.Address.Nonce), SignedLedger: latest.Sequence, ExpirationLedger: expiration, Envelope: env}, nil
}

// Bounds on the latest ledger's close time against the clock: a ledger far ahead would make
// the payment live longer; one far behind is not the network this call pays on.
const (
	maxLedgerAhead  = time.Minute
	maxLedgerBehind = 5 * time.Minute
)

// saneLedger refuses a latest ledger whose close time is unknown or not now.
func saneLedger(closeTime int64, now time.Time) error {
	bad := func(what string) error {
		return soroban.Malformed(errmap.SourceRPC, "the latest ledger "+what+", so no payment expiry can be computed from it; nothing was signed")
	}
	if closeTime <= 0 {
		return bad("has no close time")
	}
	ct := time.Unix(closeTime, 0)
	switch {
	case ct.After(now.Add(maxLedgerAhead)):
		return bad("closes in the future (" + ct.UTC().Format(time.RFC3339) + ")")
	case ct.Before(now.Add(-maxLedgerBehind)):
		return bad("closed long ago (" + ct.UTC().Format(time.RFC3339) + ")")
	}
	return nil
}

// Duplicate is the refusal of a payment whose intent already settled: its nonce is consumed.
func Duplicate() *errmap.Error {
	e := refuse(errmap.CodeDuplicatePayment, "a payment for the same intent already settled (its authorization nonce is used); nothing was sent")
	e.Facts.StateChanged = errmap.StateNo
	return e
}

// checkEntry accepts only a legacy address-credential entry for the payer whose root
// invocation is exactly the transfer on the asset contract, with no sub-invocations.
func checkEntry(e xdr.SorobanAuthorizationEntry, payer string, call soroban.Call) error {
	bad := func(what string) error { return soroban.Malformed(errmap.SourceX402, "the simulated auth entry "+what) }
	if e.Credentials.Type != xdr.SorobanCredentialsTypeSorobanCredentialsAddress || e.Credentials.Address == nil {
		return bad("does not use address credentials")
	}
	if who, err := e.Credentials.Address.Address.String(); err != nil || who != payer {
		return bad("is not for the payer")
	}
	inv := e.RootInvocation
	if len(inv.SubInvocations) != 0 || inv.Function.ContractFn == nil {
		return bad("is not a plain contract call")
	}
	fn := inv.Function.ContractFn
	if cid, err := fn.ContractAddress.String(); err != nil || cid != call.Contract {
		return bad("authorises a call on another contract than the payment's asset")
	}
	if string(fn.FunctionName) != call.Function || len(fn.Args) != len(call.Args) {
		return bad("does not authorise the transfer")
	}
	if !slices.EqualFunc(fn.Args, call.Args, xdr.ScVal.Equals) {
		return bad("authorises different transfer arguments")
	}
	return nil
}

// signEntry signs the entry's SorobanAuthorization preimage as Vec[Map{public_key, signature}].
func signEntry(e *xdr.SorobanAuthorizationEntry, kp *keypair.Full, passphrase string, expiration uint32) error {
	creds := e.Credentials.Address
	creds.SignatureExpirationLedger = xdr.Uint32(expiration)
	preimage := xdr.HashIdPreimage{
		Type: xdr.EnvelopeTypeEnvelopeTypeSorobanAuthorization,
		SorobanAuthorization: &xdr.HashIdPreimageSorobanAuthorization{
			NetworkId:                 network.ID(passphrase),
			Nonce:                     creds.Nonce,
			SignatureExpirationLedger: creds.SignatureExpirationLedger,
			Invocation:                e.RootInvocation,
		},
	}
	b, err := preimage.MarshalBinary()
	if err != nil {
		return fmt.Errorf("auth preimage: %w", err)
	}
	digest := sha256.Sum256(b)
	sig, err := kp.Sign(digest[:])
	if err != nil {
		return fmt.Errorf("sign auth entry: %w", err)
	}
	raw, _ := strkey.Decode(strkey.VersionByteAccountID, kp.Address()) // a key pair's own address
	creds.Signature = soroban.Vec(soroban.SymMap(map[string]xdr.ScVal{
		"public_key": soroban.Bytes(raw),
		"signature":  soroban.Bytes(sig),
	}))
	return nil
}

// Verdict is what the chain says of a signed payment whose answer did not prove it.
type Verdict int

// The chain's verdicts.
const (
	// Consumed: the payment's nonce is used, so the payment settled.
	Consumed Verdict = iota + 1
	// Open: the nonce is not used and the signature can still settle: nothing is known yet.
	Open
	// Expired: the signature can no longer settle; whether it did is not in the nonce any more.
	Expired
)

// Chain asks the network about a signed payment: Expired past its expiration ledger, else an
// enforcing simulation says Consumed (Error(Auth, ExistingValue)) or Open (the authorization passed).
func (s *Signer) Chain(ctx context.Context, envelope string, expiration uint32) (Verdict, error) {
	latest, err := s.RPC.GetLatestLedger(ctx)
	if err != nil {
		return 0, err
	}
	if latest.Sequence > expiration {
		return Expired, nil
	}
	var env xdr.TransactionEnvelope
	if err := xdr.SafeUnmarshalBase64(envelope, &env); err != nil {
		return 0, fmt.Errorf("the journaled payment does not decode: %w", err)
	}
	_, err = soroban.SimulateEnvelope(ctx, s.RPC, envelope, errmap.SourceX402, TokenErrors)
	switch {
	case err == nil:
		return Open, nil
	case soroban.NonceUsed(err):
		return Consumed, nil
	case soroban.ContractError(err) != 0:
		return Open, nil // the token's own error: the authorization, nonce included, passed first
	}
	return 0, err
}

// Settled returns the hashes of the asset's transfers of exactly amount from payer to payee in
// the ledgers a signed payment could settle (signed through expiration): the settlement the
// nonce entry no longer shows once the signature expired. An error: the node cannot say.
func (s *Signer) Settled(ctx context.Context, asset, payer, payee string, amount int64, signed, expiration uint32) ([]string, error) {
	from, err := soroban.Account(payer)
	if err != nil {
		return nil, err
	}
	to, err := soroban.AddressOf(payee)
	if err != nil {
		return nil, err
	}
	seg := func(v xdr.ScVal) rpc.SegmentFilter { return rpc.SegmentFilter{ScVal: &v} }
	wild := "*"
	req := rpc.GetEventsRequest{StartLedger: signed, EndLedger: expiration + 1,
		Filters: []rpc.EventFilter{{EventType: rpc.EventTypeSet{rpc.EventTypeContract: nil}, ContractIDs: []string{asset},
			Topics: []rpc.TopicFilter{{seg(soroban.Sym("transfer")), seg(from), seg(to), {Wildcard: &wild}}}}},
		Pagination: &rpc.PaginationOptions{Limit: 1000}}
	resp, err := s.RPC.GetEvents(ctx, req)
	if err != nil {
		return nil, err
	}
	want, err := soroban.I128(big.NewInt(amount))
	if err != nil {
		return nil, err
	}
	var hashes []string
	for _, ev := range resp.Events {
		var v xdr.ScVal
		if xdr.SafeUnmarshalBase64(ev.ValueXDR, &v) == nil && v.Equals(want) {
			hashes = append(hashes, ev.TransactionHash)
		}
	}
	return hashes, nil
}
