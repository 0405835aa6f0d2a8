package errmap

import (
	"math"
	"net/http"
	"sort"
	"strconv"
	"strings"
)

// header reads one header value case-insensitively and deterministically: the canonical key wins,
// then the lexicographically first spelling, because callers sometimes build headers from
// lower-cased maps (Lambda events) and Go map order is random.
func header(h http.Header, name string) string {
	if h == nil {
		return ""
	}
	if v, ok := h[http.CanonicalHeaderKey(name)]; ok && len(v) > 0 {
		return strings.TrimSpace(v[0])
	}
	var keys []string
	for k := range h {
		if strings.EqualFold(k, name) && len(h[k]) > 0 {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return ""
	}
	sort.Strings(keys)
	return strings.TrimSpace(h[keys[0]][0])
}

// seconds parses a non-negative count of seconds of at most nine digits.
func seconds(v string, fractions bool) *int {
	v = strings.TrimSpace(v)
	if v == "" || len(v) > 12 {
		return nil
	}
	if n, err := strconv.Atoi(v); err == nil {
		if n < 0 || n > 999_999_999 {
			return nil
		}
		return &n
	}
	if !fractions || strings.ContainsAny(v, "eE+-xXpP_") {
		return nil
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || f < 0 || f > 999_999_999 || math.IsNaN(f) {
		return nil
	}
	n := int(math.Ceil(f))
	return &n
}

// rateLimits returns the allow-listed rate-limit numbers: Horizon's X-RateLimit-* and the IETF
// RateLimit-* spelling the MindVault API sends.
func rateLimits(h http.Header) (limit, remaining, reset *int) {
	pick := func(names ...string) *int {
		for _, n := range names {
			if p := seconds(header(h, n), false); p != nil {
				return p
			}
		}
		return nil
	}
	limit = pick("X-RateLimit-Limit", "RateLimit-Limit")
	remaining = pick("X-RateLimit-Remaining", "RateLimit-Remaining")
	reset = pick("X-RateLimit-Reset", "RateLimit-Reset")
	return limit, remaining, reset
}
