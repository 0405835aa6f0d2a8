package infra

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stellar/go-stellar-sdk/keypair"

	"github.com/mindvault/mcp-endpoint/internal/auth"
	"github.com/mindvault/mcp-endpoint/internal/credentials"
	"github.com/mindvault/mcp-endpoint/internal/server/local"
)

// docs/deploy.md is a walkthrough of commands to paste; these tests keep every name in it real:
// template parameters, resources and outputs, Makefile targets, environment variables the code
// reads, and the shapes of the two secrets an operator creates by hand. The curl commands run
// against a local endpoint.

const deployDocPath = "../docs/deploy.md"

// shBlock is one ```sh fenced block of the walkthrough, under its section heading.
type shBlock struct {
	section, text string
	line          int
}

// shBlocks returns the ```sh blocks, indented ones (inside list items) included, with the
// fence's indentation removed.
func shBlocks(doc string) []shBlock {
	var out []shBlock
	section := ""
	var cur *shBlock
	indent := ""
	for i, line := range strings.Split(doc, "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case cur != nil && trimmed == "```":
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			cur.text += strings.TrimPrefix(line, indent) + "\n"
		case trimmed == "```sh":
			indent = line[:len(line)-len(strings.TrimLeft(line, " "))]
			cur = &shBlock{section: section, line: i + 1}
		case strings.HasPrefix(line, "## "):
			section = strings.TrimPrefix(line, "## ")
		}
	}
	return out
}

