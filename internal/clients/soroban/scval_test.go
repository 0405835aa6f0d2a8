package soroban

import (
	"bytes"
	"encoding/hex"
	"math/big"
	"strings"
	"testing"

	"github.com/stellar/go-stellar-sdk/strkey"
	"github.com/stellar/go-stellar-sdk/xdr"
)

// Key bytes 0x01..0x20, so a swapped or shifted key shows.
var key32 = func() []byte {
	b := make([]byte, 32)
	for i := range b {
		b[i] = byte(i + 1)
	}
	return b
}()

const key32Hex = "0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20"

func strkeyOf(t *testing.T, v strkey.VersionByte) string {
	t.Helper()
	s, err := strkey.Encode(v, key32)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// wire joins XDR words written as hex: the ScVal discriminants are SCV_BOOL 0, SCV_VOID 1,
// SCV_U32 3, SCV_U64 5, SCV_I128 10, SCV_BYTES 13, SCV_STRING 14, SCV_SYMBOL 15, SCV_VEC 16, SCV_MAP 17,
// SCV_ADDRESS 18; a Vec or Map is an optional (present: 1) counted array; a string is its
// length and its bytes padded to four (so are bytes); an i128 is hi (int64) then lo (uint64); an Address is
// SC_ADDRESS_TYPE_ACCOUNT 0 with PUBLIC_KEY_TYPE_ED25519 0 and the key, or
// SC_ADDRESS_TYPE_CONTRACT 1 and the contract id.
func wire(words ...string) []byte {
	b, err := hex.DecodeString(strings.Join(words, ""))
	if err != nil {
		panic(err)
	}
	return b
}

// TestScValWire pins the ScVal codec to XDR written out from the protocol's definitions, in
// both directions: each builder encodes to exactly those bytes, and each reader decodes those
// bytes to the value. The sandbox shares this codec, so its own tests cannot catch a codec
// bug; this test can.
func TestScValWire(t *testing.T) {
	account, contract := strkeyOf(t, strkey.VersionByteAccountID), strkeyOf(t, strkey.VersionByteContract)
	i128 := func(s string) xdr.ScVal {
		n, _ := new(big.Int).SetString(s, 10)
		v, err := I128(n)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	addr := func(id string) xdr.ScVal {
		v, err := AddressOf(id)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	cases := []struct {
		name string
		val  xdr.ScVal
		wire []byte
		read func(xdr.ScVal) (any, bool) // the reader, nil when there is none
		want any
	}{
		{"string", Str("abc"), wire("0000000e", "00000003", "61626300"),
			func(v xdr.ScVal) (any, bool) { return Text(v) }, "abc"},
		{"string of four", Str("abcd"), wire("0000000e", "00000004", "61626364"),
			func(v xdr.ScVal) (any, bool) { return Text(v) }, "abcd"},
		{"symbol", Sym("transfer"), wire("0000000f", "00000008", "7472616e73666572"),
			func(v xdr.ScVal) (any, bool) { return Text(v) }, "transfer"},
		{"u32", U32(7), wire("00000003", "00000007"),
			func(v xdr.ScVal) (any, bool) { return Uint(v) }, uint64(7)},
		{"u64", U64(1 << 40), wire("00000005", "0000010000000000"),
			func(v xdr.ScVal) (any, bool) { return Uint(v) }, uint64(1 << 40)},
		{"bool", Bool(true), wire("00000000", "00000001"), nil, nil},
		{"bytes", Bytes([]byte{0xab, 0xcd, 0xef}), wire("0000000d", "00000003", "abcdef00"), nil, nil},
		{"empty bytes", Bytes(nil), wire("0000000d", "00000000"), nil, nil},
		{"void", Void(), wire("00000001"), nil, nil},
		{"i128 small", i128("15000000"), wire("0000000a", "0000000000000000", "0000000000e4e1c0"), readI128, "15000000"},
		{"i128 minus one", i128("-1"), wire("0000000a", "ffffffffffffffff", "ffffffffffffffff"), readI128, "-1"},
		{"i128 above 2^64", i128("18446744073709551621"), wire("0000000a", "0000000000000001", "0000000000000005"), readI128, "18446744073709551621"},
		{"i128 minus 2^64", i128("-18446744073709551616"), wire("0000000a", "ffffffffffffffff", "0000000000000000"), readI128, "-18446744073709551616"},
		{"account", addr(account), wire("00000012", "00000000", "00000000", key32Hex),
			func(v xdr.ScVal) (any, bool) { return Address(v) }, account},
		{"contract", addr(contract), wire("00000012", "00000001", key32Hex),
			func(v xdr.ScVal) (any, bool) { return Address(v) }, contract},
		{"empty vec", StrVec(nil), wire("00000010", "00000001", "00000000"),
			func(v xdr.ScVal) (any, bool) { vec, ok := VecOf(v); return len(vec), ok }, 0},
		{"vec of strings", StrVec([]string{"a", "bc"}), wire("00000010", "00000001", "00000002",
			"0000000e", "00000001", "61000000", "0000000e", "00000002", "62630000"),
			func(v xdr.ScVal) (any, bool) { vec, ok := VecOf(v); return len(vec), ok }, 2},
		{"unit enum", Vec(Sym("Listed")), wire("00000010", "00000001", "00000001", "0000000f", "00000006", "4c6973746564", "0000"), nil, nil},
		{"struct keys in byte order", SymMap(map[string]xdr.ScVal{"b": U32(1), "a": Bool(false)}), wire("00000011", "00000001", "00000002",
			"0000000f", "00000001", "61000000", "00000000", "00000000",
			"0000000f", "00000001", "62000000", "00000003", "00000001"),
			func(v xdr.ScVal) (any, bool) {
				var keys string
				ok := Fields(v, func(k string, _ xdr.ScVal) { keys += k })
				return keys, ok
			}, "ab"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := c.val.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, c.wire) {
				t.Fatalf("encodes to %x, want %x", got, c.wire)
			}
			var back xdr.ScVal
			if err := back.UnmarshalBinary(c.wire); err != nil {
				t.Fatalf("the wire bytes do not decode: %v", err)
			}
			if c.read == nil {
				return
			}
			v, ok := c.read(back)
			if !ok || v != c.want {
				t.Fatalf("reads %v (%v), want %v", v, ok, c.want)
			}
		})
	}
}

func readI128(v xdr.ScVal) (any, bool) {
	if v.Type != xdr.ScValTypeScvI128 || v.I128 == nil {
		return nil, false
	}
	return BigFromI128(*v.I128).String(), true
}

// TestBuildersRefuse: what does not fit the type is an error, never a wrong value.
func TestBuildersRefuse(t *testing.T) {
	tooBig := new(big.Int).Lsh(big.NewInt(1), 127)
	if _, err := I128(tooBig); err == nil {
		t.Error("2^127 fits no i128")
	}
	if _, err := I128(new(big.Int).Neg(new(big.Int).Add(tooBig, big.NewInt(1)))); err == nil {
		t.Error("-2^127-1 fits no i128")
	}
	if _, err := I128(new(big.Int).Neg(tooBig)); err != nil {
		t.Errorf("-2^127 is the smallest i128: %v", err)
	}
	for _, id := range []string{"", "GABC", "CABC", "SBKH3XCW5OA5ZQBZZ6IRCR6N7VL3BJMB6HXZDCVLFIJHN73RQIV7FIZ6"} {
		if _, err := AddressOf(id); err == nil {
			t.Errorf("AddressOf(%q) accepted", id)
		}
	}
}

// TestFields: a contract struct is read by key, String and Symbol keys alike, in order;
// an entry whose key is not text is skipped, and only a Map is one.
func TestFields(t *testing.T) {
	m := xdr.ScMap{
		{Key: Sym("id"), Val: Str("a")},
		{Key: U32(7), Val: Str("skipped")},
		{Key: Str("price"), Val: U32(5)},
	}
	mp := &m
	cases := []struct {
		name string
		val  xdr.ScVal
		want string
		ok   bool
	}{
		{"struct", xdr.ScVal{Type: xdr.ScValTypeScvMap, Map: &mp}, "id price ", true},
		{"empty struct", SymMap(nil), "", true},
		{"not a map", Vec(Sym("id")), "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := ""
			ok := Fields(c.val, func(key string, _ xdr.ScVal) { got += key + " " })
			if got != c.want || ok != c.ok {
				t.Fatalf("Fields = %q, %v; want %q, %v", got, ok, c.want, c.ok)
			}
		})
	}
}
