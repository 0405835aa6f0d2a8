// Package txcheck decides whether a transaction the endpoint did not build may be signed
// by a profile's wallet. A signature of the wallet on an envelope authorises everything in
// it that the wallet is the source of — its fee, its sequence number, every operation, and
// every Soroban authorisation entry with source-account credentials, sub-invocations
// included — so a service that prepares a transaction "to sign" could slip in a USDC
// transfer or a fee of thousands of XLM. Check refuses unless the transaction does exactly
// what the caller asked:
//
//   - network: it was prepared for the configured network passphrase;
//   - envelope: it is a v1 transaction envelope (not v0, not a fee bump);
//   - source: its source account is the signing wallet;
//   - operations: it has exactly one operation, an invokeHostFunction that invokes a contract,
//     with no source account other than the wallet;
//   - contract and function: it calls the one allowed contract and one of the allowed
//     functions, with arguments the policy accepts (for registration: this resource id and
//     the wallet as creator);
//   - auth: every authorisation entry is for exactly that invocation, with no
//     sub-invocations, and its credentials are the source account's or the wallet's address;
//   - fee: the fee is at most the configured cap (MINDVAULT_MAX_TX_FEE_STROOPS);
//   - time bounds: there are time bounds, and they end no later than MaxValidity from now.
//
// The same checks guard any other transaction the endpoint signs but did not build.
package txcheck

import (
	"bytes"
	"fmt"
	"slices"
	"time"

	"github.com/stellar/go-stellar-sdk/xdr"

	"github.com/mindvault/mcp-endpoint/errmap"
)

// The checks, as named in Refusal.Check.
const (
	CheckNetwork    = "network"
	CheckEnvelope   = "envelope"
	CheckSource     = "source"
	CheckOperations = "operations"
	CheckContract   = "contract"
	CheckFunction   = "function"
	CheckArguments  = "arguments"
	CheckAuth       = "auth"
	CheckFee        = "fee"
	CheckTimeBounds = "timebounds"
)

// MaxValidity is how far in the future a prepared transaction's time bounds may end: long
// enough to sign and submit, short enough that a transaction held back cannot be replayed
// much later.
const MaxValidity = 10 * time.Minute

// Policy is what a transaction may do.
type Policy struct {
	Passphrase string // the configured network
	Signer     string // G-address of the wallet that would sign
	Contract   string // C-address of the one contract it may call
	Functions  []string
	// Args inspects the call's arguments; a non-empty reason refuses the transaction.
	Args        func(fn string, args []xdr.ScVal) string
	MaxFee      int64         // stroops
	MaxValidity time.Duration // 0 means MaxValidity
	Now         time.Time
}

// Refusal says which check a transaction failed and why. Its text names no value the
// transaction carries beyond public identifiers and numbers.
type Refusal struct {
	Check  string
	Reason string
}

func (r *Refusal) Error() string {
	return "transaction refused by the " + r.Check + " check: " + r.Reason
}

// Failure is the refusal as the endpoint reports it: UNEXPECTED_TRANSACTION from source, no
// execution started, nothing changed.
func (r *Refusal) Failure(source errmap.Source, what string) *errmap.Error {
	detail := fmt.Sprintf("%s was not signed or sent: %s (%s check)", what, r.Reason, r.Check)
	return &errmap.Error{Err: r, Facts: errmap.Facts{
		Source: source, Code: errmap.CodeUnexpectedTransaction, Category: errmap.CategoryValidation,
		Detail: detail, ExecutionStarted: false, StateChanged: errmap.StateNo,
	}}
}

func refuse(check, format string, args ...any) *Refusal {
	return &Refusal{Check: check, Reason: fmt.Sprintf(format, args...)}
}

// Check decodes envelope (base64 XDR) that a service prepared for passphrase and returns a
// *Refusal unless it does exactly what p allows. It never panics, whatever the input.
func Check(envelope, passphrase string, p Policy) error {
	if passphrase != p.Passphrase {
		return refuse(CheckNetwork, "it was prepared for another network")
	}
	var env xdr.TransactionEnvelope
	if err := xdr.SafeUnmarshalBase64(envelope, &env); err != nil {
		return refuse(CheckEnvelope, "it is not a base64 transaction envelope")
	}
	if env.Type != xdr.EnvelopeTypeEnvelopeTypeTx || env.V1 == nil {
		return refuse(CheckEnvelope, "it is not a v1 transaction envelope (a fee bump or a v0 envelope)")
	}
	tx := env.V1.Tx
	signer, err := xdr.AddressToAccountId(p.Signer)
	if err != nil {
		return refuse(CheckSource, "the signing wallet is not a valid account")
	}
	if src := tx.SourceAccount.ToAccountId(); !src.Equals(signer) {
		return refuse(CheckSource, "its source account is not the signing wallet")
	}
	if len(tx.Operations) != 1 {
		return refuse(CheckOperations, "it has %d operations, not exactly one", len(tx.Operations))
	}
	op := tx.Operations[0]
	if op.SourceAccount != nil {
		if src := op.SourceAccount.ToAccountId(); !src.Equals(signer) {
			return refuse(CheckOperations, "its operation has a source account other than the signing wallet")
		}
	}
	if op.Body.Type != xdr.OperationTypeInvokeHostFunction || op.Body.InvokeHostFunctionOp == nil {
		return refuse(CheckOperations, "its operation is %s, not invokeHostFunction", opName(op.Body.Type))
	}
	hf := op.Body.InvokeHostFunctionOp.HostFunction
	if hf.Type != xdr.HostFunctionTypeHostFunctionTypeInvokeContract || hf.InvokeContract == nil {
		return refuse(CheckOperations, "its host function does not invoke a contract")
	}
	call := *hf.InvokeContract
	if id, err := call.ContractAddress.String(); err != nil || id != p.Contract {
		return refuse(CheckContract, "it calls a contract other than the configured registry %s", p.Contract)
	}
	fn := string(call.FunctionName)
	if !slices.Contains(p.Functions, fn) {
		return refuse(CheckFunction, "it calls a function other than %v", p.Functions)
	}
	if p.Args != nil {
		if why := p.Args(fn, call.Args); why != "" {
			return refuse(CheckArguments, "%s", why)
		}
	}
	want, err := call.MarshalBinary()
	if err != nil {
		return refuse(CheckEnvelope, "its invocation cannot be encoded")
	}
	for i, a := range op.Body.InvokeHostFunctionOp.Auth {
		if why := authReason(a, want, signer); why != "" {
			return refuse(CheckAuth, "authorization entry %d %s", i, why)
		}
	}
	if int64(tx.Fee) > p.MaxFee {
		return refuse(CheckFee, "its fee of %d stroops is above the cap of %d", uint32(tx.Fee), p.MaxFee)
	}
	return timeBounds(tx.Cond, p)
}

