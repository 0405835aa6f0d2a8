package mcp

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/mindvault/mcp-endpoint/internal/redact/lazyre"
)

// Duplicate keys. encoding/json keeps the last of two equal keys, other parsers the first, so a
// body that names a key twice reads as two different requests: a gateway or an audit log that
// reads the first params.name sees mindvault_preview where this server would run the
// mindvault_buy given second. Such a body is refused, never resolved: a key given twice in any
// object of the envelope is -32600, in any object of params -32602, each naming the path.
//
// Keys are compared as the strings they decode to ("a" and "\u0061" are one key). In the two
// objects whose keys decide what runs, the envelope and params, they are also compared ignoring
// case, as encoding/json matches them to struct fields (so a reader decoding into structs,
// which the Go MCP SDK does, takes "NAME" for "name"): {"name": ..., "NAME": ...} is a
// duplicate there. params.arguments of tools/call is left to the tool's request model, which
// reports a duplicate there as an INVALID_ARGUMENTS result at its JSON-pointer path like every
// other argument problem (package validate).

// dupKey is the first key found given twice in one object.
type dupKey struct {
	path   string // "params.name", `params._meta["io.modelcontextprotocol/protocolVersion"]`, "method"
	folded bool   // equal to the earlier key only ignoring case
}

func (d *dupKey) message(prefix string) string {
	if d.folded {
		return prefix + d.path + ": is given more than once in the same object, in another case (the keys of the envelope and of params are compared ignoring case)"
	}
	return prefix + d.path + ": is given more than once in the same object (duplicate keys are refused, never resolved)"
}

// keyScan walks a body that is valid JSON once, without decoding it, and records the first
// duplicate key outside params and the first inside it. It allocates nothing for the bodies
// clients send (few keys per object, no escapes in keys, shallow nesting).
type keyScan struct {
	b []byte
	i int
	// skipArguments leaves params.arguments unscanned (tools/call: the request model checks it).
	skipArguments bool

	keys    []keyRef // the keys of the objects open on the way down, innermost last
	scratch []byte   // keys that had to be decoded or case-folded
	path    []pathSeg

	outside, inside *dupKey
	idTwice         bool // the envelope names id twice: no id can be echoed
}

// keyRef is one key as compared: bytes of the body (a key without escapes, compared exactly) or
// of scratch (decoded, or folded).
type keyRef struct {
	off, n     int
	inScratch  bool
	start, end int // the key's string token in the body, quotes included
}

// pathSeg is one step of the path to the value being scanned: a key (its string token in the
// body, quotes included) or an array index.
type pathSeg struct {
	start, end int
	index      int // -1 for a key
}

// scan contexts: which object a value belongs to.
const (
	inEnvelope = iota // the body itself
	inParams          // the params value
	inRest            // anywhere below params
	outRest           // anywhere below another member of the envelope
	skipped           // params.arguments of tools/call
)

// scanDuplicateKeys scans body, a JSON object that encoding/json accepted.
func scanDuplicateKeys(body []byte, skipArguments bool) (outside, inside *dupKey, idTwice bool) {
	s := keyScans.Get().(*keyScan)
	*s = keyScan{b: body, skipArguments: skipArguments, keys: s.keys[:0], path: s.path[:0], scratch: s.scratch[:0]}
	s.value(inEnvelope)
	outside, inside, idTwice = s.outside, s.inside, s.idTwice
	s.b, s.outside, s.inside = nil, nil, nil
	if cap(s.keys) <= maxPooledKeys && cap(s.path) <= maxPooledKeys && cap(s.scratch) <= 16*maxPooledKeys {
		keyScans.Put(s) // a scanner grown by an unusual body is left to the collector
	}
	return outside, inside, idTwice
}

// keyScans are the scanners, pooled with their buffers so that a scan allocates nothing: the
// buffers are grown by appends through the scanner's pointer, which escape analysis sends to
// the heap, so a scanner on the stack would cost its buffers on every request.
var keyScans = sync.Pool{New: func() any {
	return &keyScan{keys: make([]keyRef, 0, 32), path: make([]pathSeg, 0, 16), scratch: make([]byte, 0, 256)}
}}

