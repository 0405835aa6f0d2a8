package redact

import (
	"fmt"
	"io"
	"log/slog"
)

// Secret holds a secret value that prints as Marker however it is formatted (every fmt verb,
// %#v too), logged (slog) or encoded (encoding/json, encoding.TextMarshaler), so it cannot
// reach an answer or a log line by formatting; Reveal gives the value to the one call that
// uses it. Registering it for the scan of downstream text stays the holder's job (Register).
//
// The value sits behind a pointer: fmt prints a struct's unexported fields by reflection,
// without their methods, so a Secret held in one shows an address, never the value.
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
