package validate

import (
	"strconv"
	"strings"
)

// amountDecimals is the number of decimal places a USDC amount may have (the 7 of its units).
const amountDecimals = 7

// amountIntegerDigits is the most integer digits an amount can have within the contract's
// maximum (100000000000): anything longer is refused here, before its text is built, so a
// literal such as 1e999999999 costs nothing.
const amountIntegerDigits = 12

// amountNumber reads a JSON number token as the exact decimal its literal writes, never through
// a float64 (which would make 100000000000.0000001 the contract's maximum), as the plain text the
// amount shapes check ("2.50", "25e-1" → "2.5"). ok is false when it cannot be an amount at all:
// negative, more than 7 decimal places or 12 integer digits. lit is a valid JSON number (assign
// has it from a decoded object), so its syntax needs no check.
func amountNumber(lit []byte) (string, bool) {
	s := string(lit)
	mant, expText := s, ""
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		mant, expText = s[:i], s[i+1:]
	}
	intPart, frac, _ := strings.Cut(strings.TrimPrefix(mant, "-"), ".")
	exp, err := 0, error(nil)
	if expText != "" {
		exp, err = strconv.Atoi(expText)
	}

	// value = d × 10^scale, d without leading or trailing zeros.
	d := strings.TrimLeft(intPart+frac, "0")
	if d == "" {
		return "0", true
	}
	// An exponent beyond a billion would need a literal of a billion digits to bring a
	// non-zero value back within an amount's range.
	if mant[0] == '-' || err != nil || exp > 1e9 || exp < -1e9 {
		return "", false
	}
	trimmed := strings.TrimRight(d, "0")
	scale := exp - len(frac) + len(d) - len(trimmed)
	d = trimmed
	if scale < -amountDecimals || len(d)+scale > amountIntegerDigits {
		return "", false
	}
	switch point := len(d) + scale; {
	case scale >= 0:
		return d + strings.Repeat("0", scale), true
	case point > 0:
		return d[:point] + "." + d[point:], true
	default:
		return "0." + strings.Repeat("0", -point) + d, true
	}
}
