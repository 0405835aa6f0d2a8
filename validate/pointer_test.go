package validate

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// pointerTokenReference is pointerToken without the shortcut for names that need nothing done.
func pointerTokenReference(s string) string {
	const max = 64
	if len(s) > max {
		cut := max
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r == utf8.RuneError {
			return -1
		}
		return r
	}, s)
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}

var pointerSeeds = []string{"", "resourceId", "a/b~c", "~", "/", "tab\there", "del\x7f", "é", "\xff", strings.Repeat("a", 64),
	strings.Repeat("a", 65), strings.Repeat("é", 40), "zz zz", `"quoted"`}

// TestPointerTokenShortcut: returning a plain name as it is gives what escaping it gives.
func TestPointerTokenShortcut(t *testing.T) {
	for _, s := range pointerSeeds {
		if got, want := pointerToken(s), pointerTokenReference(s); got != want {
			t.Errorf("pointerToken(%q) = %q, want %q", s, got, want)
		}
	}
}

func FuzzPointerToken(f *testing.F) {
	for _, s := range pointerSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := pointerToken(s), pointerTokenReference(s); got != want {
			t.Fatalf("pointerToken(%q) = %q, want %q", s, got, want)
		}
	})
}
