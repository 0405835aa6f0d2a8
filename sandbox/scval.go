package sandbox

import (
	"encoding/hex"
	"fmt"
	"maps"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/stellar/go-stellar-sdk/strkey"
	"github.com/stellar/go-stellar-sdk/xdr"
)

// ScVal builders, in the encodings soroban-sdk gives the contract's types.

func scStr(s string) xdr.ScVal {
	v := xdr.ScString(s)
	return xdr.ScVal{Type: xdr.ScValTypeScvString, Str: &v}
}

func scSym(s string) xdr.ScVal {
	v := xdr.ScSymbol(s)
	return xdr.ScVal{Type: xdr.ScValTypeScvSymbol, Sym: &v}
}

func scVec(items ...xdr.ScVal) xdr.ScVal {
	v := xdr.ScVec(items)
	p := &v
	return xdr.ScVal{Type: xdr.ScValTypeScvVec, Vec: &p}
}

func scStrVec(ss []string) xdr.ScVal {
	items := make([]xdr.ScVal, len(ss))
	for i, s := range ss {
		items[i] = scStr(s)
	}
	return scVec(items...)
}

func scU32(n uint32) xdr.ScVal {
	v := xdr.Uint32(n)
	return xdr.ScVal{Type: xdr.ScValTypeScvU32, U32: &v}
}

func scU64(n uint64) xdr.ScVal {
	v := xdr.Uint64(n)
	return xdr.ScVal{Type: xdr.ScValTypeScvU64, U64: &v}
}

func scBool(b bool) xdr.ScVal { return xdr.ScVal{Type: xdr.ScValTypeScvBool, B: &b} }

func scVoid() xdr.ScVal { return xdr.ScVal{Type: xdr.ScValTypeScvVoid} }

// scI128 is a non-negative i128 (prices are positive and below 2^63 in the model).
func scI128(n int64) xdr.ScVal {
	return xdr.ScVal{Type: xdr.ScValTypeScvI128, I128: &xdr.Int128Parts{Hi: 0, Lo: xdr.Uint64(n)}}
}

// scAddress encodes a G... account or C... contract strkey as an Address.
func scAddress(addr string) xdr.ScVal {
	var a xdr.ScAddress
	if raw, err := strkey.Decode(strkey.VersionByteContract, addr); err == nil {
		var cid xdr.ContractId
		copy(cid[:], raw)
		a = xdr.ScAddress{Type: xdr.ScAddressTypeScAddressTypeContract, ContractId: &cid}
	} else {
		acct := xdr.MustAddress(addr)
		a = xdr.ScAddress{Type: xdr.ScAddressTypeScAddressTypeAccount, AccountId: &acct}
	}
	return xdr.ScVal{Type: xdr.ScValTypeScvAddress, Address: &a}
}

// scMap is a map with Symbol keys, sorted by key as the Soroban host keeps them (byte order).
func scMap(fields map[string]xdr.ScVal) xdr.ScVal {
	m := make(xdr.ScMap, 0, len(fields))
	for _, k := range slices.Sorted(maps.Keys(fields)) {
		m = append(m, xdr.ScMapEntry{Key: scSym(k), Val: fields[k]})
	}
	p := &m
	return xdr.ScVal{Type: xdr.ScValTypeScvMap, Map: &p}
}

// unitEnum is a Soroban unit enum variant: Vec[Symbol(name)].
func unitEnum(name string) xdr.ScVal { return scVec(scSym(name)) }

func contractDataKey(contract xdr.ScAddress, key xdr.ScVal) xdr.LedgerKey {
	return xdr.LedgerKey{Type: xdr.LedgerEntryTypeContractData, ContractData: &xdr.LedgerKeyContractData{
		Contract: contract, Key: key, Durability: xdr.ContractDataDurabilityPersistent}}
}

// Argument decoding: a value of the wrong type is the host's Error(Value, UnexpectedType).

func argString(v xdr.ScVal) (string, *hostError) {
	if v.Type != xdr.ScValTypeScvString || v.Str == nil {
		return "", unexpectedType("String", v)
	}
	return string(*v.Str), nil
}

