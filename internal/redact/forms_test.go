package redact

import (
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"html"
	"net/url"
	"strings"
	"testing"
)

// issueKey is the API key of the report: every character class an escaper treats differently
// (/, +, &, <, >) in a value no shape rule recognises.
const issueKey = "Qx7/Lm+Tz&Rk<9>Pw"

// encoding spells a whole secret the way some encoder or downstream does.
type encoding struct {
	name string
	enc  func(string) string
}

// percentEvery escapes every byte, with the given hex digits.
func percentEvery(s, digits string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		b.WriteByte('%')
		b.WriteByte(digits[s[i]>>4])
		b.WriteByte(digits[s[i]&15])
	}
	return b.String()
}

// percentExcept escapes every byte except ASCII letters, digits and keep (what JavaScript's
// encodeURIComponent and encodeURI, and Python's quote, leave alone).
func percentExcept(s, keep string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x80 && (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte(keep, c) >= 0) {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// lowerEscapes lower-cases the hex digits of every %XX escape (and nothing else).
func lowerEscapes(s string) string {
	b := []byte(s)
	for i := 0; i+2 < len(b); i++ {
		if b[i] == '%' {
			b[i+1], b[i+2] = lowerByte(b[i+1]), lowerByte(b[i+2])
		}
	}
	return string(b)
}

func lowerByte(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// mixedCase alternates the case of every letter.
func mixedCase(s string) string {
	b := []byte(s)
	n := 0
	for i, c := range b {
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
			if n%2 == 0 {
				b[i] = lowerByte(c)
			} else {
				b[i] = strings.ToUpper(string(c))[0]
			}
			n++
		}
	}
	return string(b)
}

// entities spells every rune that is not an ASCII letter or digit (or every rune, when all)
// as a numeric entity in the given format.
func entities(s, format string, all bool) string {
	var b strings.Builder
	for _, r := range s {
		if !all && r < 0x80 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else {
			fmt.Fprintf(&b, format, r)
		}
	}
	return b.String()
}

// jsonEvery spells every rune as a \uXXXX escape (surrogate pairs beyond the BMP).
func jsonEvery(s, format string) string {
	var b strings.Builder
	for _, r := range s {
		if r > 0xFFFF {
			r -= 0x10000
			fmt.Fprintf(&b, format+format, 0xD800+(r>>10), 0xDC00+(r&0x3FF))
			continue
		}
		fmt.Fprintf(&b, format, r)
	}
	return b.String()
}

func jsonString(s string, escapeHTML bool) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(escapeHTML)
	_ = enc.Encode(s)
	return strings.TrimSuffix(strings.TrimSuffix(strings.TrimPrefix(b.String(), `"`), "\n"), `"`)
}

var b32 = base32.StdEncoding

var encodings = []encoding{
	{"as is", func(s string) string { return s }},
	{"lower case", strings.ToLower},
	{"upper case", strings.ToUpper},
	{"query escaped", url.QueryEscape},
	{"query escaped, lower-case hex", func(s string) string { return lowerEscapes(url.QueryEscape(s)) }},
	{"query escaped, %20 for spaces", func(s string) string { return strings.ReplaceAll(url.QueryEscape(s), "+", "%20") }},
	{"path escaped", url.PathEscape},
	{"path escaped, lower-case hex", func(s string) string { return lowerEscapes(url.PathEscape(s)) }},
	{"encodeURIComponent", func(s string) string { return percentExcept(s, "-_.!~*'()") }},
	{"encodeURI", func(s string) string { return percentExcept(s, "-_.!~*'();/?:@&=+$,#") }},
	{"python quote", func(s string) string { return percentExcept(s, "_.-~/") }},
	{"every character percent-encoded", func(s string) string { return percentEvery(s, "0123456789ABCDEF") }},
	{"every character percent-encoded, lower-case hex", func(s string) string { return percentEvery(s, "0123456789abcdef") }},
	{"every character percent-encoded, mixed-case hex", func(s string) string { return mixedCase(percentEvery(s, "0123456789abcdef")) }},
	{"double percent-encoded", func(s string) string { return url.QueryEscape(url.QueryEscape(s)) }},
	{"double percent-encoded, lower-case hex", func(s string) string { return lowerEscapes(url.QueryEscape(url.QueryEscape(s))) }},
	{"double every-character percent-encoded", func(s string) string { return url.QueryEscape(percentEvery(s, "0123456789abcdef")) }},
	{"form-encoded", func(s string) string { return strings.TrimPrefix(url.Values{"k": {s}}.Encode(), "k=") }},
	{"form-encoded, lower-case hex", func(s string) string { return lowerEscapes(strings.TrimPrefix(url.Values{"k": {s}}.Encode(), "k=")) }},
	{"HTML escaped", html.EscapeString},
	{"HTML named entities", func(s string) string {
		return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&apos;", "/", "&sol;", "+", "&plus;").Replace(s)
	}},
	{"HTML upper-case named entities", func(s string) string {
		return strings.NewReplacer("&", "&AMP;", "<", "&LT;", ">", "&GT;", `"`, "&QUOT;").Replace(s)
	}},
	{"HTML decimal entities", func(s string) string { return entities(s, "&#%d;", false) }},
	{"HTML zero-padded decimal entities", func(s string) string { return entities(s, "&#%03d;", false) }},
	{"HTML hex entities", func(s string) string { return entities(s, "&#x%x;", false) }},
	{"HTML upper-case hex entities", func(s string) string { return entities(s, "&#X%X;", false) }},
	{"HTML entities for every character", func(s string) string { return entities(s, "&#%d;", true) }},
	{"HTML hex entities for every character", func(s string) string { return entities(s, "&#x%x;", true) }},
	{"HTML escaped twice", func(s string) string { return html.EscapeString(html.EscapeString(s)) }},
	{"JSON escaped", func(s string) string { return jsonString(s, true) }},
	{"JSON escaped without HTML escapes", func(s string) string { return jsonString(s, false) }},
	{"JSON with escaped slashes", func(s string) string { return strings.ReplaceAll(jsonString(s, true), "/", `\/`) }},
	{"JSON upper-case \\u escapes", func(s string) string { return strings.ToUpper(jsonString(s, true)) }},
	{"JSON \\u escapes for every character", func(s string) string { return jsonEvery(s, `\u%04x`) }},
	{"JSON \\u escapes for every character, upper case", func(s string) string { return jsonEvery(s, `\u%04X`) }},
	{"JSON escaped twice", func(s string) string { return jsonString(jsonString(s, true), true) }},
	{"\\x escapes", func(s string) string { return strings.ReplaceAll(percentEvery(s, "0123456789abcdef"), "%", `\x`) }},
	{"percent-encoded then HTML escaped", func(s string) string { return html.EscapeString(url.PathEscape(s)) }},
	{"HTML escaped then percent-encoded", func(s string) string { return url.QueryEscape(html.EscapeString(s)) }},
	{"base64", func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }},
	{"base64 unpadded", func(s string) string { return base64.RawStdEncoding.EncodeToString([]byte(s)) }},
	{"base64url", func(s string) string { return base64.URLEncoding.EncodeToString([]byte(s)) }},
	{"base64url unpadded", func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }},
	{"base64 in a query", func(s string) string { return url.QueryEscape(base64.StdEncoding.EncodeToString([]byte(s))) }},
	{"base64 in a query, lower-case hex", func(s string) string {
		return lowerEscapes(url.QueryEscape(base64.StdEncoding.EncodeToString([]byte(s))))
	}},
	{"base32", func(s string) string { return b32.EncodeToString([]byte(s)) }},
	{"base32 unpadded", func(s string) string { return b32.WithPadding(base32.NoPadding).EncodeToString([]byte(s)) }},
	{"base32 lower case", func(s string) string { return strings.ToLower(b32.EncodeToString([]byte(s))) }},
	{"base32 in a query", func(s string) string { return url.QueryEscape(b32.EncodeToString([]byte(s))) }},
	{"hex", func(s string) string { return hex.EncodeToString([]byte(s)) }},
	{"hex upper case", func(s string) string { return strings.ToUpper(hex.EncodeToString([]byte(s))) }},
	{"hex mixed case", func(s string) string { return mixedCase(hex.EncodeToString([]byte(s))) }},
}

