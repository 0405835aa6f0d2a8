package redact

import (
	"bytes"
	"encoding/json"
	"strings"
)

// maxNesting bounds how deep JSON text inside JSON strings is followed (a tool result's text
// block holds the result's JSON; deeper nesting is redacted as plain text).
const maxNesting = 4

// JSON removes every registered value, and every value of extra, from an encoded JSON
// document without breaking it. Inside a string the value is replaced in its decoded form and
// the string is encoded again, so an escape sequence is never cut in half; a string that holds
// JSON text itself (a tool result's text block) is treated the same way, recursively, so the
// inner document stays valid too. A number or literal that contains a value is replaced whole
// by the string "[REDACTED]". ok is false when a value is still there afterwards — only
// possible for a value that spans JSON tokens — and the document must then be withheld.
func JSON(doc []byte, extra *Values) (out []byte, ok bool) {
	reg := registry.exact.Load()
	if reg == nil && extra == nil {
		return doc, true
	}
	return jsonRedact(doc, func(s string) string { return extra.Replace(reg.Replace(s)) }, 0)
}

func jsonRedact(doc []byte, rep func(string) string, depth int) ([]byte, bool) {
	if s := string(doc); rep(s) == s {
		return doc, true
	}
	var out bytes.Buffer
	out.Grow(len(doc))
	for i := 0; i < len(doc); {
		c := doc[i]
		switch {
		case c == '"':
			j := stringEnd(doc, i)
			if j < 0 {
				return nil, false
			}
			tok, ok := redactString(doc[i:j], rep, depth)
			if !ok {
				return nil, false
			}
			out.Write(tok)
			i = j
		case isScalar(c):
			j := i
			for j < len(doc) && isScalar(doc[j]) {
				j++
			}
			if tok := string(doc[i:j]); rep(tok) != tok {
				out.WriteString(`"` + Marker + `"`)
			} else {
				out.WriteString(tok)
			}
			i = j
		default:
			out.WriteByte(c)
			i++
		}
	}
	res := out.Bytes()
	if s := string(res); rep(s) != s {
		return nil, false
	}
	return res, true
}

// stringEnd returns the index just past the closing quote of the string starting at doc[i],
// or -1 when it is not terminated.
func stringEnd(doc []byte, i int) int {
	for j := i + 1; j < len(doc); j++ {
		switch doc[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return -1
}

func isScalar(c byte) bool {
	switch c {
	case '{', '}', '[', ']', ',', ':', '"', ' ', '\t', '\r', '\n':
		return false
	}
	return true
}

// redactString redacts one encoded JSON string token (quotes included).
func redactString(tok []byte, rep func(string) string, depth int) ([]byte, bool) {
	content := tok[1 : len(tok)-1]
	if bytes.IndexByte(content, '\\') < 0 {
		// No escapes: the bytes are the value itself, and Marker needs no escaping.
		s := string(content)
		r := rep(s)
		if r == s {
			return tok, true
		}
		return []byte(`"` + r + `"`), true
	}
	var v string
	if json.Unmarshal(tok, &v) != nil {
		return nil, false
	}
	r := rep(v)
	if r == v {
		return tok, true
	}
	if t := strings.TrimSpace(v); depth < maxNesting && t != "" && (t[0] == '{' || t[0] == '[') && json.Valid([]byte(v)) {
		if inner, ok := jsonRedact([]byte(v), rep, depth+1); ok {
			r = string(inner)
		}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(r) != nil {
		return nil, false
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), true
}
