package redact

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/url"
	"strings"
	"testing"
)

// secretKinds are one secret of each kind the endpoint holds.
var secretKinds = map[string]string{
	"api key":             "mv_3c1f9a0b7e2d4c6a8f1e3b5d7c9a0e2f4b6d8c0a1e3f5b7d9c2a4e6f8b0d1c3e",
	"wallet secret":       "SBU2RRGLXH3E5CQHTD3ODLDF2BWDCYUSSBLLZ5GNW7JXHDIYKXZWHOKR",
	"bearer token":        "Qx7_Lm-Tz9Rk4PwA8vB2nC5dE1fG3hJ6kL0zY",
	"jwt signature":       "Kp2_Lm-Tz9Rk4PwA8vB2nC5dE1fG3hJ6kL0mN8qR4sT7uV1wX3yZ5aB7cD9eF0gH",
	"confirmation key":    "q8Zt+3mV/xK1pL9sR2wN7yB4cF6hJ0dG5eA+uI3oT8k=",
	"oauth client secret": "Wk3pQ9vZ2mX7bN4cR8tY1uL6sD0fH5jG",
}

// spelled is an echo of s: its text, and for every character of s the text that spells it (so
// a test can ask whether Window characters in a row survived), or, for an encoding, nil.
type spelled struct {
	text  string
	chars []string
}

func perChar(s string, f func(c string) string, sep string) spelled {
	var out spelled
	for i, r := range s {
		c := f(string(r))
		if i > 0 {
			c = sep + c
		}
		out.chars = append(out.chars, c)
	}
	out.text = strings.Join(out.chars, "")
	return out
}

func percent(c, format string) string {
	var b strings.Builder
	for _, x := range []byte(c) {
		fmt.Fprintf(&b, format, x)
	}
	return b.String()
}

// echoForms are the forms a downstream plausibly echoes a secret in (docs/security.md).
var echoForms = map[string]func(s string) spelled{
	"as is":         func(s string) spelled { return perChar(s, id, "") },
	"upper case":    func(s string) spelled { return perChar(s, strings.ToUpper, "") },
	"lower case":    func(s string) spelled { return perChar(s, strings.ToLower, "") },
	"percent":       func(s string) spelled { return perChar(s, func(c string) string { return percent(c, "%%%02X") }, "") },
	"percent lower": func(s string) spelled { return perChar(s, func(c string) string { return percent(c, "%%%02x") }, "") },
	"percent twice": func(s string) spelled { return perChar(s, func(c string) string { return percent(c, "%%25%02X") }, "") },
	"form":          func(s string) spelled { return perChar(s, url.QueryEscape, "") },
	"html decimal": func(s string) spelled {
		return perChar(s, func(c string) string { return fmt.Sprintf("&#%d;", c[0]) }, "")
	},
	"html hex": func(s string) spelled {
		return perChar(s, func(c string) string { return fmt.Sprintf("&#x%x;", c[0]) }, "")
	},
	"html twice": func(s string) spelled {
		return perChar(s, func(c string) string { return fmt.Sprintf("&amp;#%d;", c[0]) }, "")
	},
	"json \\u": func(s string) spelled {
		return perChar(s, func(c string) string { return fmt.Sprintf(`\u%04x`, c[0]) }, "")
	},
	"json in json": func(s string) spelled {
		return perChar(s, func(c string) string { return fmt.Sprintf(`\\u%04X`, c[0]) }, "")
	},
	"full width": func(s string) spelled { return perChar(s, fullWidth, "") },
	"spaces":     func(s string) spelled { return perChar(s, id, " ") },
	"dashes":     func(s string) spelled { return perChar(s, id, "-") },
	"dots":       func(s string) spelled { return perChar(s, id, ".") },
	"base64":     func(s string) spelled { return spelled{text: base64.StdEncoding.EncodeToString([]byte(s))} },
	"base64 +1":  func(s string) spelled { return spelled{text: base64.StdEncoding.EncodeToString([]byte("u:" + s))[4:]} },
	"base64 +2":  func(s string) spelled { return spelled{text: base64.StdEncoding.EncodeToString([]byte("x" + s))[4:]} },
	"base64url":  func(s string) spelled { return spelled{text: base64.RawURLEncoding.EncodeToString([]byte(s))} },
	"hex":        func(s string) spelled { return spelled{text: hex.EncodeToString([]byte(s))} },
	"HEX":        func(s string) spelled { return spelled{text: strings.ToUpper(hex.EncodeToString([]byte(s)))} },
}

func id(c string) string { return c }

func fullWidth(c string) string {
	if r := rune(c[0]); r > ' ' && r < 0x7F {
		return string(r + 0xFEE0)
	}
	return c
}

// positions put an echo in a downstream body: at its start, in its middle, at its end, and
// split across two fields (each half in its own).
var positions = map[string]func(echo string) string{
	"start":  func(e string) string { return e + " was refused" },
	"middle": func(e string) string { return "the key " + e + " was refused" },
	"end":    func(e string) string { return "refused: " + e },
	"split": func(e string) string {
		h := len(e) / 2
		return `{"error":"` + e[:h] + `","detail":"` + e[h:] + `"}`
	},
}

