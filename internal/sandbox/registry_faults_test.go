package sandbox

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	protocol "github.com/stellar/go-stellar-sdk/protocols/rpc"
	"github.com/stellar/go-stellar-sdk/xdr"

	"github.com/mindvault/mcp-endpoint/internal/clients/soroban"
)

func TestParseChainFaults(t *testing.T) {
	valid := []struct {
		plan string
		want Fault
	}{
		{"service=rpc,kind=tryagain,count=2", Fault{Service: "rpc", Target: "sendTransaction", Kind: "tryagain", Count: 2}},
		{"service=rpc,target=sendTransaction,kind=nocommit", Fault{Service: "rpc", Target: "sendTransaction", Kind: "nocommit"}},
		{"service=rpc,target=*,kind=archived", Fault{Service: "rpc", Target: "simulateTransaction", Kind: "archived"}},
		{"service=rpc,kind=nocontract", Fault{Service: "rpc", Target: "simulateTransaction", Kind: "nocontract"}},
		{"service=rpc,target=sendTransaction,kind=nocontract", Fault{Service: "rpc", Target: "sendTransaction", Kind: "nocontract"}},
		{"service=rpc,kind=contracterror,code=23", Fault{Service: "rpc", Target: "simulateTransaction", Kind: "contracterror", Code: 23}},
		{`[{"service":"rpc","target":"sendTransaction","kind":"contracterror","code":99,"count":1}]`,
			Fault{Service: "rpc", Target: "sendTransaction", Kind: "contracterror", Code: 99, Count: 1}},
	}
	for _, tt := range valid {
		got, err := ParseFaults(tt.plan)
		if err != nil || len(got) != 1 || !reflect.DeepEqual(got[0], tt.want) {
			t.Errorf("%s: %+v %v", tt.plan, got, err)
		}
	}
	invalid := []struct{ plan, want string }{
		{"service=api,kind=tryagain", "kind: tryagain is only for service=rpc"},
		{"service=rpc,target=simulateTransaction,kind=tryagain", "target: kind=tryagain applies to sendTransaction"},
		{"service=rpc,target=getHealth,kind=contracterror,code=1", "target: kind=contracterror applies to simulateTransaction or sendTransaction"},
		{"service=rpc,target=sendTransaction,kind=archived", "target: kind=archived applies to simulateTransaction"},
		{"service=rpc,kind=contracterror", "code: required with kind=contracterror"},
		{"service=rpc,kind=contracterror,code=0", "code: want a contract error number"},
		{"service=rpc,kind=contracterror,code=x", "code: want a contract error number"},
		{"service=rpc,kind=nocommit,code=1", "code: not allowed with kind=nocommit"},
		{"service=rpc,kind=explode", "tryagain, nocommit, archived, nocontract, contracterror, ownkey or cosigner"},
	}
	for _, tt := range invalid {
		if _, err := ParseFaults(tt.plan); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: got %v, want %q", tt.plan, err, tt.want)
		}
	}
}

func TestRegistryFaultsOnSimulate(t *testing.T) {
	sb, _ := start(t, "")

	setFaults(t, sb, "service=rpc,kind=contracterror,code=23;service=rpc,kind=contracterror,code=99,count=1")
	wantContractError(t, simError(t, sb, zeroAccount, "get", soroban.Str("llmprompts")), 23)
	setFaults(t, sb, "service=rpc,kind=contracterror,code=99,count=1")
	wantContractError(t, simError(t, sb, zeroAccount, "registry_info"), 99)
	read(t, sb, "registry_info") // the rule is spent

	setFaults(t, sb, "service=rpc,kind=nocontract")
	msg := simError(t, sb, zeroAccount, "count")
	if !strings.HasPrefix(msg, "HostError: Error(Storage, MissingValue)\n\nEvent log (newest first):\n") ||
		!strings.Contains(msg, "non-existing value for contract instance") || strings.Contains(msg, "Error(Contract") {
		t.Fatalf("nocontract %q", msg)
	}

	setFaults(t, sb, "service=rpc,kind=archived")
	sim := simulate(t, sb, zeroAccount, "get", soroban.Str("llmprompts"))
	var data xdr.SorobanTransactionData
	if sim.Error != "" || sim.RestorePreamble == nil || sim.RestorePreamble.MinResourceFee <= 0 ||
		xdr.SafeUnmarshalBase64(sim.RestorePreamble.TransactionDataXDR, &data) != nil ||
		len(data.Resources.Footprint.ReadWrite) != 2 || len(data.Resources.Footprint.ReadOnly) != 0 {
		t.Fatalf("archived %+v", sim)
	}
	if sim := simulate(t, sb, zeroAccount, "get", soroban.Str("nosuchid")); sim.Error != "" || sim.RestorePreamble == nil || len(sim.Results) != 0 {
		t.Fatalf("archived, missing: %+v", sim)
	}

	// The chain kinds leave other methods alone, and the transport kinds still apply.
	setFaults(t, sb, "service=rpc,kind=archived")
	var h protocol.GetHealthResponse
	rpcResult(t, sb, "getHealth", nil, &h)
	setFaults(t, sb, "service=rpc,target=simulateTransaction,kind=malformed")
	r := rpcPost(t, sb, rpcBody("simulateTransaction", map[string]string{"transaction": "x"}))
	var env struct{ Result json.RawMessage }
	mustJSON(t, r.body, &env)
	if json.Unmarshal(env.Result, &protocol.SimulateTransactionResponse{}) == nil {
		t.Fatalf("malformed simulate result decodes: %s", env.Result)
	}
	setFaults(t, sb, "service=rpc,target=sendTransaction,kind=malformed")
	mustJSON(t, rpcPost(t, sb, rpcBody("sendTransaction", map[string]string{"transaction": "x"})).body, &env)
	if json.Unmarshal(env.Result, &protocol.SendTransactionResponse{}) == nil {
		t.Fatalf("malformed send result decodes: %s", env.Result)
	}
}