// authReason says what is wrong with one authorisation entry, or "".
func authReason(a xdr.SorobanAuthorizationEntry, want []byte, signer xdr.AccountId) string {
	switch a.Credentials.Type {
	case xdr.SorobanCredentialsTypeSorobanCredentialsSourceAccount:
	case xdr.SorobanCredentialsTypeSorobanCredentialsAddress:
		c := a.Credentials.Address
		if c == nil || c.Address.Type != xdr.ScAddressTypeScAddressTypeAccount || c.Address.AccountId == nil || !c.Address.AccountId.Equals(signer) {
			return "authorizes an address other than the signing wallet"
		}
	default:
		return "has credentials of an unknown kind"
	}
	inv := a.RootInvocation
	if len(inv.SubInvocations) > 0 {
		return "authorizes further calls beyond the registration"
	}
	if inv.Function.Type != xdr.SorobanAuthorizedFunctionTypeSorobanAuthorizedFunctionTypeContractFn || inv.Function.ContractFn == nil {
		return "authorizes something other than a contract call"
	}
	got, err := inv.Function.ContractFn.MarshalBinary()
	if err != nil || !bytes.Equal(got, want) {
		return "authorizes a call other than the transaction's own"
	}
	return ""
}

func timeBounds(cond xdr.Preconditions, p Policy) error {
	var tb *xdr.TimeBounds
	switch cond.Type {
	case xdr.PreconditionTypePrecondTime:
		tb = cond.TimeBounds
	case xdr.PreconditionTypePrecondV2:
		if cond.V2 != nil {
			tb = cond.V2.TimeBounds
		}
	}
	if tb == nil || tb.MaxTime == 0 {
		return refuse(CheckTimeBounds, "it has no time bounds, so it would stay valid forever")
	}
	validity := p.MaxValidity
	if validity <= 0 {
		validity = MaxValidity
	}
	latest := p.Now.Add(validity).Unix()
	if latest < 0 || uint64(tb.MaxTime) > uint64(latest) {
		return refuse(CheckTimeBounds, "its time bounds end more than %s from now", validity)
	}
	return nil
}

func opName(t xdr.OperationType) string {
	if name, ok := xdr.OperationTypeToStringMap[int32(t)]; ok {
		return name
	}
	return fmt.Sprintf("operation type %d", int32(t))
}

// Register is the argument check of the vault registry's register(creator: Address, id:
// String, price: i128, metadata: String, tags: Vec<String>) and register_with_hash, whose
// first two arguments are the same: the creator must be signer and the id exactly
// resourceID. Price, metadata and tags are the API's to choose; register's must have their
// types.
func Register(signer, resourceID string) func(fn string, args []xdr.ScVal) string {
	return func(fn string, args []xdr.ScVal) string {
		if fn == "register" && len(args) != 5 {
			return fmt.Sprintf("register takes 5 arguments, the call has %d", len(args))
		}
		if len(args) < 2 {
			return fmt.Sprintf("%s needs a creator and a resource id", fn)
		}
		if a := args[0]; a.Type != xdr.ScValTypeScvAddress || a.Address == nil || a.Address.Type != xdr.ScAddressTypeScAddressTypeAccount {
			return "the creator is not an account"
		} else if id, err := a.Address.String(); err != nil || id != signer {
			return "the creator is not the signing wallet"
		}
		if id := args[1]; id.Type != xdr.ScValTypeScvString || id.Str == nil || string(*id.Str) != resourceID {
			return "it registers another resource id than the one requested"
		}
		if fn == "register" {
			if args[2].Type != xdr.ScValTypeScvI128 || args[3].Type != xdr.ScValTypeScvString || args[4].Type != xdr.ScValTypeScvVec {
				return "its price, metadata or tags have the wrong type"
			}
		}
		return ""
	}
}
