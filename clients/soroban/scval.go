// Package soroban builds and simulates Soroban contract invocations with go-stellar-sdk
// (txnbuild, xdr) over Stellar RPC, and converts between Go values and ScVals exactly.
//
// The ScVal helpers are the module's one ScVal codec: the sandbox's contract models build
// their answers and read their arguments with them too, so they are pinned by golden tests
// against XDR bytes written out from the protocol's definitions (scval_test.go), not against
// their own output.
package soroban

import (
	"fmt"
	"maps"
	"math/big"
	"slices"
	"strings"

	"github.com/stellar/go-stellar-sdk/strkey"
	"github.com/stellar/go-stellar-sdk/xdr"

	"github.com/mindvault/mcp-endpoint/internal/lazyre"
)

// Str is a Soroban String.
func Str(s string) xdr.ScVal {
	v := xdr.ScString(s)
	return xdr.ScVal{Type: xdr.ScValTypeScvString, Str: &v}
}

// Sym is a Soroban Symbol.
func Sym(s string) xdr.ScVal {
	v := xdr.ScSymbol(s)
	return xdr.ScVal{Type: xdr.ScValTypeScvSymbol, Sym: &v}
}

// U32 is a Soroban u32.
func U32(n uint32) xdr.ScVal {
	v := xdr.Uint32(n)
	return xdr.ScVal{Type: xdr.ScValTypeScvU32, U32: &v}
}

// U64 is a Soroban u64.
func U64(n uint64) xdr.ScVal {
	v := xdr.Uint64(n)
	return xdr.ScVal{Type: xdr.ScValTypeScvU64, U64: &v}
}

// Bool is a Soroban bool.
func Bool(b bool) xdr.ScVal { return xdr.ScVal{Type: xdr.ScValTypeScvBool, B: &b} }

// Void is the Soroban unit value, what a write returns.
func Void() xdr.ScVal { return xdr.ScVal{Type: xdr.ScValTypeScvVoid} }

// Vec is a Soroban Vec of items.
func Vec(items ...xdr.ScVal) xdr.ScVal {
	vec := xdr.ScVec(items)
	p := &vec
	return xdr.ScVal{Type: xdr.ScValTypeScvVec, Vec: &p}
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
	p := &m
	return xdr.ScVal{Type: xdr.ScValTypeScvMap, Map: &p}
}

// Account is a Soroban Address of a G-account.
func Account(g string) (xdr.ScVal, error) {
	aid, err := xdr.AddressToAccountId(g)
	if err != nil {
		return xdr.ScVal{}, fmt.Errorf("invalid account %q", g)
	}
	addr := xdr.ScAddress{Type: xdr.ScAddressTypeScAddressTypeAccount, AccountId: &aid}
	return xdr.ScVal{Type: xdr.ScValTypeScvAddress, Address: &addr}, nil
}

// AddressOf is a Soroban Address of a G-account or a C-contract strkey.
func AddressOf(id string) (xdr.ScVal, error) {
	if !strings.HasPrefix(id, "C") {
		return Account(id)
	}
	raw, err := DecodeContract(id)
	if err != nil {
		return xdr.ScVal{}, fmt.Errorf("invalid contract %q", id)
	}
	var cid xdr.ContractId
	copy(cid[:], raw)
	addr := xdr.ScAddress{Type: xdr.ScAddressTypeScAddressTypeContract, ContractId: &cid}
	return xdr.ScVal{Type: xdr.ScValTypeScvAddress, Address: &addr}, nil
}

var two64 = new(big.Int).Lsh(big.NewInt(1), 64)

// I128 is a Soroban i128 from a big integer (which must fit).
func I128(n *big.Int) (xdr.ScVal, error) {
	lo := new(big.Int).Mod(n, two64) // two's complement low word
	hi := new(big.Int).Rsh(n, 64)    // arithmetic shift keeps the sign
	if !hi.IsInt64() {
		return xdr.ScVal{}, fmt.Errorf("value does not fit in i128")
	}
	parts := xdr.Int128Parts{Hi: xdr.Int64(hi.Int64()), Lo: xdr.Uint64(lo.Uint64())}
	return xdr.ScVal{Type: xdr.ScValTypeScvI128, I128: &parts}, nil
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
func Decimal(units *big.Int) string {
	neg := units.Sign() < 0
	s := new(big.Int).Abs(units).String()
	if len(s) < 8 {
		s = strings.Repeat("0", 8-len(s)) + s
	}
	out := s[:len(s)-7] + "." + s[len(s)-7:]
	if neg {
		out = "-" + out
	}
	return out
}

// Text reads a String or Symbol.
func Text(v xdr.ScVal) (string, bool) {
	switch v.Type {
	case xdr.ScValTypeScvString:
		return string(*v.Str), true
	case xdr.ScValTypeScvSymbol:
		return string(*v.Sym), true
	}
	return "", false
}

// Address reads an Address as its strkey.
func Address(v xdr.ScVal) (string, bool) {
	if v.Type != xdr.ScValTypeScvAddress || v.Address == nil {
		return "", false
	}
	s, err := v.Address.String()
	return s, err == nil
}

// MapOf reads a Map.
func MapOf(v xdr.ScVal) (xdr.ScMap, bool) {
	if v.Type != xdr.ScValTypeScvMap || v.Map == nil || *v.Map == nil {
		return nil, false
	}
	return **v.Map, true
}

// VecOf reads a Vec.
func VecOf(v xdr.ScVal) (xdr.ScVec, bool) {
	if v.Type != xdr.ScValTypeScvVec || v.Vec == nil || *v.Vec == nil {
		return nil, false
	}
	return **v.Vec, true
}

// Uint reads an unsigned integer of any width.
func Uint(v xdr.ScVal) (uint64, bool) {
	switch v.Type {
	case xdr.ScValTypeScvU32:
		return uint64(*v.U32), true
	case xdr.ScValTypeScvU64:
		return uint64(*v.U64), true
	case xdr.ScValTypeScvTimepoint:
		return uint64(*v.Timepoint), true
	}
	return 0, false
}

// DecodeContract decodes a C... contract strkey.
func DecodeContract(id string) ([]byte, error) {
	return strkey.Decode(strkey.VersionByteContract, id)
}
