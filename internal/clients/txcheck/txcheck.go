// Package txcheck decides whether a transaction the endpoint did not build may be signed by a
// profile's wallet. A signature authorises everything in the envelope the wallet is the source of
// (the fee, the sequence number, the preconditions, every operation and authorisation entry), so
// Check refuses unless the transaction does exactly what the caller asked, the checks of
// docs/tools.md "Signing a prepared transaction", and returns what passed as a Checked: the decoded
// envelope, its hash and the call, which the caller signs and shows.
package txcheck

import (
	"bytes"
	"cmp"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"time"

	"github.com/stellar/go-stellar-sdk/network"
	"github.com/stellar/go-stellar-sdk/xdr"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/clients/soroban"
	"github.com/mindvault/mcp-endpoint/validate"
)

// The checks, as named in Refusal.Check.
const (
	CheckNetwork       = "network"
	CheckEnvelope      = "envelope"
	CheckSource        = "source"
	CheckSequence      = "sequence"
	CheckMemo          = "memo"
	CheckOperations    = "operations"
	CheckContract      = "contract"
	CheckFunction      = "function"
	CheckArguments     = "arguments"
	CheckAuth          = "auth"
	CheckFee           = "fee"
	CheckPreconditions = "preconditions"
	CheckTimeBounds    = "timebounds"
)

// MaxValidity is how far in the future a prepared transaction's time bounds may end: long enough
// to sign and submit, too short to replay a held-back transaction much later.
const MaxValidity = 10 * time.Minute

// Policy is what a transaction may do.
type Policy struct {
	Passphrase string // the configured network
	Signer     string // G-address of the wallet that would sign
	// Sequence is the sequence number the transaction must carry: the signing account's
	// current sequence + 1, as Horizon reports it. 0 refuses every transaction.
	Sequence  int64
	Contract  string // C-address of the one contract it may call
	Functions []string
	// Args inspects the call's arguments; a non-empty reason refuses the transaction.
	Args   func(fn string, args []xdr.ScVal) string
	MaxFee int64 // stroops
	Now    time.Time
}

