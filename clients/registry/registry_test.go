package registry

import (
	"fmt"
	"math/big"
	"strings"
	"testing"

	"github.com/stellar/go-stellar-sdk/keypair"
	"github.com/stellar/go-stellar-sdk/xdr"

	"github.com/mindvault/mcp-endpoint/clients/soroban"
	"github.com/mindvault/mcp-endpoint/errmap"
)

func TestPricesRoundTripExactly(t *testing.T) {
	e18, _ := new(big.Int).SetString("1000000000000000000", 10)
	cases := []struct {
		decimal string
		units   *big.Int
		text    string
	}{
		{"0.0000001", big.NewInt(1), "0.0000001"},
		{"1.5", big.NewInt(15_000_000), "1.5000000"},
		{"100000000000", e18, "100000000000.0000000"},
		{"0", big.NewInt(0), "0.0000000"},
	}
	for _, tc := range cases {
		u, err := soroban.Units(tc.decimal)
		if err != nil || u.Cmp(tc.units) != 0 {
			t.Fatalf("soroban.Units(%s) = %v, %v", tc.decimal, u, err)
		}
		v, err := soroban.I128(u)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := v.MarshalBinary()
		var back xdr.ScVal
		if err := back.UnmarshalBinary(b); err != nil {
			t.Fatal(err)
		}
		if got := soroban.BigFromI128(*back.I128); got.Cmp(tc.units) != 0 || soroban.Decimal(got) != tc.text {
			t.Fatalf("%s: round trip %v → %s", tc.decimal, got, soroban.Decimal(got))
		}
	}
	neg, _ := soroban.I128(big.NewInt(-5))
	if soroban.BigFromI128(*neg.I128).Int64() != -5 {
		t.Fatal("negative i128 does not round-trip")
	}
	if _, err := soroban.Units("1.00000001"); err == nil {
		t.Fatal("8 decimals accepted")
	}
}

func resourceMap(entries ...xdr.ScMapEntry) xdr.ScVal {
	m := xdr.ScMap(entries)
	p := &m
	return xdr.ScVal{Type: xdr.ScValTypeScvMap, Map: &p}
}

func entry(k string, v xdr.ScVal) xdr.ScMapEntry { return xdr.ScMapEntry{Key: soroban.Sym(k), Val: v} }

func TestDecodeByKeyTolerates(t *testing.T) {
	creator := keypair.MustRandom().Address()
	addr, _ := soroban.Account(creator)
	price, _ := soroban.I128(big.NewInt(1))
	minimal := resourceMap(entry("creator", addr), entry("id", soroban.Str("abc")), entry("listed", soroban.Bool(true)),
		entry("metadata", soroban.Str("ipfs://x")), entry("price", price))
	r, err := decodeResource(minimal)
	if err != nil || r.ID != "abc" || r.Creator != creator || soroban.Decimal(r.Price) != "0.0000001" || r.Tags != nil || r.State != nil || r.Verified != nil {
		t.Fatalf("minimal: %+v %v", r, err)
	}
	state := soroban.StrVec(nil)
	listedSym := soroban.Sym("Listed")
	vec := xdr.ScVec{listedSym}
	pv := &vec
	state = xdr.ScVal{Type: xdr.ScValTypeScvVec, Vec: &pv}
	extra := resourceMap(entry("created_at", soroban.U32(7)), entry("creator", addr), entry("frozen", soroban.Bool(false)), entry("id", soroban.Str("abc")),
		entry("listed", soroban.Bool(false)), entry("metadata", soroban.Str("ipfs://x")), entry("price", price), entry("state", state),
		entry("tags", soroban.StrVec([]string{"go"})), entry("unknown_future_field", soroban.Str("?")), entry("verified", soroban.Bool(true)))
	r, err = decodeResource(extra)
	if err != nil || *r.State != "Listed" || !*r.Verified || len(r.Tags) != 1 || r.Listed {
		t.Fatalf("extra: %+v %v", r, err)
	}
	if _, err := decodeResource(resourceMap(entry("id", soroban.Str("abc")))); err == nil {
		t.Fatal("a resource without creator and price must be rejected")
	}
	if _, err := decodeResource(soroban.Str("nope")); err == nil {
		t.Fatal("a non-map must be rejected")
	}
}

