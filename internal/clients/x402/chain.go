package x402

import (
	"context"
	"fmt"
	"math/big"

	rpc "github.com/stellar/go-stellar-sdk/protocols/rpc"
	"github.com/stellar/go-stellar-sdk/txnbuild"
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

// Chain asks the network about a signed payment: past its expiration ledger it is Expired;
// otherwise an enforcing simulation of the signed transfer says Consumed (Error(Auth,
// ExistingValue)) or Open (the authorization passed, whatever the transfer would do next).
// Any other failure is returned: the chain did not answer.
func (s *Signer) Chain(ctx context.Context, envelope string, expiration uint32) (Verdict, error) {
	latest, err := s.RPC.GetLatestLedger(ctx)
	if err != nil {
		return 0, err
	}
	if latest.Sequence > expiration {
		return Expired, nil
	}
	gen, err := txnbuild.TransactionFromXDR(envelope)
	if err != nil {
		return 0, fmt.Errorf("the journaled payment does not decode: %w", err)
	}
	tx, ok := gen.Transaction()
	if !ok {
		return 0, fmt.Errorf("the journaled payment is not a transaction")
	}
	_, err = soroban.Simulate(ctx, s.RPC, tx, errmap.SourceX402, TokenErrors)
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

// Chain asks the network about a signed payment (Signer.Chain).
func (c *Client) Chain(ctx context.Context, envelope string, expiration uint32) (Verdict, error) {
	return c.Signer.Chain(ctx, envelope, expiration)
}

// Settled looks, in the ledgers in which a signed payment could settle (signed through
// expiration), for the asset's transfers of exactly amount from payer to payee: the settlement
// that the nonce entry no longer shows once the signature expired. It returns the hashes of
// the transactions that made one (none: nothing settled); an error when the node cannot say
// (the ledgers are outside its retention, or it failed).
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

// Settled asks the network for a signed payment's settlement (Signer.Settled).
func (c *Client) Settled(ctx context.Context, asset, payer, payee string, amount int64, signed, expiration uint32) ([]string, error) {
	return c.Signer.Settled(ctx, asset, payer, payee, amount, signed, expiration)
}
