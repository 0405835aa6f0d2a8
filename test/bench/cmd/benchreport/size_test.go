package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestSymbolPackage(t *testing.T) {
	pkgs := pkgTable{
		"main": "github.com/mindvault/mcp-endpoint", "runtime": "std", "io": "std", "net/http": "std",
		"golang.org/x/sys/cpu": "golang.org/x/sys", "gopkg.in/yaml.v3": "gopkg.in/yaml.v3", "gopkg.in/yaml": "gopkg.in/yaml",
		"github.com/aws/smithy-go": "github.com/aws/smithy-go", "github.com/aws/smithy-go/transport/http": "github.com/aws/smithy-go",
		"vendor/golang.org/x/text/unicode/norm": "std", "github.com/stellar/go-stellar-sdk/xdr": "github.com/stellar/go-stellar-sdk",
	}
	for _, tc := range []struct{ sym, want string }{
		{"runtime.mallocgc", "runtime"},
		{"main.main", "main"},
		{"net/http.(*conn).serve", "net/http"},
		{"net/http.(*conn).serve.func1", "net/http"},
		{"gopkg.in/yaml.v3.(*parser).parse", "gopkg.in/yaml.v3"},
		{"github.com/aws/smithy-go/transport/http.(*Request).Build", "github.com/aws/smithy-go/transport/http"},
		{"github.com/aws/smithy-go.(*Document).X", "github.com/aws/smithy-go"},
		{"github.com/stellar/go-stellar-sdk/xdr.Marshal[go.shape.*uint8]", "github.com/stellar/go-stellar-sdk/xdr"},
		{"type:.eq.[27]golang.org/x/sys/cpu.option", "golang.org/x/sys/cpu"},
		{"type:.hash.github.com/stellar/go-stellar-sdk/xdr.Asset", "github.com/stellar/go-stellar-sdk/xdr"},
		{"type:*map[string]*net/http.Cookie", "net/http"},
		{"type:func(io.Reader) error", "io"},
		{"go:itab.*github.com/aws/smithy-go/transport/http.Request,io.Reader", "github.com/aws/smithy-go/transport/http"},
		{"vendor/golang.org/x/text/unicode/norm.decomps", "vendor/golang.org/x/text/unicode/norm"},
		{"go:struct { io.Reader; io.Closer }.Read", "io"},
		{"go:func.*", ""},
		{"go:buildinfo", ""},
		{"type:go.shape.int", ""},
		{"_rt0_arm64_linux", ""},
		{"github.com/unknown/pkg.F", ""},
	} {
		if got := pkgs.symbolPackage(tc.sym); got != tc.want {
			t.Errorf("symbolPackage(%q) = %q, want %q", tc.sym, got, tc.want)
		}
	}
}

// TestSizeByPackageAddsUp reads a small binary of this tree (test/bench/cmd/null, built with its
// symbol table) the way make bench reads the arm64 build: the rows must add up to the loaded
// sections, and the packages it is made of must show.
func TestSizeByPackageAddsUp(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads an ELF binary")
	}
	dir := t.TempDir()
	bin, list := filepath.Join(dir, "null"), filepath.Join(dir, "pkgs")
	if out, err := exec.Command("go", "build", "-trimpath", "-o", bin, "../null").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command("go", "list", "-deps", "-trimpath", "-f", `{{.ImportPath}}{{"\t"}}{{if .Module}}{{.Module.Path}}{{else}}std{{end}}`, "../null").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	if err := os.WriteFile(list, out, 0o600); err != nil {
		t.Fatal(err)
	}
	b, err := sizeByPackage("go", bin, list)
	if err != nil {
		t.Fatal(err)
	}
	var pkgs, uncovered int64
	shares := map[string]sizeShare{}
	for _, s := range b.packages {
		pkgs += s.bytes
		shares[s.name] = s
	}
	for _, s := range b.uncovered {
		uncovered += s.bytes
	}
	if pkgs+b.unassigned != b.symbols || b.symbols+uncovered != b.sections || b.symbols > b.sections {
		t.Errorf("packages %d + unassigned %d != symbols %d, or symbols + uncovered %d != sections %d", pkgs, b.unassigned, b.symbols, uncovered, b.sections)
	}
	if st, err := os.Stat(bin); err != nil || b.sections > st.Size() || b.sections < st.Size()/2 {
		t.Errorf("loaded sections %d bytes in a file of %v (%v): bss counted, or sections missed", b.sections, st.Size(), err)
	}
	if b.unassigned > b.symbols/5 {
		t.Errorf("%d of %d bytes of symbols were given no package", b.unassigned, b.symbols)
	}
	for _, name := range []string{"runtime", "net/http", "github.com/mindvault/mcp-endpoint/test/bench/nullrpc", "main (github.com/mindvault/mcp-endpoint/test/bench/cmd/null)"} {
		if s := shares[name]; s.text <= 0 || s.text > s.bytes {
			t.Errorf("%s: %+v", name, s)
		}
	}
	var mods int64
	for _, m := range b.modules {
		mods += m.bytes
	}
	if mods != pkgs || b.modules[0].name != "std" {
		t.Errorf("modules %d bytes, packages %d; largest module %q", mods, pkgs, b.modules[0].name)
	}
	if b.code <= 0 || b.pclntab <= 0 || b.withPCLN(shares["runtime"]) <= shares["runtime"].bytes {
		t.Errorf("code %d, .gopclntab %d, runtime with its share %d", b.code, b.pclntab, b.withPCLN(shares["runtime"]))
	}
	// The report renders the breakdown with nothing else measured.
	var w strings.Builder
	(&report{bySize: b}).coldSection(func(f string, a ...any) { fmt.Fprintf(&w, f, a...) })
	if md := w.String(); !strings.Contains(md, "| runtime | ") || !strings.Contains(md, "| (no symbol, section `.gopclntab`) | ") || !strings.Contains(md, "| std | ") {
		t.Errorf("size tables:\n%s", md)
	}
	if o := top(b.packages, 2); len(o) != 3 || o[0].bytes < o[1].bytes || o[2].bytes != pkgs-o[0].bytes-o[1].bytes {
		t.Errorf("top 2: %+v", o)
	}
}
