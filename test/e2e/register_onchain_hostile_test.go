package e2e_test

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"math"
	"math/big"
	"strings"
	"testing"

	"github.com/stellar/go-stellar-sdk/network"
	"github.com/stellar/go-stellar-sdk/xdr"

	"github.com/mindvault/mcp-endpoint/internal/clients/soroban"
	"github.com/mindvault/mcp-endpoint/internal/sandbox"
)

// The tests below play a hostile MindVault API: its prepare route answers a transaction the
// test built with the Stellar SDK, and nothing the API prepares may be signed unless it is
// exactly the registration the user asked for (and, when asked, approved).

// seededUnregistered is a verified resource of the demo wallet that is not on chain yet:
// its registration was never received by the network, so it may be registered (3.00 USDC).
const seededUnregistered = "agentpromptpack"

// withDemoKey gives the demo profile the demo publisher's API key.
func withDemoKey(e *env) {
	e.t.Helper()
	demo, _ := e.b.Deps.Store.Get(context.Background(), "demo")
	demo.APIKey = e.sb.DemoAPIKey
	if err := e.b.Deps.Store.Update(context.Background(), demo); err != nil {
		e.t.Fatal(err)
	}
}

// copyEnvelope is a deep copy of env.
func copyEnvelope(t *testing.T, env xdr.TransactionEnvelope) xdr.TransactionEnvelope {
	t.Helper()
	raw, err := env.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var out xdr.TransactionEnvelope
	if err := out.UnmarshalBinary(raw); err != nil {
		t.Fatal(err)
	}
	return out
}

// invocation is the prepared transaction's contract call.
func invocation(env *xdr.TransactionEnvelope) *xdr.InvokeContractArgs {
	return env.V1.Tx.Operations[0].Body.InvokeHostFunctionOp.HostFunction.InvokeContract
}

// setCall makes the transaction call fn(args) and authorises exactly that call, as a
// consistent (if hostile) API would, so only the call itself can be refused.
func setCall(env *xdr.TransactionEnvelope, fn string, args ...xdr.ScVal) {
	op := env.V1.Tx.Operations[0].Body.InvokeHostFunctionOp
	call := *op.HostFunction.InvokeContract
	call.FunctionName = xdr.ScSymbol(fn)
	call.Args = args
	op.HostFunction.InvokeContract = &call
	for i := range op.Auth {
		c := call
		op.Auth[i].RootInvocation.Function.ContractFn = &c
	}
}

// args is a copy of the prepared call's arguments, to change some of them.
func args(env *xdr.TransactionEnvelope) []xdr.ScVal {
	return append([]xdr.ScVal(nil), invocation(env).Args...)
}

func scI128(n *big.Int) xdr.ScVal {
	v, err := soroban.I128(n)
	if err != nil {
		panic(err)
	}
	return v
}

func scAccount(g string) xdr.ScVal {
	v, err := soroban.Account(g)
	if err != nil {
		panic(err)
	}
	return v
}

// envelopeHash is the hash of the transaction in env, which signatures do not change.
func envelopeHash(t *testing.T, env xdr.TransactionEnvelope, passphrase string) string {
	t.Helper()
	h, err := network.HashTransactionInEnvelope(env, passphrase)
	if err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h[:])
}

// refusedUnsigned asserts an UNEXPECTED_TRANSACTION refusal by the named check with nothing
// signed or sent: no registration reached the API and no transaction the RPC.
func refusedUnsigned(e *env, tool string, r result, check string) {
	e.t.Helper()
	e.fails(tool, r, failure{category: "validation", code: "UNEXPECTED_TRANSACTION", source: "api", retry: "no"})
	if r.Meta.Diag == nil || r.Meta.Diag.ExecutionStarted || len(r.Content) == 0 || !strings.Contains(r.Content[0].Text, "not signed or sent") ||
		!strings.Contains(r.Content[0].Text, "("+check+" check)") {
		e.t.Errorf("want a refusal by the %s check with nothing started: %s", check, r.raw)
	}
	noSubmission(e)
}

