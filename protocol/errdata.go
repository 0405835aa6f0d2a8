package protocol

import (
	"net/http"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/mindvault/mcp-endpoint/errmap"
)

// errorData is the error.data of a JSON-RPC error: the fields the call site set (supported
// versions, a correlation id, suggestions) plus the facts every protocol error carries, in the
// vocabulary of a tool result's diagnostic — code, category and retry — so a client that
// branches on those does not need a second table for protocol errors. A call site may choose
// the code (an unknown tool is UNKNOWN_NAME) or the retry verdict; the rest follows the
// JSON-RPC code and the HTTP status.
func errorData(status, rpcCode int, data any) map[string]any {
	out := map[string]any{}
	switch d := data.(type) {
	case map[string]any:
		for k, v := range d {
			out[k] = v
		}
	case map[string]string:
		for k, v := range d {
			out[k] = v
		}
	}
	code, _ := out["code"].(string)
	if !errmap.IsCode(code) {
		code = defaultErrorCode(status, rpcCode)
	}
	out["code"] = code
	out["category"] = string(errmap.CodeCategory(code))
	if r, ok := out["retry"].(string); !ok || r == "" {
		out["retry"] = string(errmap.CodeRetry(code))
	}
	return out
}

// defaultErrorCode maps a JSON-RPC error to its code when the call site chose none: the
// Origin guard is an authorisation refusal, -32601 names something that does not exist,
// -32603 is the endpoint's own failure, and everything else (-32700, -32600, -32602, -32020,
// -32022) is a request that broke the wire rules.
func defaultErrorCode(status, rpcCode int) string {
	switch {
	case status == http.StatusForbidden:
		return errmap.CodeForbidden
	case rpcCode == CodeMethodNotFound:
		return errmap.CodeUnknownName
	case rpcCode == CodeInternalError:
		return errmap.CodeInternalError
	}
	return errmap.CodeInvalidRequest
}

// maxSuggestions bounds the names offered for an unknown tool or prompt: enough to recover
// from a typo, never the whole list (which tools/list already gives, and which would grow
// every error with the catalogue).
const maxSuggestions = 3

// suggest returns up to maxSuggestions of names closest to name, nearest first, leaving out
// names too far away to be what was meant. Closeness is the edit distance, compared
// case-insensitively and also without the namespace prefix ("mindvault_"), so "browse" finds
// mindvault_browse; a name that contains what was asked, or is contained in it, counts as one
// edit away ("mindvault_wallet" finds mindvault_wallet_info and mindvault_setup_wallet). Ties go
// to the smaller plain edit distance, then to list order.
func suggest(name string, names []string) []string {
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
		// Compare like with like: without the namespace prefix on both sides when the query
		// has it, against the bare name when the query has none.
		qs, short := q, ln
		if prefix, rest, ok := strings.Cut(ln, "_"); ok {
			short = rest
			qs = strings.TrimPrefix(q, prefix+"_")
		}
		score := min(dist, distance(qs, short))
		if utf8.RuneCountInString(qs) >= 3 && (strings.Contains(short, qs) || strings.Contains(qs, short)) {
			score = min(score, 1)
		}
		// A third of the name may be wrong, and always two characters: further away, the
		// name is a guess, not a typo.
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
