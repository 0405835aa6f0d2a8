package x402

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stellar/go-stellar-sdk/keypair"
	"github.com/stellar/go-stellar-sdk/network"
	"github.com/stellar/go-stellar-sdk/strkey"
	"github.com/stellar/go-stellar-sdk/xdr"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/clients/soroban"
	"github.com/mindvault/mcp-endpoint/internal/clients/transport"
)

const usdc = "CBIELTK6YBZJU5UP2WWQEUCYKLPU6AUNZ2BQ4WWFEIE3USCIHMXQDAMA"

func required(t *testing.T, accepts ...map[string]any) *Required {
	t.Helper()
	doc := map[string]any{"x402Version": 2, "resource": map[string]any{"url": "http://x/resources/a"}, "accepts": accepts}
	b, _ := json.Marshal(doc)
	h := http.Header{"Payment-Required": {base64.StdEncoding.EncodeToString(b)}}
	pr, err := ParseRequired(h, nil)
	if err != nil {
		t.Fatal(err)
	}
	return pr
}

func req(amount string, mods ...func(map[string]any)) map[string]any {
	r := map[string]any{"scheme": "exact", "network": "stellar:testnet", "amount": amount, "asset": usdc,
		"payTo": keypair.MustRandom().Address(), "maxTimeoutSeconds": 300, "extra": map[string]any{"areFeesSponsored": true}}
	for _, m := range mods {
		m(r)
	}
	return r
}

func code(err error) string {
	var e *errmap.Error
	if errors.As(err, &e) {
		return e.Facts.Code
	}
	return ""
}

func TestSelectRefusesBeforeSigning(t *testing.T) {
	policy := Policy{Network: "stellar:testnet", Asset: usdc, Cap: big.NewInt(100_000_000), Previewed: big.NewInt(15_000_000)}
	cases := []struct {
		name string
		acc  map[string]any
		want string
	}{
		{"fits", req("15000000"), ""},
		{"cheaper than previewed", req("10000000"), ""},
		{"above the cap", req("200000000"), "PRICE_ABOVE_CAP"},
		{"above the previewed price", req("15000001"), "PRICE_CHANGED"},
		{"fees not sponsored", req("1", func(r map[string]any) { r["extra"] = map[string]any{"areFeesSponsored": false} }), "FEES_NOT_SPONSORED"},
		{"no extra", req("1", func(r map[string]any) { delete(r, "extra") }), "FEES_NOT_SPONSORED"},
		{"other network", req("1", func(r map[string]any) { r["network"] = "stellar:pubnet" }), "UNSUPPORTED_REQUIREMENT"},
		{"other scheme", req("1", func(r map[string]any) { r["scheme"] = "upto" }), "UNSUPPORTED_REQUIREMENT"},
		{"other asset", req("1", func(r map[string]any) { r["asset"] = "CCW67TSZV3SSS2HXMBQ5JFGCKJNXKZM7UQUWUZPUTHXSTZLEO7SJMI75" }), "UNSUPPORTED_REQUIREMENT"},
		{"bad amount", req("1.5"), "UNSUPPORTED_REQUIREMENT"},
		{"signed amount", req("+15000000"), "UNSUPPORTED_REQUIREMENT"},
		{"leading zero", req("015000000"), "UNSUPPORTED_REQUIREMENT"},
		{"zero", req("0"), "UNSUPPORTED_REQUIREMENT"},
		{"contract payee", req("1", func(r map[string]any) { r["payTo"] = usdc }), "UNSUPPORTED_REQUIREMENT"},
		{"payee not an address", req("1", func(r map[string]any) { r["payTo"] = "alice" }), "UNSUPPORTED_REQUIREMENT"},
		{"validity at the bound", req("1", func(r map[string]any) { r["maxTimeoutSeconds"] = MaxTimeoutSeconds }), ""},
		{"validity above the bound", req("1", func(r map[string]any) { r["maxTimeoutSeconds"] = MaxTimeoutSeconds + 1 }), "UNSUPPORTED_REQUIREMENT"},
		{"half a year", req("1", func(r map[string]any) { r["maxTimeoutSeconds"] = 18_000_000 }), "UNSUPPORTED_REQUIREMENT"},
		{"wraps uint32 ledgers", req("1", func(r map[string]any) { r["maxTimeoutSeconds"] = int64(6) << 32 }), "UNSUPPORTED_REQUIREMENT"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, _, err := Select(required(t, tc.acc), policy)
			if got := code(err); got != tc.want {
				t.Fatalf("code %q, want %q", got, tc.want)
			}
			if err == nil && string(r.Raw) == "" {
				t.Fatal("the accepted requirement must be kept verbatim")
			}
			var e *errmap.Error
			if errors.As(err, &e) && (e.Facts.ExecutionStarted || e.Facts.Source != errmap.SourceX402) {
				t.Fatalf("a refusal is source x402 and executionStarted false: %+v", e.Facts)
			}
		})
	}
}

