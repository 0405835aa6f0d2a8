package redact

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

const (
	maxSpell = 48 // the most bytes one character's spelling takes
	maxReps  = 3  // how many times an escape may be escaped again ("%25", "&amp;")
	// An invalid byte b reads as the rune invalidBase+b, past Unicode: each keeps its identity,
	// so a secret of random bytes matches its own bytes and not any run of invalid ones.
	invalidBase = unicode.MaxRune + 1
)

// decode reads the character at s[i] the way Replace compares text: an escape's decoding, with
// the end of the text it came from (so a match never cuts an escape in half), or the character
// itself. Escapes: %XX in either hex case ("%25" in front up to maxReps more times; a
// character's UTF-8 bytes one escape each), HTML entities (&name;, &#D;, &#xH;, "&amp;" in
// front for double escaping) and backslash escapes (\uXXXX with surrogate pairs, \xHH, \/,
// \", \n, ..., behind any run of backslashes for JSON inside JSON).
func decode(s string, i int) (rune, int) {
	r, end := rune(0), -1
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

// literal reads the character at s[i] as it is.
func literal(s string, i int) (rune, int) {
	r, size := utf8.DecodeRuneInString(s[i:])
	if r == utf8.RuneError && size == 1 {
		r = invalidBase + rune(s[i])
	}
	return r, i + size
}

// percentRune decodes a character whose UTF-8 bytes are each percent-encoded, each up to
// maxReps times over ("%2541").
func percentRune(s string, i int) (rune, int) {
	var buf [utf8.UTFMax]byte
	var ends [utf8.UTFMax]int
	n := 0
	for q := i; n < utf8.UTFMax && (n == 0 || buf[0] >= utf8.RuneSelf && !utf8.FullRune(buf[:n])) && q < len(s) && s[q] == '%'; n++ {
		x, end := hexN(s, q+1, 2)
		for reps := 0; x == '%' && reps < maxReps; reps++ {
			y, e := hexN(s, end, 2)
			if e < 0 {
				break
			}
			x, end = y, e
		}
		if end < 0 {
			break
		}
		buf[n], ends[n], q = byte(x), end, end
	}
	if n == 0 {
		return 0, -1
	} else if r, size := utf8.DecodeRune(buf[:n]); r != utf8.RuneError || size != 1 {
		return r, ends[size-1]
	}
	return invalidBase + rune(buf[0]), ends[0] // a byte of no character, as literal reads it
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
func entity(s string, q, reps int) (r rune, end int) {
	end = -1
	if q < len(s) && s[q] == '#' {
		p, base, digits := q+1, 10, 0
		if p < len(s) && s[p]|0x20 == 'x' {
			p, base = p+1, 16
		}
		for ; p < len(s) && digits < 8; p, digits = p+1, digits+1 {
			d, ok := digit(s[p], base)
			if !ok {
				break
			}
			r = r*rune(base) + rune(d)
		}
		if digits > 0 && p < len(s) && s[p] == ';' && r >= 0 && r <= unicode.MaxRune {
			end = p + 1
		}
	} else if j := strings.IndexByte(s[q:min(len(s), q+9)], ';'); j > 0 {
		name := []byte(s[q : q+j])
		for k := range name {
			name[k] |= 0x20 // names in any case (only letters become letters)
		}
		var ok bool
		if r, ok = entityNames[string(name)]; ok {
			end = q + j + 1
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

// hexN reads n hex digits at s[q].
func hexN(s string, q, n int) (v rune, end int) {
	if q+n > len(s) {
		return 0, -1
	}
	for k := q; k < q+n; k++ {
		d, ok := digit(s[k], 16)
		if !ok {
			return 0, -1
		}
		v = v<<4 | rune(d)
	}
	return v, q + n
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
