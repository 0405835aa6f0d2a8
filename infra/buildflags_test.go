package infra

import (
	"os"
	"strings"
	"testing"
)

// TestBuildFlagsAgree: the deployed binary's flags are written out in three places a reader
// trusts besides the Makefile: the template's comment on BuildMethod and the two paragraphs of
// docs/operations.md ("Lambda and SAM", "Binary size"). Each must carry LAMBDA_FLAGS exactly as
// make expands it, so a flag added to the Makefile (the -gcflags were missing once) cannot be
// left out of the prose.
func TestBuildFlagsAgree(t *testing.T) {
	out, code := runMake(t, repoRoot(t), "-s", "print-lambda-flags")
	flags := strings.TrimSpace(out)
	if code != 0 || !strings.Contains(flags, "-gcflags=") || !strings.Contains(flags, "-tags ") {
		t.Fatalf("make print-lambda-flags: exit %d, %q", code, out)
	}
	for _, c := range []struct {
		file string
		want int // places the flags are written out
	}{{"../template.yaml", 1}, {"../docs/operations.md", 2}} {
		b, err := os.ReadFile(c.file)
		if err != nil {
			t.Fatal(err)
		}
		// Prose wraps lines: compare with runs of white space (and a YAML comment's "# ") as one space.
		text := strings.Join(strings.Fields(strings.ReplaceAll(string(b), "\n      # ", " ")), " ")
		if n := strings.Count(text, flags); n < c.want {
			t.Errorf("%s writes out the Makefile's LAMBDA_FLAGS %d times, want %d:\n%s", c.file, n, c.want, flags)
		}
	}
}
