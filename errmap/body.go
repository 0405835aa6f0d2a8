package errmap

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mindvault/mcp-endpoint/internal/redact/lazyre"
)

// Body is what the generic reader finds in a response body. Clients that know their
// service's format read Value further (see ReadBody); nothing else of a body is ever used.
type Body struct {
	Empty     bool   // no bytes (or only whitespace)
	JSON      bool   // the first MaxBodyBytes parsed as one JSON value
	Truncated bool   // longer than MaxBodyBytes and not parseable in that prefix
	Message   string // the generic detail, raw (Map cleans, redacts and bounds it)
	Value     any    // the decoded JSON in body order: JSONObject, []any, string, json.Number, bool or nil
}

// maxJSONDepth bounds the ordered decoder; deeper containers are dropped.
const maxJSONDepth = 32

// JSONMember is one member of a JSONObject.
type JSONMember struct {
	Key   string
	Value any
}

// JSONObject keeps a JSON object in body order, so "the first message" is deterministic and
// means the first one the service wrote.
type JSONObject []JSONMember

// Get returns the value of the first member named key, or nil.
func (o JSONObject) Get(key string) any {
	for _, m := range o {
		if m.Key == key {
			return m.Value
		}
	}
	return nil
}

// String returns the trimmed string value of key, or "" when it is absent or not a string.
func (o JSONObject) String(key string) string {
	s, _ := o.Get(key).(string)
	return strings.TrimSpace(s)
}

// ReadBody is the generic reader for a body whose format no client knows better: it decodes one
// JSON value of the first MaxBodyBytes, in body order, and takes as message the first non-empty
// string of error, message, detail, reason, title, else the first message under "error" or "errors".
func ReadBody(raw []byte) Body {
	var b Body
	cut := raw[:min(len(raw), MaxBodyBytes)]
	trimmed := bytes.TrimSpace(bytes.TrimPrefix(bytes.TrimSpace(cut), []byte("\xef\xbb\xbf")))
	if len(trimmed) == 0 {
		b.Empty = len(raw) <= MaxBodyBytes
		b.Truncated = !b.Empty
		return b
	}
	if !json.Valid(trimmed) {
		b.Truncated = len(raw) > MaxBodyBytes
		return b
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	dec.UseNumber()
	b.JSON, b.Value = true, decodeValue(dec, 0)
	if o, ok := b.Value.(JSONObject); ok {
		b.Message = objectMessage(o)
	} else {
		b.Message = nestedMessage(b.Value) // a string, the first message of an array
	}
	return b
}

// messageKeys are the keys whose string is a human message, in the order they are preferred.
var messageKeys = []string{"error", "message", "detail", "reason", "title"}

// objectMessage is the generic detail rule for a JSON object.
func objectMessage(o JSONObject) string {
	for _, k := range messageKeys {
		if s := o.String(k); s != "" {
			return s
		}
	}
	if s := nestedMessage(o.Get("error")); s != "" { // an error object or array
		return s
	}
	if arr, ok := o.Get("errors").([]any); ok {
		return nestedMessage(arr)
	}
	return ""
}

// nestedMessage finds the first human message inside a nested error value, in body order; a bare
// string beside an object's structured members is a value, not a message. The decoder bounded
// the value's depth.
func nestedMessage(v any) string {
	switch t := v.(type) {
	case string:
		return strings.TrimSpace(t)
	case []any:
		for _, e := range t {
			if s := nestedMessage(e); s != "" {
				return s
			}
		}
	case JSONObject:
		for _, k := range messageKeys[1:] {
			if s := t.String(k); s != "" {
				return s
			}
		}
		for _, m := range t {
			switch m.Value.(type) {
			case JSONObject, []any:
				if s := nestedMessage(m.Value); s != "" {
					return s
				}
			}
		}
	}
	return ""
}

var resultCodeRE = lazyre.New(`^[a-z][a-z0-9_]{0,63}$`)

// CodeTokens keeps the value-free code tokens of in (lower-case snake case, at most 64 bytes
// each, at most 16 in all): only those may go to a detail or to upstream verbatim.
func CodeTokens(in []string) []string {
	var out []string
	for _, c := range in {
		if len(out) == 16 {
			break
		}
		c = strings.TrimSpace(c)
		if len(c) <= 64 && resultCodeRE.MatchString(c) {
			out = append(out, c)
		}
	}
	return out
}

// decodeValue reads the next value of a text json.Valid accepted (one value, within the
// decoder's own depth limit), so no read can fail and none is checked.
func decodeValue(dec *json.Decoder, depth int) any {
	if depth >= maxJSONDepth {
		var v any // a scalar as Token reads it (the decoder uses numbers); a container is dropped
		_ = dec.Decode(&v)
		switch v.(type) {
		case map[string]any, []any:
			return nil
		}
		return v
	}
	tok, _ := dec.Token()
	switch tok {
	case json.Delim('{'):
		var o JSONObject
		for dec.More() {
			k, _ := dec.Token()
			key, _ := k.(string)
			o = append(o, JSONMember{key, decodeValue(dec, depth+1)})
		}
		_, _ = dec.Token()
		return o
	case json.Delim('['):
		var a []any
		for dec.More() {
			a = append(a, decodeValue(dec, depth+1))
		}
		_, _ = dec.Token()
		return a
	}
	return tok
}

// clean makes s one line: invalid UTF-8 becomes U+FFFD, line breaks and tabs become spaces,
// other control and format characters (including bidi overrides that could disguise text) go,
// and runs of spaces collapse.
func clean(s string) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		switch {
		case unicode.IsSpace(r): // line and paragraph separators and NEL included
			space = true
			continue
		case unicode.IsControl(r) || unicode.Is(unicode.Cf, r):
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteRune(r)
	}
	return b.String()
}

// bound cuts s to at most n runes, marking the cut with an ellipsis.
func bound(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i := 0
	for range n - 1 { // s has more than n runes
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return strings.TrimRight(s[:i], " ") + "…"
}

func runes(s string) int { return utf8.RuneCountInString(s) }

func itoa(n int) string { return strconv.Itoa(n) }
