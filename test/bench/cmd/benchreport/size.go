package main

import (
	"bufio"
	"bytes"
	"debug/elf"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
)

// sizeShare is the bytes of a binary's symbols that belong to one package (or module).
type sizeShare struct {
	name  string
	bytes int64
	text  int64 // of which code
}

// sizeBreakdown is the file of the deployed binary, explained: the symbols of the same build
// with its symbol table summed per package, and what no symbol covers (the pc-line tables,
// merged strings, alignment) per section, so that the rows add up to the loaded sections.
type sizeBreakdown struct {
	sections   int64       // bytes of the file-backed loaded sections
	symbols    int64       // of which covered by a sized symbol
	packages   []sizeShare // by import path, largest first
	modules    []sizeShare // the same by module ("std" for the standard library)
	uncovered  []sizeShare // per section, the bytes no symbol covers
	unassigned int64       // symbols whose package could not be told (go.shape, linker data)
	code       int64       // bytes of code symbols, assigned or not
	pclntab    int64       // the .gopclntab section, which no symbol covers
}

// withPCLN is a share's bytes plus its pro rata part of the pc-line tables, by its code: an
// estimate (the tables grow with the functions, not exactly with their bytes).
func (b *sizeBreakdown) withPCLN(s sizeShare) int64 {
	if b.code == 0 {
		return s.bytes
	}
	return s.bytes + s.text*b.pclntab/b.code
}

// pkgTable maps an import path to its module; symbols of the main package start with "main",
// which maps to the main package's module.
type pkgTable map[string]string

// mainPkg is the key under which readPkgList keeps the main package's import path (not a
// symbol prefix: no symbol starts with a space).
const mainPkg = " main"

// readPkgList reads the lines "import/path<TAB>module" that test/bench/run.sh writes with
// go list -deps, with the same flags, GOOS and GOARCH as the binary.
func readPkgList(path string) (pkgTable, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	t := pkgTable{}
	var last string
	for _, l := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		pkg, mod, ok := strings.Cut(l, "\t")
		if !ok {
			return nil, fmt.Errorf("%s: not a package list line: %q", path, l)
		}
		t[pkg] = mod
		last = pkg
	}
	// go list -deps prints the named package last: the main package, whose symbols say "main".
	t["main"], t[mainPkg] = t[last], last
	return t, nil
}

// symbolPackage is the import path a Go symbol belongs to, "" when it names none. Functions
// and methods start with their package (pkg.F, pkg.(*T).M, pkg.F[go.shape.int].func1); type
// descriptors, equality and hash functions and itabs name a type, possibly composite
// (type:.eq.[27]golang.org/x/sys/cpu.option, type:map[string]*pkg.T,
// go:itab.*pkg.T,io.Reader): the first package path found at the start of the type or after
// one of its punctuation marks wins. Import paths hold dots themselves (gopkg.in/yaml.v3), so
// every dot is tried and the longest known path wins.
func (t pkgTable) symbolPackage(sym string) string {
	for _, p := range []string{"type:.eq.", "type:.hash.", "type:.namedata.", "type:.importpath.", "type:", "go:itab."} {
		if rest, ok := strings.CutPrefix(sym, p); ok {
			sym = rest
			break
		}
	}
	for i := 0; i < len(sym); i++ {
		if i > 0 && !strings.ContainsRune("*[](){} ,;", rune(sym[i-1])) {
			continue
		}
		best := ""
		for j := i; j < len(sym); j++ {
			c := sym[j]
			if strings.IndexByte("*[](){} ,;", c) >= 0 {
				break
			}
			if c == '.' {
				if _, ok := t[sym[i:j]]; ok {
					best = sym[i:j]
				}
			}
		}
		if best != "" {
			return best
		}
	}
	return ""
}

