// Package soroban builds and simulates Soroban contract invocations with go-stellar-sdk (txnbuild,
// xdr) over Stellar RPC, and holds the module's one ScVal codec, exact in both directions. The
// sandbox's contract models read and answer with the same codec, so it is pinned by golden tests
// against XDR bytes written from the protocol's definitions (scval_test.go), not against its own
// output.
package soroban

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"math/big"
	"slices"
	"strconv"
	"strings"

	rpc "github.com/stellar/go-stellar-sdk/protocols/rpc"
	"github.com/stellar/go-stellar-sdk/strkey"
	"github.com/stellar/go-stellar-sdk/txnbuild"
	"github.com/stellar/go-stellar-sdk/xdr"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/clients/stellarrpc"
	"github.com/mindvault/mcp-endpoint/internal/redact/lazyre"
)

// scVal is the ScVal of one arm of the union. Every caller passes the arm's own Go type,
// so an error here is a bug in this file, never a bad input.
func scVal(arm xdr.ScValType, value any) xdr.ScVal {
	v, err := xdr.NewScVal(arm, value)
	if err != nil {
		panic("soroban: " + err.Error())
	}
	return v
}

// Str is a Soroban String.
func Str(s string) xdr.ScVal { return scVal(xdr.ScValTypeScvString, xdr.ScString(s)) }

// Sym is a Soroban Symbol.
func Sym(s string) xdr.ScVal { return scVal(xdr.ScValTypeScvSymbol, xdr.ScSymbol(s)) }

// U32 is a Soroban u32.
func U32(n uint32) xdr.ScVal { return scVal(xdr.ScValTypeScvU32, xdr.Uint32(n)) }

// U64 is a Soroban u64.
func U64(n uint64) xdr.ScVal { return scVal(xdr.ScValTypeScvU64, xdr.Uint64(n)) }

// Bool is a Soroban bool.
func Bool(b bool) xdr.ScVal { return scVal(xdr.ScValTypeScvBool, b) }

// Bytes is a Soroban Bytes.
func Bytes(b []byte) xdr.ScVal { return scVal(xdr.ScValTypeScvBytes, xdr.ScBytes(b)) }

// Void is the Soroban unit value, what a write returns.
func Void() xdr.ScVal { return scVal(xdr.ScValTypeScvVoid, nil) }

// Vec is a Soroban Vec of items.
func Vec(items ...xdr.ScVal) xdr.ScVal {
	vec := xdr.ScVec(items)
	return scVal(xdr.ScValTypeScvVec, &vec)
}

// StrVec is a Soroban Vec<String>.
func StrVec(ss []string) xdr.ScVal {
	items := make([]xdr.ScVal, len(ss))
	for i, s := range ss {
		items[i] = Str(s)
	}
	return Vec(items...)
}

// SymMap is a Soroban Map with Symbol keys, in the order the host keeps a map's keys (byte
// order), which is how a contract's struct is encoded.
func SymMap(fields map[string]xdr.ScVal) xdr.ScVal {
	m := make(xdr.ScMap, 0, len(fields))
	for _, k := range slices.Sorted(maps.Keys(fields)) {
		m = append(m, xdr.ScMapEntry{Key: Sym(k), Val: fields[k]})
	}
	return scVal(xdr.ScValTypeScvMap, &m)
}

// Account is a Soroban Address of a G-account.
func Account(g string) (xdr.ScVal, error) {
	aid, err := xdr.AddressToAccountId(g)
	if err != nil {
		return xdr.ScVal{}, fmt.Errorf("invalid account %q", g)
	}
	return AddressVal(xdr.ScAddress{Type: xdr.ScAddressTypeScAddressTypeAccount, AccountId: &aid}), nil
}

