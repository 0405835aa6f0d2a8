package sandbox

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/stellar/go-stellar-sdk/keypair"
	"github.com/stellar/go-stellar-sdk/protocols/horizon"
	protocol "github.com/stellar/go-stellar-sdk/protocols/rpc"
	"github.com/stellar/go-stellar-sdk/txnbuild"
	"github.com/stellar/go-stellar-sdk/xdr"

	"github.com/mindvault/mcp-endpoint/internal/clients/mindvault"
)

func post(t *testing.T, url, body string, header map[string]string) reply {
	t.Helper()
	h := map[string]string{"Content-Type": "application/json"}
	for k, v := range header {
		h[k] = v
	}
	var b []byte
	if body != "" {
		b = []byte(body)
	}
	return do(t, http.MethodPost, url, b, h)
}

func withKey(key string) map[string]string { return map[string]string{"x-api-key": key} }

// createResource publishes a link resource with the demo key and returns its JSON.
func createResource(t *testing.T, sb *Sandbox, title, price string) resourceBody {
	t.Helper()
	r := post(t, sb.APIURL+"/resources", `{"title":"`+title+`","description":"About `+title+`","price":"`+price+`","externalUrl":"https://example.com/`+strings.ToLower(strings.ReplaceAll(title, " ", "-"))+`"}`, withKey(sb.DemoAPIKey))
	var res resourceBody
	mustJSON(t, r.body, &res)
	if r.status != 201 {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	return res
}

// verifyContent pays the verification fee with the demo wallet and checks resourceId's content.
func verifyContent(t *testing.T, sb *Sandbox, id, content string) reply {
	t.Helper()
	body, _ := json.Marshal(map[string]string{"content": content, "resourceId": id})
	header, _ := signPayment(t, sb, sb.Demo, "POST", "/verify-content", body)
	return paid(t, sb, "POST", "/verify-content", body, header)
}

func TestPublishers(t *testing.T) {
	sb, _ := start(t, "")
	r := post(t, sb.APIURL+"/publishers", `{"name":"Ada","email":"ada@example.com","walletAddress":"GABC"}`, nil)
	var p struct{ ID, Name, Email, WalletAddress, APIKey, CreatedAt string }
	mustJSON(t, r.body, &p)
	if r.status != 201 || p.ID == "" || p.Name != "Ada" || p.WalletAddress != "GABC" || !regexp.MustCompile(`^mv_[0-9a-f]{64}$`).MatchString(p.APIKey) {
		t.Fatalf("%d %s", r.status, r.body)
	}
	tests := []struct {
		body   string
		status int
		want   string
	}{
		{`{"name":"Ada 2","email":"ADA@example.com","walletAddress":"G"}`, 409, `{"error":"Email already registered"}`},
		{`{"name":"Demo","email":"demo@mindvault.example","walletAddress":"G"}`, 409, `{"error":"Email already registered"}`},
		{`{"name":"Ada","email":"nope","walletAddress":"G"}`, 400, `{"error":{"_errors":[],"email":{"_errors":["Invalid email"]}}}`},
		{`{"name":"","email":"a@b.co"}`, 400, `{"error":{"_errors":[],"name":{"_errors":["String must contain at least 1 character(s)"]},"walletAddress":{"_errors":["Required"]}}}`},
		{`{"name":"A","email":"a@b.co","walletAddress":7,"role":"admin"}`, 400, `{"error":{"_errors":["Unrecognized key(s) in object: 'role'"],"walletAddress":{"_errors":["Expected string, received number"]}}}`},
		{`[]`, 400, `{"error":{"_errors":["Expected object, received array"]}}`},
		{`{`, 400, `{"error":"Invalid JSON body"}`},
	}
	for _, tt := range tests {
		if r := post(t, sb.APIURL+"/publishers", tt.body, nil); r.status != tt.status || string(r.body) != tt.want {
			t.Errorf("%s: %d %s", tt.body, r.status, r.body)
		}
	}

	// The new key creates resources; theirs are not the demo key's.
	r = post(t, sb.APIURL+"/resources", `{"title":"Ada's notes","price":"2","externalUrl":"https://ada.example/notes"}`, withKey(p.APIKey))
	var res resourceBody
	mustJSON(t, r.body, &res)
	if r.status != 201 || res.WalletAddress != "GABC" || res.PublisherID != p.ID {
		t.Fatalf("%d %s", r.status, r.body)
	}
	if r := get(t, sb.APIURL+"/resources/"+res.ID+"/register/prepare"); r.status != 401 {
		t.Fatalf("no key: %d", r.status)
	}
	if r := do(t, "GET", sb.APIURL+"/resources/"+res.ID+"/register/prepare", nil, withKey(sb.DemoAPIKey)); r.status != 403 ||
		string(r.body) != `{"error":"Forbidden: you do not own this resource"}` {
		t.Fatalf("not the owner: %d %s", r.status, r.body)
	}
}

func TestCreateResource(t *testing.T) {
	sb, _ := start(t, "")
	body := `{"title":"Agent Eval Notes","description":"How we evaluate agents.","price":"1.50","externalUrl":"https://example.com/evals"}`
	for key, want := range map[string]string{"": "Missing x-api-key header", "mv_" + strings.Repeat("0", 64): "Invalid API key"} {
		h := map[string]string{}
		if key != "" {
			h["x-api-key"] = key
		}
		if r := post(t, sb.APIURL+"/resources", body, h); r.status != 401 || string(r.body) != `{"error":"`+want+`"}` {
			t.Errorf("%q: %d %s", key, r.status, r.body)
		}
	}
	idem := map[string]string{"x-api-key": sb.DemoAPIKey, "Idempotency-Key": "k1"}
	r := post(t, sb.APIURL+"/resources", body, idem)
	var res resourceBody
	mustJSON(t, r.body, &res)
	if r.status != 201 || !regexp.MustCompile(`^[a-z0-9]{1,24}$`).MatchString(res.ID) || res.VerificationStatus != "pending" || res.Listed ||
		res.OnchainStatus != "none" || res.ResourceType != "link" || res.Price != "1.50" || res.WalletAddress != sb.Demo.Address ||
		res.AccessURL != sb.APIURL+"/resources/"+res.ID || *res.ExternalURL != "https://example.com/evals" {
		t.Fatalf("%d %s", r.status, r.body)
	}
	var again resourceBody
	if r := post(t, sb.APIURL+"/resources", body, idem); r.status != 201 || json.Unmarshal(r.body, &again) != nil || again.ID != res.ID {
		t.Fatalf("replay: %d %s", r.status, r.body)
	}
	if other := createResource(t, sb, "Agent Eval Notes", "1.50"); other.ID == res.ID {
		t.Fatal("no Idempotency-Key, same resource")
	}
	// Meta knows it; the catalog does not list it; buying it is 404 until verified.
	var m metaBody
	mustJSON(t, get(t, sb.APIURL+"/resources/"+res.ID+"/meta").body, &m)
	if m.ID != res.ID || m.OnchainStatus != "none" || m.PublisherWallet != sb.Demo.Address || m.VerificationStatus != "pending" {
		t.Fatalf("meta %+v", m)
	}
	if r := get(t, sb.APIURL+"/resources/"+res.ID); r.status != 404 {
		t.Fatalf("unlisted buy: %d", r.status)
	}
	bad := []struct{ body, want string }{
		{`{"title":"x","price":"free","externalUrl":"https://e.x"}`, `"price":{"_errors":["Price must be a positive decimal with at most 7 decimals, such as 1.50"]}`},
		{`{"title":"x","price":"1","externalUrl":"not a url"}`, `"externalUrl":{"_errors":["Invalid url"]}`},
		{`{"title":"x","price":"1","externalUrl":"https://e.x","tags":["a"]}`, `"_errors":["Unrecognized key(s) in object: 'tags'"]`},
	}
	for _, tt := range bad {
		if r := post(t, sb.APIURL+"/resources", tt.body, withKey(sb.DemoAPIKey)); r.status != 400 || !strings.Contains(string(r.body), tt.want) {
			t.Errorf("%s: %d %s", tt.body, r.status, r.body)
		}
	}
}

func TestVerifyContent(t *testing.T) {
	sb, _ := start(t, "")
	agent, _ := sb.Account("agent")
	res := createResource(t, sb, "Original Work", "0.50")
	r := verifyContent(t, sb, res.ID, "An original essay about agents.")
	var v struct {
		IsOriginal bool
		Confidence float64
		Flags      []string
		Usage      map[string]any
	}
	mustJSON(t, r.body, &v)
	if st := settlement(t, r); r.status != 200 || !v.IsOriginal || v.Confidence <= 0 || v.Flags == nil || v.Usage == nil || !st.Success {
		t.Fatalf("%d %s", r.status, r.body)
	}
	if usdc(t, sb, agent.Address) != "12.4000000" || usdc(t, sb, sb.Demo.Address) != "99.9000000" {
		t.Fatalf("fee not paid: %s %s", usdc(t, sb, agent.Address), usdc(t, sb, sb.Demo.Address))
	}
	var ver struct {
		Status       string
		Listed       bool
		Verification *mindvault.VerificationResult
	}
	mustJSON(t, get(t, sb.APIURL+"/resources/"+res.ID+"/verification").body, &ver)
	if ver.Status != "verified" || !ver.Listed || ver.Verification == nil || !ver.Verification.IsOriginal {
		t.Fatalf("verification %+v", ver)
	}
	var rows []catalogRow
	mustJSON(t, get(t, sb.APIURL+"/resources?search=Original+Work").body, &rows)
	if len(rows) != 1 || rows[0].ID != res.ID {
		t.Fatalf("catalog %v", rows)
	}

	copied := createResource(t, sb, "Borrowed Work", "0.50")
	r = verifyContent(t, sb, copied.ID, "This text was COPIED from elsewhere.")
	mustJSON(t, r.body, &v)
	mustJSON(t, get(t, sb.APIURL+"/resources/"+copied.ID+"/verification").body, &ver)
	if r.status != 200 || v.IsOriginal || len(v.Flags) != 1 || ver.Status != "rejected" || ver.Listed {
		t.Fatalf("copied: %s %+v", r.body, ver)
	}

	// A bad body with a valid payment is a 400 and is not settled.
	body := []byte(`{"content":"x","extra":1}`)
	header, _ := signPayment(t, sb, sb.Demo, "POST", "/verify-content", body)
	r = paid(t, sb, "POST", "/verify-content", body, header)
	if r.status != 400 || r.header.Get("PAYMENT-RESPONSE") != "" || usdc(t, sb, sb.Demo.Address) != "99.8000000" {
		t.Fatalf("bad body: %d %s %s", r.status, r.body, usdc(t, sb, sb.Demo.Address))
	}
	body = []byte(`{"content":"x","resourceId":"nope"}`)
	if r := paid(t, sb, "POST", "/verify-content", body, header); r.status != 404 || usdc(t, sb, sb.Demo.Address) != "99.8000000" {
		t.Fatalf("unknown resource: %d %s", r.status, r.body)
	}
	var a struct {
		Stats struct{ TotalVerifications int }
	}
	mustJSON(t, get(t, sb.APIURL+"/agent/status").body, &a)
	if a.Stats.TotalVerifications != 11 {
		t.Fatalf("agent stats %+v", a)
	}
}

func TestPrepareSignRegister(t *testing.T) {
	sb, _ := start(t, "")
	key := withKey(sb.DemoAPIKey)
	res := createResource(t, sb, "Registry Walkthrough", "3.25")
	prepareURL := sb.APIURL + "/resources/" + res.ID + "/register/prepare"
	if r := do(t, "GET", prepareURL, nil, key); r.status != 400 || string(r.body) != `{"error":"Resource must be verified before registering on-chain"}` {
		t.Fatalf("unverified: %d %s", r.status, r.body)
	}
	if r := verifyContent(t, sb, res.ID, "fresh content"); r.status != 200 {
		t.Fatalf("verify: %d %s", r.status, r.body)
	}
	seq := sequence(t, sb, sb.Demo.Address)
	r := do(t, "GET", prepareURL, nil, key)
	var prep struct {
		UnsignedXdr, NetworkPassphrase string
		Metadata                       map[string]string
	}
	mustJSON(t, r.body, &prep)
	if r.status != 200 || prep.NetworkPassphrase != sb.Passphrase || prep.Metadata["resourceId"] != res.ID || prep.Metadata["creator"] != sb.Demo.Address {
		t.Fatalf("prepare: %d %s", r.status, r.body)
	}
	parsed, err := txnbuild.TransactionFromXDR(prep.UnsignedXdr)
	if err != nil {
		t.Fatal(err)
	}
	tx, _ := parsed.Transaction()
	env := tx.ToXDR()
	op := env.Operations()[0].Body.InvokeHostFunctionOp
	if tx.SourceAccount().AccountID != sb.Demo.Address || tx.SequenceNumber() != seq+1 || env.V1.Tx.Ext.SorobanData == nil ||
		int64(env.V1.Tx.Fee) != 100+int64(env.V1.Tx.Ext.SorobanData.ResourceFee) || len(op.Auth) != 1 ||
		op.HostFunction.InvokeContract.FunctionName != "register" || len(env.Signatures()) != 0 {
		t.Fatalf("unsigned tx %+v", env.V1.Tx)
	}

	// Signed by someone else: the server's submission is refused (txBAD_AUTH), nothing changes.
	creator, _ := sb.Account("creator")
	wrong, _ := tx.Sign(sb.Passphrase, keypair.MustParseFull(creator.Secret))
	regURL := sb.APIURL + "/resources/" + res.ID + "/register"
	r = post(t, regURL, `{"signedXdr":"`+b64(t, wrong)+`"}`, key)
	if r.status != 502 || !strings.Contains(string(r.body), "sendTransaction: ERROR txBadAuth") {
		t.Fatalf("bad signature: %d %s", r.status, r.body)
	}

	signed := sign(t, sb, tx, sb.Demo)
	r = post(t, regURL, `{"signedXdr":"`+b64(t, signed)+`"}`, key)
	var reg struct{ ID, OnchainStatus, TxHash string }
	mustJSON(t, r.body, &reg)
	if r.status != 200 || reg.OnchainStatus != "registered" || reg.TxHash != hashOf(t, sb, signed) {
		t.Fatalf("register: %d %s", r.status, r.body)
	}
	if g := txStatus(t, sb, reg.TxHash); g.Status != protocol.TransactionStatusSuccess {
		t.Fatalf("%+v", g)
	}
	var m metaBody
	mustJSON(t, get(t, sb.APIURL+"/resources/"+res.ID+"/meta").body, &m)
	e, ok := sb.RegistryResource(res.ID)
	if m.OnchainStatus != "registered" || m.OnchainTxHash == nil || *m.OnchainTxHash != reg.TxHash || !ok || e.Price != 3_2500000 ||
		e.Creator != sb.Demo.Address || !e.Verified || sequence(t, sb, sb.Demo.Address) != seq+1 {
		t.Fatalf("after: %+v %+v", m, e)
	}
	r = post(t, regURL, "", key)
	if r.status != 409 || string(r.body) != `{"error":"Resource is already registered on-chain"}` {
		t.Fatalf("again: %d %s", r.status, r.body)
	}
	if r := do(t, "GET", prepareURL, nil, key); r.status != 409 {
		t.Fatalf("prepare again: %d", r.status)
	}
	// Bought now that it is listed and registered: payTo the demo wallet, on-chain price checked.
	if _, req, _ := quote(t, sb, "GET", "/resources/"+res.ID, nil); req.Amount != "32500000" || req.PayTo != sb.Demo.Address {
		t.Fatalf("requirement %+v", req)
	}

	// Without a body the server registers with the wallet's key itself.
	res2 := createResource(t, sb, "Server Signed", "1")
	verifyContent(t, sb, res2.ID, "also fresh")
	r = post(t, sb.APIURL+"/resources/"+res2.ID+"/register", "", key)
	mustJSON(t, r.body, &reg)
	if g := txStatus(t, sb, reg.TxHash); r.status != 200 || g.Status != protocol.TransactionStatusSuccess {
		t.Fatalf("server-signed: %d %s", r.status, r.body)
	}

	// Without a body the server registers for a wallet it holds no key of, too: a wallet the
	// sponsored-account service created for its own caller, registered as a publisher.
	kp := keypair.MustRandom()
	if r := post(t, sb.SponsorURL+"/create", `{"publicKey":"`+kp.Address()+`"}`, nil); r.status != 200 {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	var pub struct{ APIKey string }
	mustJSON(t, post(t, sb.APIURL+"/publishers", `{"name":"New","email":"new@example.org","walletAddress":"`+kp.Address()+`"}`, nil).body, &pub)
	r = post(t, sb.APIURL+"/resources", `{"title":"Newcomer","price":"2","externalUrl":"https://example.org/newcomer"}`, withKey(pub.APIKey))
	var res3 resourceBody
	mustJSON(t, r.body, &res3)
	verifyContent(t, sb, res3.ID, "newcomer's own words")
	newSeq := sequence(t, sb, kp.Address())
	r = post(t, sb.APIURL+"/resources/"+res3.ID+"/register", "", withKey(pub.APIKey))
	mustJSON(t, r.body, &reg)
	g := txStatus(t, sb, reg.TxHash)
	var regEnv xdr.TransactionEnvelope
	if r.status != 200 || g.Status != protocol.TransactionStatusSuccess || xdr.SafeUnmarshalBase64(g.EnvelopeXDR, &regEnv) != nil {
		t.Fatalf("server-signed for a new wallet: %d %s %+v", r.status, r.body, g)
	}
	registrar, _ := sb.Account("registrar")
	if e, ok := sb.RegistryResource(res3.ID); !ok || e.Creator != kp.Address() || !e.Verified ||
		regEnv.SourceAccount().ToAccountId().Address() != registrar.Address || sequence(t, sb, kp.Address()) != newSeq {
		t.Fatalf("registered %+v (%v) from %s, want creator %s from the registrar, the wallet's sequence untouched",
			e, ok, regEnv.SourceAccount().ToAccountId().Address(), kp.Address())
	}

	// Seeded states: registered (409 with the hash), not found, not verified; a pending
	// registration whose transaction never reached the network has expired (200).
	for id, want := range map[string]int{"llmprompts": 409, "agentpromptpack": 200, "nope": 404, "draftnotes": 400} {
		if r := do(t, "GET", sb.APIURL+"/resources/"+id+"/register/prepare", nil, key); r.status != want {
			t.Errorf("%s: %d %s", id, r.status, r.body)
		}
	}
}

// The seeded agentpromptpack's registration is "pending" with a transaction the network never
// received: the server treats it as expired, so its publisher can register it.
func TestExpiredPendingRegistration(t *testing.T) {
	sb, _ := start(t, "")
	key := withKey(sb.DemoAPIKey)
	var m metaBody
	mustJSON(t, get(t, sb.APIURL+"/resources/agentpromptpack/meta").body, &m)
	if m.OnchainStatus != "pending" || m.OnchainTxHash == nil || txStatus(t, sb, *m.OnchainTxHash).Status != protocol.TransactionStatusNotFound {
		t.Fatalf("seed: %+v", m)
	}
	r := post(t, sb.APIURL+"/resources/agentpromptpack/register", "", key)
	var reg struct{ ID, OnchainStatus, TxHash string }
	mustJSON(t, r.body, &reg)
	if r.status != 200 || reg.OnchainStatus != "registered" || txStatus(t, sb, reg.TxHash).Status != protocol.TransactionStatusSuccess {
		t.Fatalf("register: %d %s", r.status, r.body)
	}
	if e, ok := sb.RegistryResource("agentpromptpack"); !ok || e.Creator != sb.Demo.Address || !e.Verified {
		t.Fatalf("registry: %+v %v", e, ok)
	}
	if r := post(t, sb.APIURL+"/resources/agentpromptpack/register", "", key); r.status != 409 {
		t.Fatalf("again: %d %s", r.status, r.body)
	}
}

func TestSponsorCreate(t *testing.T) {
	sb, _ := start(t, "")
	sponsor, _ := sb.Account("sponsor")
	var before horizon.Account
	mustJSON(t, get(t, sb.HorizonURL+"/accounts/"+sponsor.Address).body, &before)
	r := post(t, sb.SponsorURL+"/create", "{}", nil)
	var w struct {
		PublicKey, SecretKey string
		Funding              *struct{ Asset, Issuer, Amount, Note string }
	}
	mustJSON(t, r.body, &w)
	kp, err := keypair.ParseFull(w.SecretKey)
	if r.status != 200 || err != nil || kp.Address() != w.PublicKey {
		t.Fatalf("%d %s", r.status, r.body)
	}
	// The faucet credits test USDC, says so, and Horizon shows it.
	if f := w.Funding; f == nil || f.Asset != "USDC" || f.Issuer != sb.USDCIssuer || f.Amount != "100.0000000" || !strings.Contains(f.Note, "faucet") {
		t.Fatalf("funding %s", r.body)
	}
	var a, after horizon.Account
	mustJSON(t, get(t, sb.HorizonURL+"/accounts/"+w.PublicKey).body, &a)
	mustJSON(t, get(t, sb.HorizonURL+"/accounts/"+sponsor.Address).body, &after)
	l := usdcLine(a)
	if a.Sponsor != sponsor.Address || a.NumSponsored != 3 || l == nil || l.Issuer != sb.USDCIssuer || l.Balance != "100.0000000" ||
		l.Sponsor != sponsor.Address || after.NumSponsoring != before.NumSponsoring+3 {
		t.Fatalf("account %+v, sponsor %d → %d", a, before.NumSponsoring, after.NumSponsoring)
	}
	if err := sb.Fund(w.PublicKey, 12_3400000); err != nil || usdc(t, sb, w.PublicKey) != "112.3400000" {
		t.Fatalf("Fund: %v %s", err, usdc(t, sb, w.PublicKey))
	}
	// With the faucet off, a new wallet starts empty and the answer has no funding.
	sb.SetFaucet(0)
	r = post(t, sb.SponsorURL+"/create", "{}", nil)
	var empty map[string]any
	mustJSON(t, r.body, &empty)
	if _, ok := empty["funding"]; ok || usdc(t, sb, empty["publicKey"].(string)) != "0.0000000" {
		t.Fatalf("faucet off: %s", r.body)
	}
	// GET /health reports without creating an account.
	var h struct {
		Status, Sponsor, FaucetUsdc string
		NumSponsoring               int
	}
	if r := get(t, sb.SponsorURL+"/health"); r.status != 200 {
		t.Fatalf("health: %d %s", r.status, r.body)
	} else {
		mustJSON(t, r.body, &h)
	}
	if h.Status != "ok" || h.Sponsor != sponsor.Address || h.FaucetUsdc != "0.0000000" || h.NumSponsoring != int(before.NumSponsoring)+6 {
		t.Fatalf("health %+v", h)
	}
	if r := do(t, "POST", sb.SponsorURL+"/health", nil, nil); r.status != 405 {
		t.Fatalf("POST /health: %d", r.status)
	}
	notrust, _ := sb.Account("notrust")
	if sb.Fund(notrust.Address, 1) == nil || sb.Fund(sb.world.missing.Address, 1) == nil || sb.Fund(w.PublicKey, 0) == nil {
		t.Fatal("Fund accepted an account without a trustline, a missing account or a zero amount")
	}
	if r := do(t, "GET", sb.SponsorURL+"/create", nil, nil); r.status != 405 {
		t.Fatalf("GET: %d", r.status)
	}

	setFaults(t, sb, "service=sponsor,target=POST /create,kind=status,status=429,retry-after=3,count=1")
	r = post(t, sb.SponsorURL+"/create", "{}", nil)
	if r.status != 429 || r.header.Get("Retry-After") != "3" || string(r.body) != `{"error":"Too many requests, please try again later"}` {
		t.Fatalf("fault: %d %s", r.status, r.body)
	}
	if r := post(t, sb.SponsorURL+"/create", "{}", nil); r.status != 200 {
		t.Fatalf("after the fault: %d", r.status)
	}
	if n := sb.Count("sponsor", "POST /create"); n != 4 {
		t.Fatalf("Count %d", n)
	}
}

// paid=true faults only the request that carries the payment; nothing is settled.
func TestPaidFault(t *testing.T) {
	sb, _ := start(t, "service=api,target=GET /resources/*,kind=status,status=503,paid=true,count=1")
	header, _ := signPayment(t, sb, sb.Demo, "GET", "/resources/zkprimer", nil)
	r := paid(t, sb, "GET", "/resources/zkprimer", nil, header)
	if r.status != 503 || string(r.body) != `{"error":"Request timeout"}` || usdc(t, sb, sb.Demo.Address) != "100.0000000" {
		t.Fatalf("%d %s", r.status, r.body)
	}
	if sb.Count("api", "GET /resources/*") != 2 || sb.PaidRequests("GET /resources/*") != 1 || sb.PaidRequests("GET /resources/*/meta") != 0 {
		t.Fatalf("counts %d %d", sb.Count("api", "GET /resources/*"), sb.PaidRequests("GET /resources/*"))
	}
	// The same payment still settles once the rule is spent.
	if r := paid(t, sb, "GET", "/resources/zkprimer", nil, header); r.status != 200 {
		t.Fatalf("%d %s", r.status, r.body)
	}
	sb.ResetCounts()
	if sb.PaidRequests("*") != 0 {
		t.Fatal("ResetCounts kept paid counts")
	}

	for plan, want := range map[string]string{
		"service=api,kind=drop,paid=yes":               "paid: want true or false",
		"service=horizon,kind=drop,paid=true":          "paid: only for service=api",
		"service=sponsor,target=getHealth,kind=drop":   "target: want",
		"service=sponsor,kind=rpcerror,code=1":         "rpcerror is only for service=rpc",
		"service=nowhere,kind=drop":                    "want api, horizon, rpc or sponsor",
		"service=api,kind=status,status=500,paid=true": "",
	} {
		_, err := ParseFaults(plan)
		if (want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), want)) {
			t.Errorf("%s: %v", plan, err)
		}
	}
	fs, _ := ParseFaults("service=api,target=POST /verify-content,kind=status,status=500,paid=false")
	if len(fs) != 1 || fs[0].Paid == nil || *fs[0].Paid {
		t.Fatalf("%+v", fs)
	}
}