// noSubmission asserts that neither the API nor the RPC received a transaction.
func noSubmission(e *env) {
	e.t.Helper()
	if n := e.sb.Count("api", "POST /resources/*/register"); n != 0 {
		e.t.Fatalf("the API received %d registration submissions", n)
	}
	if n := e.sb.Count("rpc", "sendTransaction"); n != 0 {
		e.t.Fatalf("the RPC received %d transactions", n)
	}
}

type hostileCase struct {
	name   string
	check  string // the txcheck check that must refuse it
	mutate func(env *xdr.TransactionEnvelope)
}

// runHostile serves each case's transaction (base changed by mutate) from the prepare route
// and asserts that mindvault_register_onchain refuses it unsigned; then the genuine base is
// signed and registers.
func runHostile(t *testing.T, e *env, id string, base xdr.TransactionEnvelope, passphrase string, cases []hostileCase) {
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := e.in(t)
			env := copyEnvelope(t, base)
			tc.mutate(&env)
			servePrepared(e, env, passphrase)
			refusedUnsigned(e, "mindvault_register_onchain", e.call("mindvault_register_onchain", `{"resourceId":"`+id+`"}`), tc.check)
		})
	}
	t.Run("the genuine transaction is signed and registers", func(t *testing.T) {
		e := e.in(t)
		servePrepared(e, base, passphrase)
		out := e.ok("mindvault_register_onchain", e.call("mindvault_register_onchain", `{"resourceId":"`+id+`"}`))
		if out["onchainStatus"] != "registered" || e.sb.Count("api", "POST /resources/*/register") != 1 {
			t.Fatalf("register_onchain: %v", out)
		}
	})
}

// TestRegisterOnchainRefusesAFrozenSequence: the signature covers the sequence number and the
// preconditions, so a prepared transaction whose sequence is not the account's next one (the
// red team's 2^63-2 would leave the account unable to sign anything ever again), or which
// carries any precondition beyond near time bounds, is refused unsigned.
func TestRegisterOnchainRefusesAFrozenSequence(t *testing.T) {
	e := newEnv(t, nil)
	withDemoKey(e)
	base, passphrase := genuinePrepared(e, seededUnregistered)
	seq := base.V1.Tx.SeqNum
	other, _ := e.sb.Account("creator")
	v2 := func(env *xdr.TransactionEnvelope, set func(*xdr.PreconditionsV2)) {
		p := xdr.PreconditionsV2{TimeBounds: env.V1.Tx.Cond.TimeBounds}
		set(&p)
		env.V1.Tx.Cond = xdr.Preconditions{Type: xdr.PreconditionTypePrecondV2, V2: &p}
	}
	zero := xdr.SequenceNumber(0)
	runHostile(t, e, seededUnregistered, base, passphrase, []hostileCase{
		{"the red team's: seqNum 2^63-2 with minSeqNum 0", "sequence", func(env *xdr.TransactionEnvelope) {
			env.V1.Tx.SeqNum = math.MaxInt64 - 1
			v2(env, func(p *xdr.PreconditionsV2) { p.MinSeqNum = &zero })
		}},
		{"seqNum 2^63-2", "sequence", func(env *xdr.TransactionEnvelope) { env.V1.Tx.SeqNum = math.MaxInt64 - 1 }},
		{"the sequence after the next", "sequence", func(env *xdr.TransactionEnvelope) { env.V1.Tx.SeqNum = seq + 1 }},
		{"the account's current sequence", "sequence", func(env *xdr.TransactionEnvelope) { env.V1.Tx.SeqNum = seq - 1 }},
		{"minSeqNum 0", "preconditions", func(env *xdr.TransactionEnvelope) {
			v2(env, func(p *xdr.PreconditionsV2) { p.MinSeqNum = &zero })
		}},
		{"minSeqAge", "preconditions", func(env *xdr.TransactionEnvelope) {
			v2(env, func(p *xdr.PreconditionsV2) { p.MinSeqAge = 1 })
		}},
		{"minSeqLedgerGap", "preconditions", func(env *xdr.TransactionEnvelope) {
			v2(env, func(p *xdr.PreconditionsV2) { p.MinSeqLedgerGap = 1 })
		}},
		{"ledger bounds", "preconditions", func(env *xdr.TransactionEnvelope) {
			v2(env, func(p *xdr.PreconditionsV2) { p.LedgerBounds = &xdr.LedgerBounds{MaxLedger: math.MaxUint32} })
		}},
		{"an extra signer", "preconditions", func(env *xdr.TransactionEnvelope) {
			v2(env, func(p *xdr.PreconditionsV2) {
				p.ExtraSigners = []xdr.SignerKey{xdr.MustSigner(other.Address)}
			})
		}},
		{"v2 time bounds without an end", "timebounds", func(env *xdr.TransactionEnvelope) {
			v2(env, func(p *xdr.PreconditionsV2) { p.TimeBounds = &xdr.TimeBounds{MinTime: 0, MaxTime: 0} })
		}},
	})
}