// AddressOf is a Soroban Address of a G-account or a C-contract strkey.
func AddressOf(id string) (xdr.ScVal, error) {
	if !strings.HasPrefix(id, "C") {
		return Account(id)
	}
	a, err := contractAddress(id)
	if err != nil {
		return xdr.ScVal{}, fmt.Errorf("invalid contract %q", id)
	}
	return AddressVal(a), nil
}

func contractAddress(id string) (xdr.ScAddress, error) {
	raw, err := strkey.Decode(strkey.VersionByteContract, id)
	var cid xdr.ContractId
	copy(cid[:], raw)
	return xdr.ScAddress{Type: xdr.ScAddressTypeScAddressTypeContract, ContractId: &cid}, err
}

// AddressVal is the ScVal of an Address.
func AddressVal(a xdr.ScAddress) xdr.ScVal { return scVal(xdr.ScValTypeScvAddress, a) }

var two64 = new(big.Int).Lsh(big.NewInt(1), 64)

// I128 is a Soroban i128 from a big integer (which must fit).
func I128(n *big.Int) (xdr.ScVal, error) {
	lo := new(big.Int).Mod(n, two64) // two's complement low word
	hi := new(big.Int).Rsh(n, 64)    // arithmetic shift keeps the sign
	if !hi.IsInt64() {
		return xdr.ScVal{}, fmt.Errorf("value does not fit in i128")
	}
	return scVal(xdr.ScValTypeScvI128, xdr.Int128Parts{Hi: xdr.Int64(hi.Int64()), Lo: xdr.Uint64(lo.Uint64())}), nil
}

// BigFromI128 decodes an i128 exactly.
func BigFromI128(p xdr.Int128Parts) *big.Int {
	n := new(big.Int).Lsh(big.NewInt(int64(p.Hi)), 64)
	return n.Add(n, new(big.Int).SetUint64(uint64(p.Lo)))
}

var amountRe = lazyre.New(`^(\d+)(?:\.(\d{1,7}))?$`)

// Units converts a USDC decimal string ("1.5") to 7-decimal units (15000000), exactly.
func Units(decimal string) (*big.Int, error) {
	m := amountRe.FindStringSubmatch(decimal)
	if m == nil {
		return nil, fmt.Errorf("not a USDC amount with at most 7 decimals")
	}
	n, _ := new(big.Int).SetString(m[1]+m[2]+strings.Repeat("0", 7-len(m[2])), 10)
	return n, nil
}

// Decimal formats 7-decimal units as an exact decimal string with 7 places ("1.5000000").
// Digits, not big.Rat: every price shown goes through it, and a Rat costs a GCD and its allocations.
func Decimal(units *big.Int) string {
	s := new(big.Int).Abs(units).String()
	s = strings.Repeat("0", max(0, 8-len(s))) + s // at least one digit before the point
	if units.Sign() < 0 {
		s = "-" + s
	}
	return s[:len(s)-7] + "." + s[len(s)-7:]
}

// Text reads a String or Symbol.
func Text(v xdr.ScVal) (string, bool) {
	if s, ok := v.GetStr(); ok {
		return string(s), true
	}
	sym, ok := v.GetSym()
	return string(sym), ok
}

// Address reads an Address as its strkey.
func Address(v xdr.ScVal) (string, bool) {
	if v.Type != xdr.ScValTypeScvAddress || v.Address == nil {
		return "", false
	}
	s, err := v.Address.String()
	return s, err == nil
}

// Fields reads a Map with String or Symbol keys (a contract's struct), calling set for each entry
// in order (a key that is not text is skipped); it reports whether v is a Map.
func Fields(v xdr.ScVal, set func(key string, val xdr.ScVal)) bool {
	if v.Type != xdr.ScValTypeScvMap || v.Map == nil || *v.Map == nil {
		return false
	}
	for _, e := range **v.Map {
		if k, ok := Text(e.Key); ok {
			set(k, e.Val)
		}
	}
	return true
}

