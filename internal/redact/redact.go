// Package redact keeps secrets out of answers, errors, log lines and metrics (docs/security.md
// "Secrets"): every secret the process knows is registered for good and removed in any form
// by Exact and JSON; Shapes removes what looks like a secret the process never saw from text
// that came from outside; a Secret prints as Marker however it is formatted.
package redact

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/stellar/go-stellar-sdk/strkey"

	"github.com/mindvault/mcp-endpoint/internal/redact/lazyre"
)

// Marker replaces every redacted value.
const Marker = "[REDACTED]"

// Bounds of the registry.
const (
	MinLength     = 6    // the shortest value registered, in runes; a shorter one would shred text
	MaxValueBytes = 4096 // the longest value accepted (a bearer token is at most 4096 bytes)
)

// Errors of Register.
var (
	ErrFull    = errors.New("redact: the process knows too many secrets to redact another")
	ErrTooLong = errors.New("redact: secret value too long to redact")
)

var (
	maxValues = 1 << 14 // how many distinct values the registry holds at most (tests lower it)
	// registry is every secret the process knows; readers load the compiled set without the lock.
	registry struct {
		mu     sync.Mutex
		values map[string]struct{}
		exact  atomic.Pointer[Values]
	}
)

// Register adds values (those of at least MinLength runes) to the process-wide set; it adds none when one is longer than MaxValueBytes or the set would exceed maxValues.
func Register(values ...string) error {
	registry.mu.Lock()
	defer registry.mu.Unlock()
	var add []string
	for _, v := range values {
		if len(v) > MaxValueBytes {
			return ErrTooLong
		}
		if _, known := registry.values[v]; !known && !slices.Contains(add, v) && utf8.RuneCountInString(v) >= MinLength {
			add = append(add, v)
		}
	}
	if len(registry.values)+len(add) > maxValues {
		return ErrFull
	} else if registry.values == nil {
		registry.values = map[string]struct{}{}
	}
	for _, v := range add {
		registry.values[v] = struct{}{}
	}
	registry.exact.Store(registry.exact.Load().with(NewValues(add))) // the same set when add is empty
	return nil
}

// Unregistered compiles the values the registry does not hold (it refused them when full), or nil when it holds them all.
func Unregistered(values []string) *Values {
	registry.mu.Lock()
	defer registry.mu.Unlock()
	return NewValues(slices.DeleteFunc(slices.Clone(values), func(v string) bool {
		_, known := registry.values[v]
		return known
	}))
}

// Exact replaces every registered value, in every form, with Marker.
func Exact(s string) string { return registry.exact.Load().Replace(s) }

// Own redacts one of the endpoint's own sentences: registered values and the shapes that never
// occur in prose (secret seeds, mv_ keys). Advice such as "set MINDVAULT_API_KEY=<key>" survives.
func Own(s string) string { return Unambiguous(Exact(s)) }

// External redacts text that came from outside the endpoint: registered values and every shape.
func External(s string) string { return Shapes(Exact(s)) }

// Shapes replaces every secret-shaped value in text from outside with Marker: secret seeds,
// mv_ keys, URL passwords, Bearer tokens, authorization values and secret-named pairs. A pattern
// runs only on a text that holds one of its words, so most calls compile and run none; the
// patterns fold case, and Unicode folds K (Kelvin) to k and ſ to s, so a text with any
// non-ASCII byte goes to every pattern.
func Shapes(s string) string {
	s = Unambiguous(s)
	all, lower := strings.IndexFunc(s, func(r rune) bool { return r >= utf8.RuneSelf }) >= 0, strings.ToLower(s)
	for _, p := range shapes { // each keeps an ASCII text ASCII
		if all || slices.ContainsFunc(p.words, func(w string) bool { return strings.Contains(lower, w) }) {
			s = p.re.ReplaceAllString(s, p.repl)
		}
	}
	return s
}

// Unambiguous replaces the shapes that never occur in prose: secret seeds and mv_ API keys.
func Unambiguous(s string) string {
	if s = Seeds(s); !strings.Contains(s, "mv_") { // the key pattern's literal prefix (it does not fold case)
		return s
	}
	return mvKeyRE.ReplaceAllString(s, Marker)
}

// MindVault API keys: "mv_" + hex; trailing word characters go too so no fragment survives.
var mvKeyRE = lazyre.New(`mv_[0-9A-Fa-f]{16,}[0-9A-Za-z_-]*`)

