package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"image/png"
	"math/big"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stellar/go-stellar-sdk/keypair"
	"github.com/stellar/go-stellar-sdk/network"
	"github.com/stellar/go-stellar-sdk/protocols/horizon"
	protocol "github.com/stellar/go-stellar-sdk/protocols/rpc"
	"github.com/stellar/go-stellar-sdk/txnbuild"
	"github.com/stellar/go-stellar-sdk/xdr"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/clients/soroban"
	"github.com/mindvault/mcp-endpoint/internal/clients/stellarrpc"
	"github.com/mindvault/mcp-endpoint/internal/clients/transport"
	"github.com/mindvault/mcp-endpoint/internal/clients/x402"
)

// service is a product transport over one sandbox listener, one attempt per call.
func productService(src errmap.Source, url string) *transport.Service {
	return &transport.Service{Source: src, BaseURL: url, Timeout: 5 * time.Second,
		Retry: transport.Policy{Attempts: 1}, HTTP: transport.NewHTTPClient()}
}

// signer is the product's payment signer against the sandbox RPC.
func signer(sb *Sandbox) *x402.Signer {
	return &x402.Signer{RPC: stellarrpc.New(productService(errmap.SourceRPC, sb.RPCURL)), Passphrase: sb.Passphrase, Now: sb.Now}
}

func policy(sb *Sandbox) x402.Policy {
	return x402.Policy{Network: "stellar:testnet", Asset: sb.USDCContractID, Cap: big.NewInt(1_000_000 * stroops)}
}

// quote sends the unpaid request and decodes its 402.
func quote(t *testing.T, sb *Sandbox, method, path string, body []byte) (*x402.Required, *x402.Requirement, *big.Int) {
	t.Helper()
	r := do(t, method, sb.APIURL+path, body, map[string]string{"Content-Type": "application/json"})
	if r.status != http.StatusPaymentRequired || string(r.body) != "{}" || r.header.Get("Cache-Control") != "no-store" {
		t.Fatalf("unpaid %s %s: %d %s", method, path, r.status, r.body)
	}
	pr, err := x402.ParseRequired(r.header, r.body)
	if err != nil {
		t.Fatalf("PAYMENT-REQUIRED: %v", err)
	}
	req, amount, err := x402.Select(pr, policy(sb))
	if err != nil {
		t.Fatalf("Select: %v", err)
	}
	return pr, req, amount
}

// signPayment builds a real payment with the product's signer for acct against the 402 of
// method path; it returns the PAYMENT-SIGNATURE value and the requirement offered.
func signPayment(t *testing.T, sb *Sandbox, acct Account, method, path string, body []byte) (string, []byte) {
	t.Helper()
	pr, req, amount := quote(t, sb, method, path, body)
	signed, err := signer(sb).Sign(context.Background(), keypair.MustParseFull(acct.Secret), pr, req, amount, nil)
	if err != nil {
		t.Fatalf("Sign: %v", err)
	}
	if signed.Payer != acct.Address {
		t.Fatalf("payer %s", signed.Payer)
	}
	return signed.Header, req.Raw
}

// paid resends a request with a payment.
func paid(t *testing.T, sb *Sandbox, method, path string, body []byte, header string) reply {
	t.Helper()
	return do(t, method, sb.APIURL+path, body, map[string]string{"Content-Type": "application/json", "PAYMENT-SIGNATURE": header})
}

func settlement(t *testing.T, r reply) *x402.Settlement {
	t.Helper()
	msg := r.header.Get(FacilitatorMessageHeader)
	st, ok := x402.DecodeSettlement(r.header)
	if !ok {
		// A refusal at verification carries its reason in PAYMENT-REQUIRED.error alone.
		pr, err := x402.ParseRequired(r.header, r.body)
		if r.status != 402 || err != nil || pr.Error == "" || pr.Error == "Payment required" {
			t.Fatalf("no PAYMENT-RESPONSE and no refusal reason: %d %v %s", r.status, r.header, r.body)
		}
		return &x402.Settlement{ErrorReason: pr.Error, ErrorMessage: msg, Network: x402Network}
	}
	if st.ErrorMessage == "" {
		st.ErrorMessage = msg
	}
	return st
}

// usdc reads an account's sandbox USDC balance from Horizon.
func usdc(t *testing.T, sb *Sandbox, addr string) string {
	t.Helper()
	var a horizon.Account
	r := get(t, sb.HorizonURL+"/accounts/"+addr)
	mustJSON(t, r.body, &a)
	if l := usdcLine(a); l != nil && l.Issuer == sb.USDCIssuer {
		return l.Balance
	}
	return "none"
}

