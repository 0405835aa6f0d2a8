package redact

import (
	"strings"
	"unicode/utf8"
)

// This file is the matcher behind Values: it finds a sequence (a secret, or one of its
// base64, base32 or hex spellings) in a text whatever escapes spell each of its characters.
//
// A character of a sequence matches, at a position of the text, its literal bytes ("+" and " "
// alike, since form encoding turns one into the other, and ASCII letters in any case for the
// sequences of a case-insensitive encoding: hex and base32),
// or any escape that decodes to it: %XX (either case of hex, "%25" repeated in front for double
// and triple encoding; UTF-8 bytes one escape each), HTML entities (&name;, &#D; and &#xH;, with
// "&amp;" repeated in front for double escaping), and backslash escapes (\uXXXX with surrogate
// pairs, \xHH, \/, \", \', \n, \t, ..., with any run of backslashes in front for JSON inside
// JSON). Each character is matched on its own, so an encoder that escapes every character, one
// that escapes only some, and a mix of encoders are all the same to it.

// maxSpell bounds the bytes one character's spelling takes: a longer one (which only a
// contrived text has: four UTF-8 bytes triple percent-encoded take 36) does not match.
// Values.reach is built from it.
const maxSpell = 48

// plus and canon fold a byte for comparison: both "+" to a space, canon also ASCII letters
// to lower case (for the sequences of a case-insensitive encoding, and for the prefilters and
// indexes, which may only find too much).
var plus, canon = func() (p, c [256]byte) {
	for i := range p {
		p[i], c[i] = byte(i), byte(i)
	}
	for l := 'A'; l <= 'Z'; l++ {
		c[l] = byte(l) + 'a' - 'A'
	}
	p['+'], c['+'] = ' ', ' '
	return p, c
}()

// intro marks the bytes an escape starts with. A text position whose window holds none of them
// can only spell a sequence literally, which is what the hash prefilter relies on.
var intro = func() (t [256]bool) {
	t['%'], t['&'], t['\\'] = true, true, true
	return t
}()

// foldRune folds r with table when it is ASCII.
func foldRune(table *[256]byte, r rune) rune {
	if r >= 0 && r < 0x80 {
		return rune(table[r])
	}
	return r
}

// entityNames are the HTML named character references that stand for ASCII characters (and
// &nbsp;, which an HTML escaper writes for a space), by lower-case name; names are matched in
// any case.
var entityNames = map[string]rune{
	"amp": '&', "lt": '<', "gt": '>', "quot": '"', "apos": '\'', "sol": '/', "bsol": '\\', "plus": '+',
	"equals": '=', "num": '#', "percnt": '%', "quest": '?', "colon": ':', "semi": ';', "commat": '@',
	"excl": '!', "dollar": '$', "lpar": '(', "rpar": ')', "ast": '*', "midast": '*', "comma": ',',
	"period": '.', "lsqb": '[', "lbrack": '[', "rsqb": ']', "rbrack": ']', "lcub": '{', "lbrace": '{',
	"rcub": '}', "rbrace": '}', "verbar": '|', "vert": '|', "lowbar": '_', "grave": '`', "hat": '^',
	"nbsp": ' ', "tab": '\t', "newline": '\n',
}

// maxEntityName is the longest name in entityNames.
const maxEntityName = 7

// unit is one decoding of an escape: the value and where the escape ends. A byte unit (from
// %XX or \xHH) is one byte of a character's UTF-8 encoding; any other unit is a whole rune.
type unit struct {
	v     rune
	end   int
	bytes bool
}

// Repetition bounds: "%25" or "&amp;" in front of an escape (double and triple encoding), and
// backslashes in front of a backslash escape.
const (
	maxReps       = 3
	maxBackslashs = 8
)

// decodeAt appends every decoding of an escape starting at s[j] (an intro byte) to out.
func decodeAt(s string, j int, out []unit) []unit {
	switch s[j] {
	case '%':
		q := j + 1
		for reps := 0; reps <= maxReps && q+2 <= len(s); reps++ {
			x, ok := hexByte(s[q], s[q+1])
			if !ok {
				break
			}
			out = append(out, unit{rune(x), q + 2, true})
			if x == '&' || x == '\\' {
				// An HTML or backslash escape that was percent-encoded in turn (a JSON or HTML
				// text put in a URL): read the rest of it through percent-decoding.
				out = decodeSyntax(text{s, true}, x, q+2, out)
			}
			if x != '%' {
				break
			}
			q += 2 // "%25" then another escape: the same character encoded once more
		}
	default:
		out = decodeSyntax(text{s, false}, s[j], j+1, out)
	}
	return out
}

