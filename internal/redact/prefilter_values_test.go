package redact

import (
	"math/rand/v2"
	"strings"
	"testing"
)

var valuesSeeds = []string{"plain-value-1234", "SB5QFV3HFDTDXPH3NAOXKQNLNV3DI5KUBB2HJYQAN7WKLRXNXPBSUQ6S", "mv_0123456789abcdef01", "üñíçødé-secret", "a b c d e f", issueKey, "ab%41&amp;\\u0026x"}

// slowReplace is Replace without the prefilter: every sequence tried at every position.
func (v *Values) slowReplace(s string) string {
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); {
		end := -1
		for n := range v.seqs {
			end = max(end, v.seqs[n].match(s, i))
		}
		if end < 0 {
			i++
			continue
		}
		b.WriteString(s[last:i] + Marker)
		last, i = end, end
	}
	if last == 0 {
		return s
	}
	return b.String() + s[last:]
}

// TestValuesKeysChangeNothing: skipping the positions where the keys do not hit, and trying
// only the sequences they list, gives what trying every sequence everywhere gives, for texts
// holding a value in any of its spellings anywhere, and texts that hold nothing, short and
// long.
func TestValuesKeysChangeNothing(t *testing.T) {
	v := NewValues(valuesSeeds)
	rng := rand.New(rand.NewPCG(7, 8))
	var texts []string
	for _, secret := range valuesSeeds {
		runes := []rune(secret)
		for _, e := range encodings {
			for _, f := range []string{e.enc(secret), e.enc(string(runes[:min(9, len(runes))])), e.enc(string(runes[:6]))} {
				for _, pad := range []int{0, 1, 3, 100} {
					texts = append(texts, f, "x"+f, f+"y", "%"+f, "&"+f, `\`+f, f+"%2", strings.Repeat("z", pad)+f, f+strings.Repeat("%", pad))
				}
			}
		}
	}
	for i := 0; i < 3000; i++ {
		b := make([]byte, rng.IntN(40))
		for j := range b {
			b[j] = "%&\\;#xu0123456789abcdefABCDEF+ amplt"[rng.IntN(36)]
			if rng.IntN(4) == 0 {
				b[j] = byte(rng.IntN(256))
			}
		}
		texts = append(texts, string(b), "tools/list", "mindvault_preview", "2026-07-28", "59530c11e7707cd0")
	}
	for _, s := range texts {
		if got, want := v.Replace(s), v.slowReplace(s); got != want {
			t.Fatalf("Replace(%q) = %q, every sequence everywhere gives %q", s, got, want)
		}
	}
}

func FuzzValuesKeys(f *testing.F) {
	v := NewValues(valuesSeeds)
	for _, s := range append([]string{"", "tools/list", "x plain-value-1234 y", "%51%78%37%2f%4C%6d%2B%54", "&#81;&#x78;7&sol;"}, valuesSeeds...) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := v.Replace(s), v.slowReplace(s); got != want {
			t.Fatalf("Replace(%q) = %q, every sequence everywhere gives %q", s, got, want)
		}
	})
}
