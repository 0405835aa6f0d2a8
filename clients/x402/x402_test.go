package x402

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"math/big"
	"net/http"
	"testing"

	"github.com/stellar/go-stellar-sdk/keypair"
	"github.com/stellar/go-stellar-sdk/network"
	"github.com/stellar/go-stellar-sdk/xdr"

	"github.com/mindvault/mcp-endpoint/clients/soroban"
	"github.com/mindvault/mcp-endpoint/errmap"
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

func TestSettlementRoundTrip(t *testing.T) {
	h := http.Header{}
	h.Set("PAYMENT-RESPONSE", EncodeSettlement(Settlement{Success: true, Transaction: "ab", Network: "stellar:testnet"}))
	s, ok := DecodeSettlement(h)
	if !ok || !s.Success || s.Transaction != "ab" {
		t.Fatalf("%+v %v", s, ok)
	}
	if _, ok := DecodeSettlement(http.Header{"Payment-Response": {"???"}}); ok {
		t.Fatal("garbage decoded")
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
	m, _ := soroban.MapOf(vec[0])
	k0, _ := soroban.Text(m[0].Key)
	k1, _ := soroban.Text(m[1].Key)
	if k0 != "public_key" || k1 != "signature" {
		t.Fatalf("keys %s %s", k0, k1)
	}
	if err := kp.Verify(digest[:], *m[1].Val.Bytes); err != nil {
		t.Fatalf("signature does not verify: %v", err)
	}
	if err := checkEntry(entry, kp.Address(), soroban.Call{Function: "transfer", Args: []xdr.ScVal{from, to, amt}}); err != nil {
		t.Fatal(err)
	}
	other, _ := soroban.I128(big.NewInt(1))
	if err := checkEntry(entry, kp.Address(), soroban.Call{Function: "transfer", Args: []xdr.ScVal{from, to, other}}); err == nil {
		t.Fatal("an entry authorising another amount was accepted")
	}
}

func contractAddr(t *testing.T) xdr.ScAddress {
	raw, err := soroban.DecodeContract(usdc)
	if err != nil {
		t.Fatal(err)
	}
	var cid xdr.ContractId
	copy(cid[:], raw)
	return xdr.ScAddress{Type: xdr.ScAddressTypeScAddressTypeContract, ContractId: &cid}
}
