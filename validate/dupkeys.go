package validate

import (
	"bytes"
	"encoding/json"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Duplicate keys. encoding/json keeps the last of two equal keys, other parsers the first, so a
// text that names a key twice reads as two different requests (a gateway reading the first
// params.name sees mindvault_preview where this server would run the mindvault_buy given
// second). Both the JSON-RPC envelope (package mcp) and the tools' arguments (Decode) refuse
// such a text, never resolve it, with this one scanner.

// Dup is a key that repeats an earlier key of its object.
type Dup struct {
	Path   []Step // from the outermost value to the repeated key
	Folded bool   // equal to the earlier key only ignoring case
}

// Step is one step of a path: a decoded key, or an array index (Index >= 0, Key unused).
type Step struct {
	Key   string
	Index int // -1 for a key
}

// DuplicateKeys returns the keys of text, valid JSON, that repeat an earlier key of their
// object, once per key, in document order. Keys compare as the strings they decode to ("a"
// and "\u0061" are one key). When fold is not empty, the keys of the outermost object and of
// its member named fold also compare ignoring case, as encoding/json matches keys to struct
// fields, and that member's member named skip (when not empty) is not scanned. It allocates
// nothing for a text without duplicates and with few, unescaped keys per object.
func DuplicateKeys(text []byte, fold, skip string) []Dup {
	s := keyScans.Get().(*keyScan)
	*s = keyScan{b: text, fold: fold, skip: skip, keys: s.keys[:0], path: s.path[:0], scratch: s.scratch[:0]}
	s.value(ctxTop)
	dups := s.dups
	s.b, s.dups = nil, nil
	if cap(s.keys) <= maxPooledKeys && cap(s.path) <= maxPooledKeys && cap(s.scratch) <= 16*maxPooledKeys {
		keyScans.Put(s) // a scanner grown by an unusual text is left to the collector
	}
	return dups
}

// keyScan walks a text once without decoding it. It is pooled with its buffers, which escape
// to the heap through its pointer anyway.
type keyScan struct {
	b          []byte
	i          int
	fold, skip string
	keys       []keyRef  // the keys of the objects open on the way down, innermost last
	scratch    []byte    // the comparable form of those keys
	path       []pathSeg // the path to the value being scanned
	dups       []Dup
}

var keyScans = sync.Pool{New: func() any {
	return &keyScan{keys: make([]keyRef, 0, 32), path: make([]pathSeg, 0, 16), scratch: make([]byte, 0, 256)}
}}

const maxPooledKeys = 1024

// keyRef is one key: its comparable form in scratch and its string token in the text.
type keyRef struct {
	off, n     int
	start, end int  // quotes included
	repeated   bool // already reported as given twice
}

// pathSeg is a key (its string token, quotes included) or an array index.
type pathSeg struct {
	start, end int
	index      int // -1 for a key
}

// Scan contexts: which object a value belongs to.
const (
	ctxTop    = iota // the outermost value
	ctxFolded        // the outermost object's member named fold
	ctxInner         // anywhere else
	ctxSkip          // the folded member's member named skip
)

func (s *keyScan) peek() byte {
	for ; s.i < len(s.b); s.i++ {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
		default:
			return s.b[s.i]
		}
	}
	return 0
}

func (s *keyScan) value(ctx int) {
	switch c := s.peek(); {
	case c == 0:
	case (c == '{' || c == '[') && ctx == ctxSkip:
		s.skipValue()
	case c == '{':
		s.object(ctx)
	case c == '[':
		s.array()
	case c == '"':
		s.i, _ = s.stringEnd(s.i)
	default: // a literal runs to the next delimiter
		if n := bytes.IndexAny(s.b[s.i:], ",}] \t\n\r"); n >= 0 {
			s.i += n
		} else {
			s.i = len(s.b)
		}
	}
}

func (s *keyScan) array() {
	s.i++ // [
	for n := 0; ; n++ {
		switch s.peek() {
		case ']':
			s.i++
			return
		case 0:
			return
		}
		s.path = append(s.path, pathSeg{index: n})
		s.value(ctxInner)
		s.path = s.path[:len(s.path)-1]
		if s.peek() == ',' {
			s.i++
		}
	}
}

// maxLinearKeys is how many keys are compared one by one; beyond, a map keeps the scan linear.
const maxLinearKeys = 16

