package redact

import (
	"cmp"
	"encoding/base64"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Window is how many consecutive characters of a secret (separators not counted) are enough
// to redact them; a secret shorter than that is matched whole.
const Window = 16

const (
	ring     = 64                 // canonical runes scan keeps, more than the longest window
	rollBase = 0x9E3779B97F4A7C15 // the rolling hash's multiplier (odd: nothing is lost mod 2^64)
	slow     = 0xFF               // byteFold of a byte that decode reads
	maxSpell = 48                 // the most bytes one character's spelling takes
	maxReps  = 3                  // how many times an escape may be escaped again ("%25", "&amp;")
	// An invalid byte b reads as the rune invalidBase+b, past Unicode: each keeps its identity,
	// so a secret of random bytes matches its own bytes and not any run of invalid ones.
	invalidBase = unicode.MaxRune + 1
)

// Values is a fixed set of secret values compiled for Replace; nil replaces nothing.
type Values struct {
	keys    []uint64 // sorted hashes of every window of every needle, salted with its length
	filter  []uint64 // two bits per key (hit), to skip almost every position
	shift   uint     // 64 - log2(bits in filter)
	lengths []int    // the distinct window lengths, ascending
}

// salt keeps the hashes of windows of different lengths apart.
func salt(h uint64, n int) uint64 { return h ^ uint64(n)*0xC2B2AE3D27D4EB4F }

// NewValues compiles values for Replace, ignoring those shorter than MinLength runes; nil when none is left.
func NewValues(values []string) *Values { return newValues(values, Window) }

// newValues is NewValues with the window a test widens.
func newValues(values []string, window int) *Values {
	v := &Values{}
	for _, s := range values {
		if utf8.RuneCountInString(s) < MinLength {
			continue
		}
		for _, needle := range needles(secretPart(s)) {
			if n := min(window, len(needle)); len(needle) >= MinLength {
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
	}
	if len(v.keys) == 0 {
		return nil
	}
	slices.Sort(v.keys)
	return v.index()
}

// with is the union of v and w (either may be nil), merging their sorted keys so that
// registering one more token does not hash or sort the earlier ones again.
func (v *Values) with(w *Values) *Values {
	if v == nil || w == nil {
		return cmp.Or(v, w)
	}
	a, b := v.keys, w.keys
	keys := make([]uint64, 0, len(a)+len(b))
	for len(a) > 0 && len(b) > 0 {
		if b[0] < a[0] {
			a, b = b, a
		}
		keys, a = append(keys, a[0]), a[1:]
	}
	return (&Values{keys: slices.Concat(keys, a, b), lengths: slices.Concat(v.lengths, w.lengths)}).index()
}

// index drops duplicate keys (sorted) and lengths, and builds the filter.
func (v *Values) index() *Values {
	v.keys = slices.Compact(v.keys)
	slices.Sort(v.lengths)
	v.lengths = slices.Compact(v.lengths)
	for v.shift = 64 - 10; 1<<(64-v.shift) < 32*len(v.keys); v.shift-- {
	}
	v.filter = make([]uint64, 1<<(64-v.shift)/64)
	for _, k := range v.keys {
		for _, b := range [2]uint64{k >> v.shift, (k << 20) >> v.shift} {
			v.filter[b/64] |= 1 << (b % 64)
		}
	}
	return v
}

// hit reports whether k is a key. The filter's bits are k's top bits and the bits below its
// top 20 (a polynomial hash's high bits depend on every character, its low bits do not).
func (v *Values) hit(k uint64) bool {
	a, b := k>>v.shift, (k<<20)>>v.shift
	if v.filter[a/64]&(1<<(a%64)) == 0 || v.filter[b/64]&(1<<(b%64)) == 0 {
		return false
	}
	_, found := slices.BinarySearch(v.keys, k)
	return found
}

// secretPart is the part of s that is secret: of a JWT, its signature (docs/security.md).
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

const b64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

// needles are the canonical texts whose windows redact s: s itself (and as decode reads it,
// when it holds what looks like an escape), and its hex, base64, base64url and base32 texts at
// each byte alignment s can have inside a longer encoded text, of the characters that depend on
// s alone.
func needles(s string) [][]rune {
	out := [][]rune{canonical(s, literal)}
	if strings.ContainsAny(s, "%&\\") {
		out = append(out, canonical(s, decode))
	}
	for _, alpha := range []string{"0123456789abcdef", b64 + "+/", b64 + "-_", "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"} {
		w := bits.Len(uint(len(alpha))) - 1 // bits per character
		for shift := 0; shift < w/(w&-w); shift++ {
			var t []byte
			// Character j holds bits [w*j, w*j+w) of shift zero bytes followed by s.
			for j := (8*shift + w - 1) / w; (j+1)*w <= 8*(shift+len(s)); j++ {
				x := 0
				for k := j * w; k < (j+1)*w; k++ {
					x = x<<1 | int(s[k/8-shift]>>(7-k%8)&1)
				}
				t = append(t, alpha[x])
			}
			out = append(out, canonical(string(t), literal))
		}
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

type region struct{ start, end int }

// Replace returns s with every span that spells Window consecutive characters of a value, in
// any form, replaced by Marker.
func (v *Values) Replace(s string) string {
	if v == nil || len(s) < MinLength {
		return s
	}
	var found []region
	for _, n := range v.lengths { // usually one: a value shorter than the window adds its own
		v.scan(s, n, &found)
	}
	slices.SortFunc(found, func(a, b region) int { return a.start - b.start })
	return splice(s, found)
}

// scan adds the spans of s whose windows of n canonical runes are keys, rolling a hash along s.
// It is most of the cost of an answer: a second length in the loop made it much slower, and
// appending through a pointer keeps the loop's registers free (18% faster than a local slice).
func (v *Values) scan(s string, n int, found *[]region) {
	var (
		runes  [ring]uint64 // the last canonical runes
		starts [ring]int    // where each starts in s
	)
	pw, sl, filter, shift, h, t := uint64(1), salt(0, n), v.filter, v.shift, uint64(0), 0
	for range n {
		pw *= rollBase // to take the rune leaving a window out of its hash
	}
	for i := 0; i < len(s); i++ {
		f, start := uint64(byteFold[s[i]]), i
		if f == slow {
			r, end := decode(s, i)
			f, i = uint64(fold(r)), end-1
		}
		if f == 0 {
			continue
		}
		// Before n runes the leaving slot has not been written yet and holds 0.
		runes[t&(ring-1)], starts[t&(ring-1)] = f, start
		t++
		h = h*rollBase + f - runes[(t-1-n)&(ring-1)]*pw
		if b := (h ^ sl) >> shift; filter[b/64]&(1<<(b%64)) != 0 && t >= n && v.hit(h^sl) {
			*found = append(*found, region{starts[(t-n)&(ring-1)], i + 1})
		}
	}
}

// splice replaces the regions of s (sorted by start) with Marker, one for regions that overlap or touch.
func splice(s string, found []region) string {
	if len(found) == 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	last := 0
	for k, g := range found {
		if k == 0 || g.start > last {
			b.WriteString(s[last:g.start])
			b.WriteString(Marker)
		}
		last = max(last, g.end)
	}
	b.WriteString(s[last:])
	return b.String()
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

// decode reads the character at s[i] as Replace compares text: an escape's decoding, with the
// end of its spelling (so a match never cuts an escape in half), or the character itself.
// Escapes: %XX in either hex case, a character's UTF-8 bytes one escape each; HTML entities
// (&name;, &#D;, &#xH;); backslash escapes (\uXXXX with surrogate pairs, \xHH, \/, \", \n, ...,
// behind any run of backslashes for JSON inside JSON). "%25" and "&amp;" in front escape again.
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

func literal(s string, i int) (rune, int) {
	r, size := utf8.DecodeRuneInString(s[i:])
	if r == utf8.RuneError && size == 1 {
		r = invalidBase + rune(s[i])
	}
	return r, i + size
}

// percentRune decodes a character whose UTF-8 bytes are each percent-encoded, maxReps deep.
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

// entity decodes the HTML entity whose text after "&" starts at q (a name in any case, or at
// most 8 digits); an "&amp;" that another entity's text follows is that one escaped again.
func entity(s string, q, reps int) (rune, int) {
	body, _, ok := strings.Cut(s[q:min(len(s), q+11)], ";")
	name := []byte(body)
	for k := range name {
		name[k] |= 0x20 // only letters become letters
	}
	r, known := entityNames[string(name)]
	if num, isNum := strings.CutPrefix(body, "#"); isNum {
		base := 10
		if len(num) > 0 && num[0]|0x20 == 'x' {
			num, base = num[1:], 16
		}
		v, err := strconv.ParseUint(num, base, 32)
		r, known = rune(v), err == nil && len(num) <= 8 && v <= unicode.MaxRune
	}
	if !ok || !known {
		return 0, -1
	}
	end := q + len(body) + 1
	if r == '&' && reps < maxReps {
		if r2, e2 := entity(s, end, reps+1); e2 > 0 {
			return r2, e2
		}
	}
	return r, end
}

// backslash decodes a backslash escape at s[i], behind at most 8 backslashes; a run with no
// escape letter after it is one backslash, escaped as deep as the run.
func backslash(s string, i int) (rune, int) {
	q := i + 1
	for q < len(s) && s[q] == '\\' && q-i < 8 {
		q++
	}
	if q == len(s) {
		return '\\', q
	}
	switch c := s[q]; c {
	case 'u', 'U':
		v, end := hexN(s, q+1, 4)
		if v >= 0xD800 && v < 0xDC00 && end < len(s) && s[end] == '\\' { // a high surrogate: the low one follows, escaped alike
			if lo, e := backslash(s, end); lo >= 0xDC00 && lo < 0xE000 {
				return 0x10000 + (v-0xD800)<<10 + (lo - 0xDC00), e
			}
		}
		if end > 0 {
			return v, end
		}
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

func hexN(s string, q, n int) (v rune, end int) {
	if q+n > len(s) {
		return 0, -1
	}
	for _, c := range []byte(s[q : q+n]) {
		switch {
		case c >= '0' && c <= '9':
			v = v<<4 | rune(c-'0')
		case c|0x20 >= 'a' && c|0x20 <= 'f':
			v = v<<4 | rune(c|0x20-'a'+10)
		default:
			return 0, -1
		}
	}
	return v, q + n
}