// TestContractErrorsMapPerErrorsMD: every stable number and an unknown one, through errmap.
func TestContractErrorsMapPerErrorsMD(t *testing.T) {
	want := map[int]string{1: "conflict", 2: "not_found", 3: "validation", 4: "validation", 5: "validation", 6: "auth",
		11: "validation", 12: "validation", 13: "validation", 14: "conflict", 16: "validation", 17: "validation"}
	for n := 1; n <= 24; n++ {
		e := soroban.SimulationFailure(fmt.Sprintf("HostError: Error(Contract, #%d)\n\nEvent log (newest first):\n   0: [Diagnostic Event] data:\"arg\"", n), errmap.SourceRegistry)
		f := errmap.FromError(e, errmap.Call{Operation: "Registry lookup failed", Tool: "mindvault_registry_lookup"})
		cat := want[n]
		if cat == "" {
			cat = "contract"
		}
		if string(f.Diagnostic.Category) != cat || f.Diagnostic.Source != "registry" {
			t.Errorf("#%d → %s/%s, want %s", n, f.Diagnostic.Category, f.Diagnostic.Source, cat)
		}
		if strings.Contains(f.Text, "Event log") || strings.Contains(f.Text, `"arg"`) {
			t.Errorf("#%d: the simulation's event log leaked: %q", n, f.Text)
		}
		if n == 24 && f.Diagnostic.Upstream["contractErrorName"] != "Unknown" {
			t.Errorf("#24 name = %v", f.Diagnostic.Upstream["contractErrorName"])
		}
	}
	f := errmap.FromError(soroban.SimulationFailure("HostError: Error(Storage, MissingValue)", errmap.SourceRegistry), errmap.Call{Operation: "x"})
	if f.Diagnostic.Code != "CONTRACT_MISSING" || f.Diagnostic.Category != "contract" {
		t.Errorf("missing contract → %s", f.Diagnostic.Code)
	}
}

func TestOnchainID(t *testing.T) {
	for id, ok := range map[string]bool{"abc123": true, "ABC": false, strings.Repeat("a", 25): false, "a-b": false, "": false} {
		if OnchainID(id) != ok {
			t.Errorf("OnchainID(%q) != %v", id, ok)
		}
	}
}

// registry_info's network id decodes alike from the BytesN<32> the contract stores and from
// a hex String, so health can compare it with the configured network.
func TestInfoNetworkID(t *testing.T) {
	id := make([]byte, 32)
	for i := range id {
		id[i] = byte(i * 7)
	}
	want := fmt.Sprintf("%x", id)
	sym := func(s string) xdr.ScVal {
		v := xdr.ScSymbol(s)
		return xdr.ScVal{Type: xdr.ScValTypeScvSymbol, Sym: &v}
	}
	bytesVal := func(b []byte) xdr.ScVal {
		v := xdr.ScBytes(b)
		return xdr.ScVal{Type: xdr.ScValTypeScvBytes, Bytes: &v}
	}
	for _, tc := range []struct {
		name string
		val  xdr.ScVal
		want string
	}{
		{"bytes", bytesVal(id), want},
		{"hex string", soroban.Str(strings.ToUpper(want)), want},
		{"absent", xdr.ScVal{Type: xdr.ScValTypeScvVoid}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			entries := []xdr.ScMapEntry{{Key: sym("name"), Val: soroban.Str("MindVault Vault Registry")}}
			if tc.val.Type != xdr.ScValTypeScvVoid {
				entries = append(entries, xdr.ScMapEntry{Key: sym("network_id"), Val: tc.val})
			}
			info, ok := decodeInfo(resourceMap(entries...))
			if !ok || info.NetworkID != tc.want || info.Name != "MindVault Vault Registry" {
				t.Fatalf("%+v %v", info, ok)
			}
		})
	}
	if _, ok := decodeInfo(soroban.Str("x")); ok {
		t.Fatal("a non-map decoded")
	}
}
