package txcheck

import (
	"errors"
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

const resourceID = "r0123456789abcdef"

func contractID(b byte) string {
	var raw [32]byte
	raw[0] = b
	id, _ := strkey.Encode(strkey.VersionByteContract, raw[:])
	return id
}

func policy() Policy {
	return Policy{
		Passphrase: network.TestNetworkPassphrase, Signer: wallet.Address(), Contract: registry,
		Functions: []string{"register", "register_with_hash"}, Args: Register(wallet.Address(), resourceID),
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

func i128(n int64) xdr.ScVal {
	p := xdr.Int128Parts{Lo: xdr.Uint64(big.NewInt(n).Uint64())}
	return xdr.ScVal{Type: xdr.ScValTypeScvI128, I128: &p}
}

func vec() xdr.ScVal {
	v := &xdr.ScVec{}
	return xdr.ScVal{Type: xdr.ScValTypeScvVec, Vec: &v}
}

func registerCall(contract, creator, id string) xdr.InvokeContractArgs {
	return xdr.InvokeContractArgs{ContractAddress: contractAddr(contract), FunctionName: "register",
		Args: []xdr.ScVal{accountVal(creator), str(id), i128(15_000_000), str("ipfs://bafy"), vec()}}
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

type mutation struct {
	name       string
	passphrase string // "" = testnet
	mutate     func(env *xdr.TransactionEnvelope)
	raw        string // replaces the encoded envelope when set
	check      string // "" = accepted
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
		{name: "register_with_hash", mutate: func(e *xdr.TransactionEnvelope) {
			call := xdr.InvokeContractArgs{ContractAddress: contractAddr(registry), FunctionName: "register_with_hash",
				Args: []xdr.ScVal{accountVal(wallet.Address()), str(resourceID), str("sha256:abc")}}
			e.V1.Tx.Operations = []xdr.Operation{invokeOp(call, sourceAuth(call))}
		}},
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
		{name: "another source account", mutate: func(e *xdr.TransactionEnvelope) {
			tx(e).SourceAccount = xdr.MustMuxedAddress(stranger.Address())
		}, check: CheckSource},
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
			err := Check(envB64, pass, policy())
			var r *Refusal
			switch {
			case m.check == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case m.check == "":
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

// FuzzCheck: Check never panics, and whatever it accepts independently satisfies the
// properties it promises.
func FuzzCheck(f *testing.F) {
	for _, m := range mutations() {
		env, pass := m.input(f)
		f.Add(env, pass == network.TestNetworkPassphrase)
	}
	f.Fuzz(func(t *testing.T, envB64 string, testnet bool) {
		pass := network.PublicNetworkPassphrase
		if testnet {
			pass = network.TestNetworkPassphrase
		}
		if Check(envB64, pass, policy()) != nil {
			return
		}
		var env xdr.TransactionEnvelope
		if !testnet || xdr.SafeUnmarshalBase64(envB64, &env) != nil || env.Type != xdr.EnvelopeTypeEnvelopeTypeTx {
			t.Fatal("accepted an envelope that is not a testnet v1 transaction")
		}
		tx := env.V1.Tx
		src := tx.SourceAccount.ToAccountId()
		if src.Address() != wallet.Address() || len(tx.Operations) != 1 || int64(tx.Fee) > 10_000_000 {
			t.Fatalf("accepted a transaction with source %s, %d operations, fee %d", src.Address(), len(tx.Operations), tx.Fee)
		}
		tb := tx.Cond.TimeBounds
		if tx.Cond.V2 != nil {
			tb = tx.Cond.V2.TimeBounds
		}
		if tb == nil || tb.MaxTime == 0 || int64(tb.MaxTime) > now.Add(MaxValidity).Unix() {
			t.Fatal("accepted a transaction without a near end")
		}
		op := tx.Operations[0].Body.InvokeHostFunctionOp
		if op == nil || op.HostFunction.InvokeContract == nil {
			t.Fatal("accepted something other than a contract call")
		}
		for _, a := range op.Auth {
			if len(a.RootInvocation.SubInvocations) != 0 {
				t.Fatal("accepted an authorization with sub-invocations")
			}
		}
	})
}