const maxPooledKeys = 1024

func (s *keyScan) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// value scans the value at s.i and leaves s.i after it.
func (s *keyScan) value(ctx int) {
	s.ws()
	if s.i >= len(s.b) {
		return
	}
	switch s.b[s.i] {
	case '{':
		if ctx == skipped {
			s.skip()
			return
		}
		s.object(ctx)
	case '[':
		if ctx == skipped {
			s.skip()
			return
		}
		s.array(ctx)
	case '"':
		s.i, _ = s.stringEnd(s.i)
	default:
		for s.i < len(s.b) {
			switch s.b[s.i] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return
			}
			s.i++
		}
	}
}

func child(ctx int) int {
	switch ctx {
	case inParams:
		return inRest
	case inEnvelope:
		return outRest
	}
	return ctx
}

func (s *keyScan) array(ctx int) {
	s.i++ // [
	for n := 0; ; n++ {
		s.ws()
		if s.i >= len(s.b) {
			return
		}
		if s.b[s.i] == ']' {
			s.i++
			return
		}
		s.path = append(s.path, pathSeg{index: n})
		s.value(child(ctx))
		s.path = s.path[:len(s.path)-1]
		s.ws()
		if s.i < len(s.b) && s.b[s.i] == ',' {
			s.i++
		}
	}
}

// maxLinearKeys is how many keys of one object are compared one by one; a larger object is
// checked through a map, so no body can make the scan quadratic.
const maxLinearKeys = 16

