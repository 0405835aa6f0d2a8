package soroban_test

import (
	"context"
	"encoding/json"
	"github.com/mindvault/mcp-endpoint/internal/clients/registry"
	"github.com/mindvault/mcp-endpoint/internal/clients/x402"
	"testing"

	"github.com/stellar/go-stellar-sdk/keypair"
	protocol "github.com/stellar/go-stellar-sdk/protocols/rpc"
	"github.com/stellar/go-stellar-sdk/strkey"
	"github.com/stellar/go-stellar-sdk/txnbuild"
	"github.com/stellar/go-stellar-sdk/xdr"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/clients/soroban"
	"github.com/mindvault/mcp-endpoint/internal/clients/stellarrpc"
	dt "github.com/mindvault/mcp-endpoint/internal/testkit/downstreamtest"
)

var (
	source   = keypair.Master("soroban-test/source").(*keypair.Full).Address()
	contract = func() string {
		raw := make([]byte, 32)
		raw[31] = 7
		id, _ := strkey.Encode(strkey.VersionByteContract, raw)
		return id
	}()
)

func call() soroban.Call {
	return soroban.Call{Contract: contract, Function: "get_resource", Args: []xdr.ScVal{soroban.Str("rustguide"), soroban.U32(3)}}
}

// invocation is the single operation of tx.
func invocation(t *testing.T, tx *txnbuild.Transaction) *txnbuild.InvokeHostFunction {
	t.Helper()
	ops := tx.Operations()
	if len(ops) != 1 {
		t.Fatalf("%d operations, want 1", len(ops))
	}
	op, ok := ops[0].(*txnbuild.InvokeHostFunction)
	if !ok {
		t.Fatalf("operation is %T", ops[0])
	}
	return op
}

