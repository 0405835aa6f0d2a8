package errmap

import "github.com/mindvault/mcp-endpoint/internal/redact"

// Redactor removes secrets from the strings of one failure: the values of the process-wide
// registry (package redact) plus the secrets of this call, in every encoded form, and the
// secret shapes. The zero value and nil use the registry alone.
type Redactor struct {
	extra *redact.Values
}

// NewRedactor prepares redaction of the given exact secret values on top of the registry's.
func NewRedactor(secrets []string) *Redactor {
	return &Redactor{extra: redact.NewValues(secrets)}
}

// Redact returns s, text from outside the endpoint, with every known secret and every
// secret-shaped value replaced by [REDACTED].
func (r *Redactor) Redact(s string) string {
	if s == "" {
		return s
	}
	// Exact values first, so a known secret disappears whole before a shape rule can split it.
	return redact.Shapes(r.exact(s))
}

// exact replaces the known values only.
func (r *Redactor) exact(s string) string {
	s = redact.Exact(s)
	if r != nil {
		s = r.extra.Replace(s)
	}
	return s
}

// own redacts one of the endpoint's own sentences: known values and the shapes that never
// occur in prose, so advice such as "configure MINDVAULT_CREDENTIALS=dir:<path>" survives.
func (r *Redactor) own(s string) string {
	return redact.Unambiguous(r.exact(s))
}