// sizeByPackage runs `go tool nm -size -sort size` on bin (built like the deployed binary but
// with its symbol table) and sums the symbols that occupy the file per package, and per
// module. Which symbols occupy the file is read from the ELF sections: bss and noptrbss take
// no room (go tool nm reports some of them as data, such as a 32 MiB FIPS DRBG arena).
func sizeByPackage(goCmd, bin, pkgList string) (*sizeBreakdown, error) {
	if bin == "" || pkgList == "" {
		return nil, errors.New("no unstripped arm64 binary or package list given")
	}
	pkgs, err := readPkgList(pkgList)
	if err != nil {
		return nil, err
	}
	f, err := elf.Open(bin)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var loaded []*elf.Section
	b := &sizeBreakdown{}
	covered := map[string]int64{}
	for _, s := range f.Sections {
		if s.Flags&elf.SHF_ALLOC != 0 && s.Type != elf.SHT_NOBITS && s.Size > 0 {
			loaded = append(loaded, s)
			b.sections += int64(s.Size)
		}
	}
	sectionOf := func(addr uint64) *elf.Section {
		for _, s := range loaded {
			if addr >= s.Addr && addr < s.Addr+s.Size {
				return s
			}
		}
		return nil
	}
	out, err := exec.Command(goCmd, "tool", "nm", "-size", "-sort", "size", bin).Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			err = fmt.Errorf("%w: %s", err, bytes.TrimSpace(ee.Stderr))
		}
		return nil, fmt.Errorf("go tool nm: %w", err)
	}
	byPkg, byMod := map[string]*sizeShare{}, map[string]*sizeShare{}
	add := func(m map[string]*sizeShare, name string, n int64, text bool) {
		s := m[name]
		if s == nil {
			s = &sizeShare{name: name}
			m[name] = s
		}
		s.bytes += n
		if text {
			s.text += n
		}
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		// "ADDR SIZE TYPE NAME", the name possibly with spaces (go:struct { io.Reader }.Read).
		fl := strings.Fields(sc.Text())
		if len(fl) < 4 {
			continue
		}
		addr, err1 := strconv.ParseUint(fl[0], 16, 64)
		n, err2 := strconv.ParseInt(fl[1], 10, 64)
		if err1 != nil || err2 != nil || n <= 0 {
			continue
		}
		sec := sectionOf(addr)
		if sec == nil {
			continue
		}
		n = min(n, int64(sec.Addr+sec.Size-addr))
		covered[sec.Name] += n
		b.symbols += n
		text := sec.Flags&elf.SHF_EXECINSTR != 0
		if text {
			b.code += n
		}
		pkg := pkgs.symbolPackage(strings.Join(fl[3:], " "))
		if pkg == "" {
			b.unassigned += n
			continue
		}
		add(byMod, pkgs[pkg], n, text)
		if pkg == "main" {
			pkg = "main (" + pkgs[mainPkg] + ")"
		}
		add(byPkg, pkg, n, text)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	for _, s := range loaded {
		if s.Name == ".gopclntab" {
			b.pclntab = int64(s.Size) - covered[s.Name]
		}
		if rest := int64(s.Size) - covered[s.Name]; rest > 0 {
			b.uncovered = append(b.uncovered, sizeShare{name: s.Name, bytes: rest})
		}
	}
	sorted := func(m map[string]*sizeShare) []sizeShare {
		var s []sizeShare
		for _, v := range m {
			s = append(s, *v)
		}
		sort.Slice(s, func(i, j int) bool {
			return s[i].bytes > s[j].bytes || s[i].bytes == s[j].bytes && s[i].name < s[j].name
		})
		return s
	}
	b.packages, b.modules = sorted(byPkg), sorted(byMod)
	sort.Slice(b.uncovered, func(i, j int) bool { return b.uncovered[i].bytes > b.uncovered[j].bytes })
	return b, nil
}

// top is the first n shares and the rest summed in one row named other.
func top(shares []sizeShare, n int) []sizeShare {
	if len(shares) <= n {
		return shares
	}
	out := append([]sizeShare(nil), shares[:n]...)
	rest := sizeShare{name: fmt.Sprintf("other (%d)", len(shares)-n)}
	for _, s := range shares[n:] {
		rest.bytes += s.bytes
		rest.text += s.text
	}
	return append(out, rest)
}