// tamper edits a copy of a payment: its payload and the transaction inside it.
func tamper(t *testing.T, header string, edit func(p *x402.Payload, env *xdr.TransactionEnvelope)) string {
	t.Helper()
	p, err := x402.DecodePayload(header)
	if err != nil {
		t.Fatal(err)
	}
	var env xdr.TransactionEnvelope
	if err := xdr.SafeUnmarshalBase64(p.Payload.Transaction, &env); err != nil {
		t.Fatal(err)
	}
	edit(p, &env)
	if p.Payload.Transaction, err = xdr.MarshalBase64(env); err != nil {
		t.Fatal(err)
	}
	out, err := p.Encode()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func opOf(env *xdr.TransactionEnvelope) *xdr.InvokeHostFunctionOp {
	return env.V1.Tx.Operations[0].Body.InvokeHostFunctionOp
}

func credsOf(env *xdr.TransactionEnvelope) *xdr.SorobanAddressCredentials {
	return opOf(env).Auth[0].Credentials.Address
}

// sigBytes is the signature inside the payer's Vec[Map{public_key, signature}].
func sigBytes(env *xdr.TransactionEnvelope, key string) *xdr.ScBytes {
	for _, e := range **(**credsOf(env).Signature.Vec)[0].Map {
		if string(*e.Key.Sym) == key {
			return e.Val.Bytes
		}
	}
	return nil
}

// resign signs the payer's entry again with kp over passphrase, keeping the map's shape.
func resign(t *testing.T, env *xdr.TransactionEnvelope, kp *keypair.Full, passphrase string) {
	t.Helper()
	cr := credsOf(env)
	h, err := authPayload(passphrase, cr, opOf(env).Auth[0].RootInvocation)
	if err != nil {
		t.Fatal(err)
	}
	sig, err := kp.Sign(h[:])
	if err != nil {
		t.Fatal(err)
	}
	copy(*sigBytes(env, "signature"), sig)
}

// The verifier really checks the product client's payment: the genuine one passes, and a
// copy with any one thing changed is refused with the right reason.
func TestVerifyAcceptsTheProductPaymentAndRejectsTampering(t *testing.T) {
	sb, clk := start(t, "")
	creator, _ := sb.Account("creator")
	agent, _ := sb.Account("agent")
	header, req := signPayment(t, sb, sb.Demo, "GET", "/resources/zkprimer", nil)
	var offered x402.Requirement
	mustJSON(t, req, &offered)
	if offered.Amount != "62500000" || offered.PayTo != creator.Address || offered.Asset != sb.USDCContractID ||
		offered.MaxTimeoutSeconds != 300 || offered.Extra["areFeesSponsored"] != true || offered.Network != "stellar:testnet" {
		t.Fatalf("requirement %s", req)
	}
	if reason, ok := sb.Verify(header, req); !ok {
		t.Fatalf("the product's payment is refused: %s", reason)
	}

	otherKey := keypair.MustParseFull(creator.Secret)
	tests := []struct {
		name   string
		edit   func(p *x402.Payload, env *xdr.TransactionEnvelope)
		reason string
	}{
		{"one byte of the signature", func(_ *x402.Payload, env *xdr.TransactionEnvelope) {
			(*sigBytes(env, "signature"))[10] ^= 0x01
		}, reasonSimulationFailed},
		{"the amount", func(_ *x402.Payload, env *xdr.TransactionEnvelope) {
			opOf(env).HostFunction.InvokeContract.Args[2] = scI128(1)
		}, reasonWrongAmount},
		{"the amount, in the operation and the signed entry", func(_ *x402.Payload, env *xdr.TransactionEnvelope) {
			opOf(env).HostFunction.InvokeContract.Args[2] = scI128(1)
			opOf(env).Auth[0].RootInvocation.Function.ContractFn.Args[2] = scI128(1)
			resign(t, env, keypair.MustParseFull(sb.Demo.Secret), sb.Passphrase)
		}, reasonWrongAmount},
		{"the payee", func(_ *x402.Payload, env *xdr.TransactionEnvelope) {
			opOf(env).HostFunction.InvokeContract.Args[1] = scAddress(agent.Address)
		}, reasonWrongRecipient},
		{"the asset", func(_ *x402.Payload, env *xdr.TransactionEnvelope) {
			opOf(env).HostFunction.InvokeContract.ContractAddress = sb.world.regAddr
		}, reasonWrongAsset},
		{"the function", func(_ *x402.Payload, env *xdr.TransactionEnvelope) {
			opOf(env).HostFunction.InvokeContract.FunctionName = "transfer_from"
		}, reasonWrongFunction},
		{"an unsigned entry", func(_ *x402.Payload, env *xdr.TransactionEnvelope) {
			credsOf(env).Signature = soroban.Void()
		}, reasonMissingSignature},
		{"no auth entries", func(_ *x402.Payload, env *xdr.TransactionEnvelope) {
			opOf(env).Auth = nil
		}, reasonNoAuthEntries},
		{"source-account credentials", func(_ *x402.Payload, env *xdr.TransactionEnvelope) {
			opOf(env).Auth[0].Credentials = xdr.SorobanCredentials{Type: xdr.SorobanCredentialsTypeSorobanCredentialsSourceAccount}
		}, reasonCredentialType},
		{"a sub-invocation", func(_ *x402.Payload, env *xdr.TransactionEnvelope) {
			root := &opOf(env).Auth[0].RootInvocation
			root.SubInvocations = []xdr.SorobanAuthorizedInvocation{{Function: root.Function}}
		}, reasonSubinvocations},
		{"the key in the signature map (signed by someone else)", func(_ *x402.Payload, env *xdr.TransactionEnvelope) {
			raw := xdr.MustAddress(creator.Address).Ed25519
			copy(*sigBytes(env, "public_key"), raw[:])
			resign(t, env, otherKey, sb.Passphrase)
		}, reasonSimulationFailed},
		{"the network (signed for mainnet)", func(_ *x402.Payload, env *xdr.TransactionEnvelope) {
			resign(t, env, keypair.MustParseFull(sb.Demo.Secret), network.PublicNetworkPassphrase)
		}, reasonSimulationFailed},
		{"the nonce (not what was signed)", func(_ *x402.Payload, env *xdr.TransactionEnvelope) {
			credsOf(env).Nonce++
		}, reasonSimulationFailed},
		{"an expiration too far", func(_ *x402.Payload, env *xdr.TransactionEnvelope) {
			credsOf(env).SignatureExpirationLedger += 100
			resign(t, env, keypair.MustParseFull(sb.Demo.Secret), sb.Passphrase)
		}, reasonExpirationTooFar},
		{"the fee", func(_ *x402.Payload, env *xdr.TransactionEnvelope) {
			env.V1.Tx.Fee = 99
		}, reasonFeeBelowMinimum},
		{"the facilitator as source", func(_ *x402.Payload, env *xdr.TransactionEnvelope) {
			fac, _ := sb.Account("facilitator")
			env.V1.Tx.SourceAccount = xdr.MustMuxedAddress(fac.Address)
		}, reasonUnsafeSource},
		{"accepted differs from the offer", func(p *x402.Payload, _ *xdr.TransactionEnvelope) {
			p.Accepted = json.RawMessage(strings.Replace(string(p.Accepted), `"62500000"`, `"1"`, 1))
		}, reasonInvalidRequirements},
		{"another network accepted", func(p *x402.Payload, _ *xdr.TransactionEnvelope) {
			p.Accepted = json.RawMessage(strings.Replace(string(p.Accepted), `stellar:testnet`, `stellar:pubnet`, 1))
		}, reasonNetworkMismatch},
		{"x402 v1", func(p *x402.Payload, _ *xdr.TransactionEnvelope) { p.X402Version = 1 }, reasonInvalidVersion},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bad := tamper(t, header, tt.edit)
			if reason, ok := sb.Verify(bad, req); ok || reason != tt.reason {
				t.Fatalf("Verify = %q, %v; want %q", reason, ok, tt.reason)
			}
		})
	}
	if reason, ok := sb.Verify("not base64!", req); ok || reason != reasonInvalidPayload {
		t.Fatalf("garbage: %q", reason)
	}
	if reason, ok := sb.Verify(header, req); !ok {
		t.Fatalf("the checks changed state: %s", reason)
	}

	// Settle it once; the same payment (its nonce) is then refused, by Verify and the paywall.
	r := paid(t, sb, "GET", "/resources/zkprimer", nil, header)
	if st := settlement(t, r); r.status != 200 || !st.Success {
		t.Fatalf("settle: %d %+v", r.status, st)
	}
	if reason, ok := sb.Verify(header, req); ok || reason != reasonSimulationFailed {
		t.Fatalf("reused nonce: %q %v", reason, ok)
	}
	r = paid(t, sb, "GET", "/resources/zkprimer", nil, header)
	// A refusal at verification: the reason only in PAYMENT-REQUIRED.error, no PAYMENT-RESPONSE.
	if st := settlement(t, r); r.status != 402 || st.Success || st.ErrorReason != reasonSimulationFailed ||
		!strings.Contains(st.ErrorMessage, "nonce already exists") || st.Transaction != "" || r.header.Get("PAYMENT-RESPONSE") != "" {
		t.Fatalf("replay: %d %+v", r.status, st)
	}
	if usdc(t, sb, sb.Demo.Address) != "93.7500000" {
		t.Fatalf("the replay moved money: %s", usdc(t, sb, sb.Demo.Address))
	}

	// A payment whose signature expired (51 ledgers later) no longer verifies.
	header2, req2 := signPayment(t, sb, sb.Demo, "GET", "/resources/zkprimer", nil)
	clk.advance(51 * ledgerSeconds * time.Second)
	if reason, ok := sb.Verify(header2, req2); ok || reason != reasonSimulationFailed {
		t.Fatalf("expired: %q", reason)
	}
}

