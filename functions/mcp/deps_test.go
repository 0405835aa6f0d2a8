package main

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/mindvault/mcp-endpoint"

// testOnly are the module's packages that exist for local runs and tests: the simulators,
// the local boot that starts them, fakes and test harnesses.
var testOnly = []string{"sandbox", "local", "credentials/smtest", "internal/schemacheck", "internal/docs", "bench", "infra"}

// TestLambdaBinaryLinksNoTestInfrastructure: the deployed bootstrap is built (as `make build`
// builds it: -tags lambda.norpc, linux/arm64) from production code only, so no simulator,
// fake or harness can be reached in it. The local build is listed too, to show the check
// does see the sandbox where it is linked.
func TestLambdaBinaryLinksNoTestInfrastructure(t *testing.T) {
	cases := []struct {
		name, pkg  string
		tags       string
		wantLinked []string // test-only packages this build must link
	}{
		{"the Lambda bootstrap", ".", "lambda.norpc", nil},
		{"the local build", module + "/cmd/mindvault-local", "", []string{"sandbox", "local"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			args := []string{"list", "-deps", "-f", "{{.ImportPath}}"}
			if c.tags != "" {
				args = append(args, "-tags", c.tags)
			}
			cmd := exec.Command("go", append(args, c.pkg)...)
			cmd.Env = append(os.Environ(), "GOOS=linux", "GOARCH=arm64", "CGO_ENABLED=0")
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("go list: %v", err)
			}
			deps := strings.Fields(string(out))
			if !slices.Contains(deps, module+"/endpoint") {
				t.Fatalf("go list -deps %s does not list the endpoint package; the check reads nothing:\n%s", c.pkg, out)
			}
			var linked []string
			for _, d := range deps {
				for _, p := range testOnly {
					if d == module+"/"+p || strings.HasPrefix(d, module+"/"+p+"/") {
						linked = append(linked, p)
					}
				}
			}
			for _, p := range c.wantLinked {
				if !slices.Contains(linked, p) {
					t.Errorf("%s does not link %s", c.pkg, p)
				}
			}
			if c.wantLinked == nil && len(linked) > 0 {
				t.Errorf("the deployed binary links test-only packages %v; production code must not import them", linked)
			}
		})
	}
}