// VecOf reads a Vec; an empty one may come as a nil vector, read as no items.
func VecOf(v xdr.ScVal) (xdr.ScVec, bool) {
	if v.Type != xdr.ScValTypeScvVec || v.Vec == nil {
		return nil, false
	}
	if *v.Vec == nil {
		return nil, true
	}
	return **v.Vec, true
}

// Uint reads an unsigned integer of any width.
func Uint(v xdr.ScVal) (uint64, bool) {
	if n, ok := v.GetU32(); ok {
		return uint64(n), true
	}
	if n, ok := v.GetU64(); ok {
		return uint64(n), true
	}
	t, ok := v.GetTimepoint()
	return uint64(t), ok
}

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
	addr, err := contractAddress(c.Contract)
	if err != nil {
		return nil, fmt.Errorf("invalid contract id")
	}
	op := &txnbuild.InvokeHostFunction{
		HostFunction: xdr.HostFunction{
			Type: xdr.HostFunctionTypeHostFunctionTypeInvokeContract,
			InvokeContract: &xdr.InvokeContractArgs{
				ContractAddress: addr,
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

// ContractErrors classifies Error(Contract, #N) of the contract a simulation calls: the
// failure code, the number's name in that contract's table, and the detail to show. Each
// contract's table lives with its client (the vault registry's in package registry, the USDC
// token's in package x402).
type ContractErrors func(n int) (code, name, detail string)

// Facts records Error(Contract, #n) in f: its code, number and name, and its detail unless f
// has one.
func (errs ContractErrors) Facts(f errmap.Facts, n int) errmap.Facts {
	code, name, detail := errs(n)
	f.Code, f.UpstreamDetail = code, cmp.Or(f.UpstreamDetail, detail)
	f.Upstream.ContractError, f.Upstream.ContractErrorName = n, name
	return f
}

// Simulate runs simulateTransaction; a simulation failure and archived state become *errmap.Error
// classified by SimulationFailure. A simulation submits nothing, so its failures leave
// ExecutionStarted false.
func Simulate(ctx context.Context, c *stellarrpc.Client, tx *txnbuild.Transaction, source errmap.Source, errs ContractErrors) (*rpc.SimulateTransactionResponse, error) {
	env, err := tx.Base64()
	if err != nil {
		return nil, fmt.Errorf("encode transaction: %w", err)
	}
	return SimulateEnvelope(ctx, c, env, source, errs)
}

// SimulateEnvelope is Simulate of a transaction already encoded (base64 XDR), such as one the
// payment journal kept.
func SimulateEnvelope(ctx context.Context, c *stellarrpc.Client, env string, source errmap.Source, errs ContractErrors) (*rpc.SimulateTransactionResponse, error) {
	var sim rpc.SimulateTransactionResponse
	if err := c.Call(ctx, "simulateTransaction", rpc.SimulateTransactionRequest{Transaction: env}, &sim); err != nil {
		return nil, err
	}
	if sim.Error != "" {
		return nil, SimulationFailure(sim.Error, source, errs)
	}
	if sim.RestorePreamble != nil {
		return nil, errmap.Wrap(errors.New("state archived"), errmap.Facts{
			Source: source, Code: errmap.CodeStateArchived,
			Detail: "the contract state this call needs is archived and must be restored (RestoreFootprint) first",
		})
	}
	return &sim, nil
}

// SimulationError is the cause of a simulation failure. Message is the simulation's raw error
// string, kept for tests and debugging only: it carries event logs with the call's arguments,
// so it never reaches a result or a log line (Error says only that the simulation failed).
type SimulationError struct {
	Message string
}

func (e *SimulationError) Error() string { return "simulation failed" }

// SimulationFailure classifies a simulation's error string by its value-free parts only: the first
// Error(Contract, #N) through errs, else CONTRACT_MISSING, STATE_ARCHIVED, or HOST_ERROR named by
// its first non-contract Error(Type, Code) pair.
func SimulationFailure(msg string, source errmap.Source, errs ContractErrors) *errmap.Error {
	if len(msg) > errmap.MaxBodyBytes {
		msg = msg[:errmap.MaxBodyBytes]
	}
	f := errmap.Facts{Source: source}
	n := 0
	if m := contractNumRE.FindStringSubmatch(msg); m != nil {
		n, _ = strconv.Atoi(m[1]) // at most 9 digits: always an int
	}
	switch {
	case n > 0 && errs != nil:
		f = errs.Facts(f, n)
	case hostPair(msg, "Storage", "MissingValue"): // a missing contract instance
		f.Code, f.UpstreamDetail = errmap.CodeContractMissing, "contract instance missing (Error(Storage, MissingValue))"
	case strings.Contains(strings.ToLower(msg), "restorepreamble") || strings.Contains(strings.ToLower(msg), "archived"):
		f.Code, f.UpstreamDetail = errmap.CodeStateArchived, errmap.Phrase(errmap.CodeStateArchived)
	default:
		f.Code = errmap.CodeHostError
		for _, m := range hostPairRE.FindAllStringSubmatch(msg, 8) {
			if m[1] != "Contract" { // the first non-contract Error(Type, Code): a host error's value-free part
				f.UpstreamDetail = "Error(" + m[1] + ", " + m[2] + ")"
				break
			}
		}
	}
	return errmap.Wrap(&SimulationError{Message: msg}, f)
}

var (
	contractNumRE = lazyre.New(`Error\(\s*Contract\s*,\s*#(\d{1,9})\s*\)`)
	hostPairRE    = lazyre.New(`Error\(\s*([A-Za-z]{1,32})\s*,\s*([A-Za-z]{1,48})\s*\)`)
)

// hostPair reports an "Error(typ, code)" pair in a simulation error string.
func hostPair(s, typ, code string) bool {
	return slices.ContainsFunc(hostPairRE.FindAllStringSubmatch(s, 8), func(m []string) bool { return m[1] == typ && m[2] == code })
}

// ContractError returns the contract error number carried by err, or 0.
func ContractError(err error) int {
	f, _ := errmap.FactsOf(err)
	return f.Upstream.ContractError
}

// Malformed is an answer from the contract that does not have the promised shape (of a
// simulation, so ExecutionStarted stays false; a caller past submission sets it).
func Malformed(source errmap.Source, what string) *errmap.Error {
	return errmap.Wrap(fmt.Errorf("%s: %s", source, what), errmap.Facts{
		Source: source, Code: errmap.CodeMalformedResponse, Category: errmap.CategoryServer,
		Detail: "unexpected contract answer: " + what,
	})
}

// ReturnValue decodes the first result's return value.
func ReturnValue(sim *rpc.SimulateTransactionResponse) (xdr.ScVal, bool) {
	var v xdr.ScVal
	if len(sim.Results) == 0 || sim.Results[0].ReturnValueXDR == nil {
		return v, false
	}
	return v, xdr.SafeUnmarshalBase64(*sim.Results[0].ReturnValueXDR, &v) == nil
}

// Resources decodes a successful simulation's transaction data: the footprint and resource
// fee the transaction must carry to be sent. A simulation without it is MALFORMED_RESPONSE
// from source, naming call.
func Resources(sim *rpc.SimulateTransactionResponse, source errmap.Source, call string) (*xdr.SorobanTransactionData, error) {
	var data xdr.SorobanTransactionData
	if err := xdr.SafeUnmarshalBase64(sim.TransactionDataXDR, &data); err != nil {
		return nil, Malformed(source, call+" simulation returned no transaction data")
	}
	return &data, nil
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

// NonceUsed reports a simulation refused with Error(Auth, ExistingValue): an authorization
// entry's nonce is already consumed on chain, so the payment it signs has settled before.
func NonceUsed(err error) bool {
	var se *SimulationError
	return errors.As(err, &se) && hostPair(se.Message, "Auth", "ExistingValue")
}