func TestParseRequired(t *testing.T) {
	if _, err := ParseRequired(http.Header{}, []byte(`{"x402Version":1,"accepts":[]}`)); code(err) != "UNSUPPORTED_REQUIREMENT" {
		t.Errorf("v1 body: %v", err)
	}
	if _, err := ParseRequired(http.Header{}, []byte(`{}`)); code(err) != "PAYMENT_REQUIRED" {
		t.Errorf("no header: %v", err)
	}
	if _, err := ParseRequired(http.Header{"Payment-Required": {"%%%"}}, nil); code(err) != "UNSUPPORTED_REQUIREMENT" {
		t.Errorf("not base64: %v", err)
	}
}

const hash64 = "7f3a9c2e1b0d4f6a8c9e2b1d3f5a7c9e0b2d4f6a8c1e3b5d7f9a0c2e4b6d8f1a"

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

// dirtyPadding sets the unused low bits of the last base64 digit before the padding: a
// lenient decoder reads the same bytes, a strict one refuses.
func dirtyPadding(v string) string {
	const digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	i := strings.IndexByte(v, '=') - 1
	if i < 0 {
		panic("no padding")
	}
	d := strings.IndexByte(digits, v[i])
	return v[:i] + string(digits[d|1]) + v[i+1:]
}

// TestDecodeSettlement: only a well-formed, consistent PAYMENT-RESPONSE decodes, because a
// decoded settlement is what lets a result claim that money moved.
func TestDecodeSettlement(t *testing.T) {
	ok := `{"success":true,"transaction":"` + hash64 + `","network":"stellar:testnet","payer":"GPAYER"}`
	cases := []struct {
		name   string
		header http.Header
		want   bool
		tx     string // the decoded transaction when want
	}{
		{"v2 success", http.Header{"Payment-Response": {b64(ok)}}, true, hash64},
		{"v1 header", http.Header{"X-Payment-Response": {b64(ok)}}, true, hash64},
		{"surrounding spaces", http.Header{"Payment-Response": {"  " + b64(ok) + " "}}, true, hash64},
		{"upper-case hash is normalised", http.Header{"Payment-Response": {b64(strings.Replace(ok, hash64, strings.ToUpper(hash64), 1))}}, true, hash64},
		{"unknown fields ignored", http.Header{"Payment-Response": {b64(strings.Replace(ok, `{`, `{"extensions":{},`, 1))}}, true, hash64},
		{"refusal", http.Header{"Payment-Response": {b64(`{"success":false,"errorReason":"insufficient_funds","transaction":"","network":"stellar:testnet"}`)}}, true, ""},
		{"absent", http.Header{}, false, ""},
		{"empty", http.Header{"Payment-Response": {""}}, false, ""},
		{"twice", http.Header{"Payment-Response": {b64(ok), b64(ok)}}, false, ""},
		{"not base64", http.Header{"Payment-Response": {"???"}}, false, ""},
		{"url-safe base64", http.Header{"Payment-Response": {base64.URLEncoding.EncodeToString([]byte(ok + "\xff\xfe"))}}, false, ""},
		{"non-zero padding bits", http.Header{"Payment-Response": {dirtyPadding(b64(ok))}}, false, ""},
		{"unpadded base64", http.Header{"Payment-Response": {base64.RawStdEncoding.EncodeToString([]byte(ok + "x"))}}, false, ""},
		{"too long", http.Header{"Payment-Response": {b64(strings.Replace(ok, `{`, `{"pad":"`+strings.Repeat("a", 4096)+`",`, 1))}}, false, ""},
		{"not an object", http.Header{"Payment-Response": {b64(`[true]`)}}, false, ""},
		{"null", http.Header{"Payment-Response": {b64(`null`)}}, false, ""},
		{"trailing data", http.Header{"Payment-Response": {b64(ok + `{}`)}}, false, ""},
		{"duplicate key", http.Header{"Payment-Response": {b64(`{"success":false,"success":true,"transaction":"` + hash64 + `","network":"stellar:testnet"}`)}}, false, ""},
		{"no success field", http.Header{"Payment-Response": {b64(`{"transaction":"` + hash64 + `","network":"stellar:testnet"}`)}}, false, ""},
		{"success is a string", http.Header{"Payment-Response": {b64(strings.Replace(ok, `true`, `"true"`, 1))}}, false, ""},
		{"success is null", http.Header{"Payment-Response": {b64(strings.Replace(ok, `true`, `null`, 1))}}, false, ""},
		{"transaction is a number", http.Header{"Payment-Response": {b64(`{"success":false,"transaction":7}`)}}, false, ""},
		{"success without a hash", http.Header{"Payment-Response": {b64(`{"success":true,"transaction":"","network":"stellar:testnet"}`)}}, false, ""},
		{"success with a short hash", http.Header{"Payment-Response": {b64(strings.Replace(ok, hash64, "ab", 1))}}, false, ""},
		{"success with a non-hex hash", http.Header{"Payment-Response": {b64(strings.Replace(ok, hash64, strings.Repeat("z", 64), 1))}}, false, ""},
		{"success with an error reason", http.Header{"Payment-Response": {b64(strings.Replace(ok, `{`, `{"errorReason":"x",`, 1))}}, false, ""},
		{"case-folded key is not success", http.Header{"Payment-Response": {b64(strings.Replace(ok, `"success"`, `"Success"`, 1))}}, false, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, got := DecodeSettlement(tc.header)
			if got != tc.want {
				t.Fatalf("decoded = %v, want %v (%+v)", got, tc.want, s)
			}
			if got && s.Transaction != tc.tx {
				t.Fatalf("transaction %q, want %q", s.Transaction, tc.tx)
			}
		})
	}
}