// TestRegisterOnchainChecksEveryArgument: every argument of register and register_with_hash
// is checked — the wallet as creator, the resource id, the price the listing says (3.00 USDC,
// in 7-decimal units), a metadata pointer and a tag list the contract accepts, an optional
// content hash, nothing more — and the fee against MINDVAULT_MAX_TX_FEE_STROOPS.
func TestRegisterOnchainChecksEveryArgument(t *testing.T) {
	e := newEnv(t, map[string]string{"MINDVAULT_MAX_TX_FEE_STROOPS": "5000000"})
	withDemoKey(e)
	base, passphrase := genuinePrepared(e, seededUnregistered)
	attacker, _ := e.sb.Account("creator")
	listed, _ := soroban.Units("3.00")
	price := func(n *big.Int) func(env *xdr.TransactionEnvelope) {
		return func(env *xdr.TransactionEnvelope) {
			a := args(env)
			a[2] = scI128(n)
			setCall(env, "register", a...)
		}
	}
	arg := func(i int, v xdr.ScVal) func(env *xdr.TransactionEnvelope) {
		return func(env *xdr.TransactionEnvelope) {
			a := args(env)
			a[i] = v
			setCall(env, "register", a...)
		}
	}
	withHash := func(extra ...xdr.ScVal) func(env *xdr.TransactionEnvelope) {
		return func(env *xdr.TransactionEnvelope) { setCall(env, "register_with_hash", append(args(env), extra...)...) }
	}
	nine := make([]string, 9)
	for i := range nine {
		nine[i] = "tag" + string(rune('a'+i))
	}
	runHostile(t, e, seededUnregistered, base, passphrase, []hostileCase{
		{"999 USDC", "arguments", price(big.NewInt(9_990_000_000))},
		{"one unit above the listing", "arguments", price(new(big.Int).Add(listed, big.NewInt(1)))},
		{"one unit below the listing", "arguments", price(new(big.Int).Sub(listed, big.NewInt(1)))},
		{"a negative price", "arguments", price(big.NewInt(-1))},
		{"the red team's: register_with_hash with an attacker's address and i128(-1)", "arguments", func(env *xdr.TransactionEnvelope) {
			a := args(env)
			setCall(env, "register_with_hash", a[0], a[1], scI128(big.NewInt(-1)), scAccount(attacker.Address), a[4], scAccount(attacker.Address))
		}},
		{"register_with_hash at 999 USDC", "arguments", func(env *xdr.TransactionEnvelope) {
			a := args(env)
			a[2] = scI128(big.NewInt(9_990_000_000))
			setCall(env, "register_with_hash", append(a, soroban.Void())...)
		}},
		{"register_with_hash without its content hash", "arguments", func(env *xdr.TransactionEnvelope) {
			setCall(env, "register_with_hash", args(env)...)
		}},
		{"register_with_hash with a seventh argument", "arguments", withHash(soroban.Void(), soroban.Str("more"))},
		{"a content hash that is a number", "arguments", withHash(scI128(big.NewInt(1)))},
		{"an empty content hash", "arguments", withHash(soroban.Str(""))},
		{"a content hash of 129 characters", "arguments", withHash(soroban.Str(strings.Repeat("a", 129)))},
		{"register with a sixth argument", "arguments", func(env *xdr.TransactionEnvelope) {
			setCall(env, "register", append(args(env), soroban.Str("sha256:abc"))...)
		}},
		{"the price as a string", "arguments", arg(2, soroban.Str("3.00"))},
		{"metadata that is not a pointer", "arguments", arg(3, soroban.Str("evil"))},
		{"metadata of 513 characters", "arguments", arg(3, soroban.Str("ipfs://"+strings.Repeat("a", 506)))},
		{"metadata that is an address", "arguments", arg(3, scAccount(attacker.Address))},
		{"tags that are not a list", "arguments", arg(4, soroban.Str("rust"))},
		{"a tag the contract refuses", "arguments", arg(4, soroban.StrVec([]string{"not a tag!"}))},
		{"nine tags", "arguments", arg(4, soroban.StrVec(nine))},
		{"a tag that is a number", "arguments", arg(4, soroban.Vec(scI128(big.NewInt(1))))},
		{"the creator as another account", "arguments", arg(0, scAccount(attacker.Address))},
		{"a fee above MINDVAULT_MAX_TX_FEE_STROOPS", "fee", func(env *xdr.TransactionEnvelope) { env.V1.Tx.Fee = 5_000_001 }},
		{"a memo", "memo", func(env *xdr.TransactionEnvelope) {
			text := "pay me"
			env.V1.Tx.Memo = xdr.Memo{Type: xdr.MemoTypeMemoText, Text: &text}
		}},
	})
}

