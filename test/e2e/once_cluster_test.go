package e2e_test

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

// The exactly-once guarantee is about intents, not calls: however many calls, instances or
// replays carry one purchase, one approval or one idempotency key, the wallet pays once. These
// tests send the calls at once to two endpoint processes that share nothing but the sandbox,
// as Lambda's instances share nothing but the downstreams, and count what the network
// settled (the wallet's balance and the seller's purchase records), not what the product says.

// settled is what the sandbox shows of a wallet's payments for one resource: the purchase
// records the seller kept and the USDC that left the wallet.
type settled struct {
	records int
	spent   int64
}

func (c *cluster) settledFor(t *testing.T, payer, id string, before int64) settled {
	t.Helper()
	n := 0
	for _, p := range c.sb.Purchases(payer) {
		if p == id {
			n++
		}
	}
	after, ok := c.sb.USDCBalance(payer)
	if !ok {
		t.Fatal("no balance for the payer")
	}
	return settled{records: n, spent: before - after}
}

func (c *cluster) balance(t *testing.T, addr string) int64 {
	t.Helper()
	units, ok := c.sb.USDCBalance(addr)
	if !ok {
		t.Fatal("no balance")
	}
	return units
}

// noPaymentClaimed fails when a losing call does not say that nothing was charged, or
// invites a blind retry.
func noPaymentClaimed(t *testing.T, r result) {
	t.Helper()
	if !r.IsError {
		return
	}
	d := r.Meta.Diag
	if d == nil || d.StateChanged != "no" || d.Retry == "safe" {
		t.Errorf("a losing call must say nothing was charged and not invite a blind retry: %s", tail(r.raw, 600))
	}
}

// TestOnceIdenticalBuysAcrossInstances: N identical buys (no allowRepeat) sent at once over
// two processes settle once; the others are ALREADY_PURCHASED or DUPLICATE_PAYMENT (or a
// seller's refusal of the used nonce), each saying nothing was charged; the same buys sent
// again one after another pay nothing more.
func TestOnceIdenticalBuysAcrossInstances(t *testing.T) {
	c := newCluster(t, 2, nil)
	payer := c.sb.Demo.Address
	const id, price, n = "datasetcard", 5_000_000, 6
	before := c.balance(t, payer)
	rs := c.all(n, func(k int) result { return c.call(k, "mindvault_buy", `{"resourceId":"`+id+`"}`) })
	wins := 0
	for _, r := range rs {
		if !r.IsError {
			wins++
			continue
		}
		noPaymentClaimed(t, r)
		switch code := r.Meta.Diag.Code; code {
		// A seller's refusal of the used nonce is the facilitator's simulation_failed
		// (PAYMENT_SIMULATION_FAILED) when it names its reason.
		case "ALREADY_PURCHASED", "DUPLICATE_PAYMENT", "PAYMENT_REJECTED", "PAYMENT_SIMULATION_FAILED", "IN_PROGRESS":
		default:
			t.Errorf("a losing buy answered %s: %s", code, tail(r.raw, 400))
		}
	}
	got := c.settledFor(t, payer, id, before)
	if wins != 1 || got.records != 1 || got.spent != price {
		t.Fatalf("%d successes, %d purchase records, %d units spent; want 1, 1, %d", wins, got.records, got.spent, price)
	}
	for k := range 3 {
		r := c.call(k, "mindvault_buy", `{"resourceId":"`+id+`"}`)
		if !r.IsError || r.Meta.Diag.Code != "ALREADY_PURCHASED" {
			t.Fatalf("a later identical buy was not refused as ALREADY_PURCHASED: %s", tail(r.raw, 400))
		}
	}
	if got := c.settledFor(t, payer, id, before); got.records != 1 || got.spent != price {
		t.Fatalf("after the sequential repeats: %+v", got)
	}
}

