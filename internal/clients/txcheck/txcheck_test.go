package txcheck

import (
	"bytes"
	"errors"
	"math"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/stellar/go-stellar-sdk/keypair"
	"github.com/stellar/go-stellar-sdk/network"
	"github.com/stellar/go-stellar-sdk/strkey"
	"github.com/stellar/go-stellar-sdk/xdr"

	"github.com/mindvault/mcp-endpoint/errmap"
)

var (
	wallet   = keypair.Master("txcheck/wallet").(*keypair.Full)
	stranger = keypair.Master("txcheck/stranger").(*keypair.Full)
	registry = contractID(1)
	other    = contractID(2)
	now      = time.Unix(1_800_000_000, 0)
)

const (
	resourceID  = "r0123456789abcdef"
	listedPrice = 15_000_000 // 1.5 USDC
)

func contractID(b byte) string {
	var raw [32]byte
	raw[0] = b
	id, _ := strkey.Encode(strkey.VersionByteContract, raw[:])
	return id
}

func policy() Policy {
	return Policy{
		Passphrase: network.TestNetworkPassphrase, Signer: wallet.Address(), Contract: registry,
		Sequence: 42, Functions: []string{"register", "register_with_hash"}, Args: Register(wallet.Address(), resourceID, big.NewInt(listedPrice)),
		MaxFee: 10_000_000, Now: now,
	}
}

func contractAddr(id string) xdr.ScAddress {
	raw, _ := strkey.Decode(strkey.VersionByteContract, id)
	var cid xdr.ContractId
	copy(cid[:], raw)
	return xdr.ScAddress{Type: xdr.ScAddressTypeScAddressTypeContract, ContractId: &cid}
}

func accountVal(g string) xdr.ScVal {
	aid := xdr.MustAddress(g)
	return xdr.ScVal{Type: xdr.ScValTypeScvAddress, Address: &xdr.ScAddress{Type: xdr.ScAddressTypeScAddressTypeAccount, AccountId: &aid}}
}

func str(s string) xdr.ScVal {
	v := xdr.ScString(s)
	return xdr.ScVal{Type: xdr.ScValTypeScvString, Str: &v}
}

// i128 is n as an i128, negative numbers in two's complement as the contract reads them.
func i128(n int64) xdr.ScVal {
	hi := xdr.Int64(0)
	if n < 0 {
		hi = -1
	}
	p := xdr.Int128Parts{Hi: hi, Lo: xdr.Uint64(uint64(n))}
	return xdr.ScVal{Type: xdr.ScValTypeScvI128, I128: &p}
}

func vec(items ...xdr.ScVal) xdr.ScVal {
	v := xdr.ScVec(items)
	pv := &v
	return xdr.ScVal{Type: xdr.ScValTypeScvVec, Vec: &pv}
}

func strs(ss ...string) xdr.ScVal {
	items := make([]xdr.ScVal, len(ss))
	for i, s := range ss {
		items[i] = str(s)
	}
	return vec(items...)
}

func void() xdr.ScVal { return xdr.ScVal{Type: xdr.ScValTypeScvVoid} }

func registerArgs(creator, id string) []xdr.ScVal {
	return []xdr.ScVal{accountVal(creator), str(id), i128(listedPrice), str("ipfs://bafy"), vec()}
}

func registerCall(contract, creator, id string) xdr.InvokeContractArgs {
	return xdr.InvokeContractArgs{ContractAddress: contractAddr(contract), FunctionName: "register", Args: registerArgs(creator, id)}
}

func sourceAuth(call xdr.InvokeContractArgs) xdr.SorobanAuthorizationEntry {
	return xdr.SorobanAuthorizationEntry{
		Credentials: xdr.SorobanCredentials{Type: xdr.SorobanCredentialsTypeSorobanCredentialsSourceAccount},
		RootInvocation: xdr.SorobanAuthorizedInvocation{Function: xdr.SorobanAuthorizedFunction{
			Type: xdr.SorobanAuthorizedFunctionTypeSorobanAuthorizedFunctionTypeContractFn, ContractFn: &call}},
	}
}

func addressAuth(g string, call xdr.InvokeContractArgs) xdr.SorobanAuthorizationEntry {
	e := sourceAuth(call)
	aid := xdr.MustAddress(g)
	e.Credentials = xdr.SorobanCredentials{Type: xdr.SorobanCredentialsTypeSorobanCredentialsAddress,
		Address: &xdr.SorobanAddressCredentials{Address: xdr.ScAddress{Type: xdr.ScAddressTypeScAddressTypeAccount, AccountId: &aid},
			Nonce: 7, SignatureExpirationLedger: 100, Signature: xdr.ScVal{Type: xdr.ScValTypeScvVoid}}}
	return e
}

func invokeOp(call xdr.InvokeContractArgs, auth ...xdr.SorobanAuthorizationEntry) xdr.Operation {
	return xdr.Operation{Body: xdr.OperationBody{Type: xdr.OperationTypeInvokeHostFunction,
		InvokeHostFunctionOp: &xdr.InvokeHostFunctionOp{
			HostFunction: xdr.HostFunction{Type: xdr.HostFunctionTypeHostFunctionTypeInvokeContract, InvokeContract: &call},
			Auth:         auth,
		}}}
}

