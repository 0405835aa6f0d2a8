package redact

import (
	"bytes"
	"strings"
	"unicode/utf8"
)

// Values is a fixed set of secret values compiled for replacement; nil replaces nothing.
type Values struct {
	seqs []seq
	// reach bounds the bytes of text that the part of a match it needs (seq.min characters)
	// covers: a match that crosses a point of a text starts, and reaches its min characters,
	// within reach bytes of it.
	reach int
	// keys has a bit set for the hash of every sequence's folded bytes 0-3 (keys[0]) and 2-5
	// (keys[1]), first2 for bytes 0-1 and first for byte 0. A position of the text whose next
	// six bytes hold no escape can only spell a sequence literally, so it is skipped unless
	// both keys hit: that is almost every position of almost every log field, id and answer.
	// Near an escape the shorter literal run before it is checked the same way.
	keys   [2][keyBits / 64]uint64
	first2 [first2Bits / 64]uint64
	first  [256 / 64]uint64
	// bytes has a bit set for every folded byte of every sequence.
	bytes [256 / 64]uint64
	// inertAfter[0][c] is true when the escape \c is inert (c a letter of a one-letter
	// escape), inertAfter[1][x] when %XX decoding to x is.
	inertAfter [2][256]bool
	// byHash lists the sequences by the hash of their folded bytes 0-3, byFirst by their
	// folded first byte: the only ones worth trying at a position that passed the keys.
	byHash  map[uint32][]int32
	byFirst [256][]int32
}

// keyBits is the size of each Values.keys table: with a few hundred sequences, a position of
// an unrelated text hits both tables about once in a hundred thousand.
const (
	keyBits    = 1 << 16
	first2Bits = 1 << 12
)

// The keys hash bytes folded by setting bit 5, which lower-cases ASCII letters in one
// instruction for four bytes (and folds a few other pairs together, which only costs a rare
// extra look). A space and a "+" stay apart, so a sequence holding either in its first six
// bytes is entered with each of them in each place.

// load4 is s[i:i+4] folded, little-endian.
func load4(s string, i int) uint32 {
	b := s[i : i+4]
	return (uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24) | 0x20202020
}

// keyHash maps four folded bytes onto keyBits (Fibonacci hashing).
func keyHash(x uint32) uint32 { return (x * 2654435761) >> 16 }

func first2Hash(s string, i int) uint32 { return pairHash(s[i], s[i+1]) }

func pairHash(a, b byte) uint32 {
	x := (uint32(a) | uint32(b)<<8) | 0x2020
	return (x * 2654435761) >> 20
}

func has(bits []uint64, h uint32) bool { return bits[h/64]&(1<<(h%64)) != 0 }
func set(bits []uint64, h uint32)      { bits[h/64] |= 1 << (h % 64) }

// minMatch is the fewest bytes any match covers: every sequence has at least MinLength
// characters, each spelled by one byte or more.
const minMatch = MinLength

// NewValues compiles values (with all their forms) for Replace; values shorter than MinLength
// runes are ignored. It returns nil when nothing is left.
func NewValues(values []string) *Values {
	seqs := sequences(values)
	if len(seqs) == 0 {
		return nil
	}
	v := &Values{seqs: seqs, byHash: make(map[uint32][]int32, len(seqs))}
	for i, q := range seqs {
		v.reach = max(v.reach, q.min*maxSpell)
		c := canon[q.s[0]]
		v.first[c/64] |= 1 << (c % 64)
		for k := 0; k < len(q.s); k++ {
			c := canon[q.s[k]]
			v.bytes[c/64] |= 1 << (c % 64)
		}
		v.byFirst[c] = append(v.byFirst[c], int32(i))
		spaces(q.s[:6], func(w string) {
			h := keyHash(load4(w, 0))
			set(v.keys[0][:], h)
			set(v.keys[1][:], keyHash(load4(w, 2)))
			set(v.first2[:], first2Hash(w, 0))
			if l := v.byHash[h]; len(l) == 0 || l[len(l)-1] != int32(i) {
				v.byHash[h] = append(l, int32(i))
			}
		})
	}
	for c := 0; c < 256; c++ {
		if d, ok := oneLetter(byte(c)); ok {
			v.inertAfter[0][c] = !v.occurs('\\') && !v.occurs(canon[d])
		}
		v.inertAfter[1][c] = c != '%' && c != '&' && c != '\\' && !v.occurs('%') && !v.occurs(canon[c])
	}
	return v
}

// spaces calls f with w and with every spelling of it that swaps spaces and "+" signs.
func spaces(w string, f func(string)) {
	b := []byte(w)
	var at []int
	for i, c := range b {
		if c == ' ' || c == '+' {
			at = append(at, i)
		}
	}
	for m := 0; m < 1<<len(at); m++ {
		for k, i := range at {
			b[i] = " +"[m>>k&1]
		}
		f(string(b))
	}
}