// formSecrets are the secrets every encoding is tried on: the reported key, a Stellar secret
// seed, a MindVault API key, a passphrase with spaces and HTML characters, and a non-ASCII one.
var formSecrets = []string{
	issueKey,
	"SBX7QXRGGJXHC2HOLJVXKD3VZ7MUQEOL3FPB6K3UEV6DGKYJNEGRZQKB",
	"mv_4f9a1c2e8b7d6a5f4e3d2c1b0a9f8e7d",
	`correct horse & "battery" <staple>`,
	"üñíçødé-secret 😀 ok",
}

// TestValuesEncodedForms: a known secret goes whole in every spelling an encoder or a
// downstream gives it, wherever it sits in a text.
func TestValuesEncodedForms(t *testing.T) {
	for _, secret := range formSecrets {
		v := NewValues([]string{secret})
		for _, e := range encodings {
			f := e.enc(secret)
			if f == secret && e.name != "as is" {
				continue
			}
			for _, frame := range []string{"before %s after", "%s", `{"error":"key=%s&x=1"}`, "<p>%s</p>"} {
				in := fmt.Sprintf(frame, f)
				want := fmt.Sprintf(frame, Marker)
				if got := v.Replace(in); got != want {
					t.Errorf("%q %s in %q:\n got %q\nwant %q", secret, e.name, frame, got, want)
				}
			}
		}
	}
}

