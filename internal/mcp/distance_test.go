package mcp

import (
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestDistanceAtMostIsTheBoundedDistance: the early-stopping distance suggest uses agrees with
// the full table whenever the distance is within the bound, and otherwise says "beyond".
func TestDistanceAtMostIsTheBoundedDistance(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	alphabet := []rune("abc_dé")
	word := func() string {
		r := make([]rune, rng.IntN(12))
		for i := range r {
			r[i] = alphabet[rng.IntN(len(alphabet))]
		}
		return string(r)
	}
	pairs := [][2]string{{"", ""}, {"mindvault_by", "mindvault_buy"}, {"browse", "mindvault_browse"}}
	for i := 0; i < 3000; i++ {
		pairs = append(pairs, [2]string{word(), word()})
	}
	for _, n := range names {
		pairs = append(pairs, [2]string{"mindvault_regster_onchain", n}, [2]string{"set", n[len("mindvault_"):]})
	}
	for _, p := range pairs {
		full := distance(p[0], p[1])
		for k := 0; k <= 12; k++ {
			if got, want := DistanceAtMost(p[0], p[1], k), min(full, k+1); got != want {
				t.Fatalf("DistanceAtMost(%q, %q, %d) = %d, want %d", p[0], p[1], k, got, want)
			}
		}
	}
}

func FuzzDistanceAtMost(f *testing.F) {
	f.Add("mindvault_by", "mindvault_buy", 2)
	f.Add("ünïcode", "unicode", 3)
	f.Fuzz(func(t *testing.T, a, b string, k int) {
		if len(a) > 200 || len(b) > 200 || k < 0 || k > 64 {
			return
		}
		if got, want := DistanceAtMost(a, b, k), min(distance(a, b), k+1); got != want {
			t.Fatalf("DistanceAtMost(%q, %q, %d) = %d, want %d", a, b, k, got, want)
		}
	})
}

// suggestReference is suggest with full edit distances throughout, as it was before the
// bounded comparisons.
func suggestReference(name string, names []string) []string {
	q := strings.ToLower(name)
	type cand struct {
		name        string
		score, dist int
		pos         int
	}
	var cs []cand
	for i, n := range names {
		ln := strings.ToLower(n)
		dist := distance(q, ln)
		qs, short := q, ln
		if prefix, rest, ok := strings.Cut(ln, "_"); ok {
			short = rest
			qs = strings.TrimPrefix(q, prefix+"_")
		}
		score := min(dist, distance(qs, short))
		if utf8.RuneCountInString(qs) >= 3 && (strings.Contains(short, qs) || strings.Contains(qs, short)) {
			score = min(score, 1)
		}
		if score <= max(2, utf8.RuneCountInString(qs)/3) {
			cs = append(cs, cand{n, score, dist, i})
		}
	}
	sort.Slice(cs, func(i, j int) bool {
		a, b := cs[i], cs[j]
		if a.score != b.score {
			return a.score < b.score
		}
		if a.dist != b.dist {
			return a.dist < b.dist
		}
		return a.pos < b.pos
	})
	out := []string{}
	for _, c := range cs[:min(len(cs), maxSuggestions)] {
		out = append(out, c.name)
	}
	return out
}

// TestSuggestAsTheFullDistance: the bounded comparisons give the same suggestions, in the same
// order, as full edit distances do, for typos of every tool name and for unrelated words.
func TestSuggestAsTheFullDistance(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	queries := []string{"", "x", "browse", "set", "wallet", "MINDVAULT_BUY", "mindvault_", "_", "ünïcode_tool", "mindvault_régistry",
		strings.Repeat("mindvault_buy", 10) + "…"}
	for _, n := range names {
		r := []rune(n)
		for i := 0; i < 20; i++ {
			q := append([]rune(nil), r...)
			for e := rng.IntN(5); e > 0 && len(q) > 1; e-- {
				switch j := rng.IntN(len(q)); rng.IntN(3) {
				case 0:
					q = append(q[:j], q[j+1:]...)
				case 1:
					q[j] = rune('a' + rng.IntN(26))
				default:
					q = append(q[:j], append([]rune{rune('a' + rng.IntN(26))}, q[j:]...)...)
				}
			}
			queries = append(queries, string(q), string(q[min(len(q), len("mindvault_")):]))
		}
	}
	for _, q := range queries {
		if got, want := suggest(q, names), suggestReference(q, names); !slices.Equal(got, want) {
			t.Fatalf("suggest(%q) = %v, the full distances give %v", q, got, want)
		}
	}
}

// distance is the Levenshtein distance between a and b in runes.
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
