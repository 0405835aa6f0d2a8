package docs

import (
	"os/exec"
	"strings"
	"testing"
)

// module is the module path every package's import path starts with.
const module = "github.com/mindvault/mcp-endpoint/"

// layers ranks the product's packages from the bottom up: a package may import only packages
// of its own layer or below (docs/architecture.md "Layers"). A package in none of these is a
// main, a test suite or a tool, which may import any layer but gen/, testkit/ and sandbox/
// unless allowed below.
var layers = [][]string{
	{"internal/redact", "internal/netaddr"},
	{"errmap"},
	{"validate", "requests", "internal/config"},
	{"internal/clients", "internal/credentials", "internal/obs", "internal/ledger"},
	{"internal/auth", "internal/confirm"},
	{"internal/mcp"},
	{"internal/tools"},
	{"internal/server"},
}

// restricted are the packages the product must not import: who may, besides tests.
var restricted = map[string][]string{
	"internal/gen":     {"internal/gen"},
	"internal/testkit": {"internal/testkit", "infra/invoke"},
	"internal/sandbox": {"internal/sandbox", "internal/server/local", "cmd/mindvault-local", "infra/invoke", "test/"},
}

// below lists the mains of the product (they may import the layers, but never gen/ or testkit/).
func layerOf(pkg string) int {
	best, at := -1, -1
	for i, group := range layers {
		for _, prefix := range group {
			if (pkg == prefix || strings.HasPrefix(pkg, prefix+"/")) && len(prefix) > best {
				best, at = len(prefix), i
			}
		}
	}
	return at
}

func under(pkg string, prefixes []string) bool {
	for _, p := range prefixes {
		if pkg == strings.TrimSuffix(p, "/") || strings.HasPrefix(pkg, strings.TrimSuffix(p, "/")+"/") {
			return true
		}
	}
	return false
}

// TestLayersImportDownward: every non-test import of the module's packages goes to a lower or
// the same layer, and gen/, testkit/ and sandbox/ are imported only where they may be.
func TestLayersImportDownward(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, module+"...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	checked := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg := strings.TrimPrefix(fields[0], module)
		for _, imp := range fields[1:] {
			if !strings.HasPrefix(imp, module) {
				continue
			}
			dep := strings.TrimPrefix(imp, module)
			checked++
			for r, allowed := range restricted {
				if under(dep, []string{r}) && !under(pkg, allowed) {
					t.Errorf("%s imports %s, which only %v may import (besides tests)", pkg, dep, allowed)
				}
			}
			if from, to := layerOf(pkg), layerOf(dep); from >= 0 && to > from {
				t.Errorf("%s (layer %d) imports %s (layer %d): an import upward", pkg, from, dep, to)
			}
		}
	}
	if checked < 50 {
		t.Fatalf("only %d imports checked: the listing is not the module's", checked)
	}
}

// TestLayerRuleCatches: the rule itself refuses an upward import and a product import of a
// test kit (so the test above cannot pass by checking nothing).
func TestLayerRuleCatches(t *testing.T) {
	if from, to := layerOf("errmap"), layerOf("internal/tools"); !(to > from) {
		t.Fatal("errmap importing internal/tools would not be upward")
	}
	if layerOf("internal/clients/x402") != layerOf("internal/clients") {
		t.Fatal("a client package is not in the clients' layer")
	}
	if under("internal/tools", restricted["internal/testkit"]) {
		t.Fatal("tools would be allowed to import a test kit")
	}
}

// rootEntries are the folders the root may hold: the design card's and the four beside them.
var rootEntries = map[string]bool{
	"functions": true, "requests": true, "validate": true, "errmap": true, "infra": true, "events": true,
	"cmd": true, "docs": true, "internal": true, "test": true, ".ci": true,
}

// TestRootHoldsOnlyTheCard: a new folder at the root fails (put it under internal/ or test/).
func TestRootHoldsOnlyTheCard(t *testing.T) {
	out, err := exec.Command("git", "-C", root, "ls-files").Output()
	if err != nil {
		t.Skipf("not a git checkout: %v", err)
	}
	seen := map[string]bool{}
	for _, f := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		top, _, isDir := strings.Cut(f, "/")
		if isDir && !seen[top] {
			seen[top] = true
			if !rootEntries[top] {
				t.Errorf("%s/ at the root: the root holds only %v (put it under internal/ or test/)", top, keys(rootEntries))
			}
		}
	}
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
