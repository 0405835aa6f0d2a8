package lazyre

import (
	"regexp"
	"testing"
)

// TestBehavesLikeRegexp: each method answers as the compiled pattern does, and a pattern that
// does not compile is caught by MustCompileAll.
func TestBehavesLikeRegexp(t *testing.T) {
	const expr = `(?i)\b(key)=(\w+)`
	r, re := New(expr), regexp.MustCompile(expr)
	if Compiled() != 0 {
		t.Fatal("a pattern was compiled when it was declared")
	}
	for _, s := range []string{"", "KEY=abc", "a key=1 key=2", "nokey=3"} {
		if r.MatchString(s) != re.MatchString(s) ||
			len(r.FindStringSubmatch(s)) != len(re.FindStringSubmatch(s)) ||
			len(r.FindAllStringSubmatch(s, -1)) != len(re.FindAllStringSubmatch(s, -1)) ||
			r.ReplaceAllString(s, "$1=x") != re.ReplaceAllString(s, "$1=x") {
			t.Errorf("%q: lazy pattern differs from regexp", s)
		}
	}
	if Compiled() != 1 {
		t.Errorf("%d patterns compiled after using one", Compiled())
	}
	if r.String() != expr {
		t.Errorf("String() = %q", r.String())
	}
	if n := MustCompileAll(); n != 1 {
		t.Errorf("MustCompileAll counted %d patterns, want 1", n)
	}
	New(`(`)
	defer func() {
		if recover() == nil {
			t.Fatal("MustCompileAll accepted a pattern that does not compile")
		}
	}()
	MustCompileAll()
}
