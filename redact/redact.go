// Package redact keeps secrets out of everything the endpoint writes: results, errors, log
// lines and metrics.
//
// It has two kinds of rules.
//
// Exact values. The process-wide registry (Register) holds every secret value the process
// knows: the environment's wallet secret and API key from boot on, every profile's wallet
// secret and API key as soon as a store hands the profile out, every bearer token that passed
// inbound auth, and whatever a tool learns (a new wallet's secret, a new publisher key). Values
// are added and never removed, so a secret cannot come back once a later call forgot to pass
// it on. Each value is matched in every form a downstream or an encoder can give it: as is,
// lower- and upper-cased, base64 (standard and URL alphabets, padded or not, and the inner
// characters that stay fixed when the value sits inside a longer base64 text at any byte
// alignment), hex (lower and upper case), and the URL-escaped and JSON-escaped spellings of
// each of those. Values shorter than MinLength runes are not registered: replacing a
// five-letter value everywhere would shred ordinary text, and no credential the endpoint
// handles is that short. The set is bounded (MaxValues values of at most MaxValueBytes
// each); Register refuses beyond that, and the credential stores then refuse to hand out the
// profile, so an unredactable secret is never used.
//
// Exact redaction is applied at the output boundaries, so no call site can forget it: the
// protocol layer's final response bytes (JSON), the log handler's output and the EMF metric
// lines. errmap also applies it before it cuts any text to length, so a cut never leaves half
// a secret behind that the boundary could no longer recognise.
//
// Shapes. Text that came from outside — a downstream's body, message or header, a thrown
// error's text — may carry secrets the process never saw: Stellar secret seeds ("S" + 55
// base32 characters), MindVault API keys ("mv_" + hex), "Bearer <token>", "authorization:
// <value>", passwords in URLs, and values of key=value / "key": "value" pairs whose key names
// a secret (api_key, x-api-key, secret, token, password, ...). External applies them all. The
// endpoint's own sentences (Own) get only the exact values and the two shapes that never occur
// in prose (seeds and mv_ keys): the pair rule would otherwise turn the product's own advice,
// such as "configure MINDVAULT_CREDENTIALS=dir:<path>", into "=[REDACTED]".
//
// Public identifiers — G account ids, C contract ids, muxed M addresses, 64-hex transaction
// hashes — are not secrets and stay visible.
package redact

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"
)

// Marker replaces every redacted value.
const Marker = "[REDACTED]"

// Bounds of the registry.
const (
	// MinLength is the shortest value (in runes) that is registered; shorter ones are ignored.
	MinLength = 6
	// MaxValues is how many distinct values the registry holds at most.
	MaxValues = 1 << 14
	// MaxValueBytes is the longest value accepted (a bearer token is at most 4096 bytes).
	MaxValueBytes = 4096
)

// Errors of Register.
var (
	ErrFull    = errors.New("redact: the process knows too many secrets to redact another")
	ErrTooLong = errors.New("redact: secret value too long to redact")
)

// maxValues is MaxValues; tests lower it.
var maxValues = MaxValues

// registry is the process-wide set of known secret values. The replacer is rebuilt (lazily,
// by strings.Replacer itself on first use) only when the set changes; readers load it
// atomically and never take the lock.
var registry struct {
	mu     sync.Mutex
	values map[string]struct{}
	exact  atomic.Pointer[Values]
}

// Register adds secret values to the process-wide set. Empty values and values shorter than
// MinLength runes are ignored. It fails, adding none of values, when one is longer than
// MaxValueBytes or when the set would exceed MaxValues.
func Register(values ...string) error {
	registry.mu.Lock()
	defer registry.mu.Unlock()
	if registry.values == nil {
		registry.values = map[string]struct{}{}
	}
	var add []string
	for _, v := range values {
		if utf8.RuneCountInString(v) < MinLength {
			continue
		}
		if len(v) > MaxValueBytes {
			return ErrTooLong
		}
		if _, known := registry.values[v]; !known && !slices.Contains(add, v) {
			add = append(add, v)
		}
	}
	if len(add) == 0 {
		return nil
	}
	if len(registry.values)+len(add) > maxValues {
		return ErrFull
	}
	all := make([]string, 0, len(registry.values)+len(add))
	for v := range registry.values {
		all = append(all, v)
	}
	for _, v := range add {
		registry.values[v] = struct{}{}
		all = append(all, v)
	}
	registry.exact.Store(NewValues(all))
	return nil
}

// Known reports whether v is a registered value.
func Known(v string) bool {
	registry.mu.Lock()
	defer registry.mu.Unlock()
	_, ok := registry.values[v]
	return ok
}

// Exact replaces every registered value, in every form, with Marker.
func Exact(s string) string {
	return registry.exact.Load().Replace(s)
}

// Own redacts one of the endpoint's own sentences: registered values and the shapes that never
// occur in prose (secret seeds, mv_ keys). Advice such as "set MINDVAULT_API_KEY=<key>" survives.
func Own(s string) string {
	return Unambiguous(Exact(s))
}

