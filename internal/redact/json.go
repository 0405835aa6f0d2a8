package redact

import (
	"bytes"
	"encoding/json"
)

// JSON removes every registered value, and every value of extra, from an encoded JSON
// document, in one pass. A match spans whole escapes (canon.go), so the marker never cuts one
// in half, and a JSON text inside a JSON string (a tool result's text block) is read through
// its escapes like any other. ok is false when the document was valid and the replacement
// broke it (a value inside a number or across tokens): it must then be withheld.
func JSON(doc []byte, extra *Values) (out []byte, ok bool) {
	s := string(doc)
	r := replaceAll(s, registry.exact.Load(), extra)
	if r == s {
		return doc, true
	}
	out = []byte(r)
	if !json.Valid(out) && json.Valid(bytes.TrimSpace(doc)) {
		return nil, false
	}
	return out, true
}
