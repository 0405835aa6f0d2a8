package docs

import (
	"bufio"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/sandbox"
)

// root is the repository root, seen from this package.
const root = "../../.."

// TestDocsAreCurrent fails when a generated section (tool table, error codes, the sandbox's fault
// keys and kinds) of the README or of docs/ differs from the code. Regenerate on purpose with make docs (UPDATE_README=1).
func TestDocsAreCurrent(t *testing.T) {
	cases := []struct {
		path   string
		render func(string) (string, error)
		must   []string // markers the file must keep
	}{
		{"README.md", Render, []string{ToolsBegin, ErrorsBegin}},
		{"docs/tools.md", RenderDoc, []string{ToolsBegin}},
		{"docs/errors.md", RenderDoc, []string{ErrorsBegin}},
		{"docs/sandbox.md", renderSandbox, []string{FaultKeysBegin, FaultKindsBegin}},
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

// renderSandbox replaces docs/sandbox.md's fault-plan tables with package sandbox's own. It
// lives in a test because only tests and local builds may import the sandbox.
func renderSandbox(doc string) (string, error) {
	doc, err := RenderSection(doc, FaultKeysBegin, FaultKeysEnd, sandbox.FaultKeysMarkdown())
	if err != nil {
		return "", err
	}
	return RenderSection(doc, FaultKindsBegin, FaultKindsEnd, sandbox.FaultKindsMarkdown())
}

// repoFiles lists the repository's own files (not installed tools, npm packages, build output),
// as paths relative to the root, keeping those for which keep is true.
func repoFiles(t *testing.T, keep func(rel string) bool) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			switch d.Name() {
			case ".git", ".tools", "node_modules", "bin", "results", ".aws-sam":
				return filepath.SkipDir
			}
			return nil
		}
		if keep(rel) {
			out = append(out, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// writtenDocs are the files whose prose may cite docs: Go code, the README, docs/, build scripts.
func writtenDocs(rel string) bool {
	switch {
	case strings.HasSuffix(rel, ".go"), rel == "README.md", rel == "Makefile",
		strings.HasPrefix(rel, "docs/") && strings.HasSuffix(rel, ".md"),
		strings.HasPrefix(rel, "scripts/"), strings.HasPrefix(rel, ".ci/"),
		rel == "bench/RESULTS.md", rel == "template.yaml":
		return true
	}
	return false
}

// citation matches `docs/<file>.md`, optionally followed by a quoted section title.
var citation = regexp.MustCompile(`docs/([A-Za-z0-9_-]+\.md)(?: "([^"\n]+)")?`)

// headings returns the Markdown headings of a file, without their #s.
func headings(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	var hs []string
	sc := bufio.NewScanner(f)
	inCode := false
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "```") {
			inCode = !inCode
		}
		if !inCode && strings.HasPrefix(line, "#") {
			hs = append(hs, strings.TrimSpace(strings.TrimLeft(line, "#")))
		}
	}
	return hs
}

// TestDocCitationsResolve: every docs/<name>.md a comment, message or doc cites exists, and so does
// the section it names, so a renamed section cannot leave readers at a dead end.
func TestDocCitationsResolve(t *testing.T) {
	n := 0
	for _, rel := range repoFiles(t, writtenDocs) {
		b, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range citation.FindAllStringSubmatch(string(b), -1) {
			n++
			doc := filepath.Join(root, "docs", m[1])
			if _, err := os.Stat(doc); err != nil {
				t.Errorf("%s cites docs/%s, which does not exist", rel, m[1])
				continue
			}
			if m[2] != "" && !slices.Contains(headings(t, doc), m[2]) {
				t.Errorf("%s cites section %q of docs/%s, which has no such heading", rel, m[2], m[1])
			}
		}
	}
	if n < 30 {
		t.Fatalf("only %d citations of docs/ found: the pattern no longer matches how the code cites docs", n)
	}
}

// outside matches references to files that are not in this repository: the product
// specification and background notes the project was written from, and paths beside the repo.
var outside = regexp.MustCompile(`(^|[^/A-Za-z0-9_-])((errors|tools|downstreams|operations|protocol|quality|confirm|aws-local|stellar-x402|mindvault-reference|mcp-protocol)\.md\b)|\.\./shared\b|\bshared/(data|spec|reference)\b`)

// TestNothingCitesOutsideTheRepo: a fresh clone has nothing beside it, so no comment, message,
// doc or script may send a reader (or a test) to a file outside the repository.
func TestNothingCitesOutsideTheRepo(t *testing.T) {
	for _, rel := range repoFiles(t, writtenDocs) {
		b, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			if m := outside.FindString(line); m != "" {
				t.Errorf("%s:%d cites %q, which is not in the repository: cite docs/ instead", rel, i+1, strings.TrimSpace(m))
			}
		}
	}
}