func TestBuild(t *testing.T) {
	data := &xdr.SorobanTransactionData{ResourceFee: 1234}
	cases := []struct {
		name     string
		contract string
		data     *xdr.SorobanTransactionData
		fails    bool
	}{
		{name: "a simulation envelope", contract: contract},
		{name: "with resources from a simulation", contract: contract, data: data},
		{name: "an account id is not a contract", contract: source, fails: true},
		{name: "garbage", contract: "CNOTACONTRACT", fails: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := call()
			c.Contract = tc.contract
			tx, err := soroban.Build(source, 41, c, nil, tc.data, 100)
			if tc.fails {
				if err == nil {
					t.Fatal("built an invocation of an invalid contract id")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tx.SourceAccount().AccountID != source || tx.SequenceNumber() != 42 || tx.BaseFee() != 100 {
				t.Fatalf("source %s seq %d fee %d", tx.SourceAccount().AccountID, tx.SequenceNumber(), tx.BaseFee())
			}
			if tb := tx.Timebounds(); tb.MaxTime == 0 {
				t.Fatal("no upper time bound: a lost transaction could apply any time later")
			}
			op := invocation(t, tx)
			ic := op.HostFunction.InvokeContract
			if ic == nil || string(ic.FunctionName) != "get_resource" || len(ic.Args) != 2 || ic.ContractAddress.ContractId == nil {
				t.Fatalf("invocation = %+v", op.HostFunction)
			}
			if got, _ := strkey.Encode(strkey.VersionByteContract, ic.ContractAddress.ContractId[:]); got != contract {
				t.Fatalf("contract = %s", got)
			}
			if s, _ := soroban.Text(ic.Args[0]); s != "rustguide" {
				t.Fatalf("args = %+v", ic.Args)
			}
			if (op.Ext.SorobanData != nil) != (tc.data != nil) || (tc.data != nil && op.Ext.SorobanData.ResourceFee != 1234) {
				t.Fatalf("soroban data = %+v", op.Ext.SorobanData)
			}
		})
	}
}

func b64(t *testing.T, v any) string {
	t.Helper()
	s, err := xdr.MarshalBase64(v)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Simulate sends simulateTransaction with the envelope and reads the answer: results, a
// simulation error (a registry contract error number is lifted), or archived state.
func TestSimulate(t *testing.T) {
	ret := b64(t, soroban.U32(9))
	cases := []struct {
		name     string
		result   string
		source   errmap.Source
		ret      uint64 // the decoded return value when the simulation succeeds
		fails    bool
		code     string
		contract int // the registry contract error number carried
	}{
		{name: "success", result: `{"latestLedger":5,"minResourceFee":"100","results":[{"xdr":"` + ret + `","auth":[]}]}`, source: errmap.SourceRegistry, ret: 9},
		{name: "registry contract error", result: `{"latestLedger":5,"error":"HostError: Error(Contract, #7)\nEvent log..."}`, source: errmap.SourceRegistry, fails: true, contract: 7},
		{name: "a token's contract error is read with the token's table", result: `{"latestLedger":5,"error":"HostError: Error(Contract, #10)"}`, source: errmap.SourceX402, fails: true,
			code: "INSUFFICIENT_USDC", contract: 10},
		{name: "host error without contract number", result: `{"latestLedger":5,"error":"HostError: Error(Storage, MissingValue)"}`, source: errmap.SourceRegistry, fails: true},
		{name: "archived state", result: `{"latestLedger":5,"restorePreamble":{"transactionData":"","minResourceFee":"1"},"results":[{"xdr":"` + ret + `"}]}`,
			source: errmap.SourceRegistry, fails: true, code: "STATE_ARCHIVED"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := dt.New(t, dt.JSON(`{"jsonrpc":"2.0","id":1,"result":`+tc.result+`}`))
			tx, err := soroban.Build(soroban.ZeroAccount, 0, call(), nil, nil, 100)
			if err != nil {
				t.Fatal(err)
			}
			sim, err := soroban.Simulate(context.Background(), stellarrpc.New(dt.Service(errmap.SourceRPC, srv.URL)), tx, tc.source, errorsOf(tc.source))
			var env struct {
				Method string
				Params struct{ Transaction string }
			}
			envelope, _ := tx.Base64()
			if json.Unmarshal([]byte(srv.Only(t).Body), &env) != nil || env.Method != "simulateTransaction" || env.Params.Transaction != envelope {
				t.Fatalf("sent %s", srv.Only(t).Body)
			}
			if tc.fails {
				d := dt.Diagnostic(err)
				if !dt.IsErrmap(err) || d.Source != string(tc.source) || (tc.code != "" && d.Code != tc.code) || soroban.ContractError(err) != tc.contract {
					t.Fatalf("err = %v: %s %s, contract error %d", err, d.Code, d.Source, soroban.ContractError(err))
				}
				if d.StateChanged != "no" || d.ExecutionStarted {
					t.Fatalf("a simulation failure started something: %+v", d)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			v, ok := soroban.ReturnValue(sim)
			if n, isUint := soroban.Uint(v); !ok || !isUint || n != tc.ret {
				t.Fatalf("return value = %+v (%v)", v, ok)
			}
		})
	}
}

// An RPC failure during a simulation stays the RPC's.
func TestSimulateRPCFailure(t *testing.T) {
	srv := dt.New(t, dt.Status(503, ``))
	tx, _ := soroban.Build(soroban.ZeroAccount, 0, call(), nil, nil, 100)
	_, err := soroban.Simulate(context.Background(), stellarrpc.New(dt.Service(errmap.SourceRPC, srv.URL)), tx, errmap.SourceRegistry, registry.Errors)
	if d := dt.Diagnostic(err); d.Source != "rpc" || d.Status != 503 || soroban.ContractError(err) != 0 {
		t.Fatalf("err = %v: %+v", err, d)
	}
}

func TestReturnValueAndAuthEntries(t *testing.T) {
	entry := xdr.SorobanAuthorizationEntry{
		Credentials: xdr.SorobanCredentials{Type: xdr.SorobanCredentialsTypeSorobanCredentialsSourceAccount},
		RootInvocation: xdr.SorobanAuthorizedInvocation{Function: xdr.SorobanAuthorizedFunction{
			Type: xdr.SorobanAuthorizedFunctionTypeSorobanAuthorizedFunctionTypeContractFn,
			ContractFn: &xdr.InvokeContractArgs{
				ContractAddress: xdr.ScAddress{Type: xdr.ScAddressTypeScAddressTypeContract, ContractId: &xdr.ContractId{7}},
				FunctionName:    "set_price", Args: []xdr.ScVal{},
			},
		}},
	}
	good := b64(t, entry)
	cases := []struct {
		name    string
		results string
		ret     bool // a return value is decoded
		auth    int  // entries decoded
		badAuth bool
	}{
		{name: "no results", results: `[]`},
		{name: "a result without a value", results: `[{}]`},
		{name: "a value and one auth entry", results: `[{"xdr":"` + b64(t, soroban.Bool(true)) + `","auth":["` + good + `"]}]`, ret: true, auth: 1},
		{name: "an undecodable value", results: `[{"xdr":"!!!"}]`},
		{name: "an undecodable auth entry", results: `[{"xdr":"` + b64(t, soroban.Void()) + `","auth":["` + good + `","AAAA"]}]`, ret: true, badAuth: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := dt.New(t, dt.JSON(`{"jsonrpc":"2.0","id":1,"result":{"latestLedger":1,"results":`+tc.results+`}}`))
			tx, _ := soroban.Build(soroban.ZeroAccount, 0, call(), nil, nil, 100)
			sim, err := soroban.Simulate(context.Background(), stellarrpc.New(dt.Service(errmap.SourceRPC, srv.URL)), tx, errmap.SourceRegistry, registry.Errors)
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := soroban.ReturnValue(sim); ok != tc.ret {
				t.Fatalf("ReturnValue ok = %v, want %v", ok, tc.ret)
			}
			entries, err := soroban.AuthEntries(sim)
			if tc.badAuth {
				if err == nil {
					t.Fatal("an undecodable auth entry was accepted")
				}
				return
			}
			if err != nil || len(entries) != tc.auth {
				t.Fatalf("auth entries = %d, %v; want %d", len(entries), err, tc.auth)
			}
			if tc.auth == 1 && string(entries[0].RootInvocation.Function.ContractFn.FunctionName) != "set_price" {
				t.Fatalf("entry = %+v", entries[0])
			}
		})
	}
}

// TestResources: a simulation's transaction data decodes; one without any is the caller's
// MALFORMED_RESPONSE naming the call, never a zero footprint that would be sent.
func TestResources(t *testing.T) {
	data := xdr.SorobanTransactionData{ResourceFee: 4242}
	cases := []struct {
		name string
		xdr  string
		fee  int64 // the decoded resource fee; 0: the simulation is malformed
	}{
		{name: "decodes", xdr: b64(t, data), fee: 4242},
		{name: "absent", xdr: ""},
		{name: "not XDR", xdr: "!!!"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := soroban.Resources(&protocol.SimulateTransactionResponse{TransactionDataXDR: tc.xdr}, errmap.SourceX402, "the transfer")
			if tc.fee != 0 {
				if err != nil || int64(got.ResourceFee) != tc.fee {
					t.Fatalf("Resources = %+v, %v; want resource fee %d", got, err, tc.fee)
				}
				return
			}
			d := dt.Diagnostic(err)
			if err == nil || d.Code != "MALFORMED_RESPONSE" || d.Source != "x402" || d.Detail != "unexpected contract answer: the transfer simulation returned no transaction data" {
				t.Fatalf("Resources = %+v, diagnostic %+v; want the malformed simulation", got, d)
			}
		})
	}
}

func TestMalformed(t *testing.T) {
	d := dt.Diagnostic(soroban.Malformed(errmap.SourceRegistry, "get_resource returned a number"))
	if d.Code != "MALFORMED_RESPONSE" || d.Category != "server" || d.Source != "registry" || d.ExecutionStarted {
		t.Fatalf("diagnostic = %+v", d)
	}
}

// errorsOf is the contract error table each caller of Simulate passes: the registry's, or the
// USDC token's for a payment.
func errorsOf(src errmap.Source) soroban.ContractErrors {
	if src == errmap.SourceX402 {
		return x402.TokenErrors
	}
	return registry.Errors
}
