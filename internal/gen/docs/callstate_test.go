package docs

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// maxContextValues is how many places of the product may put a value into a context: the
// request's own state, the caller's grant and the trace (docs/architecture.md "How a request flows");
// a tool's per-call state is its Call, never the context.
const maxContextValues = 4

// notProduct are the folders whose code never runs in the deployed endpoint.
var notProduct = []string{"internal/sandbox", "internal/testkit", "internal/gen", "infra", "cmd", "test", ".tools"}

// hiddenState lists a file's init functions and its context.WithValue calls, as "file:line what".
func hiddenState(fset *token.FileSet, f *ast.File) (inits, values []string) {
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncDecl:
			if n.Name.Name == "init" && n.Recv == nil {
				inits = append(inits, fset.Position(n.Pos()).String()+" init()")
			}
		case *ast.SelectorExpr:
			if x, ok := n.X.(*ast.Ident); ok && x.Name == "context" && n.Sel.Name == "WithValue" {
				values = append(values, fset.Position(n.Pos()).String()+" context.WithValue")
			}
		}
		return true
	})
	return inits, values
}

// TestNoHiddenCallState: the product has no init() and at most maxContextValues places that
// put a value into a context: per-call state travels in one value, and nothing registers itself.
func TestNoHiddenCallState(t *testing.T) {
	fset := token.NewFileSet()
	var inits, values []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			for _, p := range notProduct {
				if rel == p || d.Name() == "testdata" || d.Name() == "node_modules" {
					return filepath.SkipDir
				}
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		i, v := hiddenState(fset, f)
		inits, values = append(inits, i...), append(values, v...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range inits {
		t.Errorf("%s: product code registers nothing at start; pass it explicitly", i)
	}
	if len(values) > maxContextValues {
		t.Errorf("%d context.WithValue sites, at most %d: per-call state travels in the Call\n%s", len(values), maxContextValues, strings.Join(values, "\n"))
	}
	if len(values) == 0 {
		t.Error("no context.WithValue found: the scan is not reading the product")
	}
}

// TestHiddenStateRuleCatches: a planted init and a planted context value are found.
func TestHiddenStateRuleCatches(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "planted.go", `package p
import "context"
func init() {}
func (T) init() {}
func f(ctx context.Context) context.Context { return context.WithValue(ctx, 1, 2) }`, 0)
	if err != nil {
		t.Fatal(err)
	}
	if inits, values := hiddenState(fset, f); len(inits) != 1 || len(values) != 1 {
		t.Fatalf("inits %v, values %v: want one of each (a method named init is not one)", inits, values)
	}
}
