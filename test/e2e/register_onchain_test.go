package e2e_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stellar/go-stellar-sdk/network"
	"github.com/stellar/go-stellar-sdk/xdr"
)

// genuinePrepared fetches the registration transaction the sandbox API prepares for id, as
// the product would, so a test can tamper with one aspect of it.
func genuinePrepared(e *env, id string) (xdr.TransactionEnvelope, string) {
	e.t.Helper()
	req, _ := http.NewRequest(http.MethodGet, e.sb.APIURL+"/resources/"+id+"/register/prepare", nil)
	req.Header.Set("x-api-key", e.sb.DemoAPIKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	var p struct {
		UnsignedXDR       string `json:"unsignedXdr"`
		NetworkPassphrase string `json:"networkPassphrase"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&p); err != nil || resp.StatusCode != 200 {
		e.t.Fatalf("prepare: %d %v", resp.StatusCode, err)
	}
	var env xdr.TransactionEnvelope
	if err := xdr.SafeUnmarshalBase64(p.UnsignedXDR, &env); err != nil {
		e.t.Fatal(err)
	}
	return env, p.NetworkPassphrase
}

// servePrepared makes the API's prepare route answer env (for passphrase) instead of its own.
func servePrepared(e *env, env xdr.TransactionEnvelope, passphrase string) {
	e.t.Helper()
	rule, _ := json.Marshal([]map[string]string{preparedRule(e, env, passphrase)})
	e.faults(string(rule))
}

// preparedRule is the fault rule under which the API's prepare route answers env.
func preparedRule(e *env, env xdr.TransactionEnvelope, passphrase string) map[string]string {
	e.t.Helper()
	b64, err := xdr.MarshalBase64(env)
	if err != nil {
		e.t.Fatal(err)
	}
	body, _ := json.Marshal(map[string]string{"unsignedXdr": b64, "networkPassphrase": passphrase})
	return map[string]string{"service": "api", "target": "GET /resources/*/register/prepare", "kind": "status", "status": "200", "body": string(body)}
}

// TestRegisterOnchainSignsOnlyWhatWasAsked: a prepared transaction that would have the
// wallet sign anything beyond registering this resource — another network, a fee bump,
// another source, an extra operation, another contract, function, id or creator, an
// authorization for more, an unbounded fee or validity — is UNEXPECTED_TRANSACTION and the
// API never receives a signed transaction. The genuine one is signed and registers.
func TestRegisterOnchainSignsOnlyWhatWasAsked(t *testing.T) {
	e := newEnv(t, nil)
	demo, _ := e.b.Deps.Store.Get(context.Background(), "demo")
	demo.APIKey = e.sb.DemoAPIKey
	if err := e.b.Deps.Store.Update(context.Background(), demo); err != nil {
		t.Fatal(err)
	}
	e.faults("service=api,target=POST /resources/*/register,kind=status,status=502,count=1")
	pub := e.ok("mindvault_publish", e.call("mindvault_publish", `{"title":"Signed With Care","price":"1","externalUrl":"https://example.org/care"}`))
	id := pub["resourceId"].(string)
	if pub["onchainStatus"] != "failed" {
		t.Fatalf("setup: want a verified resource not yet on chain: %v", pub)
	}
	e.faults("")
	base, passphrase := genuinePrepared(e, id)
	if passphrase != e.b.Deps.Config.Passphrase {
		t.Fatalf("the sandbox prepares for %q", passphrase)
	}
	other, _ := e.sb.Account("creator")
	call := func(env *xdr.TransactionEnvelope) *xdr.InvokeContractArgs {
		return env.V1.Tx.Operations[0].Body.InvokeHostFunctionOp.HostFunction.InvokeContract
	}
	cases := []struct {
		name       string
		passphrase string
		mutate     func(env *xdr.TransactionEnvelope)
	}{
		{"another network", network.PublicNetworkPassphrase, func(*xdr.TransactionEnvelope) {}},
		{"fee bump", "", func(env *xdr.TransactionEnvelope) {
			inner := *env.V1
			*env = xdr.TransactionEnvelope{Type: xdr.EnvelopeTypeEnvelopeTypeTxFeeBump, FeeBump: &xdr.FeeBumpTransactionEnvelope{Tx: xdr.FeeBumpTransaction{
				FeeSource: inner.Tx.SourceAccount, Fee: 1_000_000, InnerTx: xdr.FeeBumpTransactionInnerTx{Type: xdr.EnvelopeTypeEnvelopeTypeTx, V1: &inner}}}}
		}},
		{"another source account", "", func(env *xdr.TransactionEnvelope) {
			env.V1.Tx.SourceAccount = xdr.MustMuxedAddress(other.Address)
		}},
		{"an extra payment", "", func(env *xdr.TransactionEnvelope) {
			env.V1.Tx.Operations = append(env.V1.Tx.Operations, xdr.Operation{Body: xdr.OperationBody{Type: xdr.OperationTypePayment,
				PaymentOp: &xdr.PaymentOp{Destination: xdr.MustMuxedAddress(other.Address), Asset: xdr.MustNewNativeAsset(), Amount: 50_000_000}}})
		}},
		{"another contract", "", func(env *xdr.TransactionEnvelope) {
			var cid xdr.ContractId
			cid[0] = 7
			call(env).ContractAddress = xdr.ScAddress{Type: xdr.ScAddressTypeScAddressTypeContract, ContractId: &cid}
		}},
		{"another function", "", func(env *xdr.TransactionEnvelope) { call(env).FunctionName = "transfer_ownership" }},
		{"another resource id", "", func(env *xdr.TransactionEnvelope) {
			s := xdr.ScString("chainonly")
			call(env).Args[1] = xdr.ScVal{Type: xdr.ScValTypeScvString, Str: &s}
		}},
		{"another creator", "", func(env *xdr.TransactionEnvelope) {
			aid := xdr.MustAddress(other.Address)
			call(env).Args[0] = xdr.ScVal{Type: xdr.ScValTypeScvAddress, Address: &xdr.ScAddress{Type: xdr.ScAddressTypeScAddressTypeAccount, AccountId: &aid}}
		}},
		{"an authorization for more", "", func(env *xdr.TransactionEnvelope) {
			a := &env.V1.Tx.Operations[0].Body.InvokeHostFunctionOp.Auth[0]
			a.RootInvocation.SubInvocations = []xdr.SorobanAuthorizedInvocation{{Function: a.RootInvocation.Function}}
		}},
		{"a fee above MINDVAULT_MAX_TX_FEE_STROOPS", "", func(env *xdr.TransactionEnvelope) { env.V1.Tx.Fee = 10_000_001 }},
		{"no time bounds", "", func(env *xdr.TransactionEnvelope) {
			env.V1.Tx.Cond = xdr.Preconditions{Type: xdr.PreconditionTypePrecondNone}
		}},
		{"valid for a day", "", func(env *xdr.TransactionEnvelope) {
			env.V1.Tx.Cond.TimeBounds.MaxTime = xdr.TimePoint(time.Now().Add(24 * time.Hour).Unix())
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := e.in(t)
			var env xdr.TransactionEnvelope
			raw, _ := base.MarshalBinary()
			if err := env.UnmarshalBinary(raw); err != nil {
				t.Fatal(err)
			}
			tc.mutate(&env)
			pass := passphrase
			if tc.passphrase != "" {
				pass = tc.passphrase
			}
			servePrepared(e, env, pass)
			r := e.call("mindvault_register_onchain", `{"resourceId":"`+id+`"}`)
			e.fails("mindvault_register_onchain", r, failure{category: "validation", code: "UNEXPECTED_TRANSACTION", source: "api", retry: "no"})
			if r.Meta.Diag.ExecutionStarted || !strings.Contains(r.Content[0].Text, "not signed or sent") {
				t.Errorf("executionStarted %v: %s", r.Meta.Diag.ExecutionStarted, r.Content[0].Text)
			}
			if n := e.sb.Count("api", "POST /resources/*/register"); n != 0 {
				t.Fatalf("the API received %d registration submissions", n)
			}
			if n := e.sb.Count("rpc", "sendTransaction"); n != 0 {
				t.Fatalf("the RPC received %d transactions", n)
			}
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