// TestRegisterOnchainReportsTheSignedHash: the transaction hash reported is the one the
// endpoint computed from the envelope it signed, not whatever the API answers.
func TestRegisterOnchainReportsTheSignedHash(t *testing.T) {
	e := newEnv(t, nil)
	withDemoKey(e)
	base, passphrase := genuinePrepared(e, seededUnregistered)
	want := envelopeHash(t, base, passphrase)
	claimed := strings.Repeat("ab", 32)
	body, _ := json.Marshal(map[string]string{"onchainStatus": "registered", "txHash": claimed})
	plan, _ := json.Marshal([]map[string]string{
		preparedRule(e, base, passphrase),
		// The API registers the signed transaction, then claims another hash.
		{"service": "api", "target": "POST /resources/*/register", "kind": "status", "status": "200", "after": "true", "body": string(body)},
	})
	e.faults(string(plan))
	out := e.ok("mindvault_register_onchain", e.call("mindvault_register_onchain", `{"resourceId":"`+seededUnregistered+`"}`))
	if u, _ := out["explorerUrl"].(string); out["txHash"] != want || (u != "" && !strings.Contains(u, want)) {
		t.Fatalf("want the signed transaction's hash %s, got %v", want, out)
	}
	if e.sb.Count("api", "POST /resources/*/register") != 1 {
		t.Fatal("the registration was not submitted once")
	}
}

// registrationChanges are prepared transactions that pass every check of
// mindvault_register_onchain but differ from the genuine one in what the user would approve.
func registrationChanges() []struct {
	name   string
	mutate func(env *xdr.TransactionEnvelope)
} {
	return []struct {
		name   string
		mutate func(env *xdr.TransactionEnvelope)
	}{
		{"another metadata pointer", func(env *xdr.TransactionEnvelope) {
			a := args(env)
			a[3] = soroban.Str("ipfs://evil")
			setCall(env, "register", a...)
		}},
		{"tags added", func(env *xdr.TransactionEnvelope) {
			a := args(env)
			a[4] = soroban.StrVec([]string{"evil"})
			setCall(env, "register", a...)
		}},
		{"register_with_hash, freezing the metadata", func(env *xdr.TransactionEnvelope) {
			setCall(env, "register_with_hash", append(args(env), soroban.Str("sha256:"+strings.Repeat("0", 64)))...)
		}},
	}
}