func TestRegistryFaultsOnSend(t *testing.T) {
	sb, clk := start(t, "")

	t.Run("tryagain", func(t *testing.T) {
		setFaults(t, sb, "service=rpc,kind=tryagain,count=2")
		seq := sequence(t, sb, sb.Demo.Address)
		tx := assemble(t, sb, sb.Demo, "set_price", soroban.Str("llmprompts"), scI128(2*stroops))
		for range 2 {
			if r := send(t, sb, b64(t, tx)); r.Status != "TRY_AGAIN_LATER" || r.Hash != hashOf(t, sb, tx) {
				t.Fatalf("%+v", r)
			}
		}
		clk.advance(5 * time.Second)
		if r, _ := sb.RegistryResource("llmprompts"); r.Price != 1_000_000 || sequence(t, sb, sb.Demo.Address) != seq {
			t.Fatal("TRY_AGAIN_LATER accepted the transaction")
		}
		if g := submit(t, sb, clk, tx); g.Status != protocol.TransactionStatusSuccess {
			t.Fatalf("%+v", g)
		}
		if r, _ := sb.RegistryResource("llmprompts"); r.Price != 2*stroops || sequence(t, sb, sb.Demo.Address) != seq+1 {
			t.Fatalf("%+v", r)
		}
	})
	t.Run("nocommit", func(t *testing.T) {
		setFaults(t, sb, "service=rpc,kind=nocommit")
		seq := sequence(t, sb, sb.Demo.Address)
		tx := assemble(t, sb, sb.Demo, "set_price", soroban.Str("llmprompts"), scI128(3*stroops))
		for range 2 { // resending does not help
			if r := send(t, sb, b64(t, tx)); r.Status != "PENDING" || r.Hash != hashOf(t, sb, tx) {
				t.Fatalf("%+v", r)
			}
		}
		clk.advance(30 * time.Second)
		if g := txStatus(t, sb, hashOf(t, sb, tx)); g.Status != protocol.TransactionStatusNotFound {
			t.Fatalf("%+v", g)
		}
		if r, _ := sb.RegistryResource("llmprompts"); r.Price != 2*stroops || sequence(t, sb, sb.Demo.Address) != seq {
			t.Fatal("a dropped transaction applied")
		}
		setFaults(t, sb, "") // the network is back: the same envelope goes through
		if g := submit(t, sb, clk, tx); g.Status != protocol.TransactionStatusSuccess {
			t.Fatalf("%+v", g)
		}
	})
	for _, tt := range []struct{ plan, want string }{
		{"service=rpc,target=sendTransaction,kind=contracterror,code=22", "Error(Contract, #22)"},
		{"service=rpc,target=sendTransaction,kind=nocontract", "Error(Storage, MissingValue)"},
	} {
		t.Run(tt.plan, func(t *testing.T) {
			sb.SetFaults(tt.plan)
			before, _ := sb.RegistryResource("llmprompts")
			g := submit(t, sb, clk, assemble(t, sb, sb.Demo, "set_price", soroban.Str("llmprompts"), scI128(9*stroops)))
			if code, _ := resultOf(t, g); g.Status != protocol.TransactionStatusFailed || code != xdr.TransactionResultCodeTxFailed ||
				diagnosticError(t, g) != tt.want {
				t.Fatalf("%+v", g)
			}
			if after, _ := sb.RegistryResource("llmprompts"); after.Price != before.Price {
				t.Fatal("a failed transaction changed the state")
			}
		})
	}
}

func setFaults(t *testing.T, sb *Sandbox, plan string) {
	t.Helper()
	if err := sb.SetFaults(plan); err != nil {
		t.Fatal(err)
	}
}