// TestSettlementConfirms: only a success for this network and payer is a proof.
func TestSettlementConfirms(t *testing.T) {
	good := Settlement{Success: true, Transaction: hash64, Network: "stellar:testnet", Payer: "GPAYER"}
	cases := []struct {
		name string
		s    *Settlement
		want bool
	}{
		{"confirmed", &good, true},
		{"payer not given", &Settlement{Success: true, Transaction: hash64, Network: "stellar:testnet"}, true},
		{"absent", nil, false},
		{"refused", &Settlement{Success: false, Transaction: hash64, Network: "stellar:testnet"}, false},
		{"no hash", &Settlement{Success: true, Network: "stellar:testnet"}, false},
		{"other network", &Settlement{Success: true, Transaction: hash64, Network: "stellar:pubnet"}, false},
		{"no network", &Settlement{Success: true, Transaction: hash64}, false},
		{"other payer", &Settlement{Success: true, Transaction: hash64, Network: "stellar:testnet", Payer: "GOTHER"}, false},
	}
	for _, tc := range cases {
		if got := tc.s.Confirms("stellar:testnet", "GPAYER"); got != tc.want {
			t.Errorf("%s: Confirms = %v, want %v", tc.name, got, tc.want)
		}
	}
	// What the sandbox and real servers send round-trips.
	h := http.Header{}
	h.Set("PAYMENT-RESPONSE", EncodeSettlement(good))
	if s, ok := DecodeSettlement(h); !ok || *s != good {
		t.Fatalf("round trip: %+v %v", s, ok)
	}
}