func (s *keyScan) object(ctx int) {
	s.i++ // {
	first, scratchMark := len(s.keys), len(s.scratch)
	fold := ctx == inEnvelope || ctx == inParams
	var seen map[string]int // comparable form -> index in s.keys, once the object is large
	for {
		s.ws()
		if s.i >= len(s.b) || s.b[s.i] != '"' {
			if s.i < len(s.b) && s.b[s.i] == '}' {
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
			for j := first; j < len(s.keys); j++ {
				if _, ok := seen[string(s.bytesOf(s.keys[j]))]; !ok {
					seen[string(s.bytesOf(s.keys[j]))] = j
				}
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
		if earlier >= 0 {
			s.record(ctx, s.keys[earlier], k)
		}
		s.ws()
		if s.i < len(s.b) && s.b[s.i] == ':' {
			s.i++
		}
		s.value(s.memberContext(ctx, start, end))
		s.path = s.path[:len(s.path)-1]
		s.ws()
		if s.i < len(s.b) && s.b[s.i] == ',' {
			s.i++
		}
	}
	s.keys, s.scratch = s.keys[:first], s.scratch[:scratchMark]
}

// memberContext is the context of the value of key b[start:end] in an object of ctx. The
// envelope's and params' own members are found as the decoder finds them: by the exact text
// their key decodes to.
func (s *keyScan) memberContext(ctx, start, end int) int {
	switch {
	case ctx == inEnvelope && s.keyIs(start, end, "params"):
		return inParams
	case ctx == inParams && s.skipArguments && s.keyIs(start, end, "arguments"):
		return skipped
	}
	return child(ctx)
}

// keyIs reports whether the key token b[start:end] decodes to want.
func (s *keyScan) keyIs(start, end int, want string) bool {
	tok := s.b[start:end]
	if len(tok) == len(want)+2 && string(tok[1:len(tok)-1]) == want {
		return true
	}
	return bytes.IndexByte(tok, '\\') >= 0 && s.tokenText(start, end) == want
}

// record notes that key k, at the end of the current path, repeats key earlier of the same
// object: the first such duplicate on each side of params is kept (error path only).
func (s *keyScan) record(ctx int, earlier, k keyRef) {
	text := s.tokenText(k.start, k.end)
	if ctx == inEnvelope && strings.EqualFold(text, "id") {
		s.idTwice = true
	}
	side := &s.outside
	if ctx == inParams || ctx == inRest {
		side = &s.inside
	}
	if *side == nil {
		*side = &dupKey{path: s.pathText(), folded: text != s.tokenText(earlier.start, earlier.end)}
	}
}

// skip leaves s.i after the object or array at s.i without looking at its keys.
func (s *keyScan) skip() {
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

// stringEnd returns the index after the string token starting at b[start] == '"', and whether
// it holds an escape.
func (s *keyScan) stringEnd(start int) (end int, escaped bool) {
	i := start + 1
	for {
		j := bytes.IndexByte(s.b[i:], '"')
		if j < 0 {
			return len(s.b), escaped
		}
		q := i + j
		if bytes.IndexByte(s.b[i:q], '\\') >= 0 {
			escaped = true
			n := 0
			for q-1-n > start && s.b[q-1-n] == '\\' {
				n++
			}
			if n%2 == 1 { // an escaped quote
				i = q + 1
				continue
			}
		}
		return q + 1, escaped
	}
}

// keyRef makes the comparable form of the key token b[start:end]: its bytes when it has no
// escape and is compared exactly, otherwise its decoded (and, when fold, case-folded) text in
// scratch.
func (s *keyScan) keyRef(start, end int, escaped, fold bool) keyRef {
	raw := s.b[start+1 : end-1]
	if !escaped && !fold {
		return keyRef{off: start + 1, n: len(raw), start: start, end: end}
	}
	if escaped {
		raw = []byte(decodeKey(s.b[start:end]))
	}
	off := len(s.scratch)
	if fold {
		s.scratch = appendFolded(s.scratch, raw)
	} else {
		s.scratch = append(s.scratch, raw...)
	}
	return keyRef{off: off, n: len(s.scratch) - off, inScratch: true, start: start, end: end}
}

func (s *keyScan) bytesOf(k keyRef) []byte {
	if k.inScratch {
		return s.scratch[k.off : k.off+k.n]
	}
	return s.b[k.off : k.off+k.n]
}

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

// tokenText is the decoded text of the string token b[start:end].
func (s *keyScan) tokenText(start, end int) string {
	return decodeKey(s.b[start:end])
}

// decodeKey decodes a string token. It hands encoding/json a copy: what json.Unmarshal is
// given escapes, and escape analysis would move the scanner's stack buffers, which share a
// struct with the body, to the heap with it.
func decodeKey(tok []byte) string {
	var k string
	if json.Unmarshal(append([]byte(nil), tok...), &k) != nil {
		return string(tok[1 : len(tok)-1])
	}
	return k
}

// plainKey is a key a path shows after a dot; any other is shown quoted in brackets.
var plainKey = lazyre.New(`^[A-Za-z_$][A-Za-z0-9_$-]*$`)

var keyQuoter = strings.NewReplacer(`\`, `\\`, `"`, `\"`)

// maxPath bounds a path in a message: the keys come from the caller.
const maxPath = 256

// pathText renders the current path (error path only).
func (s *keyScan) pathText() string {
	steps := make([]pathStep, len(s.path))
	for i, seg := range s.path {
		steps[i] = pathStep{index: seg.index}
		if seg.index < 0 {
			steps[i].key = s.tokenText(seg.start, seg.end)
		}
	}
	return renderPath(steps)
}

// pathStep is one step of a rendered path: a decoded key, or an array index (key unused).
type pathStep struct {
	key   string
	index int // -1 for a key
}

// renderPath renders a path for a message: the envelope member first, then .key for a plain
// key, ["key"] for any other, [n] for an array element; keys are bounded like every echoed
// value, and so is the whole path.
func renderPath(steps []pathStep) string {
	var b strings.Builder
	for i, st := range steps {
		if st.index >= 0 {
			b.WriteString("[" + strconv.Itoa(st.index) + "]")
		} else if k := bounded(st.key); plainKey.MatchString(k) {
			if i > 0 {
				b.WriteByte('.')
			}
			b.WriteString(k)
		} else {
			b.WriteString(`["` + keyQuoter.Replace(k) + `"]`)
		}
		if b.Len() > maxPath {
			break
		}
	}
	p := b.String()
	if len(p) > maxPath {
		cut := maxPath
		for cut > 0 && !utf8.RuneStart(p[cut]) {
			cut--
		}
		p = p[:cut] + "…"
	}
	return p
}
