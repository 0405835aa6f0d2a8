package e2e_test

import (
	"encoding/json"
	"fmt"
	"math/big"
	"strings"
	"sync"
	"testing"

	rpc "github.com/stellar/go-stellar-sdk/protocols/rpc"
	"github.com/stellar/go-stellar-sdk/strkey"
	"github.com/stellar/go-stellar-sdk/xdr"

	"github.com/mindvault/mcp-endpoint/internal/clients/soroban"
)

// simRewriter rewrites, on a hostileRPC, the simulation answers of one contract function.
type simRewriter struct {
	*hostileRPC
	mu sync.Mutex
	t  *testing.T
}

func newSimRewriter(t *testing.T) *simRewriter {
	return &simRewriter{hostileRPC: newHostileRPC(t), t: t}
}

// set rewrites the simulations of fn from now on; a nil rewrite passes them on unchanged.
func (p *simRewriter) set(t *testing.T, fn string, rewrite func(t *testing.T, inv xdr.InvokeContractArgs, sim *rpc.SimulateTransactionResponse)) {
	if rewrite == nil {
		p.on("simulateTransaction", nil)
		return
	}
	p.on("simulateTransaction", func(body []byte, result map[string]json.RawMessage) {
		var req struct {
			Params rpc.SimulateTransactionRequest `json:"params"`
		}
		var env xdr.TransactionEnvelope
		if json.Unmarshal(body, &req) != nil || xdr.SafeUnmarshalBase64(req.Params.Transaction, &env) != nil || len(env.Operations()) != 1 {
			return
		}
		op := env.Operations()[0].Body.InvokeHostFunctionOp
		if op == nil || op.HostFunction.InvokeContract == nil || string(op.HostFunction.InvokeContract.FunctionName) != fn {
			return
		}
		raw, _ := json.Marshal(result)
		var sim rpc.SimulateTransactionResponse
		if err := json.Unmarshal(raw, &sim); err != nil || sim.Error != "" {
			t.Errorf("the sandbox's simulation of %s did not succeed: %s", fn, raw)
			return
		}
		rewrite(t, *op.HostFunction.InvokeContract, &sim)
		raw, _ = json.Marshal(sim)
		for k := range result {
			delete(result, k)
		}
		_ = json.Unmarshal(raw, &result)
	})
}

// contractCall is the authorised invocation of fn on contract with args.
func contractCall(t *testing.T, contract, fn string, args ...xdr.ScVal) xdr.SorobanAuthorizedInvocation {
	t.Helper()
	raw, err := strkey.Decode(strkey.VersionByteContract, contract)
	if err != nil {
		t.Fatal(err)
	}
	var cid xdr.ContractId
	copy(cid[:], raw)
	return xdr.SorobanAuthorizedInvocation{Function: xdr.SorobanAuthorizedFunction{
		Type: xdr.SorobanAuthorizedFunctionTypeSorobanAuthorizedFunctionTypeContractFn,
		ContractFn: &xdr.InvokeContractArgs{
			ContractAddress: xdr.ScAddress{Type: xdr.ScAddressTypeScAddressTypeContract, ContractId: &cid},
			FunctionName:    xdr.ScSymbol(fn), Args: args,
		}}}
}

// editData rewrites the simulation's SorobanTransactionData.
func editData(t *testing.T, sim *rpc.SimulateTransactionResponse, edit func(d *xdr.SorobanTransactionData)) {
	t.Helper()
	var d xdr.SorobanTransactionData
	if err := xdr.SafeUnmarshalBase64(sim.TransactionDataXDR, &d); err != nil {
		t.Fatal(err)
	}
	edit(&d)
	b, err := xdr.MarshalBase64(d)
	if err != nil {
		t.Fatal(err)
	}
	sim.TransactionDataXDR, sim.MinResourceFee = b, int64(d.ResourceFee)
}