// TestRegisterOnchainApprovalBindsThePreparedCall: under MINDVAULT_CONFIRM=always the question
// shows the prepared call — function, price in USDC, metadata, tags — and the approval binds
// it, so a prepared call that changed between the rounds is refused unsigned in round 2
// (CONFIRMATION_STALE), or by its checks when it no longer passes them. The red team's
// register_with_hash at 999 USDC to ipfs://evil is one of them.
func TestRegisterOnchainApprovalBindsThePreparedCall(t *testing.T) {
	e := newEnv(t, map[string]string{"MINDVAULT_CONFIRM": "always"})
	withDemoKey(e)
	base, passphrase := genuinePrepared(e, seededUnregistered)
	metadata := string(*invocation(&base).Args[3].Str)
	call := `{"resourceId":"` + seededUnregistered + `"}`
	round1 := func(e *env) string {
		e.t.Helper()
		servePrepared(e, base, passphrase)
		state, msg := e.asked(e.modern("mindvault_register_onchain", call, capsForm, ""))
		for _, want := range []string{"register(", "3 USDC", metadata, "tags []", "registration of resource " + seededUnregistered} {
			if !strings.Contains(msg, want) {
				e.t.Errorf("the question %q does not show %q", msg, want)
			}
		}
		noSubmission(e)
		return state
	}
	type change struct {
		name   string
		mutate func(env *xdr.TransactionEnvelope)
		code   string
	}
	changes := []change{{"the red team's: register_with_hash at 999 USDC to ipfs://evil", func(env *xdr.TransactionEnvelope) {
		a := args(env)
		a[2], a[3] = scI128(big.NewInt(9_990_000_000)), soroban.Str("ipfs://evil")
		setCall(env, "register_with_hash", append(a, soroban.Void())...)
	}, "UNEXPECTED_TRANSACTION"}}
	for _, c := range registrationChanges() {
		changes = append(changes, change{c.name, c.mutate, "CONFIRMATION_STALE"})
	}
	for _, c := range changes {
		t.Run(c.name, func(t *testing.T) {
			e := e.in(t)
			state := round1(e)
			env := copyEnvelope(t, base)
			c.mutate(&env)
			servePrepared(e, env, passphrase)
			r := e.modern("mindvault_register_onchain", call, capsForm, answer(state, accept))
			source := "request"
			if c.code == "UNEXPECTED_TRANSACTION" {
				source = "api"
			}
			e.fails("mindvault_register_onchain", r.call, failure{category: "validation", code: c.code, source: source})
			noSubmission(e)
		})
	}
	t.Run("the listing's price and the call's price changed together", func(t *testing.T) {
		e := e.in(t)
		state := round1(e)
		if err := e.sb.SetPrice(seededUnregistered, "4"); err != nil {
			t.Fatal(err)
		}
		defer func() { _ = e.sb.SetPrice(seededUnregistered, "3.00") }()
		env := copyEnvelope(t, base)
		a := args(&env)
		a[2] = scI128(big.NewInt(40_000_000))
		setCall(&env, "register", a...)
		servePrepared(e, env, passphrase)
		r := e.modern("mindvault_register_onchain", call, capsForm, answer(state, accept))
		e.fails("mindvault_register_onchain", r.call, failure{category: "validation", code: "CONFIRMATION_STALE", source: "request"})
		noSubmission(e)
	})
	t.Run("unchanged, the accepted round 2 registers", func(t *testing.T) {
		e := e.in(t)
		state := round1(e)
		servePrepared(e, base, passphrase)
		out := e.ok("mindvault_register_onchain", e.modern("mindvault_register_onchain", call, capsForm, answer(state, accept)).call)
		if out["onchainStatus"] != "registered" || out["txHash"] != envelopeHash(t, base, passphrase) || e.sb.Count(sandbox.ServiceAPI, "POST /resources/*/register") != 1 {
			t.Fatalf("round 2: %v", out)
		}
	})
}