func (s *keyScan) object(ctx int) {
	s.i++ // {
	first, scratchMark := len(s.keys), len(s.scratch)
	fold := s.fold != "" && (ctx == ctxTop || ctx == ctxFolded)
	var seen map[string]int // comparable form -> index in s.keys, once the object is large
	for {
		if c := s.peek(); c != '"' {
			if c == '}' {
				s.i++
			}
			break
		}
		start := s.i
		end, escaped := s.stringEnd(start)
		s.i = end
		k := s.keyRef(start, end, escaped, fold)
		earlier := -1
		if seen == nil && len(s.keys)-first >= maxLinearKeys {
			seen = make(map[string]int, 2*maxLinearKeys)
			for j := len(s.keys) - 1; j >= first; j-- { // backwards: a key's first occurrence stays
				seen[string(s.bytesOf(s.keys[j]))] = j
			}
		}
		if seen != nil {
			if j, ok := seen[string(s.bytesOf(k))]; ok {
				earlier = j
			} else {
				seen[string(s.bytesOf(k))] = len(s.keys)
			}
		} else {
			for j := first; j < len(s.keys); j++ {
				if bytes.Equal(s.bytesOf(s.keys[j]), s.bytesOf(k)) {
					earlier = j
					break
				}
			}
		}
		s.keys = append(s.keys, k)
		s.path = append(s.path, pathSeg{start: start, end: end, index: -1})
		if earlier >= 0 && !s.keys[earlier].repeated {
			s.keys[earlier].repeated = true
			s.record(s.keys[earlier], k)
		}
		if s.peek() == ':' {
			s.i++
		}
		s.value(s.memberContext(ctx, start, end))
		s.path = s.path[:len(s.path)-1]
		if s.peek() == ',' {
			s.i++
		}
	}
	s.keys, s.scratch = s.keys[:first], s.scratch[:scratchMark]
}

// memberContext is the context of the value of key b[start:end] in an object of ctx.
func (s *keyScan) memberContext(ctx, start, end int) int {
	switch {
	case ctx == ctxTop && s.fold != "" && s.keyIs(start, end, s.fold):
		return ctxFolded
	case ctx == ctxFolded && s.skip != "" && s.keyIs(start, end, s.skip):
		return ctxSkip
	}
	return ctxInner
}

// keyIs reports whether the key token b[start:end] decodes to want.
func (s *keyScan) keyIs(start, end int, want string) bool {
	tok := s.b[start:end]
	if len(tok) == len(want)+2 && string(tok[1:len(tok)-1]) == want {
		return true
	}
	return bytes.IndexByte(tok, '\\') >= 0 && decodeKey(tok) == want
}

// record notes that key k, at the end of the current path, repeats key earlier.
func (s *keyScan) record(earlier, k keyRef) {
	text := decodeKey(s.b[k.start:k.end])
	path := make([]Step, len(s.path))
	for i, seg := range s.path {
		path[i] = Step{Index: seg.index}
		if seg.index < 0 {
			path[i].Key = decodeKey(s.b[seg.start:seg.end])
		}
	}
	s.dups = append(s.dups, Dup{Path: path, Folded: text != decodeKey(s.b[earlier.start:earlier.end])})
}

func (s *keyScan) skipValue() {
	depth := 0
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case '"':
			s.i, _ = s.stringEnd(s.i)
			continue
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				s.i++
				return
			}
		}
		s.i++
	}
}

// stringEnd returns the index after the string token at b[start], and whether it holds an escape.
func (s *keyScan) stringEnd(start int) (end int, escaped bool) {
	for i := start + 1; i < len(s.b); i++ {
		switch s.b[i] {
		case '\\':
			i, escaped = i+1, true
		case '"':
			return i + 1, escaped
		}
	}
	return len(s.b), escaped
}

// keyRef appends the key token's decoded text to scratch, case-folded when fold.
func (s *keyScan) keyRef(start, end int, escaped, fold bool) keyRef {
	raw := s.b[start+1 : end-1]
	if escaped || !utf8.Valid(raw) {
		raw = []byte(decodeKey(s.b[start:end]))
	}
	off := len(s.scratch)
	if fold {
		s.scratch = appendFolded(s.scratch, raw)
	} else {
		s.scratch = append(s.scratch, raw...)
	}
	return keyRef{off: off, n: len(s.scratch) - off, start: start, end: end}
}

func (s *keyScan) bytesOf(k keyRef) []byte { return s.scratch[k.off : k.off+k.n] }

// appendFolded appends key with every rune replaced by the smallest rune of its case-folding
// orbit, so two keys fold alike exactly when bytes.EqualFold (encoding/json's rule for matching
// a key to a struct field) finds them equal.
func appendFolded(dst, key []byte) []byte {
	for i := 0; i < len(key); {
		c := key[i]
		if c < utf8.RuneSelf {
			if 'a' <= c && c <= 'z' {
				c -= 'a' - 'A'
			}
			dst = append(dst, c)
			i++
			continue
		}
		r, n := utf8.DecodeRune(key[i:])
		i += n
		least := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			least = min(least, f)
		}
		dst = utf8.AppendRune(dst, least)
	}
	return dst
}

// decodeKey decodes a string token. It hands encoding/json a copy: what json.Unmarshal is
// given escapes, and escape analysis would move the text to the heap with it.
func decodeKey(tok []byte) string {
	if raw := tok[1 : len(tok)-1]; bytes.IndexByte(raw, '\\') < 0 && utf8.Valid(raw) {
		return string(raw) // what it decodes to
	}
	var k string
	if json.Unmarshal(append([]byte(nil), tok...), &k) != nil {
		return string(tok[1 : len(tok)-1])
	}
	return k
}
