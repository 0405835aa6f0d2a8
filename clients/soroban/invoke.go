package soroban

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"

	rpc "github.com/stellar/go-stellar-sdk/protocols/rpc"
	"github.com/stellar/go-stellar-sdk/txnbuild"
	"github.com/stellar/go-stellar-sdk/xdr"

	"github.com/mindvault/mcp-endpoint/clients/stellarrpc"
	"github.com/mindvault/mcp-endpoint/errmap"
)

// ZeroAccount is the all-zero account used as a simulation source; nothing is ever
// submitted for it.
const ZeroAccount = "GAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAWHF"

// Call is one contract invocation.
type Call struct {
	Contract string
	Function string
	Args     []xdr.ScVal
}

// Build makes the one-operation transaction invoking c from source at sequence seq+1.
func Build(source string, seq int64, c Call, auth []xdr.SorobanAuthorizationEntry, data *xdr.SorobanTransactionData, fee int64) (*txnbuild.Transaction, error) {
	raw, err := DecodeContract(c.Contract)
	if err != nil {
		return nil, fmt.Errorf("invalid contract id")
	}
	var cid xdr.ContractId
	copy(cid[:], raw)
	op := &txnbuild.InvokeHostFunction{
		HostFunction: xdr.HostFunction{
			Type: xdr.HostFunctionTypeHostFunctionTypeInvokeContract,
			InvokeContract: &xdr.InvokeContractArgs{
				ContractAddress: xdr.ScAddress{Type: xdr.ScAddressTypeScAddressTypeContract, ContractId: &cid},
				FunctionName:    xdr.ScSymbol(c.Function),
				Args:            c.Args,
			},
		},
		Auth:          auth,
		SourceAccount: source,
	}
	if data != nil {
		op.Ext = xdr.TransactionExt{V: 1, SorobanData: data}
	}
	return txnbuild.NewTransaction(txnbuild.TransactionParams{
		SourceAccount:        &txnbuild.SimpleAccount{AccountID: source, Sequence: seq},
		IncrementSequenceNum: true,
		Operations:           []txnbuild.Operation{op},
		BaseFee:              fee,
		Preconditions:        txnbuild.Preconditions{TimeBounds: txnbuild.NewTimeout(300)},
	})
}

// Simulate runs simulateTransaction. A simulation failure (the `error` string) and
// archived state (`restorePreamble`) become *errmap.Error with the given source; the raw
// simulation text stays in HostError, which errmap never lets out. A simulation submits
// nothing, so its failures leave ExecutionStarted false: for a write or a payment it is a
// preparatory step, and the registry marks read-only tools started on any downstream failure.
func Simulate(ctx context.Context, c *stellarrpc.Client, tx *txnbuild.Transaction, source errmap.Source) (*rpc.SimulateTransactionResponse, error) {
	env, err := tx.Base64()
	if err != nil {
		return nil, fmt.Errorf("encode transaction: %w", err)
	}
	var sim rpc.SimulateTransactionResponse
	if err := c.Call(ctx, "simulateTransaction", rpc.SimulateTransactionRequest{Transaction: env}, &sim); err != nil {
		return nil, err
	}
	if sim.Error != "" {
		return nil, SimulationFailure(sim.Error, source)
	}
	if sim.RestorePreamble != nil {
		return nil, &errmap.Error{Err: errors.New("state archived"), Facts: errmap.Facts{
			Source: source, Code: errmap.CodeStateArchived,
			Detail: "the contract state this call needs is archived and must be restored (RestoreFootprint) first",
		}}
	}
	return &sim, nil
}

// SimulationFailure maps a simulation's error string. The registry's contract error number
// is lifted into ContractError; for a token (x402) errmap reads the number from HostError.
func SimulationFailure(msg string, source errmap.Source) *errmap.Error {
	f := errmap.Facts{Source: source, HostError: msg}
	if m := contractErrRe.FindStringSubmatch(msg); m != nil && source == errmap.SourceRegistry {
		f.ContractError, _ = strconv.Atoi(m[1])
	}
	return &errmap.Error{Err: errors.New("simulation failed"), Facts: f}
}

var contractErrRe = regexp.MustCompile(`Error\(Contract, #(\d+)\)`)

// ContractError returns the registry contract error number carried by err, or 0.
func ContractError(err error) int {
	var e *errmap.Error
	if errors.As(err, &e) {
		return e.Facts.ContractError
	}
	return 0
}

// Malformed is an answer from the contract that does not have the promised shape (of a
// simulation, so ExecutionStarted stays false; a caller past submission sets it).
func Malformed(source errmap.Source, what string) *errmap.Error {
	return &errmap.Error{Err: fmt.Errorf("%s: %s", source, what), Facts: errmap.Facts{
		Source: source, Code: errmap.CodeMalformedResponse, Category: errmap.CategoryServer,
		Detail: "unexpected contract answer: " + what,
	}}
}

// ReturnValue decodes the first result's return value.
func ReturnValue(sim *rpc.SimulateTransactionResponse) (xdr.ScVal, bool) {
	var v xdr.ScVal
	if len(sim.Results) == 0 || sim.Results[0].ReturnValueXDR == nil {
		return v, false
	}
	return v, xdr.SafeUnmarshalBase64(*sim.Results[0].ReturnValueXDR, &v) == nil
}

// AuthEntries decodes the first result's authorization entries.
func AuthEntries(sim *rpc.SimulateTransactionResponse) ([]xdr.SorobanAuthorizationEntry, error) {
	var out []xdr.SorobanAuthorizationEntry
	if len(sim.Results) == 0 || sim.Results[0].AuthXDR == nil {
		return out, nil
	}
	for _, a := range *sim.Results[0].AuthXDR {
		var e xdr.SorobanAuthorizationEntry
		if err := xdr.SafeUnmarshalBase64(a, &e); err != nil {
			return nil, errors.New("undecodable auth entry")
		}
		out = append(out, e)
	}
	return out, nil
}
