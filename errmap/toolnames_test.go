package errmap

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// toolNameRE is a tool's name as the tools layer spells it (mindvault_ and a letter);
// MINDVAULT_ settings and the io.mindvault/ meta key do not match.
var toolNameRE = regexp.MustCompile(`mindvault_[A-Za-z]`)

// toolNamesIn lists the lines of src, a Go file's text, that name a tool.
func toolNamesIn(src string) []string {
	var out []string
	for i, line := range strings.Split(src, "\n") {
		if toolNameRE.MatchString(line) {
			out = append(out, itoa(i+1)+": "+strings.TrimSpace(line))
		}
	}
	return out
}

// TestNoToolNames: errmap sits below the tools and must not know them. A tool's traits, its
// own Next sentences and the names other tools' advice points to come from the tool's Guide,
// declared by the tools layer; only test code here may name a tool. Comments count too: a
// name in a comment is a name that drifts.
func TestNoToolNames(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("no Go files: %v", err)
	}
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, at := range toolNamesIn(string(src)) {
			t.Errorf("%s:%s names a tool; declare it in the tool's Guide instead", file, at)
		}
	}
}

// TestToolNamesInCatches: the rule sees a name in code and in a comment, and not a setting.
func TestToolNamesInCatches(t *testing.T) {
	src := "package x\n// see mindvault_tx_status\nconst a = \"mindvault_buy\"\nconst b = \"MINDVAULT_BUDGET_USDC\"\nconst c = \"io.mindvault/error\"\n"
	if got := toolNamesIn(src); len(got) != 2 || !strings.HasPrefix(got[0], "2: ") || !strings.HasPrefix(got[1], "3: ") {
		t.Errorf("found %q", got)
	}
}
