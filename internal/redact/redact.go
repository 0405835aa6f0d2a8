// Package redact keeps secrets out of everything the endpoint writes: results, errors, log
// lines and metrics. The rule and the forms it covers are in docs/security.md "Secrets".
//
// Exact values: the process-wide registry (Register) holds every secret the process knows;
// they are never removed. Exact and JSON apply them, once per answer at the protocol layer's
// output boundary, and on every log line and metric line.
//
// Shapes: text from outside may carry secrets the process never saw (seeds, mv_ keys, bearer
// tokens, secret-named pairs). External applies them all; Own, for the endpoint's own
// sentences, only those that never occur in prose. Public identifiers stay visible.
//
// Typed secrets: a Secret prints as Marker however it is formatted, logged or encoded.
package redact

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"unicode/utf8"
)

// Marker replaces every redacted value.
const Marker = "[REDACTED]"

// Bounds of the registry.
const (
	MinLength     = 6       // the shortest value registered, in runes; a shorter one would shred text
	MaxValues     = 1 << 14 // how many distinct values the registry holds at most
	MaxValueBytes = 4096    // the longest value accepted (a bearer token is at most 4096 bytes)
)

// Errors of Register.
var (
	ErrFull    = errors.New("redact: the process knows too many secrets to redact another")
	ErrTooLong = errors.New("redact: secret value too long to redact")
)

var (
	maxValues = MaxValues // tests lower it
	// registry is the process-wide set of known secret values; readers load the compiled set
	// atomically and never take the lock.
	registry struct {
		mu     sync.Mutex
		values map[string]struct{}
		exact  atomic.Pointer[Values]
	}
)

// Register adds values (those of at least MinLength runes) to the process-wide set; it adds none when one is longer than MaxValueBytes or the set would exceed MaxValues.
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
	if len(add) == 0 {
		return nil
	} else if len(registry.values)+len(add) > maxValues {
		return ErrFull
	}
	if registry.values == nil {
		registry.values = map[string]struct{}{}
	}
	for _, v := range add {
		registry.values[v] = struct{}{}
	}
	// Only the new values are hashed; their windows are merged into the sorted set.
	registry.exact.Store(registry.exact.Load().with(NewValues(add)))
	return nil
}

// Known reports whether v is a registered value.
func Known(v string) bool {
	registry.mu.Lock()
	defer registry.mu.Unlock()
	_, ok := registry.values[v]
	return ok
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

// JSON removes every registered value, and every value of extra, from an encoded JSON document
// in one pass (JSON inside a JSON string is read through its escapes). ok is false when the
// document was valid and the replacement broke it (a value in a number): withhold it then.
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

// Secret holds a secret value that prints as Marker however it is formatted (every fmt verb,
// %#v too), logged (slog) or encoded (JSON, text), so it cannot reach an answer or a log line
// by formatting; Reveal gives the value to the one call that uses it, and registering it stays
// the holder's job. The value sits behind a pointer: fmt prints a struct's unexported fields by
// reflection, without their methods, so a Secret held in one shows an address, never the value.
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

// GoString returns Marker.
func (s Secret) GoString() string { return Marker }

// Format writes Marker for every verb.
func (s Secret) Format(f fmt.State, _ rune) { _, _ = io.WriteString(f, Marker) }

// LogValue returns Marker.
func (s Secret) LogValue() slog.Value { return slog.StringValue(Marker) }

// MarshalJSON returns Marker as a JSON string.
func (s Secret) MarshalJSON() ([]byte, error) { return []byte(`"` + Marker + `"`), nil }

// MarshalText returns Marker.
func (s Secret) MarshalText() ([]byte, error) { return []byte(Marker), nil }