// commands joins continued lines, so each command is one line.
func commands(b shBlock) []string {
	var out []string
	for _, l := range strings.Split(strings.ReplaceAll(b.text, "\\\n", " "), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return out
}

// docFacts are the names a command may use.
type docFacts struct {
	params, resources, outputs, targets, env map[string]bool
	tokenSecret, credentialPrefix            string // the template's defaults
}

var (
	overridesArg = regexp.MustCompile(`--parameter-overrides((?:\s+[A-Za-z0-9]+=(?:"[^"]*"|'[^']*'|\S+))+)`)
	overrideName = regexp.MustCompile(`(?:^|\s)([A-Za-z0-9]+)=`)
	parameterKey = regexp.MustCompile(`ParameterKey=([A-Za-z0-9]+)`)
	logicalID    = regexp.MustCompile(`--logical-resource-id\s+([A-Za-z0-9]+)`)
	outputKey    = regexp.MustCompile(`OutputKey=='([A-Za-z0-9]+)'`)
	makeTarget   = regexp.MustCompile(`(?:^|[\s;&|(` + "`" + `])make\s+([A-Za-z][A-Za-z0-9_-]*)`)
	envName      = regexp.MustCompile(`\b(?:MINDVAULT|STELLAR)_[A-Z0-9_]*[A-Z0-9]\b`)
	codeSpan     = regexp.MustCompile("`[^`\n]+`")
	paramRow     = regexp.MustCompile("(?m)^\\| `([A-Za-z0-9]+)` \\|")
	createSecret = regexp.MustCompile(`aws secretsmanager create-secret --name (\S+) .*--secret-string "((?:[^"\\]|\\.)*)"`)
)

// checkDeployDoc reports every name in the walkthrough that points nowhere.
func checkDeployDoc(doc string, f docFacts) []string {
	var problems []string
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	var code []string // every command and code span, where make targets are named
	for _, b := range shBlocks(doc) {
		for _, cmd := range commands(b) {
			code = append(code, cmd)
			where := fmt.Sprintf("docs/deploy.md:%d (%s)", b.line, b.section)
			for _, m := range overridesArg.FindAllStringSubmatch(cmd, -1) {
				for _, n := range overrideName.FindAllStringSubmatch(m[1], -1) {
					if !f.params[n[1]] {
						bad("%s: --parameter-overrides names %s, which is not a parameter of template.yaml", where, n[1])
					}
				}
			}
			for _, n := range parameterKey.FindAllStringSubmatch(cmd, -1) {
				if !f.params[n[1]] {
					bad("%s: ParameterKey=%s is not a parameter of template.yaml", where, n[1])
				}
			}
			for _, n := range logicalID.FindAllStringSubmatch(cmd, -1) {
				if !f.resources[n[1]] {
					bad("%s: --logical-resource-id %s is not a resource of template.yaml", where, n[1])
				}
			}
			for _, n := range outputKey.FindAllStringSubmatch(cmd, -1) {
				if !f.outputs[n[1]] {
					bad("%s: OutputKey %s is not an output of template.yaml", where, n[1])
				}
			}
			if m := createSecret.FindStringSubmatch(cmd); m != nil {
				problems = append(problems, checkSecretCommand(where, m[1], m[2], f)...)
			}
		}
	}
	code = append(code, codeSpan.FindAllString(doc, -1)...)
	for _, c := range code {
		for _, m := range makeTarget.FindAllStringSubmatch(c, -1) {
			if !f.targets[m[1]] {
				bad("docs/deploy.md: `make %s` is not a target of the Makefile", m[1])
			}
		}
	}
	for _, name := range uniqueSorted(envName.FindAllString(doc, -1)) {
		if !f.env[name] {
			bad("docs/deploy.md: %s is not a variable the code reads", name)
		}
	}
	// The parameter table lists every parameter, and only parameters.
	_, table, _ := strings.Cut(doc, "\n## Parameters\n")
	table, _, _ = strings.Cut(table, "\n## ")
	listed := map[string]bool{}
	for _, m := range paramRow.FindAllStringSubmatch(table, -1) {
		listed[m[1]] = true
		if !f.params[m[1]] {
			bad("docs/deploy.md \"Parameters\": %s is not a parameter of template.yaml", m[1])
		}
	}
	for _, p := range sortedBoolKeys(f.params) {
		if !listed[p] {
			bad("docs/deploy.md \"Parameters\": the table does not explain %s", p)
		}
	}
	return problems
}

// checkSecretCommand checks a create-secret command of the walkthrough against what the code
// reads: the token secret's value parses as the token list (with the digest variable filled
// in), and a profile secret, named under the credential prefix, decodes as a profile with no
// unknown field.
func checkSecretCommand(where, name, value string, f docFacts) []string {
	value = strings.NewReplacer(`\"`, `"`, `\\`, `\`).Replace(value)
	switch {
	case name == f.tokenSecret:
		filled := strings.ReplaceAll(value, "$DIGEST", hex.EncodeToString(make([]byte, 32)))
		if strings.Contains(filled, "$") {
			return []string{fmt.Sprintf("%s: the token secret's value %q uses a variable other than $DIGEST", where, value)}
		}
		tokens, err := auth.ParseTokens(filled)
		if err != nil || len(tokens) != 1 {
			return []string{fmt.Sprintf("%s: the token secret's value %q is not what the function reads: %v", where, value, err)}
		}
	case strings.HasPrefix(name, f.credentialPrefix):
		seed := keypair.MustRandom().Seed()
		filled := strings.NewReplacer("$SECRET_KEY", seed, "${SECRET_KEY}", seed).Replace(value)
		dec := json.NewDecoder(strings.NewReader(filled))
		dec.DisallowUnknownFields()
		var p credentials.Profile
		if err := dec.Decode(&p); err != nil {
			return []string{fmt.Sprintf("%s: the profile secret's value %q is not a profile: %v", where, value, err)}
		}
		if p.SecretKey != seed {
			return []string{fmt.Sprintf("%s: the profile secret's value %q does not carry the secret key as secretKey", where, value)}
		}
	default:
		return []string{fmt.Sprintf("%s: create-secret %s is neither the token secret (%s) nor under the credential prefix (%s)", where, name, f.tokenSecret, f.credentialPrefix)}
	}
	return nil
}

func sortedBoolKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// codeEnvNames are the quoted environment variable names in the product's Go source (tests
// excluded): every variable the code reads is named there as a string literal.
func codeEnvNames(t *testing.T) map[string]bool {
	t.Helper()
	lit := regexp.MustCompile(`"([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)"`)
	out := map[string]bool{}
	root := repoRoot(t)
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case "node_modules", "testdata", ".tools", ".git", "bin":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, m := range lit.FindAllSubmatch(b, -1) {
			out[string(m[1])] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !out["MINDVAULT_DEFAULT_PROFILE"] || !out["STELLAR_NETWORK"] {
		t.Fatalf("the source scan found %d names, not the configuration's", len(out))
	}
	return out
}

func deployDocFacts(t *testing.T) docFacts {
	t.Helper()
	tpl := loadTemplate(t)
	set := func(m map[string]any) map[string]bool {
		out := map[string]bool{}
		for k := range m {
			out[k] = true
		}
		return out
	}
	mk, err := os.ReadFile(filepath.Join(repoRoot(t), "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	targets := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^([A-Za-z][A-Za-z0-9_-]*):`).FindAllStringSubmatch(string(mk), -1) {
		targets[m[1]] = true
	}
	def := func(p string) string {
		s, _ := tpl.Section("Parameters")[p].(map[string]any)["Default"].(string)
		return s
	}
	return docFacts{
		params: set(tpl.Section("Parameters")), resources: set(tpl.Section("Resources")), outputs: set(tpl.Section("Outputs")),
		targets: targets, env: codeEnvNames(t),
		tokenSecret: def("AccessTokensSecretName"), credentialPrefix: def("CredentialPrefix"),
	}
}

func readDeployDoc(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(deployDocPath)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestDeployDocNamesAreReal: every parameter, resource, output, make target and variable the
// walkthrough names exists, and its hand-made secrets have the shapes the code reads.
func TestDeployDocNamesAreReal(t *testing.T) {
	doc := readDeployDoc(t)
	if n := len(shBlocks(doc)); n < 10 {
		t.Fatalf("only %d sh blocks found in docs/deploy.md", n)
	}
	if problems := checkDeployDoc(doc, deployDocFacts(t)); len(problems) > 0 {
		t.Fatalf("docs/deploy.md:\n  %s", strings.Join(problems, "\n  "))
	}
}

// TestDeployDocCheckCatches proves the check can fail: each case misspells one name in the
// real walkthrough, which must then be reported.
func TestDeployDocCheckCatches(t *testing.T) {
	doc, facts := readDeployDoc(t), deployDocFacts(t)
	cases := []struct{ old, new, want string }{
		{"BudgetUsdc=25", "BudgetUSDC=25", "--parameter-overrides names BudgetUSDC"},
		{"OAuthProfilesClaim=cognito:groups", "OAuthProfileClaim=cognito:groups", "--parameter-overrides names OAuthProfileClaim"},
		{"--logical-resource-id ConfirmKeySecret", "--logical-resource-id ConfirmKey", "--logical-resource-id ConfirmKey is not"},
		{"OutputKey=='McpUrl'", "OutputKey=='McpURL'", "OutputKey McpURL is not"},
		{"make deploy-check URL", "make deploy-chek URL", "`make deploy-chek` is not a target"},
		{"`make deploy`", "`make deplot`", "`make deplot` is not a target"},
		{"`MINDVAULT_DEFAULT_PROFILE`", "`MINDVAULT_DEFAULT_PROFIL`", "MINDVAULT_DEFAULT_PROFIL is not a variable"},
		{"`STELLAR_NETWORK`", "`STELLAR_NETWRK`", "STELLAR_NETWRK is not a variable"},
		{"| `LogRetentionDays` |", "| `LogRetention` |", "LogRetention is not a parameter"},
		{"| `LogRetentionDays` |", "| LogRetentionDays |", "does not explain LogRetentionDays"},
		{`--secret-string "$DIGEST:alice"`, `--secret-string "alice:$DIGEST"`, "the token secret's value"},
		{`{\"secretKey\":\"$SECRET_KEY\"}`, `{\"secret_key\":\"$SECRET_KEY\"}`, "is not a profile"},
		{"create-secret --name mindvault/profiles/bob", "create-secret --name mindvault/profile/bob", "neither the token secret"},
	}
	for _, tc := range cases {
		t.Run(tc.want, func(t *testing.T) {
			broken := strings.Replace(doc, tc.old, tc.new, 1)
			if broken == doc {
				t.Fatalf("test setup: %q not in docs/deploy.md", tc.old)
			}
			if got := strings.Join(checkDeployDoc(broken, facts), "\n"); !strings.Contains(got, tc.want) {
				t.Fatalf("problems:\n%s\nwant one containing %q", got, tc.want)
			}
		})
	}
}

// TestDeployDocTemplateVariablesAreRead: every variable the template sets is one the code
// reads, so a misspelt name in template.yaml cannot configure nothing.
func TestDeployDocTemplateVariablesAreRead(t *testing.T) {
	known := codeEnvNames(t)
	env, _ := loadTemplate(t).FunctionProperty("McpFunction", "Environment")
	vars, _ := env.(map[string]any)["Variables"].(map[string]any)
	if len(vars) < 10 {
		t.Fatalf("only %d variables in the template", len(vars))
	}
	for _, name := range sortedKeys(vars) {
		if !known[name] {
			t.Errorf("template.yaml sets %s, which no code reads", name)
		}
	}
}

// TestDeployDocDigestRecipe: the walkthrough's digest command computes what the function
// compares with (auth.Digest), with no trailing newline.
func TestDeployDocDigestRecipe(t *testing.T) {
	if _, err := exec.LookPath("sha256sum"); err != nil {
		t.Skip("sha256sum not installed")
	}
	var recipe string
	for _, b := range shBlocks(readDeployDoc(t)) {
		for _, c := range commands(b) {
			if strings.HasPrefix(c, "DIGEST=") {
				recipe = c
			}
		}
	}
	if recipe == "" {
		t.Fatal("docs/deploy.md has no DIGEST= command")
	}
	const token = "a token with spaces and no newline"
	out, err := exec.Command("bash", "-c", `set -euo pipefail; TOKEN="$1"; `+recipe+`; printf %s "$DIGEST"`, "bash", token).Output()
	if err != nil {
		t.Fatalf("%s: %v", recipe, err)
	}
	want := auth.Digest(token)
	if string(out) != hex.EncodeToString(want[:]) {
		t.Fatalf("%s gives %q, the function compares with %x", recipe, out, want)
	}
}

// TestDeployDocCurlCommandsWork runs the walkthrough's curl commands of steps 6 and 7 against
// a local endpoint with bearer tokens on (the sandbox network standing in for testnet): each
// must get a JSON-RPC result, not an error, so the headers and bodies it shows are the ones
// the endpoint accepts.
func TestDeployDocCurlCommandsWork(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl not installed")
	}
	const token = "deploy-doc-token"
	digest := auth.Digest(token)
	all := map[string]string{"STELLAR_NETWORK": "sandbox", "MINDVAULT_AUTH": "tokens",
		"MINDVAULT_ACCESS_TOKENS": hex.EncodeToString(digest[:]) + ":alice"}
	b := local.Boot(func(k string) string { return all[k] }, io.Discard, false)
	t.Cleanup(b.Close)
	if b.Err != nil {
		t.Fatal(b.Err)
	}
	srv := httptest.NewServer(b.Handler)
	t.Cleanup(srv.Close)

	ran := 0
	for _, blk := range shBlocks(readDeployDoc(t)) {
		if !(strings.HasPrefix(blk.section, "6.") || strings.HasPrefix(blk.section, "7.")) || !strings.HasPrefix(blk.text, "curl ") {
			continue
		}
		cmd := exec.Command("bash", "-c", "set -euo pipefail\n"+blk.text)
		cmd.Env = append(os.Environ(), "MCP_URL="+srv.URL+"/mcp", "TOKEN="+token)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("docs/deploy.md:%d: %v\n%s", blk.line, err, out)
		}
		dec := json.NewDecoder(bytes.NewReader(out))
		n := 0
		for dec.More() {
			var resp struct {
				Result *struct {
					IsError bool `json:"isError"`
				} `json:"result"`
				Error json.RawMessage `json:"error"`
			}
			if err := dec.Decode(&resp); err != nil {
				t.Fatalf("docs/deploy.md:%d: answer %d is not JSON: %v\n%s", blk.line, n+1, err, out)
			}
			if resp.Result == nil || resp.Error != nil || resp.Result.IsError {
				t.Fatalf("docs/deploy.md:%d: answer %d is not a successful result:\n%s", blk.line, n+1, out)
			}
			n++
		}
		if want := strings.Count(blk.text, "curl "); n != want {
			t.Fatalf("docs/deploy.md:%d: %d answers for %d curl commands:\n%s", blk.line, n, want, out)
		}
		ran += n
	}
	if ran < 5 {
		t.Fatalf("only %d curl commands ran (setup_wallet, wallet_info, tools/list, initialize, tools/list expected)", ran)
	}
}
