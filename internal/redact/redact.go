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
// it on. Each value is matched in every form a downstream or an encoder can give it: its text
// (as is, or lower- or upper-cased whole), its base64 (standard and URL alphabets, padded or
// not, and the inner characters that stay fixed when the value sits inside a longer base64
// text at any byte alignment), its base32 (the same, in either case) and its hex (any case,
// mixed too), each found whatever escapes spell its characters, one by one and in any mix:
// percent-encoding (upper- or lower-case hex, every character or only some, "+" or %20 for a
// space, encoded twice or three times), HTML entities (named, decimal, hex, escaped twice),
// JSON and JavaScript escapes (\uXXXX, \/, \xHH, escaped twice), and those escapes
// percent-encoded in turn. A text that holds the first eight characters of a value or more (a
// key split across two messages, or cut short) loses that run too, as is or escaped, and so
// does an encoding of it lose the characters those eight determine. Values shorter than
// MinLength runes are not registered: replacing a five-letter value everywhere would shred
// ordinary text, and no credential the endpoint handles is that short. The set is bounded
// (MaxValues values of at most MaxValueBytes each); Register refuses beyond that, and the
// credential stores then refuse to hand out the profile, so an unredactable secret is never
// used.
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
	"errors"
	"slices"
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

// registry is the process-wide set of known secret values. Their compiled Values are rebuilt
// only when the set changes; readers load them atomically and never take the lock.
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
