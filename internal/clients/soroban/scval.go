// Package soroban builds and simulates Soroban contract invocations with go-stellar-sdk (txnbuild,
// xdr) over Stellar RPC, and holds the module's one ScVal codec, exact in both directions. The
// sandbox's contract models read and answer with the same codec, so it is pinned by golden tests
// against XDR bytes written from the protocol's definitions (scval_test.go), not against its own
// output.
package soroban

import (
	"fmt"
	"maps"
	"math/big"
	"slices"
	"strings"

	"github.com/stellar/go-stellar-sdk/strkey"
	"github.com/stellar/go-stellar-sdk/xdr"

	"github.com/mindvault/mcp-endpoint/internal/redact/lazyre"
)

// scVal is the ScVal of one arm of the union. Every caller passes the arm's own Go type,
// so an error here is a bug in this file, never a bad input.
func scVal(arm xdr.ScValType, value any) xdr.ScVal {
	v, err := xdr.NewScVal(arm, value)
	if err != nil {
		panic("soroban: " + err.Error())
	}
	return v
}

// Str is a Soroban String.
func Str(s string) xdr.ScVal { return scVal(xdr.ScValTypeScvString, xdr.ScString(s)) }

// Sym is a Soroban Symbol.
func Sym(s string) xdr.ScVal { return scVal(xdr.ScValTypeScvSymbol, xdr.ScSymbol(s)) }

// U32 is a Soroban u32.
func U32(n uint32) xdr.ScVal { return scVal(xdr.ScValTypeScvU32, xdr.Uint32(n)) }

// U64 is a Soroban u64.
func U64(n uint64) xdr.ScVal { return scVal(xdr.ScValTypeScvU64, xdr.Uint64(n)) }

// Bool is a Soroban bool.
func Bool(b bool) xdr.ScVal { return scVal(xdr.ScValTypeScvBool, b) }

// Bytes is a Soroban Bytes.
func Bytes(b []byte) xdr.ScVal { return scVal(xdr.ScValTypeScvBytes, xdr.ScBytes(b)) }

// Void is the Soroban unit value, what a write returns.
func Void() xdr.ScVal { return scVal(xdr.ScValTypeScvVoid, nil) }

// Vec is a Soroban Vec of items.
func Vec(items ...xdr.ScVal) xdr.ScVal {
	vec := xdr.ScVec(items)
	return scVal(xdr.ScValTypeScvVec, &vec)
}

// StrVec is a Soroban Vec<String>.
func StrVec(ss []string) xdr.ScVal {
	items := make([]xdr.ScVal, len(ss))
	for i, s := range ss {
		items[i] = Str(s)
	}
	return Vec(items...)
}

// SymMap is a Soroban Map with Symbol keys, in the order the host keeps a map's keys (byte
// order), which is how a contract's struct is encoded.
func SymMap(fields map[string]xdr.ScVal) xdr.ScVal {
	m := make(xdr.ScMap, 0, len(fields))
	for _, k := range slices.Sorted(maps.Keys(fields)) {
		m = append(m, xdr.ScMapEntry{Key: Sym(k), Val: fields[k]})
	}
	return scVal(xdr.ScValTypeScvMap, &m)
}

// Account is a Soroban Address of a G-account.
func Account(g string) (xdr.ScVal, error) {
	aid, err := xdr.AddressToAccountId(g)
	if err != nil {
		return xdr.ScVal{}, fmt.Errorf("invalid account %q", g)
	}
	return AddressVal(xdr.ScAddress{Type: xdr.ScAddressTypeScAddressTypeAccount, AccountId: &aid}), nil
}

// AddressOf is a Soroban Address of a G-account or a C-contract strkey.
func AddressOf(id string) (xdr.ScVal, error) {
	if !strings.HasPrefix(id, "C") {
		return Account(id)
	}
	a, err := contractAddress(id)
	if err != nil {
		return xdr.ScVal{}, fmt.Errorf("invalid contract %q", id)
	}
	return AddressVal(a), nil
}