func argU32(v xdr.ScVal) (uint32, *hostError) {
	if v.Type != xdr.ScValTypeScvU32 || v.U32 == nil {
		return 0, unexpectedType("U32", v)
	}
	return uint32(*v.U32), nil
}

func argBool(v xdr.ScVal) (bool, *hostError) {
	if v.Type != xdr.ScValTypeScvBool || v.B == nil {
		return false, unexpectedType("Bool", v)
	}
	return *v.B, nil
}

func argI128(v xdr.ScVal) (*big.Int, *hostError) {
	if v.Type != xdr.ScValTypeScvI128 || v.I128 == nil {
		return nil, unexpectedType("I128", v)
	}
	return i128Big(*v.I128), nil
}

func i128Big(p xdr.Int128Parts) *big.Int {
	n := new(big.Int).Lsh(big.NewInt(int64(p.Hi)), 64)
	return n.Add(n, new(big.Int).SetUint64(uint64(p.Lo)))
}

// argAddress returns the strkey (G... or C...) of an Address.
func argAddress(v xdr.ScVal) (string, *hostError) {
	if v.Type != xdr.ScValTypeScvAddress || v.Address == nil {
		return "", unexpectedType("Address", v)
	}
	s, err := v.Address.String()
	if err != nil {
		return "", unexpectedType("Address", v)
	}
	return s, nil
}

func argStrings(v xdr.ScVal) ([]string, *hostError) {
	if v.Type != xdr.ScValTypeScvVec || v.Vec == nil {
		return nil, unexpectedType("Vec<String>", v)
	}
	var out []string
	if *v.Vec != nil {
		for _, item := range **v.Vec {
			s, e := argString(item)
			if e != nil {
				return nil, e
			}
			out = append(out, s)
		}
	}
	return out, nil
}

// scText renders a value the way the host's event log prints it (close enough to read).
func scText(v xdr.ScVal) string {
	switch v.Type {
	case xdr.ScValTypeScvString:
		return strconv.Quote(string(*v.Str))
	case xdr.ScValTypeScvSymbol:
		return string(*v.Sym)
	case xdr.ScValTypeScvU32:
		return strconv.FormatUint(uint64(*v.U32), 10)
	case xdr.ScValTypeScvU64:
		return strconv.FormatUint(uint64(*v.U64), 10)
	case xdr.ScValTypeScvI128:
		return i128Big(*v.I128).String()
	case xdr.ScValTypeScvBool:
		return strconv.FormatBool(*v.B)
	case xdr.ScValTypeScvVoid:
		return "Void"
	case xdr.ScValTypeScvAddress:
		if s, err := v.Address.String(); err == nil {
			return s
		}
	case xdr.ScValTypeScvError:
		return errorText(*v.Error)
	case xdr.ScValTypeScvBytes:
		return "Bytes(" + hex.EncodeToString(*v.Bytes) + ")"
	case xdr.ScValTypeScvVec:
		var parts []string
		if v.Vec != nil && *v.Vec != nil {
			for _, item := range **v.Vec {
				parts = append(parts, scText(item))
			}
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case xdr.ScValTypeScvMap:
		var parts []string
		if v.Map != nil && *v.Map != nil {
			for _, e := range **v.Map {
				parts = append(parts, scText(e.Key)+": "+scText(e.Val))
			}
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return v.Type.String()
}

// errorText spells an ScError as the host does: Error(Contract, #6), Error(Storage, MissingValue).
func errorText(e xdr.ScError) string {
	if e.Type == xdr.ScErrorTypeSceContract && e.ContractCode != nil {
		return fmt.Sprintf("Error(Contract, #%d)", *e.ContractCode)
	}
	code := ""
	if e.Code != nil {
		code = strings.TrimPrefix(e.Code.String(), "ScErrorCodeScec")
	}
	return "Error(" + strings.TrimPrefix(e.Type.String(), "ScErrorTypeSce") + ", " + code + ")"
}