// TestValuesPrefix: a text that holds the first eight characters of a secret or more (a key
// split across two messages, or cut by a downstream) loses all of that run, as is and in the
// character-by-character encodings; a shorter run stays.
func TestValuesPrefix(t *testing.T) {
	charwise := []string{"as is", "query escaped", "query escaped, lower-case hex", "every character percent-encoded",
		"double percent-encoded", "HTML escaped", "HTML decimal entities", "HTML hex entities", "JSON escaped", "JSON \\u escapes for every character"}
	for _, secret := range formSecrets {
		v := NewValues([]string{secret})
		runes := []rune(secret)
		for _, e := range encodings {
			if !containsString(charwise, e.name) {
				continue
			}
			for n := 8; n < len(runes); n++ {
				head := e.enc(string(runes[:n]))
				in := "the key " + head + "| was rejected"
				if got, want := v.Replace(in), "the key "+Marker+"| was rejected"; got != want {
					t.Errorf("%q: %d characters %s:\n got %q\nwant %q", secret, n, e.name, got, want)
				}
			}
			short := e.enc(string(runes[:7]))
			if in := "the key " + short + "| was rejected"; v.Replace(in) != in {
				t.Errorf("%q: seven characters %s (%q) must stay: %q", secret, e.name, short, v.Replace(in))
			}
		}
		// The rest of the text stays, and a run that goes on past the secret keeps its tail.
		if got := v.Replace(string(runes[:10]) + "|tail"); got != Marker+"|tail" {
			t.Errorf("%q: prefix then tail: %q", secret, got)
		}
	}
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestValuesKeepPublicText: public identifiers, ordinary prose and the escapes of an unrelated
// text are not touched by the encoded-form rules.
func TestValuesKeepPublicText(t *testing.T) {
	v := NewValues(append([]string{"tok_9f8e7d6c5b4a39281706"}, formSecrets...))
	for _, s := range []string{
		"account GBBD47IF6LWK7P7MDEVSCWR7DPUWV3NY3DTQEVFL4NAT4AQH3ZLLFLA5 contract CDQKUIADLO5S5WEHEUTTXX2M45WAHVRU2PBEBD6ZGDKMOP5A72FJ3OD4",
		"tx 3389e9f0f1a65f19736cacf544c2e825313e8447f569233bb8db39aa607c8889",
		"MA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJVAAAAAAAAAAAAAJLK",
		"GET /resources/42/register/prepare?limit=5&amp;offset=10%2F20 &lt;b&gt; \\u003c \\\"q\\\"",
		"the horse is correct", "mv_0000000000000000", "SBX7QXR", "Qx7/Lm+", "%51%78%37%2F%4C%6D%2B",
		"the quick brown fox jumps over the lazy dog",
	} {
		if got := v.Replace(s); got != s {
			t.Errorf("public text changed:\n got %q\nwant %q", got, s)
		}
	}
}

// TestValuesPrefixKeepsCase: the leading characters of a secret count only as they are: a
// word that merely shares them in another case (an error code) stays, and the case-changed
// copies of a secret count only whole.
func TestValuesPrefixKeepsCase(t *testing.T) {
	v := NewValues([]string{"confirmation-key-9f8e7d"})
	for _, s := range []string{"code CONFIRMATION_INVALID", "Confirmation-keys", "CONFIRMATION-KEY-9F8E"} {
		if got := v.Replace(s); got != s {
			t.Errorf("%q changed: %q", s, got)
		}
	}
	for _, s := range []string{"confirmation-key", "confirmation-key-9f8e7d", "CONFIRMATION-KEY-9F8E7D"} {
		if got := v.Replace("x " + s + " y"); got != "x "+Marker+" y" {
			t.Errorf("%q: %q", s, got)
		}
	}
}

// TestValuesPlusIsSpace: form encoding turns a space into "+" and a decoder may turn a "+" back
// into a space; both spellings of either character are the same secret.
func TestValuesPlusIsSpace(t *testing.T) {
	v := NewValues([]string{"p@ss w/rd+more"})
	for _, s := range []string{"p@ss+w/rd+more", "p@ss w/rd more", "p%40ss%20w%2Frd%2Bmore", "p@ss+w/rd%2bmore"} {
		if got := v.Replace("x " + s + " y"); got != "x "+Marker+" y" {
			t.Errorf("%q: %q", s, got)
		}
	}
}