// TestExpiresAtNeverEarly: the reported expiry of a signed payment is never before the
// close of its expiration ledger under a pessimistic model — every remaining ledger as slow
// as 9 s (nearly twice the nominal 5 s), counted from whichever is later of the signed
// ledger's close time and the moment it was read, with up to 30 s of clock skew — and it
// stays within a bound a caller can wait for.
func TestExpiresAtNeverEarly(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 400_000_000, time.UTC)
	const pessimisticLedger, skew = 9 * time.Second, 30 * time.Second
	cases := []struct {
		name       string
		closeTime  time.Time // zero: the RPC node reported none
		timeoutSec int       // the requirement's maxTimeoutSeconds
	}{
		{"just closed, 300 s", now.Add(-time.Second), 300},
		{"closed 5 s ago, 60 s", now.Add(-5 * time.Second), 60},
		{"close time long past (lagging node or stalled network)", now.Add(-time.Hour), 300},
		{"close time ahead of this host's clock", now.Add(20 * time.Second), 300},
		{"no close time reported", time.Time{}, 300},
		{"short timeout", now.Add(-2 * time.Second), 1},
		{"long timeout", now.Add(-2 * time.Second), 3600},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			const signed = 1000
			expiration := uint32(signed + (tc.timeoutSec+LedgerSeconds-1)/LedgerSeconds)
			var ct int64
			if !tc.closeTime.IsZero() {
				ct = tc.closeTime.Unix()
			}
			got := ExpiresAt(ct, now, signed, expiration)
			anchor := now // the later of the reported close time (whole seconds) and the reading
			if ct > 0 && time.Unix(ct, 0).After(now) {
				anchor = time.Unix(ct, 0)
			}
			ledgers := time.Duration(expiration - signed)
			// Pessimistic: slow ledgers from the later anchor, and a host clock behind by skew.
			worst := anchor.Add(ledgers*pessimisticLedger + skew)
			if got.Before(worst) {
				t.Fatalf("expiry %s is before the pessimistic close of the expiration ledger %s", got, worst)
			}
			// Fast ledgers end sooner still; the nominal 6 s the expiration was derived from too.
			for _, per := range []time.Duration{4 * time.Second, 5 * time.Second, 6 * time.Second} {
				if got.Before(anchor.Add(ledgers * per)) {
					t.Fatalf("expiry %s is before the close at %s per ledger", got, per)
				}
			}
			// Rounding to the second RFC 3339 carries goes up, never down.
			estimate := anchor.Add(ledgers*SlowLedgerSeconds*time.Second + ExpiryMargin)
			if got.Nanosecond() != 0 || got.Before(estimate) || got.Sub(estimate) >= time.Second {
				t.Fatalf("expiry %s is not %s rounded up to a whole second", got, estimate)
			}
		})
	}
}

// TestSignEntryVerifies recomputes the preimage as a facilitator does and checks the
// ed25519 signature and its encoding.
func TestSignEntryVerifies(t *testing.T) {
	kp := keypair.MustRandom()
	from, _ := soroban.Account(kp.Address())
	to, _ := soroban.Account(keypair.MustRandom().Address())
	amt, _ := soroban.I128(big.NewInt(15_000_000))
	aid := xdr.MustAddress(kp.Address())
	entry := xdr.SorobanAuthorizationEntry{
		Credentials: xdr.SorobanCredentials{Type: xdr.SorobanCredentialsTypeSorobanCredentialsAddress, Address: &xdr.SorobanAddressCredentials{
			Address: xdr.ScAddress{Type: xdr.ScAddressTypeScAddressTypeAccount, AccountId: &aid}, Nonce: 42, Signature: xdr.ScVal{Type: xdr.ScValTypeScvVoid},
		}},
		RootInvocation: xdr.SorobanAuthorizedInvocation{Function: xdr.SorobanAuthorizedFunction{
			Type:       xdr.SorobanAuthorizedFunctionTypeSorobanAuthorizedFunctionTypeContractFn,
			ContractFn: &xdr.InvokeContractArgs{ContractAddress: contractAddr(t), FunctionName: "transfer", Args: []xdr.ScVal{from, to, amt}},
		}},
	}
	const pass = "Test SDF Network ; September 2015"
	if err := signEntry(&entry, kp, pass, 1234); err != nil {
		t.Fatal(err)
	}
	c := entry.Credentials.Address
	pre := xdr.HashIdPreimage{Type: xdr.EnvelopeTypeEnvelopeTypeSorobanAuthorization, SorobanAuthorization: &xdr.HashIdPreimageSorobanAuthorization{
		NetworkId: network.ID(pass), Nonce: c.Nonce, SignatureExpirationLedger: c.SignatureExpirationLedger, Invocation: entry.RootInvocation,
	}}
	b, _ := pre.MarshalBinary()
	digest := sha256.Sum256(b)
	vec, ok := soroban.VecOf(c.Signature)
	if !ok || len(vec) != 1 || c.SignatureExpirationLedger != 1234 {
		t.Fatalf("signature shape: %v", c.Signature)
	}
	mp, _ := vec[0].GetMap()
	m := *mp
	k0, _ := soroban.Text(m[0].Key)
	k1, _ := soroban.Text(m[1].Key)
	if k0 != "public_key" || k1 != "signature" {
		t.Fatalf("keys %s %s", k0, k1)
	}
	if err := kp.Verify(digest[:], *m[1].Val.Bytes); err != nil {
		t.Fatalf("signature does not verify: %v", err)
	}
	if err := checkEntry(entry, kp.Address(), soroban.Call{Contract: usdc, Function: "transfer", Args: []xdr.ScVal{from, to, amt}}); err != nil {
		t.Fatal(err)
	}
	other, _ := soroban.I128(big.NewInt(1))
	if err := checkEntry(entry, kp.Address(), soroban.Call{Contract: usdc, Function: "transfer", Args: []xdr.ScVal{from, to, other}}); err == nil {
		t.Fatal("an entry authorising another amount was accepted")
	}
	// The same transfer on another contract than the payment's asset is not this payment.
	otherContract, _ := strkey.Encode(strkey.VersionByteContract, make([]byte, 32))
	if err := checkEntry(entry, kp.Address(), soroban.Call{Contract: otherContract, Function: "transfer", Args: []xdr.ScVal{from, to, amt}}); err == nil {
		t.Fatal("an entry authorising a call on another contract was accepted")
	}
}