// TestOnceApprovalReplayedAcrossInstances: one accepted round 2 (allowRepeat, so only the
// approval identifies the payment) sent N times at once to both processes pays once, and
// again one after another pays nothing more.
func TestOnceApprovalReplayedAcrossInstances(t *testing.T) {
	c := newCluster(t, 2, nil)
	payer := c.sb.Demo.Address
	const id, price, n = "zkprimer", 62_500_000, 6
	args := `{"resourceId":"` + id + `","allowRepeat":true}`
	before := c.balance(t, payer)
	state, msg := c.asked(c.modern(0, "mindvault_buy", args, capsForm, ""))
	if !strings.Contains(msg, "Pay 6.25 USDC") {
		t.Fatalf("round 1 asked %q", msg)
	}
	as := atOnce(n, func(k int) modernAnswer { return c.modern(k, "mindvault_buy", args, capsForm, answer(state, accept)) })
	wins := 0
	for _, a := range as {
		if !a.call.IsError && a.status == 200 && strings.Contains(a.raw, `"settlement":"confirmed"`) {
			wins++
			continue
		}
		noPaymentClaimed(t, a.call)
	}
	if got := c.settledFor(t, payer, id, before); wins != 1 || got.records != 1 || got.spent != price {
		t.Fatalf("%d successes, %+v; want one payment of %d", wins, got, price)
	}
	for k := range 3 {
		a := c.modern(k, "mindvault_buy", args, capsForm, answer(state, accept))
		if !a.call.IsError {
			t.Fatalf("a sequential replay of the approval succeeded: %s", tail(a.raw, 400))
		}
		noPaymentClaimed(t, a.call)
	}
	if got := c.settledFor(t, payer, id, before); got.records != 1 || got.spent != price {
		t.Fatalf("after the sequential replays: %+v", got)
	}
}

// TestOnceIdempotencyKeyAfterALostAnswer: a buy whose paid answer was lost after the seller
// settled it (the connection dropped) is unknown; the retry with the same idempotencyKey,
// on the other process, settles nothing more. A new key is a new purchase.
func TestOnceIdempotencyKeyAfterALostAnswer(t *testing.T) {
	c := newCluster(t, 2, map[string]string{"MINDVAULT_PAYMENT_TIMEOUT_MS": "5000"})
	payer := c.sb.Demo.Address
	const id, price = "gotestingtips", 7_500_000
	args := `{"resourceId":"` + id + `","allowRepeat":true,"idempotencyKey":"order-4711"}`
	before := c.balance(t, payer)
	if err := c.sb.SetFaults("service=api,target=GET /resources/" + id + ",paid=true,kind=drop,after=true,count=1"); err != nil {
		t.Fatal(err)
	}
	r := c.call(0, "mindvault_buy", args)
	// The chain decides a paid answer without proof: the nonce is consumed, so it settled.
	if !r.IsError || r.Meta.Diag.StateChanged != "yes" {
		t.Fatalf("a dropped paid answer whose payment settled must say so: %s", tail(r.raw, 500))
	}
	if got := c.settledFor(t, payer, id, before); got.records != 1 || got.spent != price {
		t.Fatalf("the dropped answer's payment did not settle as the fault intends: %+v", got)
	}
	r = c.call(1, "mindvault_buy", args)
	if !r.IsError {
		t.Fatalf("the retry with the same key paid again: %s", tail(r.raw, 400))
	}
	noPaymentClaimed(t, r)
	if got := c.settledFor(t, payer, id, before); got.records != 1 || got.spent != price {
		t.Fatalf("the retry settled more: %+v", got)
	}
	c.ok("mindvault_buy", c.call(1, "mindvault_buy", `{"resourceId":"`+id+`","allowRepeat":true,"idempotencyKey":"order-4712"}`))
	if got := c.settledFor(t, payer, id, before); got.records != 2 || got.spent != 2*price {
		t.Fatalf("a new key is a new purchase: %+v", got)
	}
}

