package sandbox

import (
	"encoding/hex"
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/stellar/go-stellar-sdk/xdr"

	"github.com/mindvault/mcp-endpoint/internal/clients/soroban"
)

// The ScVals come from the product's codec (clients/soroban); these two only fit it to the
// models' int64 prices and their strkeys, which are valid by construction.

// scI128 is an i128 of a model amount.
func scI128(n int64) xdr.ScVal {
	v, _ := soroban.I128(big.NewInt(n)) // an int64 always fits
	return v
}

// scAddress is the Address of a G... account or C... contract strkey the models hold.
func scAddress(addr string) xdr.ScVal {
	v, err := soroban.AddressOf(addr)
	if err != nil {
		panic("sandbox: " + err.Error())
	}
	return v
}

// unitEnum is a Soroban unit enum variant: Vec[Symbol(name)].
func unitEnum(name string) xdr.ScVal { return soroban.Vec(soroban.Sym(name)) }

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
	return soroban.BigFromI128(*v.I128), nil
}

// argAddress returns the strkey (G... or C...) of an Address.
func argAddress(v xdr.ScVal) (string, *hostError) {
	s, ok := soroban.Address(v)
	if !ok {
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
		return soroban.BigFromI128(*v.I128).String()
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
