package redact

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/mindvault/mcp-endpoint/internal/redact/lazyre"
	"github.com/stellar/go-stellar-sdk/strkey"
)

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