// TestSponsorCreateNamedAccount: with {"publicKey"} the service creates that account and
// answers no secret; the same account twice, or a key that is not one, is a 400 that
// creates nothing.
func TestSponsorCreateNamedAccount(t *testing.T) {
	sb, _ := start(t, "")
	kp := keypair.MustRandom()
	before := sb.SponsoredAccounts()
	r := post(t, sb.SponsorURL+"/create", `{"publicKey":"`+kp.Address()+`"}`, nil)
	var created map[string]json.RawMessage
	mustJSON(t, r.body, &created)
	if _, secret := created["secretKey"]; r.status != 200 || string(created["publicKey"]) != `"`+kp.Address()+`"` || secret {
		t.Fatalf("%d %s", r.status, r.body)
	}
	var a horizon.Account
	mustJSON(t, get(t, sb.HorizonURL+"/accounts/"+kp.Address()).body, &a)
	if a.NumSponsored != 3 || usdcLine(a) == nil {
		t.Fatalf("account %+v", a)
	}
	for _, body := range []string{`{"publicKey":"` + kp.Address() + `"}`, `{"publicKey":"GABC"}`, `{"publicKey":`} {
		if r := post(t, sb.SponsorURL+"/create", body, nil); r.status != 400 {
			t.Errorf("%s: %d %s", body, r.status, r.body)
		}
	}
	if n := sb.SponsoredAccounts() - before; n != 1 {
		t.Fatalf("SponsoredAccounts grew by %d, want 1", n)
	}
}

