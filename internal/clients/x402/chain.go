package x402

import (
	"context"
	"fmt"
	"math/big"

	rpc "github.com/stellar/go-stellar-sdk/protocols/rpc"
	"github.com/stellar/go-stellar-sdk/xdr"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/clients/soroban"
)

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