// External redacts text that came from outside the endpoint: registered values and every shape.
func External(s string) string {
	return Shapes(Exact(s))
}

// Values is a fixed set of secret values compiled for replacement; nil replaces nothing.
type Values struct {
	r       *strings.Replacer
	longest int // bytes of the longest form replaced
	// keys has a bit set for the hash of every form's bytes 0-3 (keys[0]) and 2-5 (keys[1]);
	// nil when some form is shorter than six bytes, and every text goes to the replacer. A
	// text with no position where both hit holds no form and skips the replacer, which
	// allocates twice the text and looks up a trie at almost every byte: that is almost every
	// log field, id and answer.
	keys *[2][keyBits / 64]uint64
}

// keyBits is the size of each Values.keys table: with a few hundred forms, a position of an
// unrelated text hits both tables about once in a hundred thousand.
const keyBits = 1 << 16

func keyHash(s string) uint32 {
	x := uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24
	return (x * 2654435761) >> 16 // Fibonacci hashing onto keyBits
}

// NewValues compiles values (with all their forms) for Replace; values shorter than MinLength
// runes are ignored. It returns nil when nothing is left.
func NewValues(values []string) *Values {
	forms := variants(values)
	if len(forms) == 0 {
		return nil
	}
	pairs := make([]string, 0, 2*len(forms))
	v := &Values{keys: new([2][keyBits / 64]uint64)}
	for _, f := range forms {
		pairs = append(pairs, f, Marker)
		v.longest = max(v.longest, len(f))
		if len(f) < 6 {
			v.keys = nil
		} else if v.keys != nil {
			a, b := keyHash(f), keyHash(f[2:])
			v.keys[0][a/64] |= 1 << (a % 64)
			v.keys[1][b/64] |= 1 << (b % 64)
		}
	}
	v.r = strings.NewReplacer(pairs...)
	return v
}

// Replace returns s with every form of every value replaced by Marker.
func (v *Values) Replace(s string) string {
	if v == nil || s == "" || !v.mayHold(s) {
		return s
	}
	return v.r.Replace(s)
}

// mayHold is false only when s holds no form: where a form starts, bytes 0-3 and 2-5 hash to
// bits set in keys.
func (v *Values) mayHold(s string) bool {
	if v.keys == nil {
		return true
	}
	for i := 0; i+6 <= len(s); i++ {
		if a := keyHash(s[i:]); v.keys[0][a/64]&(1<<(a%64)) != 0 {
			if b := keyHash(s[i+2:]); v.keys[1][b/64]&(1<<(b%64)) != 0 {
				return true
			}
		}
	}
	return false
}

// variants returns every form of every value, longest first: strings.Replacer tries its
// patterns in argument order at each position, so the longest form wins and a value that
// contains another one is replaced whole instead of leaving its tail behind.
func variants(values []string) []string {
	seen := map[string]bool{}
	var out []string
	add := func(f string) {
		if f != "" && !seen[f] && f != Marker {
			seen[f] = true
			out = append(out, f)
		}
	}
	escaped := func(f string) {
		add(f)
		add(url.QueryEscape(f))
		add(url.PathEscape(f))
		add(jsonEscape(f, true))
		add(jsonEscape(f, false))
	}
	for _, v := range values {
		if utf8.RuneCountInString(v) < MinLength {
			continue
		}
		b := []byte(v)
		escaped(v)
		escaped(strings.ToLower(v))
		escaped(strings.ToUpper(v))
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.RawURLEncoding} {
			escaped(enc.EncodeToString(b))
		}
		for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
			for shift := 0; shift < 3; shift++ {
				escaped(base64Core(enc, b, shift))
			}
		}
		h := hex.EncodeToString(b)
		escaped(h)
		escaped(strings.ToUpper(h))
	}
	slices.SortFunc(out, func(a, b string) int {
		if len(a) != len(b) {
			return len(b) - len(a)
		}
		return strings.Compare(a, b)
	})
	return out
}

// base64Core is the part of the base64 text of "shift unknown bytes + b + anything" that
// depends on b alone, so b is found inside a longer encoded text (a Basic credential, a JSON
// blob, a header value) at any byte alignment. Cores shorter than MinLength are dropped.
func base64Core(enc *base64.Encoding, b []byte, shift int) string {
	buf := make([]byte, shift+len(b)+2)
	copy(buf[shift:], b)
	s := enc.EncodeToString(buf)
	// Character j covers bits [6j, 6j+6); keep those inside the bits of b.
	lo, hi := (8*shift+5)/6, (8*(shift+len(b)))/6
	if hi-lo < MinLength || hi > len(s) {
		return ""
	}
	return s[lo:hi]
}

func jsonEscape(s string, html bool) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(html)
	if enc.Encode(s) != nil {
		return ""
	}
	out := strings.TrimSuffix(b.String(), "\n")
	return strings.TrimSuffix(strings.TrimPrefix(out, `"`), `"`)
}