// The product's paying client (internal/clients/x402) buys a link end to end.
func TestBuyLinkWithTheProductClient(t *testing.T) {
	sb, _ := start(t, "")
	creator, _ := sb.Account("creator")
	fac, _ := sb.Account("facilitator")
	cl := &x402.Client{Svc: productService(errmap.SourceX402, sb.APIURL), Signer: signer(sb)}
	ctx := context.Background()
	offer, err := cl.Offer(ctx, transport.Request{Method: "GET", Path: "/resources/zkprimer", Route: "GET /resources/{id}"}, policy(sb))
	if err != nil {
		t.Fatalf("Offer: %v", err)
	}
	signed, err := cl.Sign(ctx, offer, keypair.MustParseFull(sb.Demo.Secret))
	if err != nil {
		t.Fatalf("Sign: %v", err)
	}
	out, err := cl.Send(ctx, offer, signed)
	if err != nil {
		t.Fatalf("Send: %v", err)
	}
	var body struct {
		URL     string
		Receipt struct{ PaymentID, Amount, Currency, PaidTo, PaidAt string }
	}
	mustJSON(t, out.Response.Body, &body)
	st := out.Settlement
	if out.Response.Status != 200 || !out.Paid || st == nil || !st.Success || len(st.Transaction) != 64 ||
		st.Network != "stellar:testnet" || st.Payer != sb.Demo.Address || out.Amount.Int64() != 62500000 {
		t.Fatalf("outcome %+v %+v", out, st)
	}
	if body.URL != sb.APIURL+"/sandbox/links/zkprimer" || body.Receipt.Amount != "6.25" || body.Receipt.Currency != "USDC" ||
		body.Receipt.PaidTo != creator.Address || len(body.Receipt.PaymentID) != 36 || body.Receipt.PaidAt == "" {
		t.Fatalf("body %s", out.Response.Body)
	}
	if page := get(t, body.URL); page.status != 200 || !strings.Contains(string(page.body), "Zero-Knowledge Primer") {
		t.Fatalf("the delivered link answers %d %q", page.status, page.body)
	}
	if got := usdc(t, sb, sb.Demo.Address); got != "93.7500000" {
		t.Errorf("payer %s, want 93.7500000", got)
	}
	if got := usdc(t, sb, creator.Address); got != "48.7500000" {
		t.Errorf("creator %s, want 48.7500000", got)
	}
	if sb.Count("api", "GET /resources/*") != 2 || sb.PaidRequests("GET /resources/*") != 1 || sb.PaidRequests("*") != 1 {
		t.Errorf("counts %d %d", sb.Count("api", "GET /resources/*"), sb.PaidRequests("GET /resources/*"))
	}

	// The settlement is a real transaction: the facilitator's, SUCCESS, with the transfer event.
	g := txStatus(t, sb, st.Transaction)
	if g.Status != protocol.TransactionStatusSuccess || g.Ledger != sb.LatestLedger() {
		t.Fatalf("getTransaction %+v", g)
	}
	var env xdr.TransactionEnvelope
	var meta xdr.TransactionMeta
	if xdr.SafeUnmarshalBase64(g.EnvelopeXDR, &env) != nil || xdr.SafeUnmarshalBase64(g.ResultMetaXDR, &meta) != nil {
		t.Fatal("undecodable settlement")
	}
	if env.SourceAccount().ToAccountId().Address() != fac.Address || len(env.Signatures()) != 1 {
		t.Fatalf("settlement source %s", env.SourceAccount().ToAccountId().Address())
	}
	evs := meta.V4.Operations[0].Events
	if len(evs) != 1 || len(evs[0].Body.V0.Topics) != 4 || string(*evs[0].Body.V0.Topics[0].Sym) != "transfer" ||
		string(*evs[0].Body.V0.Topics[3].Str) != "USDC:"+sb.USDCIssuer || evs[0].Body.V0.Data.I128.Lo != 62500000 {
		t.Fatalf("events %+v", evs)
	}
}

