package sandbox

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stellar/go-stellar-sdk/keypair"
	protocol "github.com/stellar/go-stellar-sdk/protocols/rpc"
	"github.com/stellar/go-stellar-sdk/xdr"

	"github.com/mindvault/mcp-endpoint/internal/clients/soroban"
	"github.com/mindvault/mcp-endpoint/internal/clients/x402"
)

// The tests of what makes an intent's payment, registry write or publish happen once: a
// consumed authorization nonce, a consumed sequence number, an Idempotency-Key.

// doFrom is do for goroutines: it reports a failure instead of stopping the test.
func doFrom(client *http.Client, method, url string, body []byte, header map[string]string) (reply, error) {
	req, err := http.NewRequest(method, url, bytes.NewReader(body))
	if err != nil {
		return reply{}, err
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := client.Do(req)
	if err != nil {
		return reply{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return reply{resp.StatusCode, resp.Header, b}, err
}

// together runs f(0..n-1) in n goroutines released at once and returns their replies.
func together(t *testing.T, n int, f func(i int) (reply, error)) []reply {
	t.Helper()
	out := make([]reply, n)
	errs := make([]error, n)
	var ready, done sync.WaitGroup
	gate := make(chan struct{})
	for i := range n {
		ready.Add(1)
		done.Add(1)
		go func() {
			defer done.Done()
			ready.Done()
			<-gate
			out[i], errs[i] = f(i)
		}()
	}
	ready.Wait()
	close(gate)
	done.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
	}
	return out
}

// nonceOfPayment is the payer's nonce and signature expiration in a PAYMENT-SIGNATURE, and
// the payment's transaction envelope.
func nonceOfPayment(t *testing.T, header string) (nonce int64, expires uint32, envelope string) {
	t.Helper()
	p, err := x402.DecodePayload(header)
	if err != nil {
		t.Fatal(err)
	}
	var env xdr.TransactionEnvelope
	if err := xdr.SafeUnmarshalBase64(p.Payload.Transaction, &env); err != nil {
		t.Fatal(err)
	}
	cr := credsOf(&env)
	return int64(cr.Nonce), uint32(cr.SignatureExpirationLedger), p.Payload.Transaction
}

// nonceKeyXDR is the ledger key of addr's nonce entry, spelled out from the XDR types:
// ContractData of the account's own address, key ScvLedgerKeyNonce{nonce}, temporary.
func nonceKeyXDR(t *testing.T, addr string, nonce int64, durability xdr.ContractDataDurability) string {
	t.Helper()
	acct := xdr.MustAddress(addr)
	k := xdr.LedgerKey{Type: xdr.LedgerEntryTypeContractData, ContractData: &xdr.LedgerKeyContractData{
		Contract:   xdr.ScAddress{Type: xdr.ScAddressTypeScAddressTypeAccount, AccountId: &acct},
		Key:        xdr.ScVal{Type: xdr.ScValTypeScvLedgerKeyNonce, NonceKey: &xdr.ScNonceKey{Nonce: xdr.Int64(nonce)}},
		Durability: durability,
	}}
	s, err := xdr.MarshalBase64(k)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// enforcingSim simulates a payment's own envelope, its signed auth entry attached (enforce).
func enforcingSim(t *testing.T, sb *Sandbox, envelope string) protocol.SimulateTransactionResponse {
	t.Helper()
	var sim protocol.SimulateTransactionResponse
	rpcResult(t, sb, "simulateTransaction", protocol.SimulateTransactionRequest{Transaction: envelope, AuthMode: protocol.AuthModeEnforce}, &sim)
	return sim
}

func ledgerEntries(t *testing.T, sb *Sandbox, keys ...string) protocol.GetLedgerEntriesResponse {
	t.Helper()
	var resp protocol.GetLedgerEntriesResponse
	rpcResult(t, sb, "getLedgerEntries", protocol.GetLedgerEntriesRequest{Keys: keys}, &resp)
	return resp
}

// TestNonceSettlesOnceUnderConcurrency: one signed payment (one nonce) sent by many buyers'
// retries at once settles exactly once; every other attempt is refused with
// simulation_failed, nothing else moves, and the network then refuses the authorization in
// enforcing simulation with Error(Auth, ExistingValue).
func TestNonceSettlesOnceUnderConcurrency(t *testing.T) {
	sb, _ := start(t, "")
	const n = 8
	path := "/resources/zkprimer"
	header, _ := signPayment(t, sb, sb.Demo, "GET", path, nil)
	_, _, envelope := nonceOfPayment(t, header)
	if sim := enforcingSim(t, sb, envelope); sim.Error != "" {
		t.Fatalf("before settling, the signed payment simulates: %s", sim.Error)
	}
	fac, _ := sb.Account("facilitator")
	facSeq := sequence(t, sb, fac.Address)
	before, _ := sb.USDCBalance(sb.Demo.Address)

	client := &http.Client{Timeout: 10 * time.Second}
	replies := together(t, n, func(int) (reply, error) {
		return doFrom(client, "GET", sb.APIURL+path, nil, map[string]string{"PAYMENT-SIGNATURE": header})
	})
	var settled []string
	for i, r := range replies {
		st := settlement(t, r)
		switch {
		case r.status == 200 && st.Success && len(st.Transaction) == 64:
			settled = append(settled, st.Transaction)
		case r.status == 402 && !st.Success && st.ErrorReason == reasonSimulationFailed && st.Transaction == "":
		default:
			t.Errorf("reply %d: %d %+v %s", i, r.status, st, r.body)
		}
	}
	if len(settled) != 1 {
		t.Fatalf("%d settlements of one authorization, want exactly 1", len(settled))
	}
	after, _ := sb.USDCBalance(sb.Demo.Address)
	if before-after != 62500000 || len(sb.Purchases(sb.Demo.Address)) != 1 || sequence(t, sb, fac.Address) != facSeq+1 {
		t.Fatalf("paid %d units, %d purchases, facilitator sequence %d (from %d)", before-after,
			len(sb.Purchases(sb.Demo.Address)), sequence(t, sb, fac.Address), facSeq)
	}
	if g := txStatus(t, sb, settled[0]); g.Status != protocol.TransactionStatusSuccess {
		t.Fatalf("the settlement: %+v", g)
	}
	sim := enforcingSim(t, sb, envelope)
	if !strings.Contains(sim.Error, "HostError: Error(Auth, ExistingValue)") || !strings.Contains(sim.Error, "nonce already exists") ||
		len(sim.Results) != 0 || sim.TransactionDataXDR != "" {
		t.Fatalf("enforcing simulation after settlement: %+v", sim)
	}
}

// TestNonceEntryLivesUntilExpiration: a consumed nonce is a temporary ledger entry that
// lives through its signature's expiration ledger. While it lives, getLedgerEntries answers
// it and the nonce is refused (enforcing simulation, Verify, the paywall); after that ledger
// the entry is gone and a new signature with the same nonce is accepted and settles.
func TestNonceEntryLivesUntilExpiration(t *testing.T) {
	sb, clk := start(t, "")
	path := "/resources/zkprimer"
	header, req := signPayment(t, sb, sb.Demo, "GET", path, nil)
	nonce, expires, envelope := nonceOfPayment(t, header)
	key := nonceKeyXDR(t, sb.Demo.Address, nonce, xdr.ContractDataDurabilityTemporary)
	if got := ledgerEntries(t, sb, key); len(got.Entries) != 0 || got.LatestLedger != sb.LatestLedger() {
		t.Fatalf("an unused nonce has an entry: %+v", got)
	}
	if r := paid(t, sb, "GET", path, nil, header); r.status != 200 {
		t.Fatalf("settle: %d %s", r.status, r.body)
	}
	settledIn := sb.LatestLedger()

	present := func(t *testing.T) {
		t.Helper()
		got := ledgerEntries(t, sb, key)
		if len(got.Entries) != 1 {
			t.Fatalf("ledger %d: entries %+v, want the nonce's", sb.LatestLedger(), got)
		}
		e := got.Entries[0]
		var data xdr.LedgerEntryData
		if err := xdr.SafeUnmarshalBase64(e.DataXDR, &data); err != nil || data.Type != xdr.LedgerEntryTypeContractData {
			t.Fatalf("entry data %v %+v", err, e)
		}
		cd := data.ContractData
		if who, _ := cd.Contract.String(); who != sb.Demo.Address || cd.Key.Type != xdr.ScValTypeScvLedgerKeyNonce ||
			int64(cd.Key.NonceKey.Nonce) != nonce || cd.Durability != xdr.ContractDataDurabilityTemporary || cd.Val.Type != xdr.ScValTypeScvVoid {
			t.Fatalf("entry %+v", cd)
		}
		if e.KeyXDR != key || e.LiveUntilLedgerSeq == nil || *e.LiveUntilLedgerSeq != expires || e.LastModifiedLedger != settledIn {
			t.Fatalf("entry key %s, liveUntil %v (want %d), lastModified %d (want %d)", e.KeyXDR, e.LiveUntilLedgerSeq, expires, e.LastModifiedLedger, settledIn)
		}
		if sim := enforcingSim(t, sb, envelope); !strings.Contains(sim.Error, "Error(Auth, ExistingValue)") {
			t.Fatalf("ledger %d: enforcing simulation %q, want Error(Auth, ExistingValue)", sb.LatestLedger(), sim.Error)
		}
		if reason, ok := sb.Verify(header, req); ok || reason != reasonSimulationFailed {
			t.Fatalf("ledger %d: Verify %q %v", sb.LatestLedger(), reason, ok)
		}
	}
	present(t)
	// The last ledger of the entry's life: still there, still refused.
	clk.advance(time.Duration(expires-sb.LatestLedger()) * ledgerSeconds * time.Second)
	if sb.LatestLedger() != expires {
		t.Fatalf("latest %d, want %d", sb.LatestLedger(), expires)
	}
	present(t)

	// One ledger later the entry has expired: absent, and the nonce may be used again.
	clk.advance(ledgerSeconds * time.Second)
	if got := ledgerEntries(t, sb, key); len(got.Entries) != 0 {
		t.Fatalf("ledger %d, past the entry's life: %+v", sb.LatestLedger(), got)
	}
	if sim := enforcingSim(t, sb, envelope); !strings.Contains(sim.Error, "Error(Auth, InvalidInput)") {
		t.Fatalf("the old signature has expired with its entry: %q", sim.Error)
	}
	_, req2, _ := quote(t, sb, "GET", path, nil)
	again := tamper(t, header, func(_ *x402.Payload, env *xdr.TransactionEnvelope) {
		credsOf(env).SignatureExpirationLedger = xdr.Uint32(sb.LatestLedger() + 50)
		resign(t, env, keypair.MustParseFull(sb.Demo.Secret), sb.Passphrase)
	})
	if n2, _, env2 := nonceOfPayment(t, again); n2 != nonce {
		t.Fatal("the re-signed payment has another nonce")
	} else if sim := enforcingSim(t, sb, env2); sim.Error != "" {
		t.Fatalf("the same nonce, signed again after its entry expired: %s", sim.Error)
	}
	if reason, ok := sb.Verify(again, req2.Raw); !ok {
		t.Fatalf("Verify of the re-signed nonce: %s", reason)
	}
	if r := paid(t, sb, "GET", path, nil, again); r.status != 200 {
		t.Fatalf("settle the re-signed nonce: %d %+v", r.status, settlement(t, r))
	}
	if got := ledgerEntries(t, sb, key); len(got.Entries) != 1 || *got.Entries[0].LiveUntilLedgerSeq != sb.LatestLedger()+50 {
		t.Fatalf("the new entry: %+v", got)
	}
}

// TestGetLedgerEntriesKeys: the keys getLedgerEntries answers and refuses.
func TestGetLedgerEntriesKeys(t *testing.T) {
	sb, _ := start(t, "")
	acct := xdr.MustAddress(sb.Demo.Address)
	accountKey, _ := xdr.MarshalBase64(xdr.LedgerKey{Type: xdr.LedgerEntryTypeAccount, Account: &xdr.LedgerKeyAccount{AccountId: acct}})
	for name, tt := range map[string]struct {
		keys []string
		want string
	}{
		"an account key":     {[]string{accountKey}, "at index 0 (LedgerEntryTypeAccount): the MindVault sandbox answers getLedgerEntries for nonce entries only"},
		"a persistent nonce": {[]string{nonceKeyXDR(t, sb.Demo.Address, 1, xdr.ContractDataDurabilityPersistent), accountKey}, "at index 0"},
		"not XDR":            {[]string{nonceKeyXDR(t, sb.Demo.Address, 1, xdr.ContractDataDurabilityTemporary), "AAAA!"}, "cannot unmarshal key value AAAA! at index 1"},
		"too many":           {make([]string, 201), "key count (201) exceeds maximum supported (200)"},
	} {
		t.Run(name, func(t *testing.T) {
			r := rpcPost(t, sb, rpcBody("getLedgerEntries", protocol.GetLedgerEntriesRequest{Keys: tt.keys}))
			var env struct{ Error *rpcError }
			mustJSON(t, r.body, &env)
			if env.Error == nil || env.Error.Code != codeInvalidParams || !strings.Contains(env.Error.Message, tt.want) {
				t.Fatalf("%s", r.body)
			}
		})
	}
	if got := ledgerEntries(t, sb); got.Entries == nil || len(got.Entries) != 0 {
		t.Fatalf("no keys: %+v", got)
	}
}

// sendFrom is sendTransaction for goroutines.
func sendFrom(client *http.Client, sb *Sandbox, envelope string) (protocol.SendTransactionResponse, error) {
	r, err := doFrom(client, http.MethodPost, sb.RPCURL, rpcBody("sendTransaction", protocol.SendTransactionRequest{Transaction: envelope}),
		map[string]string{"Content-Type": "application/json"})
	if err != nil {
		return protocol.SendTransactionResponse{}, err
	}
	var env struct {
		Result protocol.SendTransactionResponse
		Error  *rpcError
	}
	if err := json.Unmarshal(r.body, &env); err != nil || env.Error != nil {
		return protocol.SendTransactionResponse{}, fmt.Errorf("sendTransaction: %v %s", err, r.body)
	}
	return env.Result, nil
}

// TestSequenceConsumedOnceUnderConcurrency: many different registry writes built on one
// sequence number, sent at once. Core queues one transaction per account: one is PENDING,
// the others TRY_AGAIN_LATER (not accepted). Once it has applied, the sequence number is
// used: each other envelope, sent again (as a client does after TRY_AGAIN_LATER), is ERROR
// txBAD_SEQ, and exactly one write happened.
func TestSequenceConsumedOnceUnderConcurrency(t *testing.T) {
	sb, clk := start(t, "")
	creator, _ := sb.Account("creator")
	const n = 8
	seq := sequence(t, sb, creator.Address)
	envs := make([]string, n)
	for i := range envs {
		envs[i] = b64(t, assemble(t, sb, creator, "set_price", soroban.Str("stellarcheatsheet"), scI128(int64(30+i)*stroops)))
	}
	client := &http.Client{Timeout: 10 * time.Second}
	send := func(envs []string) []protocol.SendTransactionResponse {
		t.Helper()
		out := make([]protocol.SendTransactionResponse, len(envs))
		together(t, len(envs), func(i int) (reply, error) {
			var err error
			out[i], err = sendFrom(client, sb, envs[i])
			return reply{}, err
		})
		return out
	}
	winner := -1
	var losers []string
	sent := send(envs)
	for i, r := range sent {
		switch r.Status {
		case "PENDING":
			if winner >= 0 {
				t.Fatalf("two transactions with sequence %d accepted: %d and %d", seq+1, winner, i)
			}
			winner = i
		case "TRY_AGAIN_LATER":
			losers = append(losers, envs[i])
		default:
			t.Fatalf("envelope %d: %+v", i, r)
		}
	}
	if winner < 0 {
		t.Fatal("no transaction accepted")
	}
	clk.advance(time.Second)
	resent := send(losers)
	for i, r := range resent {
		var res xdr.TransactionResult
		if r.Status != "ERROR" || xdr.SafeUnmarshalBase64(r.ErrorResultXDR, &res) != nil || res.Result.Code != xdr.TransactionResultCodeTxBadSeq {
			t.Fatalf("resent %d after the first applied: %+v", i, r)
		}
		if g := txStatus(t, sb, r.Hash); g.Status != protocol.TransactionStatusNotFound {
			t.Fatalf("a refused transaction is known: %+v", g)
		}
	}
	if g := txStatus(t, sb, sent[winner].Hash); g.Status != protocol.TransactionStatusSuccess {
		t.Fatalf("the accepted one: %+v", g)
	}
	if r, _ := sb.RegistryResource("stellarcheatsheet"); r.Price != int64(30+winner)*stroops || sequence(t, sb, creator.Address) != seq+1 {
		t.Fatalf("price %d (want %d), sequence %d (want %d)", r.Price, int64(30+winner)*stroops, sequence(t, sb, creator.Address), seq+1)
	}
}

// TestSettlementWaitsForTheFacilitatorQueue: the facilitator's account follows the same
// rule as any other: while a transaction from it is queued, a settlement is not submitted
// (it would reuse that transaction's sequence number); once it has applied, the payment
// settles with the next one.
func TestSettlementWaitsForTheFacilitatorQueue(t *testing.T) {
	sb, clk := start(t, "")
	fac, _ := sb.Account("facilitator")
	seq := sequence(t, sb, fac.Address)
	data := sorobanData([]xdr.LedgerKey{sb.world.reg.resourceKey("zkprimer")}, nil, false)
	own := sign(t, sb, buildInvoke(t, sb, fac.Address, seq, "exists", []xdr.ScVal{soroban.Str("zkprimer")}, nil, &data), fac)
	if r := send(t, sb, b64(t, own)); r.Status != "PENDING" {
		t.Fatalf("the facilitator's own transaction: %+v", r)
	}
	path := "/resources/zkprimer"
	header, _ := signPayment(t, sb, sb.Demo, "GET", path, nil)
	before, _ := sb.USDCBalance(sb.Demo.Address)
	r := paid(t, sb, "GET", path, nil, header)
	if st := settlement(t, r); r.status != 402 || st.ErrorReason != reasonSubmissionFailed || !strings.Contains(st.ErrorMessage, "TRY_AGAIN_LATER") {
		t.Fatalf("settling while the facilitator has a queued transaction: %d %+v", r.status, st)
	}
	if after, _ := sb.USDCBalance(sb.Demo.Address); after != before {
		t.Fatal("a refused settlement moved money")
	}
	clk.advance(time.Second)
	r = paid(t, sb, "GET", path, nil, header)
	st := settlement(t, r)
	if r.status != 200 || !st.Success {
		t.Fatalf("after the queue cleared: %d %+v", r.status, st)
	}
	g := txStatus(t, sb, st.Transaction)
	var env xdr.TransactionEnvelope
	if xdr.SafeUnmarshalBase64(g.EnvelopeXDR, &env) != nil || env.SeqNum() != seq+2 || sequence(t, sb, fac.Address) != seq+2 {
		t.Fatalf("settlement sequence %d, account %d; want both %d", env.SeqNum(), sequence(t, sb, fac.Address), seq+2)
	}
	if g := txStatus(t, sb, hashOf(t, sb, own)); g.Status != protocol.TransactionStatusSuccess {
		t.Fatalf("the facilitator's own transaction: %+v", g)
	}
}

// idemSlot reports the state of a publisher's Idempotency-Key: "", "in progress" or "done".
func idemSlot(sb *Sandbox, apiKey, key string) string {
	sb.world.cat.RLock()
	defer sb.world.cat.RUnlock()
	p := sb.world.pubs.byKey[keyDigest(apiKey)]
	if p == nil {
		return ""
	}
	switch e := sb.world.pubs.idem[p.id+"\n"+key]; {
	case e == nil:
		return ""
	case e.done:
		return "done"
	}
	return "in progress"
}

func waitSlot(t *testing.T, sb *Sandbox, apiKey, key, want string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for idemSlot(sb, apiKey, key) != want {
		if time.Now().After(deadline) {
			t.Fatalf("key %s: %q, want %q", key, idemSlot(sb, apiKey, key), want)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

const evalBody = `{"title":"Agent Eval Notes","description":"How we evaluate agents.","price":"1.50","externalUrl":"https://example.com/evals"}`

// TestCreateResourceIdempotencyKey: a completed key answers its first answer again, byte for
// byte, and creates nothing; the same key with another request is 422; keys are per
// publisher and live 24 h; a refused request (400) does not claim its key; without the
// header every request creates.
func TestCreateResourceIdempotencyKey(t *testing.T) {
	sb, clk := start(t, "")
	keyed := func(apiKey, idem string) map[string]string {
		return map[string]string{"x-api-key": apiKey, "Idempotency-Key": idem}
	}
	first := post(t, sb.APIURL+"/resources", evalBody, keyed(sb.DemoAPIKey, "k1"))
	var res resourceBody
	mustJSON(t, first.body, &res)
	if first.status != 201 || res.ID == "" || sb.CreatedResources() != 1 {
		t.Fatalf("first: %d %s, %d created", first.status, first.body, sb.CreatedResources())
	}
	// The resource changes; the key still answers what the first request was answered.
	sb.world.cat.Lock()
	sb.world.byID[res.ID].status = "verified"
	sb.world.cat.Unlock()
	// The same fields in another order and spacing are the same request.
	same := `{ "externalUrl":"https://example.com/evals", "price":"1.50", "title":"Agent Eval Notes", "description":"How we evaluate agents." }`
	for _, body := range []string{evalBody, same} {
		again := post(t, sb.APIURL+"/resources", body, keyed(sb.DemoAPIKey, "k1"))
		if again.status != first.status || !bytes.Equal(again.body, first.body) || again.header.Get("Content-Type") != first.header.Get("Content-Type") {
			t.Fatalf("replay: %d %s\nwant the first answer: %d %s", again.status, again.body, first.status, first.body)
		}
	}
	if n := sb.CreatedResources(); n != 1 {
		t.Fatalf("replays created resources: %d", n)
	}
	// The same key with another request: the real server answers the first resource again
	// (201, its title and price), not a 422, and creates nothing.
	other := strings.Replace(evalBody, `"1.50"`, `"2.00"`, 1)
	if r := post(t, sb.APIURL+"/resources", other, keyed(sb.DemoAPIKey, "k1")); r.status != 201 || !bytes.Equal(r.body, first.body) || sb.CreatedResources() != 1 {
		t.Fatalf("reused with another body: %d %s", r.status, r.body)
	}
	// Keys are per publisher: another publisher's k1 is its own.
	creator, _ := sb.Account("creator")
	var pub struct{ APIKey string }
	mustJSON(t, post(t, sb.APIURL+"/publishers", `{"name":"Other","email":"other@example.com","walletAddress":"`+creator.Address+`"}`, nil).body, &pub)
	var theirs resourceBody
	if r := post(t, sb.APIURL+"/resources", evalBody, keyed(pub.APIKey, "k1")); r.status != 201 || json.Unmarshal(r.body, &theirs) != nil || theirs.ID == res.ID {
		t.Fatalf("another publisher's k1: %d %s", r.status, r.body)
	}
	// A request refused before it ran (400) claims nothing.
	if r := post(t, sb.APIURL+"/resources", `{"title":"x","price":"free","externalUrl":"https://e.x"}`, keyed(sb.DemoAPIKey, "k2")); r.status != 400 {
		t.Fatalf("invalid body: %d %s", r.status, r.body)
	}
	if r := post(t, sb.APIURL+"/resources", other, keyed(sb.DemoAPIKey, "k2")); r.status != 201 {
		t.Fatalf("k2 after a 400: %d %s", r.status, r.body)
	}
	// Without the header, nothing changes: each request creates.
	a, b := createResource(t, sb, "Agent Eval Notes", "1.50"), createResource(t, sb, "Agent Eval Notes", "1.50")
	if a.ID == b.ID || sb.CreatedResources() != 5 {
		t.Fatalf("unkeyed: %s %s, %d created", a.ID, b.ID, sb.CreatedResources())
	}
	// 24 h after its first use the key is forgotten.
	clk.advance(24*time.Hour - time.Second)
	if r := post(t, sb.APIURL+"/resources", evalBody, keyed(sb.DemoAPIKey, "k1")); !bytes.Equal(r.body, first.body) {
		t.Fatalf("just before 24 h: %d %s", r.status, r.body)
	}
	clk.advance(time.Second)
	var fresh resourceBody
	if r := post(t, sb.APIURL+"/resources", other, keyed(sb.DemoAPIKey, "k1")); r.status != 201 || json.Unmarshal(r.body, &fresh) != nil || fresh.ID == res.ID {
		t.Fatalf("after 24 h: %d %s", r.status, r.body)
	}
	if sb.CreatedResources() != 6 || sb.Count("api", "POST /resources") != 11 {
		t.Fatalf("%d created, %d requests", sb.CreatedResources(), sb.Count("api", "POST /resources"))
	}
}

// TestCreateResourceIdempotencyInProgress: while the request that claimed a key is still
// creating (a delay fault keeps it in flight), every concurrent duplicate is answered 409 and
// creates nothing; the first then answers 201 and the key replays that answer.
func TestCreateResourceIdempotencyInProgress(t *testing.T) {
	sb, _ := start(t, "service=api,target=POST /resources,kind=delay,delay=2s,count=1")
	h := map[string]string{"Content-Type": "application/json", "x-api-key": sb.DemoAPIKey, "Idempotency-Key": "intent-7"}
	client := &http.Client{Timeout: 10 * time.Second}
	firstDone := make(chan reply, 1)
	go func() {
		r, err := doFrom(client, "POST", sb.APIURL+"/resources", []byte(evalBody), h)
		if err != nil {
			r.status = -1
		}
		firstDone <- r
	}()
	waitSlot(t, sb, sb.DemoAPIKey, "intent-7", "in progress")
	const n = 6
	dups := together(t, n, func(int) (reply, error) {
		return doFrom(client, "POST", sb.APIURL+"/resources", []byte(evalBody), h)
	})
	for i, r := range dups {
		if r.status != 409 || string(r.body) != `{"error":"Idempotent request already in progress"}` {
			t.Errorf("duplicate %d while the first is in flight: %d %s", i, r.status, r.body)
		}
	}
	if r := post(t, sb.APIURL+"/resources", strings.Replace(evalBody, "Notes", "Drafts", 1), h); r.status != 409 {
		t.Errorf("another request on the key in flight: %d %s", r.status, r.body)
	}
	if n := sb.CreatedResources(); n != 0 {
		t.Fatalf("%d resources created while the first request is in flight", n)
	}
	first := <-firstDone
	if first.status != 201 || sb.CreatedResources() != 1 {
		t.Fatalf("first: %d %s, %d created", first.status, first.body, sb.CreatedResources())
	}
	if r := post(t, sb.APIURL+"/resources", evalBody, h); r.status != 201 || !bytes.Equal(r.body, first.body) {
		t.Fatalf("after it completed: %d %s", r.status, r.body)
	}
	if sb.CreatedResources() != 1 || sb.Count("api", "POST /resources") != n+3 {
		t.Fatalf("%d created, %d requests", sb.CreatedResources(), sb.Count("api", "POST /resources"))
	}
}

// TestCreateResourceIdempotencyClientGaveUp: a keyed request whose client times out during a
// delay fault still creates its resource: the stall ends when the client gives up and the
// server finishes, so the retry with the same key gets that resource rather than a second.
func TestCreateResourceIdempotencyClientGaveUp(t *testing.T) {
	sb, _ := start(t, "service=api,target=POST /resources,kind=delay,delay=30s,count=1")
	h := map[string]string{"Content-Type": "application/json", "x-api-key": sb.DemoAPIKey, "Idempotency-Key": "intent-8"}
	impatient := &http.Client{Timeout: 300 * time.Millisecond}
	if _, err := doFrom(impatient, "POST", sb.APIURL+"/resources", []byte(evalBody), h); err == nil {
		t.Fatal("the keyed request did not time out")
	}
	waitSlot(t, sb, sb.DemoAPIKey, "intent-8", "done") // long before the 30 s stall would end
	r := post(t, sb.APIURL+"/resources", evalBody, h)
	var res resourceBody
	if r.status != 201 || json.Unmarshal(r.body, &res) != nil || res.ID == "" || sb.CreatedResources() != 1 {
		t.Fatalf("retry: %d %s, %d created", r.status, r.body, sb.CreatedResources())
	}
	if m := get(t, sb.APIURL+"/resources/"+res.ID+"/meta"); m.status != 200 {
		t.Fatalf("the created resource: %d %s", m.status, m.body)
	}
}