// Replace returns s with every form of every value replaced by Marker.
func (v *Values) Replace(s string) string {
	if v == nil || len(s) < minMatch {
		return s
	}
	var b strings.Builder
	last := 0
	sc := escapes{dec: -1}
	esc := -1
	for i := 0; i+minMatch <= len(s); {
		if esc < i {
			esc = sc.find(v, s, i)
		}
		end := -1
		if stop := min(esc, len(s)) - 6; i <= stop {
			// The fast path: no escape within six bytes, so only a literal spelling can start.
			for ; i <= stop; i++ {
				h := keyHash(load4(s, i))
				if has(v.keys[0][:], h) && has(v.keys[1][:], keyHash(load4(s, i+2))) {
					if end = v.try(s, i, v.byHash[h]); end >= 0 {
						break
					}
				}
			}
			if end < 0 {
				continue
			}
		} else if end = v.matchNear(s, i, esc-i, &sc); end < 0 {
			i++
			continue
		}
		if b.Len() == 0 {
			b.Grow(len(s))
		}
		b.WriteString(s[last:i])
		b.WriteString(Marker)
		last, i = end, end
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// escapes finds the next escape that can be part of a match and keeps the decodings of the
// last escape decoded. An escape is inert when neither its first byte nor any of its
// decodings occurs in any sequence (the \" of a JSON text inside JSON, when no secret holds a
// quote or a backslash): no match can cover it, so the text around it is scanned as literal
// text, the fast way.
type escapes struct {
	buf [8]unit // the decodings of the escape at dec: buf[:n]
	n   int
	dec int // where buf was decoded, or -1
}

// find returns the position of the first escape at or after i that is not inert, or len(s).
// The common escapes are decided by table (Values.inertAfter); the others are decoded.
func (e *escapes) find(v *Values, s string, i int) int {
	for ; i < len(s); i++ {
		c := s[i]
		if !intro[c] {
			continue
		}
		if i+1 < len(s) {
			switch c {
			case '\\':
				if v.inertAfter[0][s[i+1]] {
					i++ // the escaped letter is no escape byte: skip it too
					continue
				}
			case '%':
				if x, ok := hexByte(s[i+1], s[min(i+2, len(s)-1)]); ok && i+2 < len(s) {
					if v.inertAfter[1][x] {
						continue
					}
				} else if !v.occurs('%') {
					continue
				}
			case '&':
				if n := s[i+1]; !isAlnum(n) && n != '#' && !v.occurs('&') {
					continue
				}
			}
		} else if !v.occurs(canon[c]) {
			continue
		}
		if !v.inert(c, e.decoded(s, i)) {
			return i
		}
	}
	return len(s)
}

// inert reports whether an escape whose first byte is c and whose decodings are units can be
// no part of a match.
func (v *Values) inert(c byte, units []unit) bool {
	if v.occurs(canon[c]) {
		return false
	}
	for _, u := range units {
		if v.occurs(canon[firstByte(u)]) {
			return false
		}
	}
	return true
}

func (v *Values) occurs(c byte) bool { return v.bytes[c/64]&(1<<(c%64)) != 0 }

// decoded returns the decodings of the escape at s[j] (the next one).
func (e *escapes) decoded(s string, j int) []unit {
	if e.dec != j {
		e.n, e.dec = len(decodeAt(s, j, e.buf[:0])), j
	}
	return e.buf[:e.n]
}

// firstByte is the first byte of a decoded character's UTF-8 encoding.
func firstByte(u unit) byte {
	if !u.bytes && u.v >= 0x80 {
		var rb [utf8.UTFMax]byte
		utf8.EncodeRune(rb[:], u.v)
		return rb[0]
	}
	return byte(u.v)
}

// matchNear is the end of the longest match starting at s[i], or -1, when an escape starts
// within six bytes: lit bytes of s[i:] come before it.
func (v *Values) matchNear(s string, i, lit int, e *escapes) int {
	switch {
	case lit >= 4:
		h := keyHash(load4(s, i))
		if !has(v.keys[0][:], h) {
			return -1
		}
		return v.try(s, i, v.byHash[h])
	case lit >= 2:
		if !has(v.first2[:], first2Hash(s, i)) {
			return -1
		}
	case lit == 1:
		// The second character is the escape (or its first byte taken literally).
		hit := has(v.first2[:], first2Hash(s, i))
		for _, u := range e.decoded(s, i+1) {
			if hit {
				break
			}
			hit = has(v.first2[:], pairHash(s[i], firstByte(u)))
		}
		if !hit {
			return -1
		}
	default:
		return v.matchEscape(s, i, e.decoded(s, i))
	}
	return v.try(s, i, v.byFirst[canon[s[i]]])
}

// try is the end of the longest match of the listed sequences at s[i], or -1.
func (v *Values) try(s string, i int, seqs []int32) int {
	best := -1
	for _, n := range seqs {
		best = max(best, v.seqs[n].match(s, i))
	}
	return best
}

// matchEscape tries, at an escape, the sequences whose first byte it (decoded as units) or
// its literal first byte can be.
func (v *Values) matchEscape(s string, i int, units []unit) int {
	best := -1
	if c := canon[s[i]]; v.first[c/64]&(1<<(c%64)) != 0 {
		best = v.try(s, i, v.byFirst[c])
	}
	var tried [8]byte
	n := 0
	for _, u := range units {
		c := canon[firstByte(u)]
		if c == canon[s[i]] || bytes.IndexByte(tried[:n], c) >= 0 || v.first[c/64]&(1<<(c%64)) == 0 {
			continue
		}
		tried[n] = c
		n++
		best = max(best, v.try(s, i, v.byFirst[c]))
	}
	return best
}