// survives reports a stretch of Window characters of the secret that out still spells, or "".
// For an encoding, any Window characters of the encoded text count.
func survives(out string, sp spelled) string {
	if sp.chars == nil {
		for i := 0; i+Window <= len(sp.text); i++ {
			if strings.Contains(out, sp.text[i:i+Window]) {
				return sp.text[i : i+Window]
			}
		}
		return ""
	}
	for i := 0; i+Window <= len(sp.chars); i++ {
		if w := strings.Join(sp.chars[i:i+Window], ""); strings.Contains(out, w) {
			return w
		}
	}
	return ""
}

// leaksOf runs every kind × form × position through Replace with a window of window runes (a body split across fields
// cut anywhere by the split, so each half is tried on its own too) and lists the leaks.
func leaksOf(t *testing.T, window int) []string {
	var all []string
	for _, s := range secretKinds {
		all = append(all, s)
	}
	v := newValues(all, window)
	var out []string
	for kind, s := range secretKinds {
		for form, spell := range echoForms {
			sp := spell(s)
			for pos, place := range positions {
				got := v.Replace(place(sp.text))
				if w := survives(got, sp); w != "" {
					out = append(out, fmt.Sprintf("%s / %s / %s: %q survives in %q", kind, form, pos, w, got))
				}
			}
		}
	}
	return out
}

// TestWindowRule: no stretch of Window characters of any kind of secret survives, in any form,
// wherever the echo sits.
func TestWindowRule(t *testing.T) {
	for _, l := range leaksOf(t, Window) {
		t.Error(l)
	}
}

// TestWindowRuleIsWhatCatches: with the window raised to 40 characters, the halves of a split
// echo get through, so the rule, not a coincidence of the table, is what the test proves.
func TestWindowRuleIsWhatCatches(t *testing.T) {
	if len(leaksOf(t, 40)) == 0 {
		t.Fatal("a window of 40 let no fragment through: the table does not test the rule")
	}
}

// TestWindowKeepsText: public identifiers and ordinary text near a secret stay as they are,
// and a stretch shorter than the window stays too.
func TestWindowKeepsText(t *testing.T) {
	v := NewValues([]string{secretKinds["api key"], secretKinds["wallet secret"]})
	for _, s := range []string{
		"account GBBD47IF6LWK7P7MDEVSCWR7DPUWV3NY3DTQEVFL4NAT4AQH3ZLLFLA5 paid 0.01 USDC",
		"tx " + strings.Repeat("ab", 32),
		"key ends with …" + secretKinds["api key"][len(secretKinds["api key"])-15:],
		"a body with %zz, &nosuch; and \\q escapes",
		"&#xFFFFFFFF; &#x110000; &#99999999; are no characters", // and once made fold index byteFold at -1
	} {
		if got := v.Replace(s); got != s {
			t.Errorf("Replace(%q) = %q", s, got)
		}
	}
	if got := v.Replace("k=" + secretKinds["api key"] + "!"); got != "k="+Marker+"!" {
		t.Errorf("the whole key must go, nothing around it: %q", got)
	}
	// A value shorter than the window is found by a pass of its own; the text between its
	// match and a longer value's, in either order, stays.
	v = NewValues([]string{secretKinds["api key"], "short1"})
	for _, s := range []string{secretKinds["api key"] + " kept short1", "short1 kept " + secretKinds["api key"]} {
		if got := v.Replace(s); got != Marker+" kept "+Marker {
			t.Errorf("Replace(%q) = %q", s, got)
		}
	}
}

// TestJWTKeepsItsPublicParts: of a JWT only the signature is secret. Its header and payload,
// which anyone holding the token reads, stay, and so does another base64url JSON text that
// shares their windows (a requestState issued the same minute); the signature goes.
func TestJWTKeepsItsPublicParts(t *testing.T) {
	enc := base64.RawURLEncoding.EncodeToString
	jwt := enc([]byte(`{"alg":"RS256","typ":"JWT"}`)) + "." + enc([]byte(`{"sub":"agent","iat":1796457256,"exp":1796460856}`)) + "." + secretKinds["jwt signature"]
	v := NewValues([]string{jwt})
	state := "mv1." + enc([]byte(`{"v":1,"tool":"mindvault_buy","iat":1796457256,"exp":1796457556}`)) + ".AV0fhbAFSfi7cXnA6Q9BbB1Nnki9t7aFLodEBXXecmM"
	if got := v.Replace(state); got != state {
		t.Errorf("a requestState lost a window it shares with the token's payload: %s", got)
	}
	got := v.Replace("Authorization: Bearer " + jwt)
	if strings.Contains(got, secretKinds["jwt signature"][:Window]) || !strings.Contains(got, jwt[:40]) {
		t.Errorf("want the signature gone and the header kept: %s", got)
	}
}
