package redact

import (
	"bytes"
	"encoding/json"
	"slices"
	"sync/atomic"
)

// Constant is an encoded JSON document built from the code alone (a tool list, a discovery
// answer) that the protocol layer sends many times. No request, downstream or credential
// contributes to it, but it still passes the same exact-value redaction as every other answer:
// JSON cleans it once per state of the registry and serves the cleaned bytes until a secret is
// registered, when the next call cleans it again, instead of scanning the same bytes for every
// request.
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

// JSON is the document with every registered value removed, as JSON(doc, nil) gives it; ok is
// false when it cannot be cleaned without breaking it. The result must not be modified.
func (c *Constant) JSON() (out []byte, ok bool) {
	reg := registry.exact.Load()
	if st := c.clean.Load(); st != nil && st.against == reg {
		return st.out, st.ok
	}
	out, ok = JSON(c.doc, nil)
	c.clean.Store(&cleaned{against: reg, out: out, ok: ok})
	return out, ok
}

// Within cleans an answer made of prefix, the document and suffix as JSON would clean the
// whole, and returns its three parts, to be written in that order: prefix and suffix (an
// envelope around the document, with the request's id) are cleaned on every call, the
// document's cleaned bytes are reused, and a registered value that spans a seam between them,
// which cleaning the parts apart cannot see, makes ok false so the answer is withheld. Only the
// seams are scanned (as far as a window of a registered value can reach in the longest
// spelling of each character), never the document again.
// doc must not be modified.
func (c *Constant) Within(prefix, suffix []byte) (head, doc, tail []byte, ok bool) {
	if doc, ok = c.JSON(); !ok {
		return nil, nil, nil, false
	}
	if head, ok = JSON(prefix, nil); !ok {
		return nil, nil, nil, false
	}
	if tail, ok = JSON(suffix, nil); !ok {
		return nil, nil, nil, false
	}
	if reg := registry.exact.Load(); reg != nil {
		n := reg.reach
		if seamHolds(reg, head, doc, n) || seamHolds(reg, doc, tail, n) {
			return nil, nil, nil, false
		}
	}
	// A marker in the envelope may stand where a token was (a value across the id and the
	// key after it): the answer must still be JSON.
	if (!bytes.Equal(head, prefix) || !bytes.Equal(tail, suffix)) && !json.Valid(slices.Concat(head, doc, tail)) {
		return nil, nil, nil, false
	}
	return head, doc, tail, true
}

// seamHolds reports a registered value within n bytes on each side of where a ends and b
// begins, which is where a value crossing the seam must lie.
func seamHolds(reg *Values, a, b []byte, n int) bool {
	window := string(a[len(a)-min(n, len(a)):]) + string(b[:min(n, len(b))])
	return reg.Replace(window) != window
}