func TestBuyFiles(t *testing.T) {
	sb, _ := start(t, "")
	creator, _ := sb.Account("creator")
	tests := []struct {
		id, mime string
		price    int64
		check    func(b []byte) bool
	}{
		{"stellarcheatsheet", "text/markdown", 25 * stroops, func(b []byte) bool { return bytes.HasPrefix(b, []byte("# Stellar SDK Cheatsheet\n")) }},
		{"rustguide", "application/pdf", 1_5000000, func(b []byte) bool {
			return bytes.HasPrefix(b, []byte("%PDF-1.4")) && bytes.HasSuffix(b, []byte("%%EOF\n")) && len(b) > 200
		}},
		{"diagramset", "image/png", 8 * stroops, func(b []byte) bool { _, err := png.Decode(bytes.NewReader(b)); return err == nil }},
	}
	demoBal, creatorBal := int64(100*stroops), int64(42_5000000)
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			path := "/resources/" + tt.id
			header, _ := signPayment(t, sb, sb.Demo, "GET", path, nil)
			r := paid(t, sb, "GET", path, nil, header)
			st := settlement(t, r)
			if r.status != 200 || r.header.Get("Content-Type") != tt.mime || !tt.check(r.body) || !st.Success ||
				r.header.Get("X-Payment-Recipient") != creator.Address {
				t.Fatalf("%d %s %+v\n%q", r.status, r.header.Get("Content-Type"), st, r.body)
			}
			demoBal, creatorBal = demoBal-tt.price, creatorBal+tt.price
			if got, _ := sb.USDCBalance(sb.Demo.Address); got != demoBal {
				t.Errorf("payer %d, want %d", got, demoBal)
			}
			if got, _ := sb.USDCBalance(creator.Address); got != creatorBal {
				t.Errorf("creator %d, want %d", got, creatorBal)
			}
			if g := txStatus(t, sb, st.Transaction); g.Status != protocol.TransactionStatusSuccess {
				t.Fatalf("%+v", g)
			}
		})
	}
}