// TestCommandsRunWithoutATerminal: npx asks before installing a package unless told -y, which
// hangs a script or CI job, so every npx command shown to a user carries it.
func TestCommandsRunWithoutATerminal(t *testing.T) {
	npx := regexp.MustCompile(`\bnpx\s+(\S+)`)
	for _, rel := range repoFiles(t, func(rel string) bool {
		return rel == "README.md" || rel == "Makefile" || strings.HasPrefix(rel, "docs/") || strings.HasPrefix(rel, "scripts/")
	}) {
		b, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range npx.FindAllStringSubmatch(string(b), -1) {
			if m[1] != "-y" && m[1] != "--yes" {
				t.Errorf("%s: %q runs npx without -y", rel, m[0])
			}
		}
	}
}

// TestRootLayoutMatchesTree: the layout block of docs/architecture.md lists every top-level
// folder of the repository, and every path it lists exists, so a new root folder fails here
// until it is explained there.
func TestRootLayoutMatchesTree(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(root, "docs/architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(b), "\n## Layout\n")
	if !ok {
		t.Fatal("docs/architecture.md has no ## Layout section")
	}
	_, block, ok := strings.Cut(after, "```\n")
	block, _, ok2 := strings.Cut(block, "```")
	if !ok || !ok2 {
		t.Fatal("the Layout section has no code block")
	}
	listed := map[string]bool{}
	for _, line := range strings.Split(block, "\n") {
		if line == "" || line[0] == ' ' {
			continue // continuation lines are indented
		}
		path := strings.Fields(line)[0]
		if _, err := os.Stat(filepath.Join(root, path)); err != nil {
			t.Errorf("the layout lists %s, which does not exist", path)
		}
		top, _, _ := strings.Cut(strings.TrimSuffix(path, "/"), "/")
		listed[top] = true
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		name := e.Name()
		if !e.IsDir() || name == "bin" || name == "node_modules" || (strings.HasPrefix(name, ".") && name != ".ci") {
			continue
		}
		if !listed[name] {
			t.Errorf("%s/ is not in the layout of docs/architecture.md", name)
		}
	}
}

// TestREADMEShowsTheRequestPath: docs/architecture.md starts, right after its title, with
// the request path (a flowchart) and the payment sequence (a sequence diagram), and the README
// shows the same request path, so the two pictures cannot drift apart.
func TestREADMEShowsTheRequestPath(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(root, "docs/architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile("^# [^\n]+\n\n```mermaid\nflowchart ").Match(b) {
		t.Fatal("docs/architecture.md does not open with its title and a ```mermaid flowchart block")
	}
	arch := regexp.MustCompile("(?ms)^```mermaid\n(.*?)^```$").FindAllStringSubmatch(string(b), -1)
	if len(arch) < 2 || !strings.HasPrefix(arch[1][1], "sequenceDiagram\n") {
		t.Fatal("docs/architecture.md's second diagram is not the payment's sequenceDiagram")
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	shown := regexp.MustCompile("(?ms)^```mermaid\n(.*?)^```$").FindAllStringSubmatch(string(readme), -1)
	if len(shown) != 1 || shown[0][1] != arch[0][1] {
		t.Fatal("README.md must show exactly one diagram, the request path of docs/architecture.md, byte for byte")
	}
}

// TestErrorCodes checks each row of the code table against what Map gives the code when nothing
// changed: its retry verdict and who must act.
func TestErrorCodes(t *testing.T) {
	lines := strings.Split(strings.TrimSuffix(ErrorCodes(), "\n"), "\n")
	if len(lines) != len(errmap.Codes())+2 {
		t.Fatalf("%d lines for %d codes", len(lines), len(errmap.Codes()))
	}
	for i, c := range errmap.Codes() {
		d := errmap.Map(errmap.Facts{Code: c.Code}).Diagnostic
		needs := ""
		if d.Needs != "" {
			needs = "`" + d.Needs + "`"
		}
		want := "| `" + c.Code + "` | `" + d.Category + "` | `" + d.Retry + "` | " + needs + " | " + c.Meaning + " |"
		if lines[i+2] != want {
			t.Errorf("row %d = %q, want %q", i, lines[i+2], want)
		}
	}
}
