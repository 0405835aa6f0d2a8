package redact

import (
	"unicode"
	"unicode/utf8"
)

// This file reads a text the way Replace compares it: each character is decoded from whatever
// escape spells it, with the span of text it came from, so a match is replaced from the first
// byte of its first escape to the last byte of its last one and never cuts an escape in half.
//
// Escapes decoded: %XX in either hex case ("%25" in front once or twice more for double and
// triple encoding; a character's UTF-8 bytes one escape each), HTML entities (&name;, &#D;,
// &#xH;, "&amp;" in front for double escaping) and backslash escapes (\uXXXX with surrogate
// pairs, \xHH, \/, \", \n, ..., behind any run of backslashes for JSON inside JSON).

// maxSpell bounds the bytes one character's spelling takes (for Values.reach).
const maxSpell = 48

// maxReps bounds how many times an escape may be escaped again ("%25", "&amp;").
const maxReps = 3

// decode reads the character at s[i]: an escape's decoding, or the character itself.
func decode(s string, i int) (rune, int) {
	var r rune
	end := -1
	switch s[i] {
	case '%':
		r, end = percentRune(s, i)
	case '&':
		r, end = entity(s, i+1, 0)
	case '\\':
		r, end = backslash(s, i)
	}
	if end > i {
		return r, end
	}
	return literal(s, i)
}

// literal reads the character at s[i] as it is. An invalid byte b reads as the rune
// invalidBase+b, past Unicode: each keeps its identity, so a secret of random bytes matches
// its own bytes and not any run of invalid ones.
func literal(s string, i int) (rune, int) {
	r, size := utf8.DecodeRuneInString(s[i:])
	if r == utf8.RuneError && size == 1 {
		r = invalidBase + rune(s[i])
	}
	return r, i + size
}

const invalidBase = unicode.MaxRune + 1

// percentByte decodes %XX at s[i], encoded up to maxReps times over ("%2541").
func percentByte(s string, i int) (byte, int) {
	if i+3 > len(s) || s[i] != '%' {
		return 0, -1
	}
	x, ok := hexByte(s[i+1], s[i+2])
	if !ok {
		return 0, -1
	}
	q := i + 3
	for reps := 0; x == '%' && reps < maxReps && q+2 <= len(s); reps++ {
		y, ok := hexByte(s[q], s[q+1])
		if !ok {
			break
		}
		x, q = y, q+2
	}
	return x, q
}

// percentRune decodes a character whose UTF-8 bytes are each percent-encoded.
func percentRune(s string, i int) (rune, int) {
	x, end := percentByte(s, i)
	if end < 0 || x < utf8.RuneSelf {
		return rune(x), end
	}
	buf, ends := []byte{x}, []int{end}
	for len(buf) < utf8.UTFMax && !utf8.FullRune(buf) {
		y, e := percentByte(s, ends[len(ends)-1])
		if e < 0 {
			break
		}
		buf, ends = append(buf, y), append(ends, e)
	}
	r, size := utf8.DecodeRune(buf)
	if r == utf8.RuneError && size == 1 {
		return invalidBase + rune(x), end // a byte of no character, as literal reads it
	}
	return r, ends[size-1]
}

// entityNames are the HTML named references a downstream plausibly writes for ASCII.
var entityNames = map[string]rune{
	"amp": '&', "lt": '<', "gt": '>', "quot": '"', "apos": '\'', "sol": '/', "bsol": '\\',
	"plus": '+', "equals": '=', "num": '#', "percnt": '%', "colon": ':', "semi": ';',
	"commat": '@', "excl": '!', "dollar": '$', "lowbar": '_', "hyphen": '-', "period": '.',
	"comma": ',', "nbsp": ' ', "tab": '\t', "newline": '\n',
}

// entity decodes the HTML entity whose text after "&" starts at q; an "&amp;" that another
// entity's text follows is that one escaped once more.
func entity(s string, q, reps int) (rune, int) {
	var r rune
	end := -1
	if q < len(s) && s[q] == '#' {
		base, p := 10, q+1
		if p < len(s) && (s[p] == 'x' || s[p] == 'X') {
			base, p = 16, p+1
		}
		digits := 0
		for ; p < len(s) && digits < 8; p, digits = p+1, digits+1 {
			d, ok := digit(s[p], base)
			if !ok {
				break
			}
			r = r*rune(base) + rune(d)
		}
		if digits > 0 && p < len(s) && s[p] == ';' {
			end = p + 1
		}
	} else {
		p := q
		for p < len(s) && p-q < 8 && isAlnum(s[p]) {
			p++
		}
		if p < len(s) && s[p] == ';' {
			var name [8]byte
			n := copy(name[:], s[q:p])
			for k := range n {
				name[k] |= 0x20 // names in any case
			}
			var ok bool
			if r, ok = entityNames[string(name[:n])]; ok {
				end = p + 1
			}
		}
	}
	if end > 0 && r == '&' && reps < maxReps {
		if r2, e2 := entity(s, end, reps+1); e2 > 0 {
			return r2, e2
		}
	}
	return r, end
}

// backslash decodes a backslash escape at s[i], behind any run of backslashes; a run with no
// escape letter after it is one backslash, escaped as deep as the run.
func backslash(s string, i int) (rune, int) {
	q := i
	for q < len(s) && s[q] == '\\' && q-i < 8 {
		q++
	}
	if q >= len(s) {
		return '\\', q
	}
	switch c := s[q]; c {
	case 'u', 'U':
		v, end := hexN(s, q+1, 4)
		if end < 0 {
			break
		}
		if v >= 0xD800 && v < 0xDC00 { // a high surrogate: the low one follows, escaped alike
			if lo, e := backslash(s, end); end < len(s) && s[end] == '\\' && e > end && lo >= 0xDC00 && lo < 0xE000 {
				return 0x10000 + (v-0xD800)<<10 + (lo - 0xDC00), e
			}
		}
		return v, end
	case 'x', 'X':
		if v, end := hexN(s, q+1, 2); end > 0 {
			return v, end
		}
	case '/', '"', '\'':
		return rune(c), q + 1
	case 'n', 't', 'r', 'b', 'f':
		return ' ', q + 1 // white space, a separator
	}
	if q-i >= 2 {
		return '\\', q
	}
	return 0, -1
}

func hexN(s string, q, n int) (rune, int) {
	if q+n > len(s) {
		return 0, -1
	}
	var v rune
	for k := 0; k < n; k++ {
		d, ok := digit(s[q+k], 16)
		if !ok {
			return 0, -1
		}
		v = v<<4 | rune(d)
	}
	return v, q + n
}

func hexByte(a, b byte) (byte, bool) {
	x, ok1 := digit(a, 16)
	y, ok2 := digit(b, 16)
	return byte(x<<4 | y), ok1 && ok2
}

func digit(c byte, base int) (int, bool) {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0'), true
	case base == 16 && c >= 'a' && c <= 'f':
		return int(c-'a') + 10, true
	case base == 16 && c >= 'A' && c <= 'F':
		return int(c-'A') + 10, true
	}
	return 0, false
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