// publishedUnregistered publishes a resource whose on-chain registration fails, so that a
// resume registers it; it returns the resource id.
func publishedUnregistered(e *env, title string) string {
	e.t.Helper()
	e.faults("service=api,target=POST /resources/*/register,kind=status,status=502,count=1")
	args := `{"title":"` + title + `","price":"2.00","externalUrl":"https://example.org/` + strings.ReplaceAll(strings.ToLower(title), " ", "-") + `"}`
	var pub map[string]any
	if round := e.modern("mindvault_publish", args, capsForm, ""); round.Result.ResultType == "input_required" {
		state, _ := e.asked(round)
		pub = e.ok("mindvault_publish", e.modern("mindvault_publish", args, capsForm, answer(state, accept)).call)
	} else {
		pub = e.ok("mindvault_publish", round.call)
	}
	if pub["onchainStatus"] != "failed" {
		e.t.Fatalf("setup: want a verified resource not yet on chain: %v", pub)
	}
	e.faults("")
	return pub["resourceId"].(string)
}

// TestRegisterOnchainThroughPublish: mindvault_publish registers through the same prepared
// transaction and the same checks: a hostile one is refused unsigned (the registration step
// fails, nothing reaches the API or the network), the genuine one is signed by the wallet and
// its own hash is reported.
func TestRegisterOnchainThroughPublish(t *testing.T) {
	e := newEnv(t, nil)
	withDemoKey(e)
	id := publishedUnregistered(e, "Checked On Publish")
	base, passphrase := genuinePrepared(e, id)
	resume := `{"resourceId":"` + id + `"}`
	for _, tc := range []hostileCase{
		{"999 USDC", "arguments", func(env *xdr.TransactionEnvelope) {
			a := args(env)
			a[2] = scI128(big.NewInt(9_990_000_000))
			setCall(env, "register", a...)
		}},
		{"seqNum 2^63-2", "sequence", func(env *xdr.TransactionEnvelope) { env.V1.Tx.SeqNum = math.MaxInt64 - 1 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := e.in(t)
			env := copyEnvelope(t, base)
			tc.mutate(&env)
			servePrepared(e, env, passphrase)
			out := e.ok("mindvault_publish", e.call("mindvault_publish", resume))
			steps, _ := json.Marshal(out["steps"])
			if out["onchainStatus"] != "failed" || !strings.Contains(string(steps), "not signed or sent") || !strings.Contains(string(steps), tc.check+" check") {
				t.Fatalf("want the registration step refused by the %s check: %v", tc.check, out)
			}
			noSubmission(e)
		})
	}
	t.Run("the genuine transaction is signed and registers", func(t *testing.T) {
		e := e.in(t)
		servePrepared(e, base, passphrase)
		out := e.ok("mindvault_publish", e.call("mindvault_publish", resume))
		if out["onchainStatus"] != "registered" || out["txHash"] != envelopeHash(t, base, passphrase) || e.sb.Count("api", "POST /resources/*/register") != 1 {
			t.Fatalf("publish resume: %v", out)
		}
	})
}

// TestRegisterOnchainApprovalBindsPublishResume: the registration a resumed publish submits is
// approved as its prepared call, so a call that changed between the rounds is refused unsigned.
func TestRegisterOnchainApprovalBindsPublishResume(t *testing.T) {
	e := newEnv(t, map[string]string{"MINDVAULT_CONFIRM": "always"})
	withDemoKey(e)
	id := publishedUnregistered(e, "Bound On Resume")
	base, passphrase := genuinePrepared(e, id)
	metadata := string(*invocation(&base).Args[3].Str)
	resume := `{"resourceId":"` + id + `"}`
	for _, c := range registrationChanges() {
		t.Run(c.name, func(t *testing.T) {
			e := e.in(t)
			servePrepared(e, base, passphrase)
			state, msg := e.asked(e.modern("mindvault_publish", resume, capsForm, ""))
			for _, want := range []string{"Register resource " + id, "register(", "2 USDC", metadata, "tags []"} {
				if !strings.Contains(msg, want) {
					t.Errorf("the question %q does not show %q", msg, want)
				}
			}
			env := copyEnvelope(t, base)
			c.mutate(&env)
			servePrepared(e, env, passphrase)
			r := e.modern("mindvault_publish", resume, capsForm, answer(state, accept))
			e.fails("mindvault_publish", r.call, failure{category: "validation", code: "CONFIRMATION_STALE", source: "request"})
			noSubmission(e)
		})
	}
}
