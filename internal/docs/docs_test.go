package docs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// root is the repository root, seen from this package.
const root = "../.."

// TestDocsAreCurrent fails when a generated section (tool table, error codes) of the README or of
// docs/ differs from the code. Regenerate on purpose with make docs (UPDATE_README=1).
func TestDocsAreCurrent(t *testing.T) {
	cases := []struct {
		path   string
		render func(string) (string, error)
		must   []string // markers the file must keep
	}{
		{"README.md", Render, []string{ToolsBegin, ErrorsBegin}},
		{"docs/tools.md", RenderDoc, []string{ToolsBegin}},
		{"docs/errors.md", RenderDoc, []string{ErrorsBegin}},
	}
	for _, tc := range cases {
		t.Run(tc.path, func(t *testing.T) {
			path := filepath.Join(root, tc.path)
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range tc.must {
				if !strings.Contains(string(b), m) {
					t.Fatalf("%s lost its generated section %s", tc.path, m)
				}
			}
			want, err := tc.render(string(b))
			if err != nil {
				t.Fatal(err)
			}
			if os.Getenv("UPDATE_README") == "1" {
				if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if want != string(b) {
				t.Fatalf("%s: a generated table is stale: run make docs", tc.path)
			}
		})
	}
}