// TestSettlementProofDecides: a paid answer that is not 2xx but carries a PAYMENT-RESPONSE
// proving the settlement is "paid, not delivered" (stateChanged yes, with the hash), whatever
// its status; without the proof a 429 or 5xx is unknown until the payment expires, and a 402
// settled nothing by that answer, without claiming the signed payment can no longer move.
func TestSettlementProofDecides(t *testing.T) {
	e := newEnv(t, nil)
	const id = "gotestingtips"
	payer := e.sb.Demo.Address
	for _, tc := range []struct {
		name, plan string
		state      string
		settles    bool
	}{
		{"409 with proof", "kind=status,status=409,after=true", "yes", true},
		{"404 with proof", "kind=status,status=404,after=true", "yes", true},
		{"402 with proof", "kind=status,status=402,after=true", "yes", true},
		{"429 with proof", "kind=status,status=429,after=true", "yes", true},
		{"503 with proof", "kind=status,status=503,after=true", "yes", true},
		{"429 without proof", "kind=status,status=429", "unknown", false},
		{"502 without proof", "kind=status,status=502", "unknown", false},
		{"402 refused at verification", "kind=status,status=402,header=PAYMENT-REQUIRED:" + verifyRefused("invalid_exact_stellar_payload_simulation_failed"), "no", false},
		{"402 without a reason", "kind=status,status=402", "unknown", false},
		{"402 after settling, no proof", "kind=status,status=402,after=true,proof=drop", "yes", true},
		{"409 after settling, no proof", "kind=status,status=409,after=true,proof=drop", "yes", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := e.in(t)
			e.faults("service=api,target=GET /resources/" + id + ",paid=true,count=1," + tc.plan)
			before := len(e.sb.Purchases(payer))
			r := e.call("mindvault_buy", `{"resourceId":"`+id+`","allowRepeat":true}`)
			d := r.Meta.Diag
			if tc.state == "yes" && d != nil && d.TxHash == "" {
				// Decided by the chain, not a proof: no hash, and the receipt is in the history.
				if !strings.Contains(r.Content[0].Text, "settled") || d.Retry != "no" {
					t.Fatalf("a settlement the chain shows: %s", tail(r.raw, 500))
				}
				return
			}
			if !r.IsError || d == nil || d.StateChanged != tc.state {
				t.Fatalf("stateChanged %v, want %s: %s", d, tc.state, tail(r.raw, 500))
			}
			if settled := len(e.sb.Purchases(payer)) - before; settled != map[bool]int{true: 1, false: 0}[tc.settles] {
				t.Fatalf("%d settlements, the fault intends settles=%v", settled, tc.settles)
			}
			text := r.Content[0].Text
			switch tc.state {
			case "yes":
				if len(d.TxHash) != 64 || !strings.Contains(text, d.TxHash) || d.Retry != "no" {
					t.Fatalf("a proven settlement must be reported with its hash and no retry: %s", tail(r.raw, 500))
				}
			case "unknown":
				if d.PaymentExpiresAt == "" {
					t.Fatalf("an unknown outcome needs paymentExpiresAt: %s", tail(r.raw, 500))
				}
			case "no":
				if strings.Contains(text, "nothing was charged") || d.PaymentExpiresAt == "" || !strings.Contains(text, "stays valid until") {
					t.Fatalf("a 402 after sending must say the signed payment stays valid until it expires: %s", tail(r.raw, 500))
				}
			}
		})
	}
}