// Checked is a transaction that passed Check, as it was checked.
type Checked struct {
	// Envelope is the decoded envelope: sign Hash and add the signature to it, so that what
	// is sent is byte for byte what was checked.
	Envelope xdr.TransactionEnvelope
	// Hash is the transaction's hash on the checked network: what the wallet signs, and the
	// id the network will know the transaction by.
	Hash     [32]byte
	Function string
	Args     []xdr.ScVal
	Fee      int64 // stroops, the most the transaction can cost
	Sequence int64
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

// Check decodes envelope (base64 XDR) prepared for passphrase and returns it as Checked, or a
// *Refusal unless it does exactly what p allows. It never panics.
func Check(envelope, passphrase string, p Policy) (*Checked, error) {
	if passphrase != p.Passphrase {
		return nil, refuse(CheckNetwork, "it was prepared for another network")
	}
	var env xdr.TransactionEnvelope
	if err := xdr.SafeUnmarshalBase64(envelope, &env); err != nil {
		return nil, refuse(CheckEnvelope, "it is not a base64 transaction envelope")
	}
	if env.Type != xdr.EnvelopeTypeEnvelopeTypeTx || env.V1 == nil {
		return nil, refuse(CheckEnvelope, "it is not a v1 transaction envelope (a fee bump or a v0 envelope)")
	}
	if len(env.V1.Signatures) != 0 {
		return nil, refuse(CheckEnvelope, "it already carries %d signatures", len(env.V1.Signatures))
	}
	tx := env.V1.Tx
	signer, err := xdr.AddressToAccountId(p.Signer)
	if err != nil {
		return nil, refuse(CheckSource, "the signing wallet is not a valid account")
	}
	if src := tx.SourceAccount.ToAccountId(); !src.Equals(signer) {
		return nil, refuse(CheckSource, "its source account is not the signing wallet")
	}
	if p.Sequence <= 0 {
		return nil, refuse(CheckSequence, "the signing account's next sequence number is not known")
	}
	if int64(tx.SeqNum) != p.Sequence {
		return nil, refuse(CheckSequence, "its sequence number %d is not the signing account's next one, %d", int64(tx.SeqNum), p.Sequence)
	}
	if tx.Memo.Type != xdr.MemoTypeMemoNone {
		return nil, refuse(CheckMemo, "it carries a memo")
	}
	if len(tx.Operations) != 1 {
		return nil, refuse(CheckOperations, "it has %d operations, not exactly one", len(tx.Operations))
	}
	op := tx.Operations[0]
	if op.SourceAccount != nil {
		if src := op.SourceAccount.ToAccountId(); !src.Equals(signer) {
			return nil, refuse(CheckOperations, "its operation has a source account other than the signing wallet")
		}
	}
	if op.Body.Type != xdr.OperationTypeInvokeHostFunction || op.Body.InvokeHostFunctionOp == nil {
		name := cmp.Or(xdr.OperationTypeToStringMap[int32(op.Body.Type)], fmt.Sprintf("operation type %d", int32(op.Body.Type)))
		return nil, refuse(CheckOperations, "its operation is %s, not invokeHostFunction", name)
	}
	hf := op.Body.InvokeHostFunctionOp.HostFunction
	if hf.Type != xdr.HostFunctionTypeHostFunctionTypeInvokeContract || hf.InvokeContract == nil {
		return nil, refuse(CheckOperations, "its host function does not invoke a contract")
	}
	call := *hf.InvokeContract
	if id, err := call.ContractAddress.String(); err != nil || id != p.Contract {
		return nil, refuse(CheckContract, "it calls a contract other than the configured registry %s", p.Contract)
	}
	fn := string(call.FunctionName)
	if !slices.Contains(p.Functions, fn) {
		return nil, refuse(CheckFunction, "it calls a function other than %v", p.Functions)
	}
	if p.Args == nil {
		return nil, refuse(CheckArguments, "no rule for the call's arguments was given")
	}
	if why := p.Args(fn, call.Args); why != "" {
		return nil, refuse(CheckArguments, "%s", why)
	}
	want, err := call.MarshalBinary()
	if err != nil {
		return nil, refuse(CheckEnvelope, "its invocation cannot be encoded")
	}
	for i, a := range op.Body.InvokeHostFunctionOp.Auth {
		if why := authReason(a, want, signer); why != "" {
			return nil, refuse(CheckAuth, "authorization entry %d %s", i, why)
		}
	}
	if int64(tx.Fee) > p.MaxFee {
		return nil, refuse(CheckFee, "its fee of %d stroops is above the cap of %d", uint32(tx.Fee), p.MaxFee)
	}
	if err := preconditions(tx.Cond, p); err != nil {
		return nil, err
	}
	hash, err := network.HashTransactionInEnvelope(env, passphrase)
	if err != nil {
		return nil, refuse(CheckEnvelope, "its hash cannot be computed")
	}
	return &Checked{Envelope: env, Hash: hash, Function: fn, Args: call.Args, Fee: int64(tx.Fee), Sequence: int64(tx.SeqNum)}, nil
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

// preconditions allows time bounds and nothing else: each other precondition either lets the
// service choose the sequence number (minSeqNum: any number above it, so a far one consumes
// the account's remaining sequence space), delays or ties the transaction to ledgers, or
// asks for signatures beyond the wallet's.
func preconditions(cond xdr.Preconditions, p Policy) error {
	var tb *xdr.TimeBounds
	switch cond.Type {
	case xdr.PreconditionTypePrecondNone:
	case xdr.PreconditionTypePrecondTime:
		tb = cond.TimeBounds
	case xdr.PreconditionTypePrecondV2:
		v2 := cond.V2
		switch {
		case v2 == nil:
			return refuse(CheckPreconditions, "its preconditions cannot be read")
		case v2.MinSeqNum != nil:
			return refuse(CheckPreconditions, "it has a minimum sequence number precondition")
		case v2.MinSeqAge != 0:
			return refuse(CheckPreconditions, "it has a minimum sequence age precondition")
		case v2.MinSeqLedgerGap != 0:
			return refuse(CheckPreconditions, "it has a minimum sequence ledger gap precondition")
		case v2.LedgerBounds != nil:
			return refuse(CheckPreconditions, "it has ledger bounds")
		case len(v2.ExtraSigners) != 0:
			return refuse(CheckPreconditions, "it requires %d extra signers", len(v2.ExtraSigners))
		}
		tb = v2.TimeBounds
	default:
		return refuse(CheckPreconditions, "it has preconditions of an unknown kind")
	}
	if tb == nil || tb.MaxTime == 0 {
		return refuse(CheckTimeBounds, "it has no time bounds, so it would stay valid forever")
	}
	latest := p.Now.Add(MaxValidity).Unix()
	if latest < 0 || uint64(tb.MaxTime) > uint64(latest) {
		return refuse(CheckTimeBounds, "its time bounds end more than %s from now", MaxValidity)
	}
	return nil
}

// The vault-registry contract's limits on what a registration stores; a metadata pointer and
// each tag must also have the shapes the tools' inputs have (validate's metaptr and tag).
const (
	MaxTags             = 8
	MaxContentHashBytes = 128
)

// Register is the argument check of the vault registry's register and register_with_hash
// (docs/tools.md "Signing a prepared transaction" lists each argument's rule): every argument
// and no other, the creator the signing wallet, the id exactly id, the price exactly price
// (7-decimal units, the listed price; nil refuses every call), and the metadata, tags and
// content hash within what the contract accepts.
func Register(creator, id string, price *big.Int) func(fn string, args []xdr.ScVal) string {
	return func(fn string, args []xdr.ScVal) string {
		want := map[string]int{"register": 5, "register_with_hash": 6}[fn]
		switch {
		case want == 0:
			return fmt.Sprintf("%s is not a registration function", fn)
		case len(args) != want:
			return fmt.Sprintf("%s takes %d arguments, the call has %d", fn, want, len(args))
		}
		if a := args[0]; a.Type != xdr.ScValTypeScvAddress || a.Address == nil || a.Address.Type != xdr.ScAddressTypeScAddressTypeAccount {
			return "the creator is not an account"
		} else if g, err := a.Address.String(); err != nil || g != creator {
			return "the creator is not the signing wallet"
		}
		if v := args[1]; v.Type != xdr.ScValTypeScvString || v.Str == nil || string(*v.Str) != id {
			return "it registers another resource id than the one requested"
		}
		switch v := args[2]; {
		case price == nil:
			return "the resource's listed price is not known"
		case v.Type != xdr.ScValTypeScvI128 || v.I128 == nil:
			return "its price is not an i128"
		case soroban.BigFromI128(*v.I128).Cmp(price) != 0:
			return fmt.Sprintf("its price of %s units is not the listed price of %s units", soroban.BigFromI128(*v.I128), price)
		}
		if v := args[3]; v.Type != xdr.ScValTypeScvString || v.Str == nil {
			return "its metadata is not a string"
		} else if ok, _ := validate.Conforms("metaptr", string(*v.Str)); !ok {
			return "its metadata is not a pointer the registry accepts (at most 512 bytes starting ipfs://, ar://, https://, http://, sha256:, sha-256:, 0x)"
		}
		tags, ok := soroban.VecOf(args[4])
		switch {
		case !ok:
			return "its tags are not a list"
		case len(tags) > MaxTags:
			return fmt.Sprintf("it has %d tags, more than %d", len(tags), MaxTags)
		}
		for i, t := range tags {
			if t.Type != xdr.ScValTypeScvString || t.Str == nil {
				return fmt.Sprintf("its tag %d is not a string", i)
			}
			// The contract trims and lower-cases a tag before checking it.
			if ok, _ := validate.Conforms("tag", strings.ToLower(strings.TrimSpace(string(*t.Str)))); !ok {
				return fmt.Sprintf("its tag %d is not one the registry accepts (1-32 of a-z 0-9 _ -)", i)
			}
		}
		if fn == "register_with_hash" {
			switch v := args[5]; {
			case v.Type == xdr.ScValTypeScvVoid:
			case v.Type != xdr.ScValTypeScvString || v.Str == nil:
				return "its content hash is neither none nor a string"
			case len(*v.Str) == 0 || len(*v.Str) > MaxContentHashBytes:
				return fmt.Sprintf("its content hash is not 1-%d bytes", MaxContentHashBytes)
			}
		}
		return ""
	}
}