func contractAddr(t *testing.T) xdr.ScAddress {
	raw, err := strkey.Decode(strkey.VersionByteContract, usdc)
	if err != nil {
		t.Fatal(err)
	}
	var cid xdr.ContractId
	copy(cid[:], raw)
	return xdr.ScAddress{Type: xdr.ScAddressTypeScAddressTypeContract, ContractId: &cid}
}

// TestAmbiguousOnlyWhenSent: a paid request that provably never left (the transport leaves
// executionStarted false: refused at connect, no time left to send) changed nothing; one
// that may have left is unknown until the payment expires.
func TestAmbiguousOnlyWhenSent(t *testing.T) {
	expires := time.Date(2026, 3, 1, 12, 9, 20, 0, time.UTC)
	cases := []struct {
		name  string
		facts errmap.Facts
		state errmap.State
	}{
		{"refused at connect", errmap.Facts{Transport: errmap.TransportNetwork}, ""},
		{"deadline before sending", errmap.Facts{Transport: errmap.TransportTimeout}, ""},
		{"dropped after sending", errmap.Facts{Transport: errmap.TransportNetwork, ExecutionStarted: true}, errmap.StateUnknown},
		{"timed out after sending", errmap.Facts{Transport: errmap.TransportTimeout, ExecutionStarted: true}, errmap.StateUnknown},
		{"answered 503", errmap.Facts{Status: 503, ExecutionStarted: true}, errmap.StateUnknown},
	}
	for _, tc := range cases {
		e := &errmap.Error{Err: errors.New("x"), Facts: tc.facts}
		f, _ := errmap.FactsOf(ambiguous(e, expires))
		if f.StateChanged != tc.state || (f.PaymentExpiresAt != "") != (tc.state == errmap.StateUnknown) {
			t.Errorf("%s: state %q expires %q, want state %q", tc.name, f.StateChanged, f.PaymentExpiresAt, tc.state)
		}
		if e.Facts.StateChanged != tc.facts.StateChanged {
			t.Errorf("%s: the error passed in was changed in place", tc.name)
		}
	}
}

