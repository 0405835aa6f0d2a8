package redact

import (
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Window is how many consecutive characters of a secret (separators not counted) are enough
// to redact them; a secret shorter than that is matched whole.
const Window = 16

// window is Window; a test raises it to prove the rule is what catches a fragment.
var window = Window

// Values is a fixed set of secret values compiled for replacement; nil replaces nothing.
//
// Text and secrets are compared in one canonical form: escapes decoded (canon.go), full-width
// forms narrowed, letters lower-cased and separators dropped (fold). A secret contributes every
// window of its canonical text and of its encoded texts (needles), as hashes; Replace rolls the
// same hash along the canonical text and replaces every span whose window hits.
type Values struct {
	keys    []uint64 // sorted hashes of every window, each salted with its length
	filter  []uint64 // two bits per hash (filterBits), to skip almost every position
	shift   uint     // 64 - log2(bits in filter)
	lengths []int    // the distinct window lengths, at most window each
}

const (
	rollBase = 0x9E3779B97F4A7C15 // the rolling hash's multiplier (odd: nothing is lost mod 2^64)
	slow     = 0xFF               // byteFold of a byte decode reads
)

// salt keeps the hashes of windows of different lengths apart.
func salt(h uint64, n int) uint64 { return h ^ uint64(n)*0xC2B2AE3D27D4EB4F }

// NewValues compiles values for Replace; values shorter than MinLength runes are ignored. It
// returns nil when nothing is left.
func NewValues(values []string) *Values {
	v := &Values{}
	for _, s := range values {
		if utf8.RuneCountInString(s) < MinLength {
			continue
		}
		for _, needle := range needles(secretPart(s)) {
			n := min(window, len(needle))
			if len(needle) < MinLength {
				continue
			}
			v.lengths = append(v.lengths, n)
			for i := n; i <= len(needle); i++ {
				var h uint64
				for _, r := range needle[i-n : i] {
					h = h*rollBase + uint64(r)
				}
				v.keys = append(v.keys, salt(h, n))
			}
		}
	}
	if len(v.keys) == 0 {
		return nil
	}
	slices.Sort(v.keys)
	return v.index()
}

// with is the union of v and w (either may be nil): their sorted keys are merged, not hashed
// again nor sorted, so registering one more token costs the size of the set once.
func (v *Values) with(w *Values) *Values {
	if v == nil {
		return w
	} else if w == nil {
		return v
	}
	a, b := v.keys, w.keys
	keys := make([]uint64, 0, len(a)+len(b))
	for len(a) > 0 && len(b) > 0 {
		if a[0] < b[0] {
			keys, a = append(keys, a[0]), a[1:]
		} else {
			keys, b = append(keys, b[0]), b[1:]
		}
	}
	return (&Values{keys: append(append(keys, a...), b...), lengths: slices.Concat(v.lengths, w.lengths)}).index()
}

// index drops duplicate keys (sorted) and lengths, and builds the filter.
func (v *Values) index() *Values {
	v.keys = slices.Compact(v.keys)
	slices.Sort(v.lengths)
	v.lengths = slices.Compact(v.lengths)
	v.shift = 64 - 10
	for 1<<(64-v.shift) < 32*len(v.keys) {
		v.shift--
	}
	v.filter = make([]uint64, 1<<(64-v.shift)/64)
	for _, k := range v.keys {
		a, b := v.filterBits(k)
		v.filter[a/64] |= 1 << (a % 64)
		v.filter[b/64] |= 1 << (b % 64)
	}
	return v
}

// filterBits are the filter's bits for a hash: its top bits, and the bits below the top 20
// (a polynomial hash's high bits depend on every character, its low bits do not).
func (v *Values) filterBits(k uint64) (uint64, uint64) {
	return k >> v.shift, (k << 20) >> v.shift
}

func (v *Values) hit(k uint64) bool {
	a, b := v.filterBits(k)
	if v.filter[a/64]&(1<<(a%64)) == 0 || v.filter[b/64]&(1<<(b%64)) == 0 {
		return false
	}
	_, found := slices.BinarySearch(v.keys, k)
	return found
}

// secretPart is the part of s that is secret: of a JWT (JWS compact form), its signature.
// The header and the payload are readable by anyone holding the token, and as base64url JSON
// their windows are those of any other such text issued the same minute (a requestState).
func secretPart(s string) string {
	parts := strings.Split(s, ".")
	if len(parts) != 3 || len(parts[2]) < Window {
		return s
	}
	head, err := base64.RawURLEncoding.DecodeString(parts[0])
	if _, err2 := base64.RawURLEncoding.DecodeString(parts[1]); err != nil || err2 != nil || len(head) == 0 || head[0] != '{' {
		return s
	}
	return parts[2]
}

// needles are the canonical texts whose windows redact s: s itself (and s as the text decoder
// reads it, when it holds what looks like an escape), and its hex, base64 (standard and URL
// alphabets) and base32 texts, the last two at each byte alignment s can have inside a longer
// encoded text (only the characters that depend on s alone).
func needles(s string) [][]rune {
	b := []byte(s)
	texts := []string{s, hex.EncodeToString(b)}
	for _, e := range []struct {
		encode      func([]byte) string
		bits, group int
	}{
		{base64.RawStdEncoding.EncodeToString, 6, 3},
		{base64.RawURLEncoding.EncodeToString, 6, 3},
		{base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString, 5, 5},
	} {
		for shift := 0; shift < e.group; shift++ {
			buf := make([]byte, shift+len(b)+e.group)
			copy(buf[shift:], b)
			// Character j holds bits [bits*j, bits*j+bits); keep those inside the bits of s.
			texts = append(texts, e.encode(buf)[(8*shift+e.bits-1)/e.bits:(8*(shift+len(b)))/e.bits])
		}
	}
	var out [][]rune
	for _, t := range texts {
		out = append(out, canonical(t, literal))
	}
	if strings.ContainsAny(s, "%&\\") {
		out = append(out, canonical(s, decode))
	}
	return out
}

// canonical is s in canonical form, each character read by next (literal or decode).
func canonical(s string, next func(s string, i int) (rune, int)) (out []rune) {
	for i := 0; i < len(s); {
		r, end := next(s, i)
		if f := fold(r); f != 0 {
			out = append(out, f)
		}
		i = end
	}
	return out
}

// Replace returns s with every span that spells Window consecutive characters of a value, in
// any form, replaced by Marker.
func (v *Values) Replace(s string) string { return replaceAll(s, v) }

// ring holds the last canonical runes, more than the longest window (a test raises it to 40).
const ring = 64

// pows are the powers of rollBase, to take the runes before a window out of the prefix hash.
var pows = func() (p [ring + 1]uint64) {
	p[0] = 1
	for i := 1; i <= ring; i++ {
		p[i] = p[i-1] * rollBase
	}
	return p
}()

// region is a span of text to replace.
type region struct{ start, end int }

// replaceAll replaces the matches of every set in one pass over s.
func replaceAll(s string, sets ...*Values) string {
	if len(s) < MinLength {
		return s
	}
	st := roller{}
	for _, v := range sets {
		if v == nil {
			continue
		}
		st.sets = append(st.sets, v)
		for _, n := range v.lengths {
			if !slices.Contains(st.lengths, n) {
				st.lengths = append(st.lengths, n)
			}
		}
	}
	if len(st.sets) == 0 {
		return s
	}
	// The usual case (one window length, one set) pushes inline, with the hash and the count
	// in locals: this loop is most of the cost of an answer.
	one := len(st.lengths) == 1 && len(st.sets) == 1
	n, v := st.lengths[0], st.sets[0]
	pw, sl, filter, shift := pows[n], salt(0, n), v.filter, v.shift
	h, t := uint64(0), 0
	for i := 0; i < len(s); i++ {
		f := uint64(byteFold[s[i]])
		switch {
		case f == 0: // a separator
		case f == slow:
			r, end := decode(s, i)
			if f := fold(r); f != 0 {
				st.hashes[0], st.t = h, t
				st.push(f, i, end)
				h, t = st.hashes[0], st.t
			}
			i = end - 1
		case one:
			k := t & (ring - 1)
			st.runes[k], st.starts[k] = f, i
			t++
			h = h*rollBase + f - st.runes[(t-1-n)&(ring-1)]*pw
			if b := (h ^ sl) >> shift; filter[b/64]&(1<<(b%64)) != 0 && t >= n && v.hit(h^sl) {
				st.found = addRegion(st.found, region{st.starts[(t-n)&(ring-1)], i + 1})
			}
		default:
			st.hashes[0], st.t = h, t
			st.push(rune(f), i, i+1)
			h, t = st.hashes[0], st.t
		}
	}
	return splice(s, st.found)
}

// roller rolls one hash per window length along the canonical text and records the spans
// whose windows hit a set.
type roller struct {
	sets    []*Values
	lengths []int
	hashes  [ring]uint64
	runes   [ring]uint64
	starts  [ring]int
	t       int
	found   []region
}

func (st *roller) push(r rune, start, end int) {
	k := st.t & (ring - 1)
	st.runes[k], st.starts[k] = uint64(r), start
	st.t++
	for li, n := range st.lengths {
		// Before n runes the leaving slot has not been written yet and holds 0.
		h := st.hashes[li]*rollBase + uint64(r) - st.runes[(st.t-1-n)&(ring-1)]*pows[n]
		st.hashes[li] = h
		if st.t < n {
			continue
		}
		for _, v := range st.sets {
			if v.hit(salt(h, n)) {
				st.found = addRegion(st.found, region{st.starts[(st.t-n)&(ring-1)], end})
				break
			}
		}
	}
}

// splice replaces each of the regions of s, in order and apart, with Marker.
func splice(s string, found []region) string {
	if len(found) == 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	last := 0
	for _, g := range found {
		b.WriteString(s[last:g.start])
		b.WriteString(Marker)
		last = g.end
	}
	b.WriteString(s[last:])
	return b.String()
}

// addRegion appends g, merging it with the regions it overlaps or touches.
func addRegion(found []region, g region) []region {
	for len(found) > 0 && found[len(found)-1].end >= g.start {
		last := found[len(found)-1]
		g = region{min(last.start, g.start), max(last.end, g.end)}
		found = found[:len(found)-1]
	}
	return append(found, g)
}

// fold is the canonical form of one decoded character: 0 for a separator, else the character
// in its compatibility form, lower-cased.
func fold(r rune) rune {
	if r >= 0xFF01 && r <= 0xFF5E {
		r -= 0xFEE0 // NFKC of a full-width ASCII character (see compat_test.go)
	}
	switch {
	case r < utf8.RuneSelf && byteFold[r] != slow:
		return rune(byteFold[r])
	case r < utf8.RuneSelf || r > unicode.MaxRune: // an escape's first byte; an invalid byte
		return r
	case unicode.IsSpace(r) || unicode.Is(unicode.Pd, r) || unicode.Is(unicode.Cf, r):
		return 0
	}
	return unicode.ToLower(r)
}

// byteFold is an ASCII byte lower-cased, 0 (dropped) for NUL and a separator (white space, "-",
// "." and "+", form encoding's space), or slow for a byte that starts an escape or a character
// of more than one byte, which decode reads.
var byteFold = func() (t [256]byte) {
	for c := range t {
		switch {
		case c >= utf8.RuneSelf || c == '%' || c == '&' || c == '\\':
			t[c] = slow
		case c >= 'A' && c <= 'Z':
			t[c] = byte(c) + 'a' - 'A'
		case !strings.ContainsRune(" \t\n\r\v\f-.+", rune(c)):
			t[c] = byte(c)
		}
	}
	return t
}()
