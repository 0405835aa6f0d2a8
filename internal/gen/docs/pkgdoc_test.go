package docs

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// maxDocLines is how long a package doc may be: one paragraph that says what the package holds
// and why it is a package of its own. Details belong on the declarations they describe or in docs/.
const maxDocLines = 6

// docShapePending are packages whose doc is being rewritten elsewhere; only the name rule
// applies to them until then.
var docShapePending = map[string]string{}

// invented are words the package docs leave out: the glossary of docs/architecture.md names
// what they stood for.
var invented = regexp.MustCompile(`\b([Ss]eams?|Gate|Keeper|humanCall)\b`)

// packageDoc is the one package doc of a directory: where it is, the package it documents,
// and its comment.
type packageDoc struct {
	file, pkg string
	doc       *ast.CommentGroup
}

// packageDocs parses the package clause and doc of every Go file of the repository, by directory.
func packageDocs(t *testing.T) (map[string][]packageDoc, *token.FileSet) {
	t.Helper()
	fset := token.NewFileSet()
	dirs := map[string][]packageDoc{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (name == "testdata" || name == "node_modules" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.PackageClauseOnly|parser.ParseComments)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		dirs[filepath.ToSlash(rel)] = append(dirs[filepath.ToSlash(rel)], packageDoc{file: name, pkg: f.Name.Name, doc: f.Doc})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return dirs, fset
}

// docProblems says what is wrong with the package doc of the package in dir: its opening, its
// shape (one paragraph, no list, at most maxDocLines lines) and its words.
func docProblems(fset *token.FileSet, dir string, d packageDoc) []string {
	var problems []string
	text := d.doc.Text()
	want := "Package " + d.pkg + " "
	if d.pkg == "main" {
		want = "Command " + filepath.Base(dir) + " " // Go's convention for a main: the command's name
	}
	if !strings.HasPrefix(text, want) {
		problems = append(problems, "does not start with "+strings.TrimSpace(want))
	}
	if _, pending := docShapePending[dir]; pending {
		return problems
	}
	if lines := fset.Position(d.doc.End()).Line - fset.Position(d.doc.Pos()).Line + 1; lines > maxDocLines {
		problems = append(problems, "has "+strconv.Itoa(lines)+" lines, more than "+strconv.Itoa(maxDocLines))
	}
	if strings.Contains(strings.TrimSpace(text), "\n\n") {
		problems = append(problems, "has more than one paragraph")
	}
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, " ") || strings.HasPrefix(line, "\t") || strings.HasPrefix(line, "- ") || strings.HasPrefix(line, "# ") {
			problems = append(problems, "has a list, heading or code block: "+strings.TrimSpace(line))
			break
		}
	}
	if w := invented.FindString(text); w != "" {
		problems = append(problems, "uses "+w+", a word the glossary of docs/architecture.md replaces")
	}
	return problems
}

// TestPackageDocs: every package of the repository (product, tests, infra, mains) has exactly
// one package doc, in one file, starting with its own name ("Package x " or, for a main,
// "Command <dir> "), one short paragraph without lists, so the docs a newcomer reads first stay
// short enough to be kept true.
func TestPackageDocs(t *testing.T) {
	dirs, fset := packageDocs(t)
	if len(dirs) < 40 {
		t.Fatalf("only %d Go directories found under %s: the walk no longer sees the repository", len(dirs), root)
	}
	for dir, files := range dirs {
		var docs []packageDoc
		for _, f := range files {
			if f.doc != nil {
				docs = append(docs, f)
			}
		}
		switch len(docs) {
		case 0:
			t.Errorf("%s: no package doc", dir)
			continue
		case 1:
		default:
			var names []string
			for _, d := range docs {
				names = append(names, d.file)
			}
			t.Errorf("%s: %d files hold a package doc (%s): keep one", dir, len(docs), strings.Join(names, ", "))
			continue
		}
		d := docs[0]
		if strings.HasSuffix(d.file, "_test.go") && hasNonTestFile(files) {
			t.Errorf("%s: the package doc is in %s, a test file; put it on the package itself", dir, d.file)
		}
		for _, p := range docProblems(fset, dir, d) {
			t.Errorf("%s/%s: the package doc %s", dir, d.file, p)
		}
	}
}

func hasNonTestFile(files []packageDoc) bool {
	for _, f := range files {
		if !strings.HasSuffix(f.file, "_test.go") {
			return true
		}
	}
	return false
}

// TestPackageDocRuleCatches: the rule refuses a wrong name, a second paragraph, a list, a long
// doc and an invented word, and accepts a short doc and a command's.
func TestPackageDocRuleCatches(t *testing.T) {
	cases := []struct {
		name, dir, src string
		bad            bool
	}{
		{"good", "internal/x", "// Package x holds x.\npackage x\n", false},
		{"command", "cmd/tool", "// Command tool runs x.\npackage main\n", false},
		{"wrong name", "internal/x", "// Package y holds x.\npackage x\n", true},
		{"command named as package", "cmd/tool", "// Package main runs x.\npackage main\n", true},
		{"two paragraphs", "internal/x", "// Package x holds x.\n//\n// More.\npackage x\n", true},
		{"list", "internal/x", "// Package x holds x:\n//   - a\npackage x\n", true},
		{"long", "internal/x", "// Package x holds x.\n" + strings.Repeat("// more\n", maxDocLines) + "package x\n", true},
		{"invented word", "internal/x", "// Package x holds the seams of y.\npackage x\n", true},
	}
	for _, c := range cases {
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, "x.go", c.src, parser.PackageClauseOnly|parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		got := docProblems(fset, c.dir, packageDoc{file: "x.go", pkg: f.Name.Name, doc: f.Doc})
		if (len(got) > 0) != c.bad {
			t.Errorf("%s: problems %q, want bad=%v", c.name, got, c.bad)
		}
	}
}