// prepared is what a well-behaved API prepares: the register call from the wallet, with
// source-account auth for exactly that call, fee 100 + resource fee, valid for 5 minutes.
func prepared() xdr.TransactionEnvelope {
	call := registerCall(registry, wallet.Address(), resourceID)
	return xdr.TransactionEnvelope{Type: xdr.EnvelopeTypeEnvelopeTypeTx, V1: &xdr.TransactionV1Envelope{Tx: xdr.Transaction{
		SourceAccount: xdr.MustMuxedAddress(wallet.Address()),
		Fee:           100 + 52_000,
		SeqNum:        42,
		Cond: xdr.Preconditions{Type: xdr.PreconditionTypePrecondTime,
			TimeBounds: &xdr.TimeBounds{MaxTime: xdr.TimePoint(now.Add(5 * time.Minute).Unix())}},
		Memo:       xdr.Memo{Type: xdr.MemoTypeMemoNone},
		Operations: []xdr.Operation{invokeOp(call, sourceAuth(call))},
		Ext:        xdr.TransactionExt{V: 1, SorobanData: &xdr.SorobanTransactionData{ResourceFee: 52_000}},
	}}}
}

func encode(t testing.TB, env xdr.TransactionEnvelope) string {
	t.Helper()
	s, err := xdr.MarshalBase64(env)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func tx(env *xdr.TransactionEnvelope) *xdr.Transaction { return &env.V1.Tx }

func hostOp(env *xdr.TransactionEnvelope) *xdr.InvokeHostFunctionOp {
	return env.V1.Tx.Operations[0].Body.InvokeHostFunctionOp
}

// setCall makes the transaction call fn(args) with every authorisation entry for exactly
// that call, so that only the call itself can be refused.
func setCall(e *xdr.TransactionEnvelope, fn string, args ...xdr.ScVal) {
	op := hostOp(e)
	call := xdr.InvokeContractArgs{ContractAddress: op.HostFunction.InvokeContract.ContractAddress, FunctionName: xdr.ScSymbol(fn), Args: args}
	op.HostFunction.InvokeContract = &call
	for i := range op.Auth {
		c := call
		op.Auth[i].RootInvocation.Function.ContractFn = &c
	}
}

// withArg replaces argument i of the register call (auth kept consistent).
func withArg(i int, v xdr.ScVal) func(*xdr.TransactionEnvelope) {
	return func(e *xdr.TransactionEnvelope) {
		args := registerArgs(wallet.Address(), resourceID)
		args[i] = v
		setCall(e, "register", args...)
	}
}

// withHash makes the call register_with_hash(the register arguments, more...).
func withHash(more ...xdr.ScVal) func(*xdr.TransactionEnvelope) {
	return func(e *xdr.TransactionEnvelope) {
		setCall(e, "register_with_hash", append(registerArgs(wallet.Address(), resourceID), more...)...)
	}
}

// v2 replaces the preconditions with v2 ones holding the time bounds and what set adds.
func v2(set func(*xdr.PreconditionsV2)) func(*xdr.TransactionEnvelope) {
	return func(e *xdr.TransactionEnvelope) {
		p := xdr.PreconditionsV2{TimeBounds: tx(e).Cond.TimeBounds}
		set(&p)
		tx(e).Cond = xdr.Preconditions{Type: xdr.PreconditionTypePrecondV2, V2: &p}
	}
}

type mutation struct {
	name       string
	passphrase string // "" = testnet
	mutate     func(env *xdr.TransactionEnvelope)
	raw        string          // replaces the encoded envelope when set
	tweak      func(p *Policy) // changes the policy when set
	check      string          // "" = accepted
}

// policy is the policy m is checked against.
func (m mutation) policy() Policy {
	p := policy()
	if m.tweak != nil {
		m.tweak(&p)
	}
	return p
}

func mutations() []mutation {
	transfer := xdr.InvokeContractArgs{ContractAddress: contractAddr(other), FunctionName: "transfer",
		Args: []xdr.ScVal{accountVal(wallet.Address()), accountVal(stranger.Address()), i128(1_000_000_000)}}
	return []mutation{
		{name: "as prepared", mutate: func(*xdr.TransactionEnvelope) {}},
		{name: "no auth entries", mutate: func(e *xdr.TransactionEnvelope) { hostOp(e).Auth = nil }},
		{name: "address credentials of the wallet", mutate: func(e *xdr.TransactionEnvelope) {
			hostOp(e).Auth = []xdr.SorobanAuthorizationEntry{addressAuth(wallet.Address(), *hostOp(e).HostFunction.InvokeContract)}
		}},
		{name: "register_with_hash without a content hash", mutate: withHash(void())},
		{name: "register_with_hash with a content hash", mutate: withHash(str("sha256:abc"))},
		{name: "register_with_hash with a content hash of 128 bytes", mutate: withHash(str(strings.Repeat("a", 128)))},
		{name: "tags the registry accepts", mutate: withArg(4, strs("rust", " AI-Tools ", "a_b"))},
		{name: "eight tags", mutate: withArg(4, strs("a", "b", "c", "d", "e", "f", "g", "h"))},
		{name: "a tag of 32 bytes", mutate: withArg(4, strs(strings.Repeat("t", 32)))},
		{name: "tags as a nil vector", mutate: withArg(4, func() xdr.ScVal {
			var nilVec *xdr.ScVec
			return xdr.ScVal{Type: xdr.ScValTypeScvVec, Vec: &nilVec}
		}())},
		{name: "metadata of 512 bytes", mutate: withArg(3, str("ipfs://"+strings.Repeat("a", 505)))},
		{name: "metadata as an https link", mutate: withArg(3, str("https://example.org/meta.json"))},
		{name: "a minimum time", mutate: func(e *xdr.TransactionEnvelope) { tx(e).Cond.TimeBounds.MinTime = xdr.TimePoint(now.Unix()) }},
		{name: "muxed source of the wallet", mutate: func(e *xdr.TransactionEnvelope) {
			m := xdr.MustMuxedAddress(wallet.Address())
			ed := m.MustEd25519()
			tx(e).SourceAccount = xdr.MuxedAccount{Type: xdr.CryptoKeyTypeKeyTypeMuxedEd25519, Med25519: &xdr.MuxedAccountMed25519{Id: 9, Ed25519: ed}}
		}},
		{name: "operation sourced by the wallet", mutate: func(e *xdr.TransactionEnvelope) {
			m := xdr.MustMuxedAddress(wallet.Address())
			tx(e).Operations[0].SourceAccount = &m
		}},
		{name: "v2 preconditions with time bounds", mutate: func(e *xdr.TransactionEnvelope) {
			tx(e).Cond = xdr.Preconditions{Type: xdr.PreconditionTypePrecondV2, V2: &xdr.PreconditionsV2{TimeBounds: tx(e).Cond.TimeBounds}}
		}},
		{name: "fee at the cap", mutate: func(e *xdr.TransactionEnvelope) { tx(e).Fee = 10_000_000 }},
		{name: "time bounds end at the limit", mutate: func(e *xdr.TransactionEnvelope) {
			tx(e).Cond.TimeBounds.MaxTime = xdr.TimePoint(now.Add(MaxValidity).Unix())
		}},

		{name: "another network", passphrase: network.PublicNetworkPassphrase, check: CheckNetwork},
		{name: "no network named", passphrase: "-", check: CheckNetwork},
		{name: "not base64", raw: "not a transaction!", check: CheckEnvelope},
		{name: "not an envelope", raw: "AAAA", check: CheckEnvelope},
		{name: "fee bump", mutate: func(e *xdr.TransactionEnvelope) {
			inner := *e.V1
			*e = xdr.TransactionEnvelope{Type: xdr.EnvelopeTypeEnvelopeTypeTxFeeBump, FeeBump: &xdr.FeeBumpTransactionEnvelope{Tx: xdr.FeeBumpTransaction{
				FeeSource: xdr.MustMuxedAddress(wallet.Address()), Fee: 200_000,
				InnerTx: xdr.FeeBumpTransactionInnerTx{Type: xdr.EnvelopeTypeEnvelopeTypeTx, V1: &inner}}}}
		}, check: CheckEnvelope},
		{name: "v0 envelope", mutate: func(e *xdr.TransactionEnvelope) {
			ed := xdr.MustMuxedAddress(wallet.Address()).MustEd25519()
			*e = xdr.TransactionEnvelope{Type: xdr.EnvelopeTypeEnvelopeTypeTxV0, V0: &xdr.TransactionV0Envelope{Tx: xdr.TransactionV0{
				SourceAccountEd25519: ed, Fee: 100, SeqNum: 42, Operations: e.V1.Tx.Operations}}}
		}, check: CheckEnvelope},
		{name: "already signed", mutate: func(e *xdr.TransactionEnvelope) {
			sig, _ := stranger.SignDecorated([]byte("anything"))
			e.V1.Signatures = []xdr.DecoratedSignature{sig}
		}, check: CheckEnvelope},
		{name: "another source account", mutate: func(e *xdr.TransactionEnvelope) {
			tx(e).SourceAccount = xdr.MustMuxedAddress(stranger.Address())
		}, check: CheckSource},
		{name: "sequence 2^63-2 with minSeqNum 0", mutate: func(e *xdr.TransactionEnvelope) {
			tx(e).SeqNum = math.MaxInt64 - 1
			zero := xdr.SequenceNumber(0)
			v2(func(p *xdr.PreconditionsV2) { p.MinSeqNum = &zero })(e)
		}, check: CheckSequence},
		{name: "sequence 2^63-2", mutate: func(e *xdr.TransactionEnvelope) { tx(e).SeqNum = math.MaxInt64 - 1 }, check: CheckSequence},
		{name: "sequence one ahead", mutate: func(e *xdr.TransactionEnvelope) { tx(e).SeqNum = 43 }, check: CheckSequence},
		{name: "sequence one behind", mutate: func(e *xdr.TransactionEnvelope) { tx(e).SeqNum = 41 }, check: CheckSequence},
		{name: "sequence 0", mutate: func(e *xdr.TransactionEnvelope) { tx(e).SeqNum = 0 }, check: CheckSequence},
		{name: "negative sequence", mutate: func(e *xdr.TransactionEnvelope) { tx(e).SeqNum = -42 }, check: CheckSequence},
		{name: "no expected sequence", tweak: func(p *Policy) { p.Sequence = 0 }, check: CheckSequence},
		{name: "a text memo", mutate: func(e *xdr.TransactionEnvelope) {
			text := "hello"
			tx(e).Memo = xdr.Memo{Type: xdr.MemoTypeMemoText, Text: &text}
		}, check: CheckMemo},
		{name: "an id memo", mutate: func(e *xdr.TransactionEnvelope) {
			id := xdr.Uint64(7)
			tx(e).Memo = xdr.Memo{Type: xdr.MemoTypeMemoId, Id: &id}
		}, check: CheckMemo},
		{name: "no operation", mutate: func(e *xdr.TransactionEnvelope) { tx(e).Operations = nil }, check: CheckOperations},
		{name: "two operations", mutate: func(e *xdr.TransactionEnvelope) {
			tx(e).Operations = append(tx(e).Operations, tx(e).Operations[0])
		}, check: CheckOperations},
		{name: "a payment", mutate: func(e *xdr.TransactionEnvelope) {
			tx(e).Operations = []xdr.Operation{{Body: xdr.OperationBody{Type: xdr.OperationTypePayment, PaymentOp: &xdr.PaymentOp{
				Destination: xdr.MustMuxedAddress(stranger.Address()), Asset: xdr.MustNewNativeAsset(), Amount: 1_000_000_000}}}}
		}, check: CheckOperations},
		{name: "operation sourced by another account", mutate: func(e *xdr.TransactionEnvelope) {
			m := xdr.MustMuxedAddress(stranger.Address())
			tx(e).Operations[0].SourceAccount = &m
		}, check: CheckOperations},
		{name: "uploads wasm", mutate: func(e *xdr.TransactionEnvelope) {
			hostOp(e).HostFunction = xdr.HostFunction{Type: xdr.HostFunctionTypeHostFunctionTypeUploadContractWasm, Wasm: &[]byte{0}}
		}, check: CheckOperations},
		{name: "another contract", mutate: func(e *xdr.TransactionEnvelope) {
			hostOp(e).HostFunction.InvokeContract.ContractAddress = contractAddr(other)
		}, check: CheckContract},
		{name: "another function", mutate: func(e *xdr.TransactionEnvelope) {
			hostOp(e).HostFunction.InvokeContract.FunctionName = "transfer_ownership"
		}, check: CheckFunction},
		{name: "another resource id", mutate: func(e *xdr.TransactionEnvelope) {
			hostOp(e).HostFunction.InvokeContract.Args[1] = str("someoneelses")
		}, check: CheckArguments},
		{name: "another creator", mutate: func(e *xdr.TransactionEnvelope) {
			hostOp(e).HostFunction.InvokeContract.Args[0] = accountVal(stranger.Address())
		}, check: CheckArguments},
		{name: "a contract as creator", mutate: func(e *xdr.TransactionEnvelope) {
			a := contractAddr(other)
			hostOp(e).HostFunction.InvokeContract.Args[0] = xdr.ScVal{Type: xdr.ScValTypeScvAddress, Address: &a}
		}, check: CheckArguments},
		{name: "id as a symbol", mutate: func(e *xdr.TransactionEnvelope) {
			sym := xdr.ScSymbol(resourceID)
			hostOp(e).HostFunction.InvokeContract.Args[1] = xdr.ScVal{Type: xdr.ScValTypeScvSymbol, Sym: &sym}
		}, check: CheckArguments},
		{name: "register with four arguments", mutate: func(e *xdr.TransactionEnvelope) {
			c := hostOp(e).HostFunction.InvokeContract
			c.Args = c.Args[:4]
		}, check: CheckArguments},
		{name: "price of the wrong type", mutate: func(e *xdr.TransactionEnvelope) {
			hostOp(e).HostFunction.InvokeContract.Args[2] = str("1.5")
		}, check: CheckArguments},
		{name: "no argument rule", tweak: func(p *Policy) { p.Args = nil }, check: CheckArguments},
		{name: "a function the argument rule does not know", mutate: func(e *xdr.TransactionEnvelope) {
			setCall(e, "set_price", str(resourceID), i128(1))
		}, tweak: func(p *Policy) { p.Functions = append(p.Functions, "set_price") }, check: CheckArguments},
		{name: "no listed price", tweak: func(p *Policy) { p.Args = Register(wallet.Address(), resourceID, nil) }, check: CheckArguments},
		{name: "999 USDC", mutate: withArg(2, i128(9_990_000_000)), check: CheckArguments},
		{name: "one unit above the listed price", mutate: withArg(2, i128(listedPrice+1)), check: CheckArguments},
		{name: "one unit below the listed price", mutate: withArg(2, i128(listedPrice-1)), check: CheckArguments},
		{name: "price -1", mutate: withArg(2, i128(-1)), check: CheckArguments},
		{name: "the listed price in the high half", mutate: withArg(2, func() xdr.ScVal {
			p := xdr.Int128Parts{Hi: 1, Lo: listedPrice}
			return xdr.ScVal{Type: xdr.ScValTypeScvI128, I128: &p}
		}()), check: CheckArguments},
		{name: "the price as an i64", mutate: withArg(2, func() xdr.ScVal {
			n := xdr.Int64(listedPrice)
			return xdr.ScVal{Type: xdr.ScValTypeScvI64, I64: &n}
		}()), check: CheckArguments},
		{name: "register with a sixth argument", mutate: func(e *xdr.TransactionEnvelope) {
			setCall(e, "register", append(registerArgs(wallet.Address(), resourceID), void())...)
		}, check: CheckArguments},
		{name: "register_with_hash with five arguments", mutate: withHash(), check: CheckArguments},
		{name: "register_with_hash with seven arguments", mutate: withHash(void(), void()), check: CheckArguments},
		{name: "register_with_hash with an attacker and i128(-1)", mutate: func(e *xdr.TransactionEnvelope) {
			setCall(e, "register_with_hash", accountVal(wallet.Address()), str(resourceID), i128(-1), accountVal(stranger.Address()), vec(), accountVal(stranger.Address()))
		}, check: CheckArguments},
		{name: "register_with_hash at another price", mutate: func(e *xdr.TransactionEnvelope) {
			args := registerArgs(wallet.Address(), resourceID)
			args[2] = i128(9_990_000_000)
			setCall(e, "register_with_hash", append(args, void())...)
		}, check: CheckArguments},
		{name: "register_with_hash for another id", mutate: func(e *xdr.TransactionEnvelope) {
			setCall(e, "register_with_hash", append(registerArgs(wallet.Address(), "someoneelses"), void())...)
		}, check: CheckArguments},
		{name: "register_with_hash for another creator", mutate: func(e *xdr.TransactionEnvelope) {
			setCall(e, "register_with_hash", append(registerArgs(stranger.Address(), resourceID), void())...)
		}, check: CheckArguments},
		{name: "a content hash that is a number", mutate: withHash(i128(1)), check: CheckArguments},
		{name: "an empty content hash", mutate: withHash(str("")), check: CheckArguments},
		{name: "a content hash of 129 bytes", mutate: withHash(str(strings.Repeat("a", 129))), check: CheckArguments},
		{name: "metadata that is not a pointer", mutate: withArg(3, str("evil")), check: CheckArguments},
		{name: "metadata that is only a prefix", mutate: withArg(3, str("ipfs://")), check: CheckArguments},
		{name: "empty metadata", mutate: withArg(3, str("")), check: CheckArguments},
		{name: "metadata of 513 bytes", mutate: withArg(3, str("ipfs://"+strings.Repeat("a", 506))), check: CheckArguments},
		{name: "metadata as a symbol", mutate: withArg(3, func() xdr.ScVal {
			sym := xdr.ScSymbol("ipfs")
			return xdr.ScVal{Type: xdr.ScValTypeScvSymbol, Sym: &sym}
		}()), check: CheckArguments},
		{name: "metadata as an address", mutate: withArg(3, accountVal(stranger.Address())), check: CheckArguments},
		{name: "tags as a string", mutate: withArg(4, str("rust")), check: CheckArguments},
		{name: "nine tags", mutate: withArg(4, strs("a", "b", "c", "d", "e", "f", "g", "h", "i")), check: CheckArguments},
		{name: "an empty tag", mutate: withArg(4, strs("rust", " ")), check: CheckArguments},
		{name: "a tag of 33 bytes", mutate: withArg(4, strs(strings.Repeat("t", 33))), check: CheckArguments},
		{name: "a tag with a space inside", mutate: withArg(4, strs("not a tag")), check: CheckArguments},
		{name: "a tag that is a number", mutate: withArg(4, vec(i128(1))), check: CheckArguments},
		{name: "a tag that is an address", mutate: withArg(4, vec(accountVal(stranger.Address()))), check: CheckArguments},
		{name: "auth with a sub-invocation", mutate: func(e *xdr.TransactionEnvelope) {
			a := &hostOp(e).Auth[0]
			a.RootInvocation.SubInvocations = []xdr.SorobanAuthorizedInvocation{{Function: xdr.SorobanAuthorizedFunction{
				Type: xdr.SorobanAuthorizedFunctionTypeSorobanAuthorizedFunctionTypeContractFn, ContractFn: &transfer}}}
		}, check: CheckAuth},
		{name: "auth for another call", mutate: func(e *xdr.TransactionEnvelope) {
			hostOp(e).Auth = append(hostOp(e).Auth, sourceAuth(transfer))
		}, check: CheckAuth},
		{name: "auth for another id", mutate: func(e *xdr.TransactionEnvelope) {
			hostOp(e).Auth = []xdr.SorobanAuthorizationEntry{sourceAuth(registerCall(registry, wallet.Address(), "someoneelses"))}
		}, check: CheckAuth},
		{name: "auth for another address", mutate: func(e *xdr.TransactionEnvelope) {
			hostOp(e).Auth = append(hostOp(e).Auth, addressAuth(stranger.Address(), *hostOp(e).HostFunction.InvokeContract))
		}, check: CheckAuth},
		{name: "auth to create a contract", mutate: func(e *xdr.TransactionEnvelope) {
			hostOp(e).Auth[0].RootInvocation.Function = xdr.SorobanAuthorizedFunction{
				Type: xdr.SorobanAuthorizedFunctionTypeSorobanAuthorizedFunctionTypeCreateContractHostFn,
				CreateContractHostFn: &xdr.CreateContractArgs{
					ContractIdPreimage: xdr.ContractIdPreimage{Type: xdr.ContractIdPreimageTypeContractIdPreimageFromAsset, FromAsset: &xdr.Asset{Type: xdr.AssetTypeAssetTypeNative}},
					Executable:         xdr.ContractExecutable{Type: xdr.ContractExecutableTypeContractExecutableStellarAsset}}}
		}, check: CheckAuth},
		{name: "fee above the cap", mutate: func(e *xdr.TransactionEnvelope) { tx(e).Fee = 10_000_001 }, check: CheckFee},
		{name: "no time bounds", mutate: func(e *xdr.TransactionEnvelope) {
			tx(e).Cond = xdr.Preconditions{Type: xdr.PreconditionTypePrecondNone}
		}, check: CheckTimeBounds},
		{name: "time bounds without an end", mutate: func(e *xdr.TransactionEnvelope) { tx(e).Cond.TimeBounds.MaxTime = 0 }, check: CheckTimeBounds},
		{name: "time bounds ending too late", mutate: func(e *xdr.TransactionEnvelope) {
			tx(e).Cond.TimeBounds.MaxTime = xdr.TimePoint(now.Add(MaxValidity + time.Second).Unix())
		}, check: CheckTimeBounds},
		{name: "v2 preconditions without time bounds", mutate: func(e *xdr.TransactionEnvelope) {
			tx(e).Cond = xdr.Preconditions{Type: xdr.PreconditionTypePrecondV2, V2: &xdr.PreconditionsV2{}}
		}, check: CheckTimeBounds},
		{name: "v2 time bounds without an end", mutate: v2(func(p *xdr.PreconditionsV2) { p.TimeBounds = &xdr.TimeBounds{} }), check: CheckTimeBounds},
		{name: "v2 time bounds ending too late", mutate: v2(func(p *xdr.PreconditionsV2) {
			p.TimeBounds = &xdr.TimeBounds{MaxTime: xdr.TimePoint(now.Add(time.Hour).Unix())}
		}), check: CheckTimeBounds},
		{name: "minSeqNum 0", mutate: v2(func(p *xdr.PreconditionsV2) {
			zero := xdr.SequenceNumber(0)
			p.MinSeqNum = &zero
		}), check: CheckPreconditions},
		{name: "minSeqNum just below", mutate: v2(func(p *xdr.PreconditionsV2) {
			n := xdr.SequenceNumber(41)
			p.MinSeqNum = &n
		}), check: CheckPreconditions},
		{name: "minSeqAge", mutate: v2(func(p *xdr.PreconditionsV2) { p.MinSeqAge = 1 }), check: CheckPreconditions},
		{name: "minSeqLedgerGap", mutate: v2(func(p *xdr.PreconditionsV2) { p.MinSeqLedgerGap = 1 }), check: CheckPreconditions},
		{name: "ledger bounds", mutate: v2(func(p *xdr.PreconditionsV2) { p.LedgerBounds = &xdr.LedgerBounds{MaxLedger: 1 << 31} }), check: CheckPreconditions},
		{name: "empty ledger bounds", mutate: v2(func(p *xdr.PreconditionsV2) { p.LedgerBounds = &xdr.LedgerBounds{} }), check: CheckPreconditions},
		{name: "an extra signer", mutate: v2(func(p *xdr.PreconditionsV2) {
			p.ExtraSigners = []xdr.SignerKey{xdr.MustSigner(stranger.Address())}
		}), check: CheckPreconditions},
		{name: "the wallet as extra signer", mutate: v2(func(p *xdr.PreconditionsV2) {
			p.ExtraSigners = []xdr.SignerKey{xdr.MustSigner(wallet.Address())}
		}), check: CheckPreconditions},
	}
}

func (m mutation) input(t testing.TB) (string, string) {
	pass := network.TestNetworkPassphrase
	switch m.passphrase {
	case "":
	case "-":
		pass = ""
	default:
		pass = m.passphrase
	}
	if m.raw != "" {
		return m.raw, pass
	}
	env := prepared()
	if m.mutate != nil {
		m.mutate(&env)
	}
	return encode(t, env), pass
}

// TestCheck: the transaction as a well-behaved API prepares it (and its harmless variants)
// is accepted; each way of asking the wallet to sign more is refused by the check named.
func TestCheck(t *testing.T) {
	for _, m := range mutations() {
		t.Run(m.name, func(t *testing.T) {
			envB64, pass := m.input(t)
			c, err := Check(envB64, pass, m.policy())
			var r *Refusal
			switch {
			case m.check == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case m.check == "":
				verifyChecked(t, envB64, pass, c)
			case c != nil:
				t.Fatal("a refusal came with a checked transaction")
			case !errors.As(err, &r):
				t.Fatalf("want a refusal by the %s check, got %v", m.check, err)
			case r.Check != m.check:
				t.Fatalf("refused by the %s check (%s), want %s", r.Check, r.Reason, m.check)
			}
		})
	}
}

// TestRefusalFailure: a refusal is UNEXPECTED_TRANSACTION, validation, nothing started or
// changed, never to be retried as is, and its text says nothing was signed or sent.
func TestRefusalFailure(t *testing.T) {
	r := &Refusal{Check: CheckFee, Reason: "its fee of 99999999 stroops is above the cap of 10000000"}
	f := errmap.FromError(r.Failure(errmap.SourceAPI, "the registration transaction"), errmap.Call{Operation: "On-chain registration failed", Tool: "mindvault_register_onchain"})
	d := f.Diagnostic
	if d.Code != "UNEXPECTED_TRANSACTION" || d.Category != "validation" || d.ExecutionStarted || d.StateChanged != "no" || d.Retry != "no" {
		t.Fatalf("diagnostic %+v", d)
	}
	if !strings.Contains(f.Text, "was not signed or sent") || !strings.Contains(f.Text, "fee check") {
		t.Fatalf("text: %s", f.Text)
	}
}

// verifyChecked: what Check returns for an accepted envelope is that envelope, its network
// hash and its call.
func verifyChecked(t *testing.T, envB64, pass string, c *Checked) {
	t.Helper()
	if c == nil {
		t.Fatal("accepted without a checked transaction")
	}
	again, err := xdr.MarshalBase64(c.Envelope)
	if err != nil || again != envB64 {
		t.Fatal("the checked envelope is not the envelope given")
	}
	h, err := network.HashTransactionInEnvelope(c.Envelope, pass)
	if err != nil || h != c.Hash {
		t.Fatal("the checked hash is not the transaction's")
	}
	call := c.Envelope.V1.Tx.Operations[0].Body.InvokeHostFunctionOp.HostFunction.InvokeContract
	if string(call.FunctionName) != c.Function || len(call.Args) != len(c.Args) || c.Fee != int64(c.Envelope.V1.Tx.Fee) || c.Sequence != int64(c.Envelope.V1.Tx.SeqNum) {
		t.Fatalf("checked %s/%d args/fee %d/seq %d do not describe the transaction", c.Function, len(c.Args), c.Fee, c.Sequence)
	}
}

// accepted asserts, independently of Check, every property a transaction Check accepted
// under policy() must have.
func accepted(t *testing.T, envB64 string, testnet bool) {
	t.Helper()
	var env xdr.TransactionEnvelope
	if !testnet || xdr.SafeUnmarshalBase64(envB64, &env) != nil || env.Type != xdr.EnvelopeTypeEnvelopeTypeTx || len(env.V1.Signatures) != 0 {
		t.Fatal("accepted an envelope that is not an unsigned testnet v1 transaction")
	}
	tx := env.V1.Tx
	src := tx.SourceAccount.ToAccountId()
	if src.Address() != wallet.Address() || len(tx.Operations) != 1 || int64(tx.Fee) > 10_000_000 {
		t.Fatalf("accepted a transaction with source %s, %d operations, fee %d", src.Address(), len(tx.Operations), tx.Fee)
	}
	if tx.SeqNum != 42 {
		t.Fatalf("accepted sequence %d, not the account's next (42)", tx.SeqNum)
	}
	if tx.Memo.Type != xdr.MemoTypeMemoNone {
		t.Fatal("accepted a memo")
	}
	tb := tx.Cond.TimeBounds
	switch tx.Cond.Type {
	case xdr.PreconditionTypePrecondTime:
	case xdr.PreconditionTypePrecondV2:
		v := tx.Cond.V2
		if v.MinSeqNum != nil || v.MinSeqAge != 0 || v.MinSeqLedgerGap != 0 || v.LedgerBounds != nil || len(v.ExtraSigners) != 0 {
			t.Fatalf("accepted preconditions beyond time bounds: %+v", v)
		}
		tb = v.TimeBounds
	default:
		t.Fatalf("accepted preconditions of type %d", tx.Cond.Type)
	}
	if tb == nil || tb.MaxTime == 0 || int64(tb.MaxTime) > now.Add(MaxValidity).Unix() {
		t.Fatal("accepted a transaction without a near end")
	}
	op := tx.Operations[0].Body.InvokeHostFunctionOp
	if op == nil || op.HostFunction.InvokeContract == nil {
		t.Fatal("accepted something other than a contract call")
	}
	call := op.HostFunction.InvokeContract
	fn, args := string(call.FunctionName), call.Args
	if id, _ := call.ContractAddress.String(); id != registry || !(fn == "register" && len(args) == 5 || fn == "register_with_hash" && len(args) == 6) {
		t.Fatalf("accepted %s with %d arguments on %s", fn, len(args), id)
	}
	if creator, _ := args[0].GetAddress(); creator.Type != xdr.ScAddressTypeScAddressTypeAccount || creator.AccountId.Address() != wallet.Address() {
		t.Fatal("accepted another creator")
	}
	if id, ok := args[1].GetStr(); !ok || string(id) != resourceID {
		t.Fatal("accepted another id")
	}
	if p, ok := args[2].GetI128(); !ok || p.Hi != 0 || p.Lo != listedPrice {
		t.Fatal("accepted another price than the listed one")
	}
	if m, ok := args[3].GetStr(); !ok || len(m) == 0 || len(m) > 512 || !strings.Contains(string(m), ":") {
		t.Fatal("accepted metadata that is not a pointer")
	}
	tags, ok := args[4].GetVec()
	if !ok || (tags != nil && len(*tags) > 8) {
		t.Fatal("accepted tags that are not a list of at most 8")
	}
	if tags != nil {
		for _, tag := range *tags {
			s, ok := tag.GetStr()
			if t2 := strings.TrimSpace(string(s)); !ok || t2 == "" || len(t2) > 32 || strings.ContainsAny(strings.ToLower(t2), " !.,:/ABCDEFGHIJKLMNOPQRSTUVWXYZ") {
				t.Fatalf("accepted the tag %q", s)
			}
		}
	}
	if fn == "register_with_hash" {
		if h := args[5]; h.Type != xdr.ScValTypeScvVoid {
			if s, ok := h.GetStr(); !ok || len(s) == 0 || len(s) > 128 {
				t.Fatal("accepted a content hash that is neither none nor 1-128 bytes")
			}
		}
	}
	want, _ := call.MarshalBinary()
	for _, a := range op.Auth {
		if len(a.RootInvocation.SubInvocations) != 0 {
			t.Fatal("accepted an authorization with sub-invocations")
		}
		got, _ := a.RootInvocation.Function.ContractFn.MarshalBinary()
		if !bytes.Equal(got, want) {
			t.Fatal("accepted an authorization for another call")
		}
	}
}

// FuzzCheck: Check never panics, and whatever it accepts independently satisfies the
// properties it promises.
func FuzzCheck(f *testing.F) {
	for _, m := range mutations() {
		if m.tweak != nil {
			continue
		}
		env, pass := m.input(f)
		f.Add(env, pass == network.TestNetworkPassphrase)
	}
	f.Fuzz(func(t *testing.T, envB64 string, testnet bool) {
		pass := network.PublicNetworkPassphrase
		if testnet {
			pass = network.TestNetworkPassphrase
		}
		c, err := Check(envB64, pass, policy())
		if err != nil {
			if c != nil {
				t.Fatal("a refusal came with a checked transaction")
			}
			return
		}
		accepted(t, envB64, testnet)
		verifyChecked(t, envB64, pass, c)
	})
}

// FuzzCheckFields mutates the fields a hostile service would play with — the sequence
// number, every precondition, the memo, the fee, the function and each registration
// argument — rather than bytes, so that the fuzzer reaches deep into the checks: whatever
// combination Check accepts has the properties it promises.
func FuzzCheckFields(f *testing.F) {
	// seq, cond (0 none, 1 time, 2 v2), minSeq (<0: unset), minSeqAge, minSeqLedgerGap,
	// ledgerMax (0: no ledger bounds), extraSigner, maxTime offset (s), fn (0 register,
	// 1 register_with_hash, else another), price, metadata, tags (","-separated; "-" none),
	// content hash ("-" none, "#" a number), extra argument, memo, fee.
	f.Add(int64(42), uint8(1), int64(-1), uint64(0), uint32(0), uint32(0), false, int64(300), uint8(0), int64(listedPrice), "ipfs://bafy", "-", "-", false, "", uint32(52_100))
	f.Add(int64(math.MaxInt64-1), uint8(2), int64(0), uint64(0), uint32(0), uint32(0), false, int64(300), uint8(0), int64(listedPrice), "ipfs://bafy", "-", "-", false, "", uint32(52_100))
	f.Add(int64(42), uint8(2), int64(0), uint64(0), uint32(0), uint32(0), false, int64(300), uint8(0), int64(listedPrice), "ipfs://bafy", "-", "-", false, "", uint32(52_100))
	f.Add(int64(42), uint8(2), int64(-1), uint64(5), uint32(3), uint32(100), true, int64(300), uint8(0), int64(listedPrice), "ipfs://bafy", "-", "-", false, "", uint32(52_100))
	f.Add(int64(42), uint8(2), int64(-1), uint64(0), uint32(0), uint32(0), false, int64(0), uint8(1), int64(listedPrice), "sha256:abc", "rust,ai", "sha256:def", false, "", uint32(52_100))
	f.Add(int64(42), uint8(1), int64(-1), uint64(0), uint32(0), uint32(0), false, int64(300), uint8(1), int64(-1), "ipfs://evil", "-", "#", true, "", uint32(52_100))
	f.Add(int64(42), uint8(1), int64(-1), uint64(0), uint32(0), uint32(0), false, int64(300), uint8(0), int64(9_990_000_000), "ipfs://evil", "Not A Tag!", "-", false, "memo", uint32(10_000_001))
	f.Add(int64(43), uint8(0), int64(-1), uint64(0), uint32(0), uint32(0), false, int64(-1), uint8(2), int64(listedPrice), "evil", "a,b,c,d,e,f,g,h,i", "", false, "", uint32(100))
	f.Fuzz(func(t *testing.T, seq int64, cond uint8, minSeq int64, minSeqAge uint64, gap uint32, ledgerMax uint32, extraSigner bool,
		maxOffset int64, fnSel uint8, price int64, metadata, tagList, contentHash string, extraArg bool, memo string, fee uint32) {
		env := prepared()
		t0 := tx(&env)
		t0.SeqNum = xdr.SequenceNumber(seq)
		t0.Fee = xdr.Uint32(fee)
		tb := &xdr.TimeBounds{MaxTime: xdr.TimePoint(now.Unix() + maxOffset%100_000)}
		switch cond % 3 {
		case 0:
			t0.Cond = xdr.Preconditions{Type: xdr.PreconditionTypePrecondNone}
		case 1:
			t0.Cond = xdr.Preconditions{Type: xdr.PreconditionTypePrecondTime, TimeBounds: tb}
		default:
			p := xdr.PreconditionsV2{TimeBounds: tb, MinSeqAge: xdr.Duration(minSeqAge), MinSeqLedgerGap: xdr.Uint32(gap)}
			if minSeq >= 0 {
				n := xdr.SequenceNumber(minSeq)
				p.MinSeqNum = &n
			}
			if ledgerMax != 0 {
				p.LedgerBounds = &xdr.LedgerBounds{MaxLedger: xdr.Uint32(ledgerMax)}
			}
			if extraSigner {
				p.ExtraSigners = []xdr.SignerKey{xdr.MustSigner(stranger.Address())}
			}
			t0.Cond = xdr.Preconditions{Type: xdr.PreconditionTypePrecondV2, V2: &p}
		}
		if memo != "" {
			if len(memo) > 28 {
				memo = memo[:28]
			}
			t0.Memo = xdr.Memo{Type: xdr.MemoTypeMemoText, Text: &memo}
		}
		tags := vec()
		if tagList != "-" {
			tags = strs(strings.Split(tagList, ",")...)
		}
		args := []xdr.ScVal{accountVal(wallet.Address()), str(resourceID), i128(price), str(metadata), tags}
		fn := map[uint8]string{0: "register", 1: "register_with_hash"}[fnSel%3]
		if fn == "" {
			fn = "register_with_memo"
		}
		if fn != "register" {
			switch contentHash {
			case "-":
				args = append(args, void())
			case "#":
				args = append(args, i128(int64(len(contentHash))))
			default:
				args = append(args, str(contentHash))
			}
		}
		if extraArg {
			args = append(args, void())
		}
		setCall(&env, fn, args...)
		b64, err := xdr.MarshalBase64(env)
		if err != nil {
			return // not encodable (an over-long string): no service could send it either
		}
		c, err := Check(b64, network.TestNetworkPassphrase, policy())
		if err != nil {
			var r *Refusal
			if !errors.As(err, &r) || c != nil {
				t.Fatalf("want a bare refusal, got %v", err)
			}
			return
		}
		accepted(t, b64, true)
		verifyChecked(t, b64, network.TestNetworkPassphrase, c)
	})
}
