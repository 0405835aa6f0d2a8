package redact

import (
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"strings"
	"unicode/utf8"
)

// sequences returns the sequences that find every value: the value itself and its lower- and
// upper-case copies, its base64 texts (standard and URL alphabets, padded, which covers the
// unpadded text too) and the inner characters that stay fixed when the value sits inside a
// longer base64 text at any byte alignment, the same for base32, and its hex text. The matcher
// decodes escapes, so no escaped copy is needed. It folds case for hex and base32, whose
// decoders accept either case, and not for the value and base64, where case is part of the
// value.
//
// A value of more than prefixRunes runes also matches by its first prefixRunes characters or
// more (min), and each encoded text by the characters those leading bytes determine: a key
// split across two messages or cut by a downstream loses its head wherever it is shown.
func sequences(values []string) []seq {
	seen := map[string]bool{}
	var out []seq
	add := func(fold *[256]byte, s string, need int) {
		key := "=" + foldWith(fold, s)
		if fold == &canon {
			key = "~" + foldWith(fold, s)
		}
		if s == "" || seen[key] || strings.EqualFold(s, Marker) {
			return
		}
		seen[key] = true
		n := utf8.RuneCountInString(s)
		out = append(out, seq{s: s, n: n, min: max(min(need, n), min(MinLength, n)), fold: fold})
	}
	for _, v := range values {
		n := utf8.RuneCountInString(v)
		if n < MinLength {
			continue
		}
		b := []byte(v)
		head := prefixBytes(v) // bytes of the leading part that is enough to redact
		add(&plus, v, prefixRunes)
		add(&plus, strings.ToLower(v), n) // case-changed copies only whole
		add(&plus, strings.ToUpper(v), n)
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
			raw := enc.WithPadding(base64.NoPadding)
			for shift := 0; shift < 3; shift++ {
				if shift > 0 || head == len(b) { // else the whole text below matches as much
					c, need := core(raw.EncodeToString, b, head, shift, 3, 6)
					add(&plus, c, need)
				}
			}
			add(&plus, enc.EncodeToString(b), fixed(head, len(b), 0, 6))
		}
		raw := base32.StdEncoding.WithPadding(base32.NoPadding)
		for shift := 0; shift < 5; shift++ {
			if shift > 0 || head == len(b) {
				c, need := core(raw.EncodeToString, b, head, shift, 5, 5)
				add(&canon, c, need)
			}
		}
		add(&canon, base32.StdEncoding.EncodeToString(b), fixed(head, len(b), 0, 5))
		add(&canon, hex.EncodeToString(b), 2*head)
	}
	return out
}

// prefixRunes is how many leading characters of a secret are enough to redact them.
const prefixRunes = 8

// prefixBytes is the byte length of the first prefixRunes runes of v, or of all of v when it
// has no more (an invalid byte counts as one rune, as utf8.RuneCountInString counts it).
func prefixBytes(v string) int {
	i := 0
	for n := 0; n < prefixRunes && i < len(v); n++ {
		_, size := utf8.DecodeRuneInString(v[i:])
		i += size
	}
	if i == len(v) || utf8.RuneCountInString(v) <= prefixRunes {
		return len(v)
	}
	return i
}

// fixed is how many characters of the text that encodes "shift other bytes + the value",
// counted from the first one that depends on the value alone, a match needs, in an encoding of
// bits bits per character: those that the value's head bytes determine, or, when the head is
// the whole value, every character that touches it (padding aside).
func fixed(head, total, shift, bits int) int {
	lo := (8*shift + bits - 1) / bits
	if head >= total {
		return (8*(shift+total)+bits-1)/bits - lo
	}
	return (8*(shift+head))/bits - lo
}

// core is the part of the encoded text of "shift unknown bytes + b + anything" that depends on
// b alone, so b is found inside a longer encoded text (a Basic credential, a JSON blob, a
// header value) at any byte alignment, and how much of it a match needs; group is the
// encoding's block in bytes and bits its bits per character. Cores shorter than MinLength are
// dropped.
func core(encode func([]byte) string, b []byte, head, shift, group, bits int) (string, int) {
	buf := make([]byte, shift+len(b)+group)
	copy(buf[shift:], b)
	s := encode(buf)
	// Character j covers bits [bits*j, bits*j+bits); keep those inside the bits of b.
	lo, hi := (8*shift+bits-1)/bits, (8*(shift+len(b)))/bits
	if hi-lo < MinLength || hi > len(s) {
		return "", 0
	}
	need := hi - lo
	if head < len(b) {
		need = fixed(head, len(b), shift, bits)
	}
	return s[lo:hi], need
}

// foldWith is s as the matcher compares it with table.
func foldWith(table *[256]byte, s string) string {
	b := []byte(s)
	for i, c := range b {
		b[i] = table[c]
	}
	return string(b)
}