// TestIntentNonce pins the derivation: the nonce is the intent's identity on chain, so an
// endpoint of another version must derive the same one for the same intent (two instances
// of a rolling deployment share the guarantee), and different intents must not collide.
func TestIntentNonce(t *testing.T) {
	buy := Intent{Kind: "buy", Parts: []string{"GABC", "stellar:testnet", "rustguide"}}
	h := sha256.Sum256([]byte("mindvault-intent-v1\x00buy\x00GABC\x00stellar:testnet\x00rustguide"))
	if want := int64(binary.BigEndian.Uint64(h[:8])); buy.Nonce() != want {
		t.Fatalf("nonce %d, want %d (the documented derivation)", buy.Nonce(), want)
	}
	seen := map[int64]string{}
	for _, in := range []Intent{
		buy,
		{Kind: "buy", Parts: []string{"GABC", "stellar:pubnet", "rustguide"}},
		{Kind: "buy", Parts: []string{"GABD", "stellar:testnet", "rustguide"}},
		{Kind: "buy", Parts: []string{"GABC", "stellar:testnet", "rustguide2"}},
		{Kind: "key", Parts: []string{"GABC", "mindvault_buy", "rustguide"}},
		{Kind: "buy", Parts: []string{"GABC", "stellar:testnetrustguide"}},
		{Kind: "buy", Parts: []string{"GABC\x00stellar:testnet", "rustguide"}},
	} {
		n := in.Nonce()
		if prev, dup := seen[n]; dup {
			t.Fatalf("intents %s and %v share nonce %d", prev, in, n)
		}
		seen[n] = fmt.Sprint(in)
	}
}

func TestSaneLedger(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	for _, tc := range []struct {
		name  string
		close int64
		ok    bool
	}{
		{"just closed", now.Unix() - 5, true},
		{"slightly ahead", now.Unix() + 30, true},
		{"no close time", 0, false},
		{"far ahead", now.Unix() + 3600, false},
		{"far behind", now.Unix() - 3600, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := saneLedger(tc.close, now); (err == nil) != tc.ok {
				t.Fatalf("saneLedger = %v, want ok %v", err, tc.ok)
			}
		})
	}
}

// TestSentRefusedWithoutSettlement: a 402 to the paid request naming the settle step's failure in
// PAYMENT-REQUIRED, without a PAYMENT-RESPONSE, is a refusal like any other (it used to panic
// reading the absent settlement's hash).
func TestSentRefusedWithoutSettlement(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("PAYMENT-REQUIRED", base64.StdEncoding.EncodeToString([]byte(`{"x402Version":2,"error":"settle_exact_stellar_transaction_failed","accepts":[]}`)))
		w.WriteHeader(http.StatusPaymentRequired)
	}))
	defer srv.Close()
	c := &Client{Svc: &transport.Service{Source: errmap.SourceX402, BaseURL: srv.URL, HTTP: transport.NewHTTPClient(), Timeout: time.Second}}
	o := &Offer{req: transport.Request{Method: http.MethodGet, Path: "/"}, chosen: &Requirement{Network: "stellar:testnet"}, amount: big.NewInt(1)}
	_, err := c.Send(context.Background(), o, &Signed{Header: "x", ExpiresAt: time.Now()})
	ref, ok := Refusal(err)
	if f, _ := errmap.FactsOf(err); !ok || ref.Verify != "" || f.Upstream.X402Reason != "settle_exact_stellar_transaction_failed" || f.TxHash != "" {
		t.Fatalf("%v %+v", err, f)
	}
}

// TestSendOnce: a signed payment is sent once; sending it again reaches nobody and is a failure
// whose outcome is unknown until the signature expires (the first send may have settled).
func TestSendOnce(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.WriteHeader(http.StatusOK)
	}))
	defer srv.Close()
	c := &Client{Svc: &transport.Service{Source: errmap.SourceX402, BaseURL: srv.URL, HTTP: transport.NewHTTPClient(), Timeout: time.Second}}
	o := &Offer{req: transport.Request{Method: http.MethodGet, Path: "/"}, chosen: &Requirement{Network: "stellar:testnet"}, amount: big.NewInt(1)}
	s := &Signed{Header: "x", ExpiresAt: time.Now().Add(time.Minute)}
	if _, err := c.Send(context.Background(), o, s); err != nil {
		t.Fatal(err)
	}
	_, err := c.Send(context.Background(), o, s)
	f, ok := errmap.FactsOf(err)
	if !ok || f.StateChanged != errmap.StateUnknown || f.PaymentExpiresAt == "" || hits.Load() != 1 {
		t.Fatalf("second send: %v %+v; the seller saw %d requests, want 1", err, f, hits.Load())
	}
}
