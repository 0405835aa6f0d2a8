package main

import (
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/mindvault/mcp-endpoint/internal/redact/lazyre"
)

const module = "github.com/mindvault/mcp-endpoint"

// localOnly are the packages only local builds and tests may link: the module's simulators,
// the local boot that starts them, fakes and test harnesses; and the libraries the deployed
// function never needs at run time: the AWS SDK's shared-config loader with the STS, SSO,
// sign-in and instance-metadata clients it brings (the function reads the credentials Lambda
// puts in its environment, credentials.EnvAWSConfig; local builds inject the loader,
// credentials/awsshared), the schema reflector (the tool definitions are generated at build
// time by internal/gen/schemagen into internal/tools/definitions_gen.go), and the Stellar SDK's Horizon
// protocol types with the logging, routing and rendering packages they bring (clients/horizon
// decodes the few account fields it reads into its own types).
var localOnly = []string{
	module + "/internal/sandbox", module + "/internal/server/local", module + "/internal/testkit", module + "/internal/credentials/awsshared",
	module + "/internal/gen", module + "/test", module + "/infra", module + "/internal/ledger/ledgertest",
	"github.com/invopop/jsonschema",
	"github.com/stellar/go-stellar-sdk/protocols/horizon", "github.com/sirupsen/logrus", "github.com/go-chi/chi",
	"github.com/aws/aws-sdk-go-v2/config", "github.com/aws/aws-sdk-go-v2/credentials",
	"github.com/aws/aws-sdk-go-v2/service/sts", "github.com/aws/aws-sdk-go-v2/service/sso",
	"github.com/aws/aws-sdk-go-v2/service/ssooidc", "github.com/aws/aws-sdk-go-v2/service/signin",
	"github.com/aws/aws-sdk-go-v2/feature/ec2/imds",
}

// lambdaTags are the build tags of the Makefile's LAMBDA_FLAGS, which every build of the
// deployed binary uses (make build, build-McpFunction, build-host for the emulator), so these
// tests look at the binary that ships rather than at a copy of its flags.
func lambdaTags(t *testing.T) string {
	t.Helper()
	mk, err := os.ReadFile("../../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^LAMBDA_FLAGS\s*:=.*-tags ([^ ]+)`).FindSubmatch(mk)
	if m == nil {
		t.Fatal("the Makefile has no LAMBDA_FLAGS with -tags")
	}
	return string(m[1])
}

// goList runs go list for linux/arm64 without cgo, as the deployed binary is built.
func goList(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list"}, args...)...)
	cmd.Env = append(os.Environ(), "GOOS=linux", "GOARCH=arm64", "CGO_ENABLED=0")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list %v: %v", args, err)
	}
	return string(out)
}

// TestLambdaBuildDropsValidateFn: the deployed build's tags include validator_novalidatefn and
// the validator version in go.mod honours it (it compiles validate_fn.go, the variant without
// reflect's MethodByName, whose mere presence makes the linker keep every exported method of
// every type: 3.4 MB of Stellar XDR methods nothing calls). validate refuses the validateFn
// rule at registration (validate.TestCompileRefusesValidateFn), so the tag removes only code
// no call can reach.
func TestLambdaBuildDropsValidateFn(t *testing.T) {
	tags := strings.Split(lambdaTags(t), ",")
	for _, want := range []string{"lambda.norpc", "validator_novalidatefn"} {
		if !slices.Contains(tags, want) {
			t.Errorf("LAMBDA_FLAGS tags %v lack %s", tags, want)
		}
	}
	files := strings.Fields(goList(t, "-tags", lambdaTags(t), "-f", "{{.GoFiles}}", "github.com/go-playground/validator/v10"))
	if !slices.Contains(files, "validate_fn.go") || slices.Contains(files, "no_validate_fn.go") {
		t.Errorf("with tags %s validator compiles %v: the tag no longer selects the variant without MethodByName", lambdaTags(t), files)
	}
}

// TestLambdaBinaryLinksOnlyWhatItRuns: the deployed bootstrap is built (as `make build` builds
// it: LAMBDA_FLAGS's tags, linux/arm64) from production code only, so no simulator, fake or
// harness can be reached in it, and without the libraries only local builds use. The local
// build is listed too, to show the check does see those packages where they are linked.
func TestLambdaBinaryLinksOnlyWhatItRuns(t *testing.T) {
	cases := []struct {
		name, pkg  string
		tags       string
		wantLinked []string // local-only packages this build must link
	}{
		{"the Lambda bootstrap", ".", lambdaTags(t), nil},
		{"the local build", module + "/cmd/mindvault-local", "", []string{
			module + "/internal/sandbox", module + "/internal/server/local", module + "/internal/credentials/awsshared",
			"github.com/aws/aws-sdk-go-v2/config", "github.com/aws/aws-sdk-go-v2/service/sts",
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			args := []string{"-deps", "-f", "{{.ImportPath}}"}
			if c.tags != "" {
				args = append(args, "-tags", c.tags)
			}
			out := goList(t, append(args, c.pkg)...)
			deps := strings.Fields(out)
			if !slices.Contains(deps, module+"/internal/server") {
				t.Fatalf("go list -deps %s does not list the endpoint package; the check reads nothing:\n%s", c.pkg, out)
			}
			var linked []string
			for _, d := range deps {
				for _, p := range localOnly {
					if (d == p || strings.HasPrefix(d, p+"/")) && !slices.Contains(linked, p) {
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
				t.Errorf("the deployed binary links local-only packages %v; production code must not import them", linked)
			}
		})
	}
}

// TestEveryPatternCompiles: the endpoint's regular expressions compile on first use (package
// lazyre), so that a cold start compiles none it does not need; a broken one would then fail
// only the request that reaches it. This compiles every pattern the deployed binary declares.
func TestEveryPatternCompiles(t *testing.T) {
	if n := lazyre.MustCompileAll(); n < 30 {
		t.Fatalf("only %d patterns declared; the binary's packages are not all linked into this test", n)
	}
}
