package clients_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestInspectorIsPinnedEverywhere: every command a reader copies to run the MCP Inspector (the
// README, the docs, the banner of make run) names the version test/conformance pins and runs,
// and the README's prerequisites name the Node.js version that version requires: an unpinned
// npx installed whatever was newest, which on Node 20 was an old Inspector.
func TestInspectorIsPinnedEverywhere(t *testing.T) {
	var pkg struct {
		Dependencies map[string]string `json:"dependencies"`
	}
	var lock struct {
		Packages map[string]struct {
			Engines map[string]string `json:"engines"`
		} `json:"packages"`
	}
	readJSON(t, "../conformance/package.json", &pkg)
	readJSON(t, "../conformance/package-lock.json", &lock)
	version := pkg.Dependencies["@modelcontextprotocol/inspector"]
	engine := lock.Packages["node_modules/@modelcontextprotocol/inspector"].Engines["node"]
	if version == "" || engine == "" {
		t.Fatalf("test/conformance pins no Inspector version (%q) or node engine (%q)", version, engine)
	}
	files, _ := filepath.Glob("../../docs/*.md")
	files = append(files, "../../README.md", "../../Makefile", "../../cmd/mindvault-local/main.go")
	use := regexp.MustCompile(`npx[^\n]*?@modelcontextprotocol/inspector(@[0-9A-Za-z.-]+)?`)
	seen := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range use.FindAllStringSubmatch(string(b), -1) {
			seen++
			if m[1] != "@"+version {
				t.Errorf("%s: %q runs the Inspector without the pinned @%s", f, m[0], version)
			}
		}
	}
	if seen < 4 {
		t.Fatalf("found %d Inspector commands; the search no longer matches how the docs write them", seen)
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	// ">=22.19.0" is written "22.19 or later" or "Node >= 22.19.0" in the prerequisites.
	want := strings.TrimSuffix(strings.TrimPrefix(engine, ">="), ".0")
	if !strings.Contains(string(readme), "Node.js "+want+" or later") {
		t.Errorf("README.md's prerequisites do not say Node.js %s or later (the pinned Inspector requires node %s)", want, engine)
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
