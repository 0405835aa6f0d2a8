package validate

import "strings"

// amountDecimals is the number of decimal places a USDC amount may have (the 7 of its units).
const amountDecimals = 7

// amountIntegerDigits is the most integer digits an amount can have within the contract's
// maximum (100000000000): anything longer is refused here, before its text is built, so a
// literal such as 1e999999999 costs nothing.
const amountIntegerDigits = 12

// amountNumber reads a JSON number token as the exact decimal its literal writes, never through
// a float64 (which would make 100000000000.0000001 the contract's maximum), as the plain text the
// amount shapes check ("2.50", "25e-1" → "2.5"). ok is false when it cannot be an amount at all:
// negative, more than 7 decimal places or 12 integer digits.
func amountNumber(lit []byte) (string, bool) {
	s := string(lit)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	intPart, rest := cutDigits(s)
	if intPart == "" {
		return "", false
	}
	var frac string
	if strings.HasPrefix(rest, ".") {
		if frac, rest = cutDigits(rest[1:]); frac == "" {
			return "", false
		}
	}
	exp, huge := 0, false
	if rest != "" {
		if rest[0] != 'e' && rest[0] != 'E' {
			return "", false
		}
		rest = rest[1:]
		expNeg := strings.HasPrefix(rest, "-")
		if expNeg || strings.HasPrefix(rest, "+") {
			rest = rest[1:]
		}
		digits, tail := cutDigits(rest)
		if digits == "" || tail != "" {
			return "", false
		}
		digits = strings.TrimLeft(digits, "0")
		// An exponent of 10 digits or more would need a literal of a billion digits to bring
		// a non-zero value back within an amount's range.
		huge = len(digits) > 9
		for i := 0; !huge && i < len(digits); i++ {
			exp = exp*10 + int(digits[i]-'0')
		}
		if expNeg {
			exp = -exp
		}
	}

	// value = d × 10^scale, d without leading or trailing zeros.
	d := strings.TrimLeft(intPart+frac, "0")
	if d == "" {
		return "0", true
	}
	trimmed := strings.TrimRight(d, "0")
	scale := exp - len(frac) + len(d) - len(trimmed)
	d = trimmed
	if neg || huge || scale < -amountDecimals || len(d)+scale > amountIntegerDigits {
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

func cutDigits(s string) (digits, rest string) {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return s[:i], s[i:]
}
