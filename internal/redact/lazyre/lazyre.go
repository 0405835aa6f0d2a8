// Package lazyre is a regular expression compiled on first use: a package-level
// regexp.MustCompile costs every cold start (about 2 ms for the endpoint's patterns) whether or
// not a request needs it. Every pattern declared with New is recorded, so a test that calls
// MustCompileAll after importing the packages proves they all compile (functions/mcp does).
package lazyre

import (
	"regexp"
	"sync"
	"sync/atomic"
)

// Regexp is a pattern compiled the first time it is used; it is safe for concurrent use.
type Regexp struct {
	expr string
	re   func() *regexp.Regexp
}

var (
	mu       sync.Mutex
	all      []*Regexp
	compiled atomic.Int64
)

// New declares a pattern; it panics on first use when expr does not compile.
func New(expr string) *Regexp {
	r := &Regexp{expr: expr, re: sync.OnceValue(func() *regexp.Regexp {
		compiled.Add(1)
		return regexp.MustCompile(expr)
	})}
	mu.Lock()
	all = append(all, r)
	mu.Unlock()
	return r
}

// MustCompileAll compiles every declared pattern (panicking on a bad one) and counts them.
func MustCompileAll() int {
	mu.Lock()
	rs := append([]*Regexp(nil), all...)
	mu.Unlock()
	for _, r := range rs {
		r.re()
	}
	return len(rs)
}

// Compiled counts the patterns compiled so far, for tests of what a cold start does.
func Compiled() int { return int(compiled.Load()) }

// String returns the source text; it compiles nothing.
func (r *Regexp) String() string { return r.expr }

// MatchString is regexp.Regexp.MatchString.
func (r *Regexp) MatchString(s string) bool { return r.re().MatchString(s) }

// FindStringSubmatch is regexp.Regexp.FindStringSubmatch.
func (r *Regexp) FindStringSubmatch(s string) []string { return r.re().FindStringSubmatch(s) }

// FindAllStringSubmatch is regexp.Regexp.FindAllStringSubmatch.
func (r *Regexp) FindAllStringSubmatch(s string, n int) [][]string {
	return r.re().FindAllStringSubmatch(s, n)
}

// ReplaceAllString is regexp.Regexp.ReplaceAllString.
func (r *Regexp) ReplaceAllString(src, repl string) string { return r.re().ReplaceAllString(src, repl) }
