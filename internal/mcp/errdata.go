package mcp

import (
	"cmp"
	"maps"
	"net/http"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/mindvault/mcp-endpoint/errmap"
)

// errorData is a JSON-RPC error's data: the call site's fields plus code, category and retry in
// a tool diagnostic's vocabulary, so a client needs no second table (docs/protocol.md).
func errorData(status, rpcCode int, data map[string]any) map[string]any {
	out := map[string]any{}
	maps.Copy(out, data)
	code, _ := out["code"].(string)
	switch { // the code of an error whose call site chose none
	case errmap.IsCode(code):
	case status == http.StatusForbidden:
		code = errmap.CodeForbidden
	case rpcCode == CodeMethodNotFound:
		code = errmap.CodeUnknownName
	case rpcCode == CodeInternalError:
		code = errmap.CodeInternalError
	default:
		code = errmap.CodeInvalidRequest
	}
	out["code"] = code
	out["category"] = string(errmap.CodeCategory(code))
	if r, ok := out["retry"].(string); !ok || r == "" {
		out["retry"] = string(errmap.CodeRetry(code))
	}
	return out
}

// maxSuggestions bounds the names offered for an unknown name: enough for a typo, never the list.
const maxSuggestions = 3

// suggest returns up to maxSuggestions of names closest to name by edit distance (ignoring case,
// with and without the "mindvault_" prefix; containment counts as one edit), nearest first.
func suggest(name string, names []string) []string {
	q := strings.ToLower(name)
	type cand struct {
		name             string
		score, dist, pos int
	}
	var cs []cand
	for i, n := range names {
		ln := strings.ToLower(n)
		// Compare like with like: without the namespace prefix on both sides when the query
		// has it, against the bare name when the query has none.
		qs, short := q, ln
		if prefix, rest, ok := strings.Cut(ln, "_"); ok {
			short = rest
			qs = strings.TrimPrefix(q, prefix+"_")
		}
		// A third of the name may be wrong, and always two characters: further away, the name is a
		// guess, not a typo. Distances beyond the bound are not worked out, so each costs little.
		limit := max(2, utf8.RuneCountInString(qs)/3)
		score := DistanceAtMost(qs, short, limit)
		if len(q)-len(qs) != len(ln)-len(short) {
			// Unless both lost the same prefix, the full names may be closer.
			score = min(score, DistanceAtMost(q, ln, limit))
		}
		if utf8.RuneCountInString(qs) >= 3 && (strings.Contains(short, qs) || strings.Contains(qs, short)) {
			score = min(score, 1)
		}
		if score <= limit {
			cs = append(cs, cand{n, score, DistanceAtMost(q, ln, len(q)+len(ln)), i})
		}
	}
	slices.SortFunc(cs, func(a, b cand) int {
		return cmp.Or(cmp.Compare(a.score, b.score), cmp.Compare(a.dist, b.dist), cmp.Compare(a.pos, b.pos))
	})
	out := []string{}
	for _, c := range cs[:min(len(cs), maxSuggestions)] {
		out = append(out, c.name)
	}
	return out
}

// DistanceAtMost is the edit distance of a and b when it is at most k, and k+1 otherwise.
func DistanceAtMost(a, b string, k int) int {
	if d := utf8.RuneCountInString(a) - utf8.RuneCountInString(b); d > k || -d > k {
		return k + 1 // the lengths alone differ by more
	}
	var bufA, bufB [64]rune // names fit: no allocation
	ra, rb := appendRunes(bufA[:0], a), appendRunes(bufB[:0], b)
	for len(ra) > 0 && len(rb) > 0 && ra[0] == rb[0] {
		ra, rb = ra[1:], rb[1:]
	}
	for len(ra) > 0 && len(rb) > 0 && ra[len(ra)-1] == rb[len(rb)-1] {
		ra, rb = ra[:len(ra)-1], rb[:len(rb)-1]
	}
	var rowA, rowB [65]int
	prev, cur := rowA[:0], rowB[:0]
	for j := 0; j <= len(rb); j++ {
		prev, cur = append(prev, j), append(cur, 0)
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		best := cur[0]
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			best = min(best, cur[j])
		}
		if best > k {
			return k + 1
		}
		prev, cur = cur, prev
	}
	return min(prev[len(rb)], k+1)
}

func appendRunes(dst []rune, s string) []rune {
	for _, r := range s {
		dst = append(dst, r)
	}
	return dst
}
