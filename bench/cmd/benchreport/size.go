package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os/exec"
	"sort"
	"strconv"
	"strings"
)

// sizeShare is the bytes of a binary's symbols that belong to one module (or one standard
// library package).
type sizeShare struct {
	name  string
	bytes int64
	text  int64 // of which code
}

// sizeBreakdown is the symbol table of the unstripped arm64 build, summed by module.
type sizeBreakdown struct {
	total   int64 // all sized symbols that occupy the file (code, read-only and initialised data)
	modules []sizeShare
	std     []sizeShare // the standard library, by package
}

// sizeByModule runs `go tool nm -size -sort size` on bin (built like the deployed binary
// but with its symbol table) and sums symbol sizes per module, taking the module list from
// the binary's own build information. Uninitialised data (bss) takes no room in the file and
// is left out; the symbol sizes cover code and data but not the runtime's tables (pclntab,
// type links), which grow with the code.
func sizeByModule(goCmd, bin string) (*sizeBreakdown, error) {
	if bin == "" {
		return nil, errors.New("no unstripped arm64 binary given")
	}
	mods, err := moduleList(goCmd, bin)
	if err != nil {
		return nil, err
	}
	out, err := exec.Command(goCmd, "tool", "nm", "-size", "-sort", "size", bin).Output()
	if err != nil {
		return nil, fmt.Errorf("go tool nm: %w", err)
	}
	byMod, byStd := map[string]*sizeShare{}, map[string]*sizeShare{}
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
	b := &sizeBreakdown{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 4 || f[2] == "U" || f[2] == "B" || f[2] == "b" {
			continue
		}
		n, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil || n > 16<<20 { // a huge noptrbss arena misreported as data
			continue
		}
		text := f[2] == "T" || f[2] == "t"
		pkg := symbolPackage(strings.Join(f[3:], " "))
		b.total += n
		if mod := moduleOf(pkg, mods); mod != "" {
			add(byMod, mod, n, text)
			continue
		}
		if pkg == "" || strings.HasPrefix(pkg, "go:") {
			add(byMod, "(runtime tables and closures)", n, text)
			continue
		}
		add(byMod, "std", n, text)
		add(byStd, stdGroup(pkg), n, text)
	}
	sorted := func(m map[string]*sizeShare) []sizeShare {
		var s []sizeShare
		for _, v := range m {
			s = append(s, *v)
		}
		sort.Slice(s, func(i, j int) bool { return s[i].bytes > s[j].bytes })
		return s
	}
	b.modules, b.std = sorted(byMod), sorted(byStd)
	return b, nil
}

// moduleList is the main module and the dependencies `go version -m` lists for bin.
func moduleList(goCmd, bin string) ([]string, error) {
	out, err := exec.Command(goCmd, "version", "-m", bin).Output()
	if err != nil {
		return nil, fmt.Errorf("go version -m: %w", err)
	}
	var mods []string
	for _, l := range strings.Split(string(out), "\n") {
		f := strings.Fields(l)
		if len(f) >= 2 && (f[0] == "mod" || f[0] == "dep") {
			mods = append(mods, f[1])
		}
	}
	// Longest first, so a module nested in another's path wins.
	sort.Slice(mods, func(i, j int) bool { return len(mods[i]) > len(mods[j]) })
	return mods, nil
}

func moduleOf(pkg string, mods []string) string {
	for _, m := range mods {
		if pkg == m || strings.HasPrefix(pkg, m+"/") {
			return m
		}
	}
	return ""
}

// symbolPackage guesses the import path of a Go symbol: type descriptors and method values
// are unwrapped, generic arguments and receivers dropped, and the path cut at the first dot
// after its last slash.
func symbolPackage(sym string) string {
	for _, p := range []string{"type:.eq.", "type:.hash.", "type:", "go:itab.", "go:string.", "go:info."} {
		if strings.HasPrefix(sym, p) && len(sym) > len(p) {
			sym = sym[len(p):]
			break
		}
	}
	sym = strings.TrimLeft(sym, "*")
	if i := strings.IndexAny(sym, "[("); i >= 0 {
		sym = sym[:i]
	}
	slash := strings.LastIndex(sym, "/")
	if dot := strings.Index(sym[slash+1:], "."); dot >= 0 {
		return sym[:slash+1+dot]
	}
	return sym
}

// stdGroup folds the standard library into a few readable groups.
func stdGroup(pkg string) string {
	for _, g := range []string{"crypto", "net/http", "net", "runtime", "internal", "encoding", "vendor", "reflect", "math", "regexp"} {
		if pkg == g || strings.HasPrefix(pkg, g+"/") {
			return g
		}
	}
	return pkg
}