// text reads the bytes of an escape's syntax; with pct, each may be percent-encoded.
type text struct {
	s   string
	pct bool
}

// at returns the byte at s[q] (decoding "%XX" with pct) and the position after it; ok is
// false past the end.
func (t text) at(q int) (c byte, next int, ok bool) {
	if q >= len(t.s) {
		return 0, q, false
	}
	if t.pct && t.s[q] == '%' && q+2 < len(t.s) {
		if x, ok := hexByte(t.s[q+1], t.s[q+2]); ok {
			return x, q + 3, true
		}
	}
	return t.s[q], q + 1, true
}

// prefixFold reports whether the bytes at q read w (lower case) in any case, and where they end.
func (t text) prefixFold(q int, w string) (int, bool) {
	for i := 0; i < len(w); i++ {
		c, next, ok := t.at(q)
		if !ok || canon[c] != w[i] {
			return 0, false
		}
		q = next
	}
	return q, true
}

// decodeSyntax appends the decodings of an HTML ("&") or backslash escape whose first byte c
// has been read, the rest starting at q.
func decodeSyntax(t text, c byte, q int, out []unit) []unit {
	switch c {
	case '&':
		// "&amp;" in front, repeated, is the same character escaped once more (and "&amp;"
		// alone, the ampersand itself, is the entity "amp").
		for reps := 0; reps <= maxReps; reps++ {
			if r, end, ok := entity(t, q); ok {
				out = append(out, unit{r, end, false})
			}
			next, ok := t.prefixFold(q, "amp;")
			if !ok {
				break
			}
			q = next
		}
	case '\\':
		// A run of backslashes, then the escape letter; runs[n] is where the run of n+1 ends.
		var runs [maxBackslashs]int
		n := 1
		runs[0] = q
		for {
			b, next, ok := t.at(q)
			if !ok || b != '\\' {
				break
			}
			if n == maxBackslashs {
				return out
			}
			q = next
			runs[n] = q
			n++
		}
		// An escaped backslash, once or twice over.
		if n >= 2 {
			out = append(out, unit{'\\', runs[1], false})
		}
		if n >= 4 {
			out = append(out, unit{'\\', runs[3], false})
		}
		if r, end, bytes, ok := backslash(t, q); ok {
			out = append(out, unit{r, end, bytes})
		}
	}
	return out
}

// entity decodes "name;", "#D;" or "#xH;" at q (the part after "&").
func entity(t text, q int) (rune, int, bool) {
	c, q, ok := t.at(q)
	if !ok {
		return 0, 0, false
	}
	if c == '#' {
		base := 10
		c, next, ok := t.at(q)
		if ok && (c == 'x' || c == 'X') {
			base, q = 16, next
		}
		v, digits := 0, 0
		for digits < 8 {
			c, next, ok := t.at(q)
			if !ok {
				break
			}
			d, ok := digit(c, base)
			if !ok {
				break
			}
			v = v*base + d
			q = next
			digits++
		}
		c, next, ok = t.at(q)
		if digits == 0 || !ok || c != ';' {
			return 0, 0, false
		}
		return rune(v), next, true
	}
	var name [maxEntityName]byte
	n := 0
	for isAlnum(c) {
		if n == maxEntityName {
			return 0, 0, false
		}
		name[n] = canon[c]
		n++
		if c, q, ok = t.at(q); !ok {
			return 0, 0, false
		}
	}
	if n == 0 || c != ';' {
		return 0, 0, false
	}
	r, ok := entityNames[string(name[:n])]
	return r, q, ok
}

// backslash decodes the escape whose letter is at q (just after a run of backslashes).
func backslash(t text, q int) (r rune, end int, bytes bool, ok bool) {
	c, q, ok := t.at(q)
	if !ok {
		return 0, 0, false, false
	}
	switch c {
	case 'u', 'U':
		v, end, ok := hex4(t, q)
		if !ok {
			return 0, 0, false, false
		}
		if v >= 0xD800 && v < 0xDC00 { // high surrogate: the low one follows, escaped alike
			e, n := end, 0
			for {
				c, next, ok := t.at(e)
				if !ok || c != '\\' || n == maxBackslashs {
					break
				}
				e, n = next, n+1
			}
			if c, next, ok := t.at(e); n > 0 && ok && (c == 'u' || c == 'U') {
				if lo, e, ok := hex4(t, next); ok && lo >= 0xDC00 && lo < 0xE000 {
					return 0x10000 + (v-0xD800)<<10 + (lo - 0xDC00), e, false, true
				}
			}
		}
		return v, end, false, true
	case 'x', 'X':
		var x rune
		for i := 0; i < 2; i++ {
			c, next, ok := t.at(q)
			if !ok {
				return 0, 0, false, false
			}
			d, ok := digit(c, 16)
			if !ok {
				return 0, 0, false, false
			}
			x, q = x<<4|rune(d), next
		}
		return x, q, true, true
	}
	if d, ok := oneLetter(c); ok {
		return rune(d), q, false, true
	}
	return 0, 0, false, false
}