// The custody faults: ownkey answers a key pair of the service's own even when the request
// names an account; cosigner creates the requested account with a second signer of weight 1
// that the service keeps, which Horizon lists (with its sponsored reserve).
func TestSponsorCustodyFaults(t *testing.T) {
	sb, _ := start(t, "")
	kp := keypair.MustRandom()
	if err := sb.SetFaults("service=sponsor,kind=ownkey,count=1"); err != nil {
		t.Fatal(err)
	}
	r := post(t, sb.SponsorURL+"/create", `{"publicKey":"`+kp.Address()+`"}`, nil)
	var own struct{ PublicKey, SecretKey string }
	mustJSON(t, r.body, &own)
	if key, err := keypair.ParseFull(own.SecretKey); r.status != 200 || err != nil || key.Address() != own.PublicKey || own.PublicKey == kp.Address() {
		t.Fatalf("ownkey: %d %s", r.status, r.body)
	}
	if r := get(t, sb.HorizonURL+"/accounts/"+kp.Address()); r.status != 404 {
		t.Fatalf("ownkey created the requested account too: %d", r.status)
	}

	if err := sb.SetFaults("service=sponsor,kind=cosigner,count=1"); err != nil {
		t.Fatal(err)
	}
	r = post(t, sb.SponsorURL+"/create", `{"publicKey":"`+kp.Address()+`"}`, nil)
	var created map[string]json.RawMessage
	mustJSON(t, r.body, &created)
	if _, secret := created["secretKey"]; r.status != 200 || string(created["publicKey"]) != `"`+kp.Address()+`"` || secret {
		t.Fatalf("cosigner: %d %s", r.status, r.body)
	}
	var a horizon.Account
	mustJSON(t, get(t, sb.HorizonURL+"/accounts/"+kp.Address()).body, &a)
	if len(a.Signers) != 2 || a.Signers[1].Key != kp.Address() || a.Signers[0].Key == kp.Address() ||
		a.Signers[0].Weight != 1 || a.SubentryCount != 2 || a.NumSponsored != 4 {
		t.Fatalf("cosigned account %+v", a)
	}
	// Spent: the next account is the caller's alone.
	other := keypair.MustRandom()
	post(t, sb.SponsorURL+"/create", `{"publicKey":"`+other.Address()+`"}`, nil)
	mustJSON(t, get(t, sb.HorizonURL+"/accounts/"+other.Address()).body, &a)
	if len(a.Signers) != 1 || a.Signers[0].Key != other.Address() {
		t.Fatalf("after the rule was spent: %+v", a.Signers)
	}
}
