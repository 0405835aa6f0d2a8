package redact

import (
	"bytes"
	"encoding/json"
	"slices"
	"sync/atomic"
)

// Constant is an encoded JSON document built from the code alone (a tool list, a discovery
// answer) that the protocol layer sends many times: it is cleaned like every answer, but once
// per state of the registry rather than on every request.
type Constant struct {
	doc   []byte
	clean atomic.Pointer[cleaned]
}

type cleaned struct {
	against *Values // the registry state the document was cleaned against
	out     []byte
	ok      bool
}

// NewConstant wraps an encoded JSON document; the caller must not change doc afterwards.
func NewConstant(doc []byte) *Constant { return &Constant{doc: doc} }

// JSON is JSON(doc, nil) of the document, reused while the registry stays the same; the result must not be modified.
func (c *Constant) JSON() (out []byte, ok bool) {
	reg := registry.exact.Load()
	if st := c.clean.Load(); st != nil && st.against == reg {
		return st.out, st.ok
	}
	out, ok = JSON(c.doc, nil)
	c.clean.Store(&cleaned{against: reg, out: out, ok: ok})
	return out, ok
}

// Within cleans prefix + document + suffix as JSON would clean the whole, and returns the three parts.
//
// The envelope (prefix and suffix, with the request's id) is cleaned on every call and the
// document's cleaned bytes are reused. A registered value across a seam, which cleaning the
// parts apart cannot see, makes ok false so the answer is withheld; only the seams are scanned
// again, as far as a window can reach in the longest spelling of each character.
func (c *Constant) Within(prefix, suffix []byte) (head, doc, tail []byte, ok bool) {
	doc, ok = c.JSON()
	head, okHead := JSON(prefix, nil)
	tail, okTail := JSON(suffix, nil)
	if reg, n := registry.exact.Load(), window*maxSpell; !ok || !okHead || !okTail ||
		reg != nil && (seamHolds(reg, head, doc, n) || seamHolds(reg, doc, tail, n)) {
		return nil, nil, nil, false
	}
	// A marker in the envelope may stand where a token was (a value across the id and the
	// key after it): the answer must still be JSON.
	if (!bytes.Equal(head, prefix) || !bytes.Equal(tail, suffix)) && !json.Valid(slices.Concat(head, doc, tail)) {
		return nil, nil, nil, false
	}
	return head, doc, tail, true
}

// seamHolds reports a registered value within n bytes on each side of where a ends and b begins.
func seamHolds(reg *Values, a, b []byte, n int) bool {
	window := string(a[len(a)-min(n, len(a)):]) + string(b[:min(n, len(b))])
	return reg.Replace(window) != window
}