// oneLetter decodes the one-letter backslash escapes.
func oneLetter(c byte) (byte, bool) {
	switch c {
	case '/', '"', '\'':
		return c, true
	case 'n':
		return '\n', true
	case 't':
		return '\t', true
	case 'r':
		return '\r', true
	case 'b':
		return '\b', true
	case 'f':
		return '\f', true
	}
	return 0, false
}

func hex4(t text, q int) (rune, int, bool) {
	var v rune
	for i := 0; i < 4; i++ {
		c, next, ok := t.at(q)
		if !ok {
			return 0, 0, false
		}
		d, ok := digit(c, 16)
		if !ok {
			return 0, 0, false
		}
		v, q = v<<4|rune(d), next
	}
	return v, q, true
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

// step appends to ends every end of a spelling, at s[j:], of the character whose bytes in the
// sequence are rb (r is the rune, or -1 for a byte that is not valid UTF-8); fold is the
// sequence's comparison table (plus or canon).
func step(s string, j int, r rune, rb string, fold *[256]byte, ends []int) []int {
	if j >= len(s) {
		return ends
	}
	if len(rb) == 1 {
		if fold[s[j]] == fold[rb[0]] {
			ends = append(ends, j+1)
		}
	} else if strings.HasPrefix(s[j:], rb) {
		ends = append(ends, j+len(rb))
	}
	if !intro[s[j]] {
		return ends
	}
	var buf [8]unit
	for _, u := range decodeAt(s, j, buf[:0]) {
		if u.end-j > maxSpell {
			continue
		}
		switch {
		case !u.bytes:
			if r >= 0 && foldRune(fold, u.v) == foldRune(fold, r) {
				ends = append(ends, u.end)
			}
		case len(rb) == 1:
			if fold[byte(u.v)] == fold[rb[0]] {
				ends = append(ends, u.end)
			}
		case byte(u.v) == rb[0]:
			// The other bytes of the character, escaped the same way.
			e := u.end
			for t := 1; t < len(rb) && e >= 0; t++ {
				e = escapedByte(s, e, rb[t])
			}
			if e >= 0 && e-j <= maxSpell {
				ends = append(ends, e)
			}
		}
	}
	return ends
}

// escapedByte is the end of a byte escape at s[j:] that decodes to b, or -1.
func escapedByte(s string, j int, b byte) int {
	if j >= len(s) || !intro[s[j]] {
		return -1
	}
	var buf [8]unit
	for _, u := range decodeAt(s, j, buf[:0]) {
		if u.bytes && byte(u.v) == b {
			return u.end
		}
	}
	return -1
}

// seq is one spelling to find: a secret, or its base64, base32 or hex text.
type seq struct {
	s    string
	n    int // runes
	min  int // runes a match must cover: n, or fewer when a leading part of s is enough
	fold *[256]byte
}

type state struct{ j, p, k int }

// match returns the end of the longest spelling, starting at s[i], of at least q.min leading
// characters of q, or -1. A character with several spellings there (a "%" that may be literal
// or start an escape) branches; the branches tried are bounded.
func (q *seq) match(s string, i int) int {
	best := -1
	var stack [8]state
	todo := append(stack[:0], state{i, 0, 0})
	budget := 4*q.n + 64
	var buf [8]int
	for len(todo) > 0 {
		x := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		j, p, k := x.j, x.p, x.k
		for {
			if k >= q.min && j > best {
				best = j
			}
			if p == len(q.s) {
				break
			}
			r, size := utf8.DecodeRuneInString(q.s[p:])
			if r == utf8.RuneError && size == 1 {
				r = -1
			}
			ends := step(s, j, r, q.s[p:p+size], q.fold, buf[:0])
			if len(ends) == 0 {
				break
			}
			if budget -= len(ends); budget < 0 {
				return best
			}
			p, k = p+size, k+1
			for _, e := range ends[1:] {
				todo = append(todo, state{e, p, k})
			}
			j = ends[0]
		}
	}
	return best
}
