package redact

import (
	"math/rand/v2"
	"strings"
	"testing"
)

var valuesSeeds = []string{"plain-value-1234", "SB5QFV3HFDTDXPH3NAOXKQNLNV3DI5KUBB2HJYQAN7WKLRXNXPBSUQ6S", "mv_0123456789abcdef01", "üñíçødé-secret", "a b c d e f"}

// TestValuesKeysChangeNothing: skipping the replacer for a text where no position hits both
// key tables gives what the replacer gives, for texts holding a form (in any of its
// spellings) anywhere, and texts that hold nothing, short and long.
func TestValuesKeysChangeNothing(t *testing.T) {
	v := NewValues(valuesSeeds)
	if v.keys == nil {
		t.Fatal("no keys: the prefilter is off")
	}
	rng := rand.New(rand.NewPCG(7, 8))
	var texts []string
	for _, f := range variants(valuesSeeds) {
		for _, pad := range []int{0, 1, 3, 100, 5000} {
			texts = append(texts, f, "x"+f, f+"y", strings.Repeat("z", pad)+f, f+strings.Repeat("z", pad))
		}
	}
	for i := 0; i < 2000; i++ {
		b := make([]byte, rng.IntN(40))
		for j := range b {
			b[j] = byte(rng.IntN(256))
		}
		texts = append(texts, string(b), "tools/list", "mindvault_preview", "2026-07-28", "59530c11e7707cd0")
	}
	skipped := 0
	for _, s := range texts {
		got, want := v.Replace(s), v.r.Replace(s)
		if got != want {
			t.Fatalf("Replace(%q) = %q, the replacer gives %q", s, got, want)
		}
		if !v.mayHold(s) {
			skipped++
		}
	}
	if skipped == 0 {
		t.Fatal("the prefilter never skipped the replacer")
	}
}

func FuzzValuesKeys(f *testing.F) {
	v := NewValues(valuesSeeds)
	for _, s := range append([]string{"", "tools/list", "x plain-value-1234 y"}, valuesSeeds...) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := v.Replace(s), v.r.Replace(s); got != want {
			t.Fatalf("Replace(%q) = %q, the replacer gives %q", s, got, want)
		}
	})
}
