package redact

import (
	"encoding/base32"
	"strings"

	"github.com/mindvault/mcp-endpoint/internal/redact/lazyre"
)

// Shapes replaces every secret-shaped value in s with Marker: secret seeds, mv_ keys, URL
// passwords, Bearer tokens, authorization values and the values of secret-named pairs. It is
// for text that came from outside; the endpoint's own sentences use Unambiguous.
//
// Each pattern runs only on a text that holds a word every match of it contains (a log
// attribute or an error's text almost never does), so most calls compile and run none of them.
// The patterns fold case, and Unicode folding maps K (Kelvin sign) to k and ſ (long s) to s, so
// a text with any non-ASCII byte goes to every pattern.
func Shapes(s string) string {
	if s == "" {
		return s
	}
	s = Unambiguous(s)
	all := !isASCII(s) // the replacements below keep an ASCII text ASCII
	if all || (containsFoldASCII(s, "://") && strings.IndexByte(s, '@') >= 0) {
		s = urlUserRE.ReplaceAllString(s, "${1}"+Marker+"@")
	}
	if all || containsFoldASCII(s, "bearer") {
		s = bearerRE.ReplaceAllString(s, "${1} "+Marker)
	}
	if all || containsFoldASCII(s, "authorization") {
		s = authzRE.ReplaceAllString(s, "${1}"+Marker)
	}
	if all || containsAnyFoldASCII(s, pairWords) {
		s = pairRE.ReplaceAllString(s, "${1}${2}"+Marker)
	}
	return s
}

// pairWords are lower-case words one of which every key pairRE matches contains: each of its
// alternatives holds key, secret, token, passw, credential or signature.
var pairWords = []string{"key", "secret", "token", "passw", "credential", "signature"}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// containsFoldASCII reports whether s contains the lower-case ASCII word w in any ASCII case,
// without allocating.
func containsFoldASCII(s, w string) bool {
	for i := 0; i+len(w) <= len(s); i++ {
		j := 0
		for ; j < len(w); j++ {
			c := s[i+j]
			if c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != w[j] {
				break
			}
		}
		if j == len(w) {
			return true
		}
	}
	return false
}

func containsAnyFoldASCII(s string, words []string) bool {
	for _, w := range words {
		if containsFoldASCII(s, w) {
			return true
		}
	}
	return false
}

// Unambiguous replaces the two shapes that never occur in prose: Stellar secret seeds and
// MindVault API keys.
func Unambiguous(s string) string {
	if s == "" {
		return s
	}
	s = Seeds(s)
	if !strings.Contains(s, "mv_") { // the key pattern's literal prefix (it does not fold case)
		return s
	}
	return mvKeyRE.ReplaceAllString(s, Marker)
}

var (
	// MindVault API keys: "mv_" + hex; trailing word characters go too so no fragment survives.
	mvKeyRE = lazyre.New(`mv_[0-9A-Fa-f]{16,}[0-9A-Za-z_-]*`)
	// Passwords in URLs (scheme://user:password@host).
	urlUserRE = lazyre.New(`(?i)\b([a-z][a-z0-9+.-]*://[^\s/:@?#]+:)[^\s@/?#]+@`)
	// "Bearer <token>" anywhere (headers, echoed requests, prose).
	bearerRE = lazyre.New(`(?i)\b(bearer)\s+[A-Za-z0-9\-._~+/]+=*`)
	// "authorization: <scheme> <value>": the scheme is optional and swallowed with the value so a
	// Basic or Digest credential does not survive behind its scheme word.
	authzRE = lazyre.New(`(?i)(\b(?:proxy-)?authorization\\?"?\s*[:=]\s*\\?"?)(?:[A-Za-z][A-Za-z0-9_-]*[ \t]+)?[^\s"'&,;\\]+`)
	// key=value / key: value / "key":"value" pairs whose key names a secret (x-api-key, api_key,
	// client_secret, access_token, password, ...); the value runs to whitespace, quote, &, comma or semicolon.
	pairRE = lazyre.New(`(?i)([A-Za-z0-9_.-]*(?:api[_-]?key|apikey|(?:secret|private|api)[ ]key|secret|token|password|passwd|private[_-]?key|credential|signature)[A-Za-z0-9_-]*)(\\?"?\s*[:=]\s*\\?"?)([^\s"'&,;\\]+)`)
)

// Seeds removes Stellar secret seeds ("S" + 55 base32 characters). It works on maximal runs
// of the base32 alphabet rather than on word boundaries, so a seed glued to letters or digits is
// still caught, while public ids keep their shape: G/C ids are 56 characters and do not start with
// S, and muxed M-addresses are exactly 69 with a valid checksum (checked, because a muxed-looking
// run could otherwise hide a seed behind an "M" and twelve characters).
func Seeds(s string) string {
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); {
		if !isBase32(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && isBase32(s[j]) {
			j++
		}
		if seedRun(s[i:j]) {
			if last == 0 {
				b.Grow(len(s))
			}
			b.WriteString(s[last:i])
			b.WriteString(Marker)
			last = j
		}
		i = j
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

func isBase32(c byte) bool {
	return (c >= 'A' && c <= 'Z') || (c >= '2' && c <= '7')
}

func seedRun(run string) bool {
	n := len(run)
	switch {
	case n < 56:
		return false
	case n == 56:
		return run[0] == 'S'
	case n == 69 && run[0] == 'M' && validMuxed(run):
		return false
	}
	// A longer run is no public id: redact it whole if a seed could hide anywhere in it.
	return strings.IndexByte(run[:n-55], 'S') >= 0
}

var strkeyEncoding = base32.StdEncoding.WithPadding(base32.NoPadding)

// validMuxed checks a muxed account strkey: version byte 12<<3, 32-byte key, 8-byte id, and the
// CRC16-XModem checksum (little-endian) over the rest.
func validMuxed(s string) bool {
	raw, err := strkeyEncoding.DecodeString(s)
	if err != nil || len(raw) != 43 || raw[0] != 12<<3 {
		return false
	}
	sum := crc16XModem(raw[:41])
	return raw[41] == byte(sum) && raw[42] == byte(sum>>8)
}

func crc16XModem(data []byte) uint16 {
	var crc uint16
	for _, b := range data {
		crc ^= uint16(b) << 8
		for i := 0; i < 8; i++ {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x1021
			} else {
				crc <<= 1
			}
		}
	}
	return crc
}