func contractAddress(id string) (xdr.ScAddress, error) {
	raw, err := strkey.Decode(strkey.VersionByteContract, id)
	var cid xdr.ContractId
	copy(cid[:], raw)
	return xdr.ScAddress{Type: xdr.ScAddressTypeScAddressTypeContract, ContractId: &cid}, err
}

// AddressVal is the ScVal of an Address.
func AddressVal(a xdr.ScAddress) xdr.ScVal { return scVal(xdr.ScValTypeScvAddress, a) }

var two64 = new(big.Int).Lsh(big.NewInt(1), 64)

// I128 is a Soroban i128 from a big integer (which must fit).
func I128(n *big.Int) (xdr.ScVal, error) {
	lo := new(big.Int).Mod(n, two64) // two's complement low word
	hi := new(big.Int).Rsh(n, 64)    // arithmetic shift keeps the sign
	if !hi.IsInt64() {
		return xdr.ScVal{}, fmt.Errorf("value does not fit in i128")
	}
	return scVal(xdr.ScValTypeScvI128, xdr.Int128Parts{Hi: xdr.Int64(hi.Int64()), Lo: xdr.Uint64(lo.Uint64())}), nil
}

// BigFromI128 decodes an i128 exactly.
func BigFromI128(p xdr.Int128Parts) *big.Int {
	n := new(big.Int).Lsh(big.NewInt(int64(p.Hi)), 64)
	return n.Add(n, new(big.Int).SetUint64(uint64(p.Lo)))
}

var amountRe = lazyre.New(`^(\d+)(?:\.(\d{1,7}))?$`)

// Units converts a USDC decimal string ("1.5") to 7-decimal units (15000000), exactly.
func Units(decimal string) (*big.Int, error) {
	m := amountRe.FindStringSubmatch(decimal)
	if m == nil {
		return nil, fmt.Errorf("not a USDC amount with at most 7 decimals")
	}
	n, _ := new(big.Int).SetString(m[1]+m[2]+strings.Repeat("0", 7-len(m[2])), 10)
	return n, nil
}

// Decimal formats 7-decimal units as an exact decimal string with 7 places ("1.5000000").
// Digits, not big.Rat: every price shown goes through it, and a Rat costs a GCD and its allocations.
func Decimal(units *big.Int) string {
	s := new(big.Int).Abs(units).String()
	s = strings.Repeat("0", max(0, 8-len(s))) + s // at least one digit before the point
	if units.Sign() < 0 {
		s = "-" + s
	}
	return s[:len(s)-7] + "." + s[len(s)-7:]
}

// Text reads a String or Symbol.
func Text(v xdr.ScVal) (string, bool) {
	if s, ok := v.GetStr(); ok {
		return string(s), true
	}
	sym, ok := v.GetSym()
	return string(sym), ok
}

// Address reads an Address as its strkey.
func Address(v xdr.ScVal) (string, bool) {
	if v.Type != xdr.ScValTypeScvAddress || v.Address == nil {
		return "", false
	}
	s, err := v.Address.String()
	return s, err == nil
}

// Fields reads a Map with String or Symbol keys (a contract's struct), calling set for each entry
// in order (a key that is not text is skipped); it reports whether v is a Map.
func Fields(v xdr.ScVal, set func(key string, val xdr.ScVal)) bool {
	if v.Type != xdr.ScValTypeScvMap || v.Map == nil || *v.Map == nil {
		return false
	}
	for _, e := range **v.Map {
		if k, ok := Text(e.Key); ok {
			set(k, e.Val)
		}
	}
	return true
}

// VecOf reads a Vec; an empty one may come as a nil vector, read as no items.
func VecOf(v xdr.ScVal) (xdr.ScVec, bool) {
	if v.Type != xdr.ScValTypeScvVec || v.Vec == nil {
		return nil, false
	}
	if *v.Vec == nil {
		return nil, true
	}
	return **v.Vec, true
}

// Uint reads an unsigned integer of any width.
func Uint(v xdr.ScVal) (uint64, bool) {
	if n, ok := v.GetU32(); ok {
		return uint64(n), true
	}
	if n, ok := v.GetU64(); ok {
		return uint64(n), true
	}
	t, ok := v.GetTimepoint()
	return uint64(t), ok
}