func TestBuyPrechecks(t *testing.T) {
	sb, _ := start(t, "")
	for path, want := range map[string]string{
		"/resources/nope":        `{"error":"Resource not found"}`,
		"/resources/copiedessay": `{"error":"Resource not listed"}`,
	} {
		if r := get(t, sb.APIURL+path); r.status != 404 || string(r.body) != want || r.header.Get("PAYMENT-REQUIRED") != "" {
			t.Errorf("%s: %d %s", path, r.status, r.body)
		}
	}
	// An on-chain price that differs from the API's: 409 before any 402.
	sb.world.mu.Lock()
	sb.world.reg.byID["vectordbbench"].Price = 11 * stroops
	sb.world.mu.Unlock()
	r := get(t, sb.APIURL+"/resources/vectordbbench")
	var body map[string]string
	mustJSON(t, r.body, &body)
	if r.status != 409 || body["error"] != "price_mismatch" || body["resourceId"] != "vectordbbench" {
		t.Fatalf("%d %s", r.status, r.body)
	}
}

// A payer who signed two payments but can cover only one: the second settles as
// simulation_failed (Error(Contract, #10), which the real facilitator does not name) and
// nothing moves. A sponsored wallet funded with Fund pays.
func TestBuyInsufficientFunds(t *testing.T) {
	sb, _ := start(t, "")
	sb.SetFaucet(0) // the wallet holds exactly what Fund gives it
	creator, _ := sb.Account("creator")
	var created struct{ PublicKey, SecretKey string }
	mustJSON(t, do(t, "POST", sb.SponsorURL+"/create", []byte("{}"), nil).body, &created)
	if err := sb.Fund(created.PublicKey, 30*stroops); err != nil {
		t.Fatal(err)
	}
	wallet := Account{Address: created.PublicKey, Secret: created.SecretKey}
	h1, _ := signPayment(t, sb, wallet, "GET", "/resources/stellarcheatsheet", nil)
	h2, req2 := signPayment(t, sb, wallet, "GET", "/resources/stellarcheatsheet", nil)
	if r := paid(t, sb, "GET", "/resources/stellarcheatsheet", nil, h1); r.status != 200 {
		t.Fatalf("first: %d %s", r.status, r.body)
	}
	if reason, ok := sb.Verify(h2, req2); ok || reason != reasonSimulationFailed {
		t.Fatalf("Verify %q", reason)
	}
	r := paid(t, sb, "GET", "/resources/stellarcheatsheet", nil, h2)
	st := settlement(t, r)
	if r.status != 402 || st.Success || st.ErrorReason != reasonSimulationFailed || !strings.Contains(st.ErrorMessage, "Error(Contract, #10)") ||
		r.header.Get("PAYMENT-RESPONSE") != "" || r.header.Get("PAYMENT-REQUIRED") == "" {
		t.Fatalf("%d %+v", r.status, st)
	}
	if usdc(t, sb, wallet.Address) != "5.0000000" || usdc(t, sb, creator.Address) != "67.5000000" {
		t.Fatalf("balances %s %s", usdc(t, sb, wallet.Address), usdc(t, sb, creator.Address))
	}

	// The product's signer refuses before paying: its simulation already fails.
	for name, want := range map[string]string{"zero": "Error(Contract, #10)", "notrust": "Error(Contract, #13)"} {
		acct, _ := sb.Account(name)
		pr, req, amount := quote(t, sb, "GET", "/resources/zkprimer", nil)
		_, err := signer(sb).Sign(context.Background(), keypair.MustParseFull(acct.Secret), pr, req, amount, nil)
		var e *soroban.SimulationError
		if !errors.As(err, &e) || !strings.Contains(e.Message, want) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if sb.PaidRequests("*") != 2 {
		t.Errorf("paid requests %d", sb.PaidRequests("*"))
	}

	// A payee without a USDC trustline: the facilitator's simulation fails with #13.
	notrust, _ := sb.Account("notrust")
	var pub struct{ APIKey string }
	mustJSON(t, post(t, sb.APIURL+"/publishers", `{"name":"No Trust","email":"nt@example.com","walletAddress":"`+notrust.Address+`"}`, nil).body, &pub)
	var res resourceBody
	mustJSON(t, post(t, sb.APIURL+"/resources", `{"title":"Unpayable","price":"1","externalUrl":"https://e.x/u"}`, withKey(pub.APIKey)).body, &res)
	if r := verifyContent(t, sb, res.ID, "original"); r.status != 200 {
		t.Fatalf("verify: %d %s", r.status, r.body)
	}
	_, req, amount := quote(t, sb, "GET", "/resources/"+res.ID, nil)
	header := manualPayment(t, sb, sb.Demo, req, amount.Int64())
	if reason, ok := sb.Verify(header, req.Raw); ok || reason != reasonSimulationFailed {
		t.Fatalf("Verify: %q", reason)
	}
	r = paid(t, sb, "GET", "/resources/"+res.ID, nil, header)
	if st := settlement(t, r); r.status != 402 || st.ErrorReason != reasonSimulationFailed {
		t.Fatalf("%d %+v", r.status, st)
	}
}

// manualPayment signs a payment the way the client does, without simulating first (so it
// can pay a transfer that simulation would refuse).
func manualPayment(t *testing.T, sb *Sandbox, payer Account, req *x402.Requirement, amount int64) string {
	t.Helper()
	args := []xdr.ScVal{scAddress(payer.Address), scAddress(req.PayTo), scI128(amount)}
	inv := &invocation{source: zeroAccount, args: xdr.InvokeContractArgs{ContractAddress: sb.world.pay.sac.addr, FunctionName: "transfer", Args: args}}
	entry := recordAuth(inv, payer.Address)
	cr := entry.Credentials.Address
	cr.SignatureExpirationLedger = xdr.Uint32(sb.LatestLedger() + 50)
	h, err := authPayload(sb.Passphrase, cr, entry.RootInvocation)
	if err != nil {
		t.Fatal(err)
	}
	kp := keypair.MustParseFull(payer.Secret)
	sig, _ := kp.Sign(h[:])
	pk, sg := xdr.ScBytes(xdr.MustAddress(payer.Address).Ed25519[:]), xdr.ScBytes(sig)
	m := xdr.ScMap{{Key: soroban.Sym("public_key"), Val: xdr.ScVal{Type: xdr.ScValTypeScvBytes, Bytes: &pk}},
		{Key: soroban.Sym("signature"), Val: xdr.ScVal{Type: xdr.ScValTypeScvBytes, Bytes: &sg}}}
	mp := &m
	cr.Signature = soroban.Vec(xdr.ScVal{Type: xdr.ScValTypeScvMap, Map: &mp})
	data := tokenData(nil, nil, 1)
	tx := buildInvokeOn(t, sb.world.pay.sac.addr, zeroAccount, 0, "transfer", args, []xdr.SorobanAuthorizationEntry{entry}, &data)
	p := &x402.Payload{X402Version: 2, Accepted: req.Raw}
	p.Payload.Transaction = b64(t, tx)
	out, err := p.Encode()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// The token contract through simulateTransaction and sendTransaction.
func TestUSDCToken(t *testing.T) {
	sb, clk := start(t, "")
	creator, _ := sb.Account("creator")
	notrust, _ := sb.Account("notrust")
	zero, _ := sb.Account("zero")
	tokenSim := func(source, fn string, auth []xdr.SorobanAuthorizationEntry, args ...xdr.ScVal) protocol.SimulateTransactionResponse {
		t.Helper()
		var sim protocol.SimulateTransactionResponse
		rpcResult(t, sb, "simulateTransaction", protocol.SimulateTransactionRequest{
			Transaction: b64(t, buildInvokeOn(t, sb.world.pay.sac.addr, source, 0, fn, args, auth, nil))}, &sim)
		return sim
	}
	ret := func(sim protocol.SimulateTransactionResponse) xdr.ScVal {
		t.Helper()
		var v xdr.ScVal
		if sim.Error != "" || len(sim.Results) != 1 || xdr.SafeUnmarshalBase64(*sim.Results[0].ReturnValueXDR, &v) != nil {
			t.Fatalf("%+v", sim)
		}
		return v
	}
	if v := ret(tokenSim(zeroAccount, "balance", nil, scAddress(sb.Demo.Address))); v.I128.Lo != 100*stroops {
		t.Fatalf("balance %+v", v)
	}
	if v := ret(tokenSim(zeroAccount, "decimals", nil)); *v.U32 != 7 {
		t.Fatal("decimals")
	}
	for _, tt := range []struct {
		fn   string
		args []xdr.ScVal
		code int
	}{
		{"balance", []xdr.ScVal{scAddress(notrust.Address)}, 13},
		{"transfer", []xdr.ScVal{scAddress(notrust.Address), scAddress(creator.Address), scI128(1)}, 13},
		{"transfer", []xdr.ScVal{scAddress(sb.Demo.Address), scAddress(notrust.Address), scI128(1)}, 13},
		{"transfer", []xdr.ScVal{scAddress(sb.world.missing.Address), scAddress(creator.Address), scI128(1)}, 13},
		{"transfer", []xdr.ScVal{scAddress(zero.Address), scAddress(creator.Address), scI128(1)}, 10},
		{"transfer", []xdr.ScVal{scAddress(sb.Demo.Address), scAddress(creator.Address), scI128(100*stroops + 1)}, 10},
		{"transfer", []xdr.ScVal{scAddress(sb.Demo.Address), scAddress(creator.Address),
			{Type: xdr.ScValTypeScvI128, I128: &xdr.Int128Parts{Hi: -1, Lo: xdr.Uint64(1<<64 - 5)}}}, 8},
	} {
		sim := tokenSim(zeroAccount, tt.fn, nil, tt.args...)
		wantContractError(t, sim.Error, tt.code)
		if len(sim.EventsXDR) == 0 || sim.TransactionDataXDR != "" {
			t.Errorf("%s %d: %+v", tt.fn, tt.code, sim)
		}
	}

	// Record mode: one address-credential entry for from, unsigned, with a nonce in the footprint.
	args := []xdr.ScVal{scAddress(sb.Demo.Address), scAddress(creator.Address), scI128(2 * stroops)}
	sim := tokenSim(zeroAccount, "transfer", nil, args...)
	ret(sim)
	var entry xdr.SorobanAuthorizationEntry
	var data xdr.SorobanTransactionData
	if len(*sim.Results[0].AuthXDR) != 1 || xdr.SafeUnmarshalBase64((*sim.Results[0].AuthXDR)[0], &entry) != nil ||
		xdr.SafeUnmarshalBase64(sim.TransactionDataXDR, &data) != nil {
		t.Fatalf("%+v", sim)
	}
	cr := entry.Credentials.Address
	if entry.Credentials.Type != xdr.SorobanCredentialsTypeSorobanCredentialsAddress || cr.SignatureExpirationLedger != 0 ||
		cr.Signature.Type != xdr.ScValTypeScvVoid || entry.RootInvocation.Function.ContractFn.FunctionName != "transfer" {
		t.Fatalf("entry %+v", entry)
	}
	rw := data.Resources.Footprint.ReadWrite
	if len(rw) != 3 || rw[0].Type != xdr.LedgerEntryTypeTrustline || rw[2].ContractData.Key.NonceKey.Nonce != cr.Nonce ||
		sim.MinResourceFee != int64(data.ResourceFee) || len(sim.EventsXDR) != 1 {
		t.Fatalf("footprint %+v", data.Resources.Footprint)
	}
	// Enforce mode with the entry still unsigned: the host refuses.
	wantAuth := tokenSim(zeroAccount, "transfer", []xdr.SorobanAuthorizationEntry{entry}, args...)
	if !strings.Contains(wantAuth.Error, "Error(Auth, InvalidAction)") {
		t.Fatalf("unsigned entry: %s", wantAuth.Error)
	}

	// The holder as source: source-account credentials; sendTransaction applies the transfer.
	seq := sequence(t, sb, sb.Demo.Address)
	sim = tokenSim(sb.Demo.Address, "transfer", nil, args...)
	ret(sim)
	if xdr.SafeUnmarshalBase64((*sim.Results[0].AuthXDR)[0], &entry) != nil ||
		entry.Credentials.Type != xdr.SorobanCredentialsTypeSorobanCredentialsSourceAccount ||
		xdr.SafeUnmarshalBase64(sim.TransactionDataXDR, &data) != nil {
		t.Fatalf("%+v", sim)
	}
	tx := buildInvokeOn(t, sb.world.pay.sac.addr, sb.Demo.Address, seq, "transfer", args, []xdr.SorobanAuthorizationEntry{entry}, &data)
	g := submit(t, sb, clk, sign(t, sb, tx, sb.Demo))
	if g.Status != protocol.TransactionStatusSuccess || usdc(t, sb, sb.Demo.Address) != "98.0000000" || usdc(t, sb, creator.Address) != "44.5000000" {
		t.Fatalf("%+v %s", g, usdc(t, sb, sb.Demo.Address))
	}
}

// The token contract with its entries archived: simulation answers a restore of every entry
// the call touches (read-write), and a call that would fail reports only the restore, as the
// registry contract does.
func TestUSDCTokenArchived(t *testing.T) {
	sb, _ := start(t, "")
	creator, _ := sb.Account("creator")
	tokenSim := func(args ...xdr.ScVal) protocol.SimulateTransactionResponse {
		t.Helper()
		var sim protocol.SimulateTransactionResponse
		rpcResult(t, sb, "simulateTransaction", protocol.SimulateTransactionRequest{
			Transaction: b64(t, buildInvokeOn(t, sb.world.pay.sac.addr, zeroAccount, 0, "transfer", args, nil, nil))}, &sim)
		return sim
	}
	ok := []xdr.ScVal{scAddress(sb.Demo.Address), scAddress(creator.Address), scI128(1)}
	tooMuch := []xdr.ScVal{scAddress(sb.Demo.Address), scAddress(creator.Address), scI128(100*stroops + 1)}

	var live xdr.SorobanTransactionData
	plain := tokenSim(ok...)
	if plain.RestorePreamble != nil || xdr.SafeUnmarshalBase64(plain.TransactionDataXDR, &live) != nil {
		t.Fatalf("without the fault: %+v", plain)
	}
	touched := len(live.Resources.Footprint.ReadOnly) + len(live.Resources.Footprint.ReadWrite)

	setFaults(t, sb, "service=rpc,kind=archived")
	sim := tokenSim(ok...)
	var data xdr.SorobanTransactionData
	if sim.Error != "" || sim.RestorePreamble == nil || sim.RestorePreamble.MinResourceFee <= 0 ||
		xdr.SafeUnmarshalBase64(sim.RestorePreamble.TransactionDataXDR, &data) != nil ||
		len(data.Resources.Footprint.ReadWrite) != touched || len(data.Resources.Footprint.ReadOnly) != 0 ||
		int64(data.ResourceFee) != sim.RestorePreamble.MinResourceFee {
		t.Fatalf("archived transfer: %+v (restore data %+v, want %d entries read-write)", sim, data, touched)
	}
	setFaults(t, sb, "service=rpc,kind=archived")
	if sim := tokenSim(tooMuch...); sim.Error != "" || len(sim.EventsXDR) != 0 || sim.RestorePreamble == nil || len(sim.Results) != 0 {
		t.Fatalf("archived failing transfer: %+v", sim)
	}
}

// buildInvokeOn is buildInvoke for any contract.
func buildInvokeOn(t *testing.T, contract xdr.ScAddress, source string, seq int64, fn string, args []xdr.ScVal,
	auth []xdr.SorobanAuthorizationEntry, data *xdr.SorobanTransactionData) *txnbuild.Transaction {
	t.Helper()
	op := &txnbuild.InvokeHostFunction{
		HostFunction: xdr.HostFunction{Type: xdr.HostFunctionTypeHostFunctionTypeInvokeContract,
			InvokeContract: &xdr.InvokeContractArgs{ContractAddress: contract, FunctionName: xdr.ScSymbol(fn), Args: args}},
		Auth: auth, SourceAccount: source,
	}
	if data != nil {
		op.Ext = xdr.TransactionExt{V: 1, SorobanData: data}
	}
	tx, err := txnbuild.NewTransaction(txnbuild.TransactionParams{
		SourceAccount:        &txnbuild.SimpleAccount{AccountID: source, Sequence: seq},
		IncrementSequenceNum: true,
		Operations:           []txnbuild.Operation{op},
		BaseFee:              txnbuild.MinBaseFee,
		Preconditions:        txnbuild.Preconditions{TimeBounds: txnbuild.NewInfiniteTimeout()},
	})
	if err != nil {
		t.Fatal(err)
	}
	return tx
}

// TestPurchaseLedger: GET /buyers/{address}/payments lists exactly the purchases that
// settled, newest first, with the receipt the paid answer carried; /meta announces a file's
// size in bytes.
func TestPurchaseLedger(t *testing.T) {
	sb, _ := start(t, "")
	ledger := func(addr string) (int, []paymentRow) {
		t.Helper()
		r := get(t, sb.APIURL+"/buyers/"+addr+"/payments")
		var rows []paymentRow
		if r.status == 200 {
			mustJSON(t, r.body, &rows)
		}
		return r.status, rows
	}
	if status, rows := ledger(sb.Demo.Address); status != 200 || rows == nil || len(rows) != 0 {
		t.Fatalf("a buyer without purchases: %d %v", status, rows)
	}
	if status, _ := ledger("not-an-account"); status != 400 {
		t.Fatalf("an invalid address: %d, want 400", status)
	}
	var receipts []paymentRow
	for _, id := range []string{"rustguide", "agentpromptpack"} {
		var meta struct {
			Size *int `json:"size"`
		}
		mustJSON(t, get(t, sb.APIURL+"/resources/"+id+"/meta").body, &meta)
		path := "/resources/" + id
		header, _ := signPayment(t, sb, sb.Demo, "GET", path, nil)
		r := paid(t, sb, "GET", path, nil, header)
		st := settlement(t, r)
		want, _, _ := sb.FileContent(id)
		if r.status != 200 || !bytes.Equal(r.body, want) || meta.Size == nil || *meta.Size != len(r.body) {
			t.Fatalf("%s: %d, %d bytes, meta size %v", id, r.status, len(r.body), meta.Size)
		}
		receipts = append([]paymentRow{{PaymentID: r.header.Get("X-Payment-Id"), ResourceID: id, Amount: strings.TrimSuffix(r.header.Get("X-Payment-Amount"), " USDC"),
			Currency: "USDC", TxHash: st.Transaction}}, receipts...)
	}
	// A refused payment (a replay of a consumed authorization) is not recorded.
	header, _ := signPayment(t, sb, sb.Demo, "GET", "/resources/rustguide", nil)
	_ = paid(t, sb, "GET", "/resources/rustguide", nil, header)
	if r := paid(t, sb, "GET", "/resources/rustguide", nil, header); r.status != 402 {
		t.Fatalf("replayed payment: %d", r.status)
	}
	// As on the real server, an x402 v2 payment's payer is stored as unknown: the route lists
	// none of them, while the settlements are there (Purchases counts them by payer).
	if _, rows := ledger(sb.Demo.Address); len(rows) != 0 {
		t.Fatalf("ledger %+v, want no attributed purchase", rows)
	}
	if got := sb.Purchases(sb.Demo.Address); !slices.Equal(got, []string{"rustguide", "agentpromptpack", "rustguide"}) {
		t.Errorf("settled purchases %v", got)
	}
	_ = receipts
	if _, rows := ledger(sb.world.byName["creator"].Address); len(rows) != 0 {
		t.Errorf("another buyer sees %v", rows)
	}
}