// shapes are the patterns of Shapes, each with the words one of which every match holds.
var shapes = []struct {
	re    *lazyre.Regexp
	repl  string
	words []string
}{
	// Passwords in URLs (scheme://user:password@host).
	{lazyre.New(`(?i)\b([a-z][a-z0-9+.-]*://[^\s/:@?#]+:)[^\s@/?#]+@`), "${1}" + Marker + "@", []string{"://"}},
	// "Bearer <token>" anywhere (headers, echoed requests, prose).
	{lazyre.New(`(?i)\b(bearer)\s+[A-Za-z0-9\-._~+/]+=*`), "${1} " + Marker, []string{"bearer"}},
	// "authorization: <scheme> <value>": the scheme is optional and swallowed with the value so a
	// Basic or Digest credential does not survive behind its scheme word.
	{lazyre.New(`(?i)(\b(?:proxy-)?authorization\\?"?\s*[:=]\s*\\?"?)(?:[A-Za-z][A-Za-z0-9_-]*[ \t]+)?[^\s"'&,;\\]+`), "${1}" + Marker, []string{"authorization"}},
	// key=value / key: value / "key":"value" pairs whose key names a secret (x-api-key, api_key,
	// client_secret, access_token, password, ...); the value runs to whitespace, quote, &, comma or semicolon.
	{lazyre.New(`(?i)([A-Za-z0-9_.-]*(?:api[_-]?key|apikey|(?:secret|private|api)[ ]key|secret|token|password|passwd|private[_-]?key|credential|signature)[A-Za-z0-9_-]*)(\\?"?\s*[:=]\s*\\?"?)([^\s"'&,;\\]+)`),
		"${1}${2}" + Marker, []string{"key", "secret", "token", "passw", "credential", "signature"}},
}

// Seeds removes Stellar secret seeds ("S" + 55 base32 characters) from maximal runs of the
// base32 alphabet, so a seed glued to letters or digits is caught, while public ids keep their
// shape: G/C ids are 56 characters and do not start with S, and muxed M-addresses are 69 with a
// valid checksum (checked: a muxed-looking run could hide a seed behind "M" and 12 characters).
func Seeds(s string) string {
	var found []region
	for i, j := 0, 0; i < len(s); i = j + 1 {
		for j = i; j < len(s) && (s[j] >= 'A' && s[j] <= 'Z' || s[j] >= '2' && s[j] <= '7'); j++ {
		}
		if seedRun(s[i:j]) {
			found = append(found, region{i, j})
		}
	}
	return splice(s, found)
}

func seedRun(run string) bool {
	switch n := len(run); {
	case n < 56:
		return false
	case n == 56:
		return run[0] == 'S'
	case n == 69 && strkey.IsValidMuxedAccountEd25519PublicKey(run):
		return false
	default: // a longer run is no public id: redact it whole if a seed could hide anywhere in it
		return strings.IndexByte(run[:n-55], 'S') >= 0
	}
}

// JSON removes every registered value, and every value of extra, from an encoded JSON document
// (JSON inside a JSON string is read through its escapes). ok is false when the document was
// valid and the replacement broke it (a value in a number): withhold it then.
func JSON(doc []byte, extra *Values) (out []byte, ok bool) {
	s := string(doc)
	r := extra.Replace(registry.exact.Load().Replace(s)) // extra is nil unless the registry was full
	if r == s {
		return doc, true
	}
	out = []byte(r)
	if !json.Valid(out) && json.Valid(bytes.TrimSpace(doc)) {
		return nil, false
	}
	return out, true
}

// Secret holds a value that prints as Marker however it is formatted, logged or encoded;
// registering it stays the holder's job. The value sits behind a pointer because fmt prints a
// struct's unexported fields by reflection, without their methods.
type Secret struct{ p *string }

// NewSecret wraps v.
func NewSecret(v string) Secret { return Secret{&v} }

// Reveal returns the value.
func (s Secret) Reveal() string {
	if s.p == nil {
		return ""
	}
	return *s.p
}

// IsZero reports whether s holds nothing.
func (s Secret) IsZero() bool { return s.Reveal() == "" }

// String returns Marker.
func (s Secret) String() string { return Marker }

// GoString returns Marker, for code that asks a fmt.GoStringer directly rather than through fmt.
func (s Secret) GoString() string { return Marker }

// Format writes Marker for every verb.
func (s Secret) Format(f fmt.State, _ rune) { _, _ = io.WriteString(f, Marker) }

// LogValue returns Marker.
func (s Secret) LogValue() slog.Value { return slog.StringValue(Marker) }

// MarshalJSON returns Marker as a JSON string.
func (s Secret) MarshalJSON() ([]byte, error) { return []byte(`"` + Marker + `"`), nil }

// MarshalText returns Marker.
func (s Secret) MarshalText() ([]byte, error) { return []byte(Marker), nil }

// Constant is an encoded JSON document built from the code alone (a tool list) that the
// protocol layer sends many times, cleaned once per state of the registry.
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

// Within cleans prefix + document + suffix as JSON would clean the whole, and returns the three
// parts; the document is cleaned once per state of the registry and must not be modified. A
// registered value across a seam, which cleaning the parts apart cannot see, makes ok false
// (the answer is withheld): the seams are scanned again as far as a window of the longest
// spellings reaches.
func (c *Constant) Within(prefix, suffix []byte) (head, doc, tail []byte, ok bool) {
	st := c.clean.Load()
	if reg := registry.exact.Load(); st == nil || st.against != reg {
		st = &cleaned{against: reg}
		st.out, st.ok = JSON(c.doc, nil)
		c.clean.Store(st)
	}
	doc, ok = st.out, st.ok
	head, okHead := JSON(prefix, nil)
	tail, okTail := JSON(suffix, nil)
	if reg, n := registry.exact.Load(), Window*maxSpell; !ok || !okHead || !okTail ||
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