// setAuth replaces the simulation's authorization entries.
func setAuth(t *testing.T, sim *rpc.SimulateTransactionResponse, entries ...xdr.SorobanAuthorizationEntry) {
	t.Helper()
	out := []string{}
	for _, e := range entries {
		b, err := xdr.MarshalBase64(e)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
	sim.Results[0].AuthXDR = &out
}

// simAuth decodes the simulation's authorization entries.
func simAuth(t *testing.T, sim *rpc.SimulateTransactionResponse) []xdr.SorobanAuthorizationEntry {
	t.Helper()
	if len(sim.Results) != 1 || sim.Results[0].AuthXDR == nil {
		t.Fatalf("the simulation has no auth: %+v", sim)
	}
	var out []xdr.SorobanAuthorizationEntry
	for _, a := range *sim.Results[0].AuthXDR {
		var e xdr.SorobanAuthorizationEntry
		if err := xdr.SafeUnmarshalBase64(a, &e); err != nil {
			t.Fatal(err)
		}
		out = append(out, e)
	}
	return out
}

// TestWritesSignOnlyWhatTheCallNeeds: a creator write signs its own transaction with what the
// simulation adds (authorisation entries, footprint, resource fee), so a simulation answer
// that asks for more — a USDC transfer out of the wallet, as an entry of its own or under the
// call, a write to another ledger entry, a fee of 40 XLM — is refused before signing:
// UNEXPECTED_TRANSACTION, nothing sent, the chain and the wallet's sequence untouched. An
// honest answer through the same RPC still writes, and a fee at the cap
// (MINDVAULT_MAX_TX_FEE_STROOPS) is signed where one stroop more is not.
func TestWritesSignOnlyWhatTheCallNeeds(t *testing.T) {
	const feeCap = 1_000_000
	proxy := newSimRewriter(t)
	e := newEnv(t, map[string]string{"SOROBAN_RPC_URL": proxy.URL, "MINDVAULT_MAX_TX_FEE_STROOPS": fmt.Sprint(feeCap)})
	proxy.mu.Lock()
	proxy.upstream.Store(e.sb.RPCURL)
	proxy.mu.Unlock()

	wallet := e.sb.Demo.Address
	id := ownedBy(e, wallet)
	thief, _ := e.sb.Account("creator")
	from, _ := soroban.Account(wallet)
	to, _ := soroban.Account(thief.Address)
	amount, _ := soroban.I128(big.NewInt(99))
	transfer := func(t *testing.T) xdr.SorobanAuthorizedInvocation {
		return contractCall(t, e.sb.USDCContractID, "transfer", from, to, amount)
	}
	sourceEntry := func(inv xdr.SorobanAuthorizedInvocation) xdr.SorobanAuthorizationEntry {
		return xdr.SorobanAuthorizationEntry{
			Credentials:    xdr.SorobanCredentials{Type: xdr.SorobanCredentialsTypeSorobanCredentialsSourceAccount},
			RootInvocation: inv,
		}
	}
	resourceFee := func(fee int64) func(t *testing.T, _ xdr.InvokeContractArgs, sim *rpc.SimulateTransactionResponse) {
		return func(t *testing.T, _ xdr.InvokeContractArgs, sim *rpc.SimulateTransactionResponse) {
			editData(t, sim, func(d *xdr.SorobanTransactionData) { d.ResourceFee = xdr.Int64(fee) })
		}
	}
	price := int64(0)
	nextPrice := func() string {
		cur, _ := e.sb.RegistryResource(id)
		price = max(price, cur.Price) + 1
		return `"price":"` + units(price) + `"`
	}

	cases := []struct {
		name    string
		rewrite func(t *testing.T, inv xdr.InvokeContractArgs, sim *rpc.SimulateTransactionResponse)
		refused bool
		inText  string
	}{
		{"an honest simulation", nil, false, ""},
		{"an added USDC transfer from the wallet", func(t *testing.T, _ xdr.InvokeContractArgs, sim *rpc.SimulateTransactionResponse) {
			setAuth(t, sim, append(simAuth(t, sim), sourceEntry(transfer(t)))...)
		}, true, "asks for 2 authorizations"},
		{"the transfer alone in place of the call", func(t *testing.T, _ xdr.InvokeContractArgs, sim *rpc.SimulateTransactionResponse) {
			setAuth(t, sim, sourceEntry(transfer(t)))
		}, true, "a call other than set_price"},
		{"the transfer under the call", func(t *testing.T, _ xdr.InvokeContractArgs, sim *rpc.SimulateTransactionResponse) {
			a := simAuth(t, sim)
			a[0].RootInvocation.SubInvocations = []xdr.SorobanAuthorizedInvocation{transfer(t)}
			setAuth(t, sim, a...)
		}, true, "further calls"},
		{"the call with another price", func(t *testing.T, inv xdr.InvokeContractArgs, sim *rpc.SimulateTransactionResponse) {
			other, _ := soroban.I128(big.NewInt(1))
			setAuth(t, sim, sourceEntry(contractCall(t, e.sb.RegistryContract, "set_price", inv.Args[0], other)))
		}, true, "a call other than set_price"},
		{"a write to the wallet's account entry", func(t *testing.T, _ xdr.InvokeContractArgs, sim *rpc.SimulateTransactionResponse) {
			editData(t, sim, func(d *xdr.SorobanTransactionData) {
				d.Resources.Footprint.ReadWrite = append(d.Resources.Footprint.ReadWrite, xdr.LedgerKey{
					Type: xdr.LedgerEntryTypeAccount, Account: &xdr.LedgerKeyAccount{AccountId: xdr.MustAddress(wallet)}})
			})
		}, true, "other than the registry's own storage"},
		{"a resource fee of 40 XLM", resourceFee(400_000_000), true, "ask the operator to raise MINDVAULT_MAX_TX_FEE_STROOPS"},
		{"a fee one stroop above the cap", resourceFee(feeCap - 100 + 1), true, "above the cap of 1000000 stroops"},
		{"a negative resource fee", resourceFee(-1), true, "negative"},
		{"a fee at the cap", resourceFee(feeCap - 100), false, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := e.in(t)
			e.faults("")
			proxy.set(t, "set_price", tc.rewrite)
			seq := sequence(e, wallet)
			before, _ := e.sb.RegistryResource(id)
			r := e.call("mindvault_set_price", `{"resourceId":"`+id+`",`+nextPrice()+`}`)
			if !tc.refused {
				if out := e.ok("mindvault_set_price", r); out["changed"] != true {
					t.Fatalf("write: %v", out)
				}
				if n := e.sb.Count("rpc", "sendTransaction"); n != 1 {
					t.Fatalf("sendTransaction %d, want 1", n)
				}
				return
			}
			e.fails("mindvault_set_price", r, failure{category: "validation", code: "UNEXPECTED_TRANSACTION", source: "registry", retry: "no"})
			if !strings.Contains(r.Content[0].Text, tc.inText) || !strings.Contains(r.Content[0].Text, "not signed or sent") {
				t.Errorf("text lacks %q: %s", tc.inText, r.Content[0].Text)
			}
			if r.Meta.Diag.ExecutionStarted {
				t.Errorf("executionStarted after a refusal before signing: %s", r.raw)
			}
			if n := e.sb.Count("rpc", "simulateTransaction"); n < 2 {
				t.Fatalf("the write was not simulated (%d simulations)", n)
			}
			if n := e.sb.Count("rpc", "sendTransaction"); n != 0 {
				t.Fatalf("a refused write sent %d transactions", n)
			}
			if after, _ := e.sb.RegistryResource(id); fmt.Sprint(after) != fmt.Sprint(before) || sequence(e, wallet) != seq {
				t.Fatalf("a refused write changed the chain: %+v → %+v", before, after)
			}
		})
	}

	// Every creator write goes through the same check.
	cur, _ := e.sb.RegistryResource(id)
	for _, w := range []struct{ tool, fn, args string }{
		{"mindvault_set_listed", "set_listed", fmt.Sprintf(`"listed":%v`, !cur.Listed)},
		{"mindvault_set_tags", "set_tags", `"tags":["hostile"]`},
		{"mindvault_update_metadata", "update_metadata", `"metadata":"ipfs://bafyhostile"`},
		{"mindvault_transfer_ownership", "transfer_ownership", `"newCreator":"` + thief.Address + `"`},
	} {
		t.Run(w.tool, func(t *testing.T) {
			e := e.in(t)
			e.faults("")
			proxy.set(t, w.fn, func(t *testing.T, _ xdr.InvokeContractArgs, sim *rpc.SimulateTransactionResponse) {
				setAuth(t, sim, append(simAuth(t, sim), sourceEntry(transfer(t)))...)
			})
			r := e.call(w.tool, `{"resourceId":"`+id+`",`+w.args+`}`)
			e.fails(w.tool, r, failure{category: "validation", code: "UNEXPECTED_TRANSACTION", source: "registry"})
			if n := e.sb.Count("rpc", "sendTransaction"); n != 0 {
				t.Fatalf("a refused write sent %d transactions", n)
			}
		})
	}
	if after, _ := e.sb.RegistryResource(id); after.Creator != wallet {
		t.Fatalf("the resource changed hands: %+v", after)
	}
}