// TestOncePublishApprovalAcrossInstances: one accepted publish round 2 sent N times at once to
// both processes creates one resource, pays one verification fee and registers it once.
func TestOncePublishApprovalAcrossInstances(t *testing.T) {
	c := newCluster(t, 2, nil)
	payer := c.sb.Demo.Address
	fee := c.ok("mindvault_agent_status", c.call(0, "mindvault_agent_status", ""))["pricePerVerification"].(string)
	feeUnits := unitsOf(t, fee)
	args := `{"title":"Once Only","price":"1.25","externalUrl":"https://example.org/once-only"}`
	before, created, onchain := c.balance(t, payer), c.sb.CreatedResources(), len(c.sb.RegistryIDs())
	state, _ := c.asked(c.modern(0, "mindvault_publish", args, capsForm, ""))
	const n = 5
	as := atOnce(n, func(k int) modernAnswer {
		return c.modern(k, "mindvault_publish", args, capsForm, answer(state, accept))
	})
	ids := map[string]bool{}
	for _, a := range as {
		if a.call.IsError {
			if d := a.call.Meta.Diag; d == nil || d.Retry == "safe" {
				t.Errorf("a losing round 2 invites a blind retry: %s", tail(a.raw, 500))
			}
			continue
		}
		var out struct {
			ResourceID string `json:"resourceId"`
		}
		if json.Unmarshal(a.call.Structured, &out) == nil && out.ResourceID != "" {
			ids[out.ResourceID] = true
		}
	}
	spent := before - c.balance(t, payer)
	if got := c.sb.CreatedResources() - created; got != 1 || len(ids) > 1 || spent != feeUnits || len(c.sb.RegistryIDs())-onchain != 1 {
		t.Fatalf("%d resources created, results name %v, %d units spent (fee %d), %d registrations; want one of each",
			got, ids, spent, feeUnits, len(c.sb.RegistryIDs())-onchain)
	}
}

// unitsOf is a decimal USDC amount in 7-decimal units.
func unitsOf(t *testing.T, dec string) int64 {
	t.Helper()
	whole, frac, _ := strings.Cut(dec, ".")
	frac = (frac + "0000000")[:7]
	n, err := strconv.ParseInt(whole+frac, 10, 64)
	if err != nil {
		t.Fatalf("amount %q: %v", dec, err)
	}
	return n
}

// TestOnceWriteApprovalAcrossInstances: one accepted round 2 of a registry write, sent N times
// at once to both processes and then again, applies one transaction: every round 2 builds on
// the sequence the user approved, so only one of them can apply; the later ones are refused
// (CONFIRMATION_STALE) with nothing applied, and none claims a second change.
func TestOnceWriteApprovalAcrossInstances(t *testing.T) {
	c := newCluster(t, 2, map[string]string{"MINDVAULT_CONFIRM": "always", "MINDVAULT_WRITE_WAIT_MS": "8000"})
	demo := c.sb.Demo.Address
	id := ""
	for _, rid := range c.sb.RegistryIDs() {
		if r, ok := c.sb.RegistryResource(rid); ok && r.Creator == demo {
			id = rid
			break
		}
	}
	if id == "" {
		t.Fatal("no on-chain resource owned by the demo wallet")
	}
	seq := func() string {
		var acct struct {
			Sequence string `json:"sequence"`
		}
		getJSON(t, c.sb.HorizonURL+"/accounts/"+demo, &acct)
		return acct.Sequence
	}
	args := `{"resourceId":"` + id + `","price":"3.3300000"}`
	state, _ := c.asked(c.modern(0, "mindvault_set_price", args, capsForm, ""))
	start := seq()
	as := atOnce(4, func(k int) modernAnswer {
		return c.modern(k, "mindvault_set_price", args, capsForm, answer(state, accept))
	})
	as = append(as, c.modern(1, "mindvault_set_price", args, capsForm, answer(state, accept)))
	hashes := map[string]bool{}
	for _, a := range as {
		if a.call.IsError {
			if d := a.call.Meta.Diag; d == nil || d.StateChanged == "yes" || d.Retry == "safe" {
				t.Errorf("a losing round 2 claims a change or invites a blind retry: %s", tail(a.raw, 500))
			}
			continue
		}
		var out struct {
			Changed bool   `json:"changed"`
			TxHash  string `json:"txHash"`
		}
		_ = json.Unmarshal(a.call.Structured, &out)
		if out.Changed {
			hashes[out.TxHash] = true
		}
	}
	s0, _ := strconv.ParseInt(start, 10, 64)
	s1, _ := strconv.ParseInt(seq(), 10, 64)
	if s1-s0 != 1 || len(hashes) != 1 {
		t.Fatalf("%d transactions applied, successes name %v; want one", s1-s0, hashes)
	}
}
