// Package redact keeps secrets out of everything the endpoint writes: results, errors, log
// lines and metrics.
//
// The rule (docs/security.md): no stretch of Window (16) or more consecutive characters of a
// secret the process holds leaves it, in any form a downstream plausibly echoes it: as is, in
// any letter case, percent-encoded (once or twice, either hex case), form-encoded, as HTML
// entities or JSON escapes, as base64, base64url or hex of the secret at any byte alignment,
// in full-width form (as NFKC reads it) or with spaces, dashes or dots between its characters.
// A secret shorter than Window is matched whole; one shorter than MinLength is not registered.
//
// Exact values. The process-wide registry (Register) holds every secret value the process
// knows (the environment's and every profile's wallet secret and API key, every bearer token
// that passed inbound auth, the confirmation key, what a tool learns). Values are added and
// never removed. Exact applies them; it runs once per answer at the protocol layer's output
// boundary, on every log line and on every metric line. The set is bounded (MaxValues values
// of at most MaxValueBytes each) and Register refuses beyond that.
//
// Shapes. Text from outside may carry secrets the process never saw: Stellar secret seeds,
// mv_ keys, "Bearer <token>", authorization values, URL passwords and secret-named pairs.
// External applies them all; Own, for the endpoint's own sentences, only the two shapes that
// never occur in prose (seeds and mv_ keys). Public identifiers (G, C and M addresses,
// transaction hashes) stay visible.
//
// Typed secrets. Secret holds a value that prints as a placeholder however it is formatted,
// logged or encoded, so it cannot reach an answer or a log line by accident.
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

// Unregistered compiles the values the registry does not hold (it refused them when full), or
// returns nil when it holds them all: only those need a pass of their own.
func Unregistered(values []string) *Values {
	registry.mu.Lock()
	defer registry.mu.Unlock()
	var out []string
	for _, v := range values {
		if _, known := registry.values[v]; !known {
			out = append(out, v)
		}
	}
	return NewValues(out)
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
