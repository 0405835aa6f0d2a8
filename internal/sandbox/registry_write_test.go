package sandbox

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stellar/go-stellar-sdk/keypair"
	"github.com/stellar/go-stellar-sdk/network"
	protocol "github.com/stellar/go-stellar-sdk/protocols/rpc"
	"github.com/stellar/go-stellar-sdk/txnbuild"
	"github.com/stellar/go-stellar-sdk/xdr"

	"github.com/mindvault/mcp-endpoint/internal/clients/soroban"
)

// sequence reads an account's sequence number from Horizon, as the registry client does.
func sequence(t *testing.T, sb *Sandbox, addr string) int64 {
	t.Helper()
	var a struct{ Sequence string }
	mustJSON(t, get(t, sb.HorizonURL+"/accounts/"+addr).body, &a)
	n, err := strconv.ParseInt(a.Sequence, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// assemble is the registry client's write: simulate with the wallet as source, attach the
// simulated auth and transactionData (fee = 100 + minResourceFee), sign.
func assemble(t *testing.T, sb *Sandbox, acct Account, fn string, args ...xdr.ScVal) *txnbuild.Transaction {
	t.Helper()
	seq := sequence(t, sb, acct.Address)
	var sim protocol.SimulateTransactionResponse
	rpcResult(t, sb, "simulateTransaction", protocol.SimulateTransactionRequest{
		Transaction: b64(t, buildInvoke(t, sb, acct.Address, seq, fn, args, nil, nil))}, &sim)
	if sim.Error != "" || len(sim.Results) != 1 || sim.Results[0].AuthXDR == nil || len(*sim.Results[0].AuthXDR) != 1 {
		t.Fatalf("%s simulation: %+v", fn, sim)
	}
	var data xdr.SorobanTransactionData
	if err := xdr.SafeUnmarshalBase64(sim.TransactionDataXDR, &data); err != nil || len(data.Resources.Footprint.ReadWrite) == 0 {
		t.Fatalf("transactionData %v %+v", err, data)
	}
	var auth xdr.SorobanAuthorizationEntry
	if err := xdr.SafeUnmarshalBase64((*sim.Results[0].AuthXDR)[0], &auth); err != nil {
		t.Fatal(err)
	}
	root := auth.RootInvocation.Function.MustContractFn()
	if auth.Credentials.Type != xdr.SorobanCredentialsTypeSorobanCredentialsSourceAccount || string(root.FunctionName) != fn ||
		len(root.Args) != len(args) || len(auth.RootInvocation.SubInvocations) != 0 {
		t.Fatalf("auth entry %+v", auth)
	}
	return sign(t, sb, buildInvoke(t, sb, acct.Address, seq, fn, args, []xdr.SorobanAuthorizationEntry{auth}, &data), acct)
}

func sign(t *testing.T, sb *Sandbox, tx *txnbuild.Transaction, acct Account) *txnbuild.Transaction {
	t.Helper()
	tx, err := tx.Sign(sb.Passphrase, keypair.MustParseFull(acct.Secret))
	if err != nil {
		t.Fatal(err)
	}
	return tx
}

func send(t *testing.T, sb *Sandbox, envelope string) protocol.SendTransactionResponse {
	t.Helper()
	var r protocol.SendTransactionResponse
	rpcResult(t, sb, "sendTransaction", protocol.SendTransactionRequest{Transaction: envelope}, &r)
	if len(r.Hash) != 64 || r.LatestLedger == 0 {
		t.Fatalf("sendTransaction %+v", r)
	}
	return r
}

func txStatus(t *testing.T, sb *Sandbox, hash string) protocol.GetTransactionResponse {
	t.Helper()
	var g protocol.GetTransactionResponse
	rpcResult(t, sb, "getTransaction", protocol.GetTransactionRequest{Hash: hash}, &g)
	return g
}

func hashOf(t *testing.T, sb *Sandbox, tx *txnbuild.Transaction) string {
	t.Helper()
	h, err := tx.HashHex(sb.Passphrase)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// submit sends a signed transaction, checks it is NOT_FOUND until applied a second later,
// and returns its final getTransaction.
func submit(t *testing.T, sb *Sandbox, clk *clock, tx *txnbuild.Transaction) protocol.GetTransactionResponse {
	t.Helper()
	r := send(t, sb, b64(t, tx))
	if r.Status != "PENDING" || r.Hash != hashOf(t, sb, tx) || r.ErrorResultXDR != "" {
		t.Fatalf("send %+v", r)
	}
	if g := txStatus(t, sb, r.Hash); g.Status != protocol.TransactionStatusNotFound {
		t.Fatalf("applied before its time: %+v", g)
	}
	clk.advance(time.Second)
	g := txStatus(t, sb, r.Hash)
	if g.Status == protocol.TransactionStatusNotFound || g.Ledger == 0 || g.Ledger > g.LatestLedger || g.EnvelopeXDR != b64(t, tx) ||
		g.TransactionHash != r.Hash || g.ApplicationOrder < 1 {
		t.Fatalf("getTransaction after 1 s: %+v", g)
	}
	return g
}

func resultOf(t *testing.T, g protocol.GetTransactionResponse) (xdr.TransactionResultCode, xdr.InvokeHostFunctionResultCode) {
	t.Helper()
	var res xdr.TransactionResult
	if err := xdr.SafeUnmarshalBase64(g.ResultXDR, &res); err != nil || res.Result.Results == nil || res.FeeCharged <= 100 {
		t.Fatalf("resultXdr %v %+v", err, res)
	}
	var meta xdr.TransactionMeta
	if err := xdr.SafeUnmarshalBase64(g.ResultMetaXDR, &meta); err != nil || meta.V != 4 {
		t.Fatalf("resultMetaXdr %v", err)
	}
	return res.Result.Code, (*res.Result.Results)[0].Tr.InvokeHostFunctionResult.Code
}

// diagnosticError finds the error topic of a failed transaction's diagnostic events.
func diagnosticError(t *testing.T, g protocol.GetTransactionResponse) string {
	t.Helper()
	for _, raw := range g.DiagnosticEventsXDR {
		var ev xdr.DiagnosticEvent
		if err := xdr.SafeUnmarshalBase64(raw, &ev); err != nil {
			t.Fatal(err)
		}
		if topics := ev.Event.Body.V0.Topics; len(topics) == 2 && topics[1].Type == xdr.ScValTypeScvError {
			return errorText(*topics[1].Error)
		}
	}
	t.Fatalf("no error event in %v", g.DiagnosticEventsXDR)
	return ""
}

func TestRegistryWritesByCreator(t *testing.T) {
	sb, clk := start(t, "")
	creator, _ := sb.Account("creator")
	tests := []struct {
		fn    string
		args  []xdr.ScVal
		check func(r RegistryEntry) bool
	}{
		{"set_price", []xdr.ScVal{soroban.Str("rustguide"), scI128(3_2500000)}, func(r RegistryEntry) bool { return r.Price == 3_2500000 }},
		{"update_metadata", []xdr.ScVal{soroban.Str("rustguide"), soroban.Str("ar://newpointer")}, func(r RegistryEntry) bool { return r.Metadata == "ar://newpointer" }},
		{"set_tags", []xdr.ScVal{soroban.Str("rustguide"), soroban.StrVec([]string{"Go", " ai ", "go"})}, func(r RegistryEntry) bool { return slices.Equal(r.Tags, []string{"go", "ai"}) }},
		{"set_listed", []xdr.ScVal{soroban.Str("rustguide"), soroban.Bool(false)}, func(r RegistryEntry) bool { return !r.Listed }},
		{"set_listed", []xdr.ScVal{soroban.Str("rustguide"), soroban.Bool(false)}, func(r RegistryEntry) bool { return !r.Listed }}, // a no-op succeeds
		{"transfer_ownership", []xdr.ScVal{soroban.Str("rustguide"), scAddress(sb.Demo.Address)}, func(r RegistryEntry) bool { return r.Creator == sb.Demo.Address }},
	}
	for i, tt := range tests {
		t.Run(fmt.Sprint(i, tt.fn), func(t *testing.T) {
			before, _ := sb.RegistryResource("rustguide")
			seq := sequence(t, sb, creator.Address)
			tx := assemble(t, sb, creator, tt.fn, tt.args...)
			r := send(t, sb, b64(t, tx))
			if after, _ := sb.RegistryResource("rustguide"); r.Status != "PENDING" || fmt.Sprint(after) != fmt.Sprint(before) {
				t.Fatalf("the state changed before the transaction applied: %+v", r)
			}
			clk.advance(time.Second)
			g := txStatus(t, sb, r.Hash)
			if code, op := resultOf(t, g); g.Status != protocol.TransactionStatusSuccess || code != xdr.TransactionResultCodeTxSuccess ||
				op != xdr.InvokeHostFunctionResultCodeInvokeHostFunctionSuccess {
				t.Fatalf("%+v", g)
			}
			after, _ := sb.RegistryResource("rustguide")
			if !tt.check(after) || after.UpdatedAt != uint64(sb.closeTime(g.Ledger)) || after.CreatedAt != before.CreatedAt {
				t.Fatalf("after %s: %+v", tt.fn, after)
			}
			if got := sequence(t, sb, creator.Address); got != seq+1 {
				t.Fatalf("Horizon sequence %d, want %d", got, seq+1)
			}
		})
	}
	// The new owner reads back through get, and the old one can no longer write.
	_, m := fields(t, read(t, sb, "get", soroban.Str("rustguide")))
	if owner, _ := m["creator"].Address.String(); owner != sb.Demo.Address {
		t.Fatalf("owner %s", owner)
	}
	wantContractError(t, simError(t, sb, creator.Address, "set_price", soroban.Str("rustguide"), scI128(1)), errUnauthorized)

	t.Run("register", func(t *testing.T) {
		args := []xdr.ScVal{scAddress(sb.Demo.Address), soroban.Str("sorobanaudit"), scI128(4_9900000), soroban.Str("ipfs://bafyaudit"), soroban.StrVec([]string{"Soroban", "audit"})}
		g := submit(t, sb, clk, assemble(t, sb, sb.Demo, "register", args...))
		r, ok := sb.RegistryResource("sorobanaudit")
		if g.Status != protocol.TransactionStatusSuccess || !ok || r.Creator != sb.Demo.Address || r.Price != 4_9900000 ||
			!r.Listed || r.Verified || !slices.Equal(r.Tags, []string{"soroban", "audit"}) {
			t.Fatalf("%+v %+v", g, r)
		}
		if ids := sb.RegistryIDs(); ids[len(ids)-1] != "sorobanaudit" || read(t, sb, "count").MustU32() != 8 {
			t.Fatalf("ids %v", ids)
		}
		wantContractError(t, simError(t, sb, sb.Demo.Address, "register", args...), errAlreadyRegistered)
	})
}

func TestRegistryWriteFailures(t *testing.T) {
	sb, clk := start(t, "")
	creator, _ := sb.Account("creator")
	demo := sb.Demo
	data := sorobanData(nil, []xdr.LedgerKey{sb.world.reg.resourceKey("stellarcheatsheet")}, true)
	// handmade builds a signed set_price by from on a resource it may not own, as a client that
	// skips simulation would.
	handmade := func(from Account, seq int64, price int64, auth bool) *txnbuild.Transaction {
		args := []xdr.ScVal{soroban.Str("stellarcheatsheet"), scI128(price)}
		var entries []xdr.SorobanAuthorizationEntry
		if auth {
			tx := buildInvoke(t, sb, from.Address, 0, "set_price", args, nil, nil)
			entries = []xdr.SorobanAuthorizationEntry{sourceAccountAuth(*tx.ToXDR().V1.Tx.Operations[0].Body.InvokeHostFunctionOp.HostFunction.InvokeContract)}
		}
		return sign(t, sb, buildInvoke(t, sb, from.Address, seq, "set_price", args, entries, &data), from)
	}

	t.Run("not the creator", func(t *testing.T) {
		wantContractError(t, simError(t, sb, demo.Address, "set_price", soroban.Str("stellarcheatsheet"), scI128(1)), errUnauthorized)
		seq := sequence(t, sb, demo.Address)
		g := submit(t, sb, clk, handmade(demo, seq, 1, true))
		code, op := resultOf(t, g)
		if g.Status != protocol.TransactionStatusFailed || code != xdr.TransactionResultCodeTxFailed ||
			op != xdr.InvokeHostFunctionResultCodeInvokeHostFunctionTrapped || diagnosticError(t, g) != "Error(Contract, #6)" {
			t.Fatalf("%+v", g)
		}
		if r, _ := sb.RegistryResource("stellarcheatsheet"); r.Price != 25*stroops {
			t.Fatalf("a failed write changed the price: %+v", r)
		}
		if sequence(t, sb, demo.Address) != seq+1 {
			t.Fatal("a failed transaction still uses its sequence number")
		}
	})
	t.Run("no auth entry", func(t *testing.T) {
		g := submit(t, sb, clk, handmade(creator, sequence(t, sb, creator.Address), 7, false))
		if g.Status != protocol.TransactionStatusFailed || diagnosticError(t, g) != "Error(Auth, InvalidAction)" {
			t.Fatalf("%+v", g)
		}
	})

	rejected := func(t *testing.T, envelope string, want xdr.TransactionResultCode) {
		t.Helper()
		r := send(t, sb, envelope)
		var res xdr.TransactionResult
		if r.Status != "ERROR" || xdr.SafeUnmarshalBase64(r.ErrorResultXDR, &res) != nil || res.Result.Code != want {
			t.Fatalf("want ERROR %v, got %+v (%v)", want, r, res.Result.Code)
		}
		if g := txStatus(t, sb, r.Hash); g.Status != protocol.TransactionStatusNotFound {
			t.Fatalf("a rejected transaction is known: %+v", g)
		}
	}
	t.Run("rejected before applying", func(t *testing.T) {
		seq := sequence(t, sb, creator.Address)
		wrongKey := handmade(creator, seq, 9, true)
		wrongKey, _ = wrongKey.ClearSignatures()
		rejected(t, b64(t, sign(t, sb, wrongKey, demo)), xdr.TransactionResultCodeTxBadAuth)
		unsigned, _ := handmade(creator, seq, 9, true).ClearSignatures()
		rejected(t, b64(t, unsigned), xdr.TransactionResultCodeTxBadAuth)
		rejected(t, b64(t, handmade(creator, seq+3, 9, true)), xdr.TransactionResultCodeTxBadSeq)
		rejected(t, b64(t, handmade(creator, seq-1, 9, true)), xdr.TransactionResultCodeTxBadSeq)

		env := handmade(creator, seq, 9, true).ToXDR()
		env.V1.Tx.Fee = 100 + xdr.Uint32(data.ResourceFee) - 1
		rejected(t, signEnv(t, sb, env, creator), xdr.TransactionResultCodeTxInsufficientFee)
		env.V1.Tx.Fee, env.V1.Tx.Ext = 100+xdr.Uint32(data.ResourceFee), xdr.TransactionExt{}
		rejected(t, signEnv(t, sb, env, creator), xdr.TransactionResultCodeTxMalformed)

		kp, _ := seedKey("missing")
		missing, _ := sb.Account("missing")
		missing.Secret = kp.Seed()
		rejected(t, b64(t, handmade(missing, 0, 9, true)), xdr.TransactionResultCodeTxNoAccount)
		if r, _ := sb.RegistryResource("stellarcheatsheet"); r.Price != 25*stroops || sequence(t, sb, creator.Address) != seq {
			t.Fatal("a rejected transaction changed something")
		}
		r := rpcPost(t, sb, rpcBody("sendTransaction", map[string]string{"transaction": "not-xdr"}))
		if !strings.Contains(string(r.body), `"code":-32602`) {
			t.Fatalf("bad xdr: %s", r.body)
		}
	})
	t.Run("duplicate and one per account", func(t *testing.T) {
		seq := sequence(t, sb, creator.Address)
		tx := assemble(t, sb, creator, "set_price", soroban.Str("stellarcheatsheet"), scI128(26*stroops))
		first := send(t, sb, b64(t, tx))
		again := send(t, sb, b64(t, tx))
		if first.Status != "PENDING" || again.Status != "DUPLICATE" || again.Hash != first.Hash {
			t.Fatalf("%+v then %+v", first, again)
		}
		// Another transaction from the same account waits until the first is applied.
		other := assemble(t, sb, creator, "set_price", soroban.Str("stellarcheatsheet"), scI128(27*stroops))
		if r := send(t, sb, b64(t, other)); r.Status != "TRY_AGAIN_LATER" {
			t.Fatalf("second transaction from one account: %+v", r)
		}
		clk.advance(time.Second)
		if g := txStatus(t, sb, first.Hash); g.Status != protocol.TransactionStatusSuccess {
			t.Fatalf("%+v", g)
		}
		// Applied: the same envelope now has a used sequence number, and the state changed once.
		var res xdr.TransactionResult
		if r := send(t, sb, b64(t, tx)); r.Status != "ERROR" || r.Hash != first.Hash ||
			xdr.SafeUnmarshalBase64(r.ErrorResultXDR, &res) != nil || res.Result.Code != xdr.TransactionResultCodeTxBadSeq {
			t.Fatalf("resent after applying: %+v", r)
		}
		rejected(t, b64(t, other), xdr.TransactionResultCodeTxBadSeq)
		if r, _ := sb.RegistryResource("stellarcheatsheet"); r.Price != 26*stroops || sequence(t, sb, creator.Address) != seq+1 {
			t.Fatalf("%+v", r)
		}
	})
}

func signEnv(t *testing.T, sb *Sandbox, env xdr.TransactionEnvelope, acct Account) string {
	t.Helper()
	h, err := network.HashTransactionInEnvelope(env, sb.Passphrase)
	if err != nil {
		t.Fatal(err)
	}
	sig, err := keypair.MustParseFull(acct.Secret).SignDecorated(h[:])
	if err != nil {
		t.Fatal(err)
	}
	env.V1.Signatures = []xdr.DecoratedSignature{sig}
	s, _ := xdr.MarshalBase64(env)
	return s
}

// Every validation rule answers its contract error number in simulation.
func TestRegistryValidation(t *testing.T) {
	sb, _ := start(t, "")
	creator, _ := sb.Account("creator")
	c := creator.Address
	reg := func(id string, price int64, metadata string, tags ...string) []xdr.ScVal {
		return []xdr.ScVal{scAddress(c), soroban.Str(id), scI128(price), soroban.Str(metadata), soroban.StrVec(tags)}
	}
	nine := strings.Split("a b c d e f g h i", " ")
	tests := []struct {
		name string
		fn   string
		args []xdr.ScVal
		want int
	}{
		{"already registered", "register", reg("rustguide", 1, "ipfs://x"), errAlreadyRegistered},
		{"missing", "set_price", []xdr.ScVal{soroban.Str("nosuchid"), scI128(1)}, errNotFound},
		{"zero price", "register", reg("newone", 0, "ipfs://x"), errInvalidPrice},
		{"negative price", "set_price", []xdr.ScVal{soroban.Str("zkprimer"), {Type: xdr.ScValTypeScvI128, I128: &xdr.Int128Parts{Hi: -1, Lo: ^xdr.Uint64(0)}}}, errInvalidPrice},
		{"price above max", "set_price", []xdr.ScVal{soroban.Str("zkprimer"), scI128(maxPrice + 1)}, errPriceExceedsMax},
		{"metadata too long", "update_metadata", []xdr.ScVal{soroban.Str("zkprimer"), soroban.Str("ipfs://" + strings.Repeat("a", 506))}, errMetadataTooLong},
		{"bad tag", "set_tags", []xdr.ScVal{soroban.Str("zkprimer"), soroban.StrVec([]string{"ok", "not ok!"})}, errInvalidTag},
		{"empty tag", "register", reg("newone", 1, "ipfs://x", " "), errInvalidTag},
		{"long tag", "set_tags", []xdr.ScVal{soroban.Str("zkprimer"), soroban.StrVec([]string{strings.Repeat("t", 33)})}, errInvalidTag},
		{"nine tags", "set_tags", []xdr.ScVal{soroban.Str("zkprimer"), soroban.StrVec(nine)}, errInvalidTag},
		{"register for someone else", "register", []xdr.ScVal{scAddress(sb.Demo.Address), soroban.Str("newone"), scI128(1), soroban.Str("ipfs://x"), soroban.StrVec(nil)}, errUnauthorized},
		{"not the creator", "set_listed", []xdr.ScVal{soroban.Str("llmprompts"), soroban.Bool(false)}, errUnauthorized},
		{"uppercase id", "register", reg("NewOne", 1, "ipfs://x"), errInvalidResourceID},
		{"id with a dash", "register", reg("new-one", 1, "ipfs://x"), errInvalidResourceID},
		{"empty id", "register", reg("", 1, "ipfs://x"), errInvalidResourceID},
		{"id too long", "register", reg(strings.Repeat("a", 25), 1, "ipfs://x"), errInvalidResourceID},
		{"not a pointer", "update_metadata", []xdr.ScVal{soroban.Str("zkprimer"), soroban.Str(`{"title":"x"}`)}, errInvalidMetadataPointer},
		{"pointer prefix is case-sensitive", "register", reg("newone", 1, "IPFS://x"), errInvalidMetadataPointer},
		{"empty metadata", "update_metadata", []xdr.ScVal{soroban.Str("zkprimer"), soroban.Str("")}, errEmptyMetadata},
		{"transfer to the owner", "transfer_ownership", []xdr.ScVal{soroban.Str("zkprimer"), scAddress(c)}, errAlreadyOwner},
		{"reserved id", "register", reg("admin", 1, "ipfs://x"), errReservedID},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantContractError(t, simError(t, sb, c, tt.fn, tt.args...), tt.want)
		})
	}
	// The limits themselves are accepted.
	ok := []struct {
		fn   string
		args []xdr.ScVal
	}{
		{"register", reg(strings.Repeat("a", 24), maxPrice, "sha256:"+strings.Repeat("f", 505), nine[:8]...)},
		{"set_tags", []xdr.ScVal{soroban.Str("zkprimer"), soroban.StrVec([]string{strings.Repeat("t", 32), "a-b_c"})}},
		{"update_metadata", []xdr.ScVal{soroban.Str("zkprimer"), soroban.Str("0xabc")}},
	}
	for _, tt := range ok {
		if sim := simulate(t, sb, c, tt.fn, tt.args...); sim.Error != "" {
			t.Errorf("%s: %s", tt.fn, sim.Error)
		}
	}
	if _, ok := sb.RegistryResource(strings.Repeat("a", 24)); ok {
		t.Fatal("a simulation changed the state")
	}
}

// The API's registrar may register a resource for any creator, which is how the API registers
// without the publisher's signature; it is not the creator of anything it registered, so
// every other write stays the creator's (#6 for the registrar).
func TestRegistrarRegistersOnly(t *testing.T) {
	sb, _ := start(t, "")
	registrar, _ := sb.Account("registrar")
	creator, _ := sb.Account("creator")
	args := []xdr.ScVal{scAddress(creator.Address), soroban.Str("forcreator"), scI128(1), soroban.Str("ipfs://x"), soroban.StrVec(nil)}
	if sim := simulate(t, sb, registrar.Address, "register", args...); sim.Error != "" {
		t.Fatalf("register by the registrar: %s", sim.Error)
	}
	for _, tc := range []struct {
		fn   string
		args []xdr.ScVal
	}{
		{"set_price", []xdr.ScVal{soroban.Str("zkprimer"), scI128(1)}},
		{"set_listed", []xdr.ScVal{soroban.Str("zkprimer"), soroban.Bool(false)}},
		{"transfer_ownership", []xdr.ScVal{soroban.Str("zkprimer"), scAddress(registrar.Address)}},
	} {
		wantContractError(t, simError(t, sb, registrar.Address, tc.fn, tc.args...), errUnauthorized)
	}
}

// TestApplyDelay: an accepted transaction stays NOT_FOUND until Options.ApplyDelay has passed
// on the sandbox's clock (DefaultApplyDelay when unset), then applies.
func TestApplyDelay(t *testing.T) {
	for _, tc := range []struct {
		name  string
		delay time.Duration // Options.ApplyDelay
		want  time.Duration // when the transaction applies
	}{{"default", 0, DefaultApplyDelay}, {"shortened", 50 * time.Millisecond, 50 * time.Millisecond}} {
		t.Run(tc.name, func(t *testing.T) {
			clk := &clock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
			sb, err := Start(Options{Now: clk.now, ApplyDelay: tc.delay})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(sb.Close)
			creator, _ := sb.Account("creator")
			r := send(t, sb, b64(t, assemble(t, sb, creator, "set_price", soroban.Str("rustguide"), scI128(4_0000000))))
			clk.advance(tc.want - time.Millisecond)
			if g := txStatus(t, sb, r.Hash); g.Status != protocol.TransactionStatusNotFound {
				t.Fatalf("applied before %v: %+v", tc.want, g)
			}
			clk.advance(time.Millisecond)
			if g := txStatus(t, sb, r.Hash); g.Status != protocol.TransactionStatusSuccess {
				t.Fatalf("not applied after %v: %+v", tc.want, g)
			}
		})
	}
}
