package redact

import (
	"testing"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// TestCompatForms: fold narrows exactly the characters whose NFKC form is one printable ASCII
// character in the full-width block (a downstream's CJK input method or font), as NFKC does;
// the test holds it to the real NFKC (only the test links its tables).
func TestCompatForms(t *testing.T) {
	for r := rune(0xFF00); r <= 0xFFEF; r++ {
		n := norm.NFKC.String(string(r))
		var got []rune
		if f := fold(r); f != 0 {
			got = append(got, f)
		}
		if len(n) != 1 || n[0] <= ' ' || n[0] >= utf8.RuneSelf {
			continue
		}
		want := []rune{fold(rune(n[0]))}
		if want[0] == 0 {
			want = nil // a separator: dropped
		}
		if string(got) != string(want) {
			t.Errorf("%U: fold gives %q, NFKC %q", r, string(got), n)
		}
	}
}
