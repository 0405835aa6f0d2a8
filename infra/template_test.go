package infra

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// Paths relative to this package (tests run in infra/). The schema is the project's own copy
// (testdata/README.md says where it comes from and how to refresh it).
const (
	templatePath = "../template.yaml"
	schemaPath   = "testdata/sam.schema.json"
)

var (
	validatorOnce sync.Once
	validator     *Validator
	validatorErr  error
)

// samValidator compiles the 750 KB schema once for all tests.
func samValidator(t *testing.T) *Validator {
	t.Helper()
	if _, err := os.Stat(schemaPath); err != nil {
		t.Fatalf("SAM schema not found at infra/%s (see infra/testdata/README.md to restore it): %v", schemaPath, err)
	}
	validatorOnce.Do(func() { validator, validatorErr = NewValidator(schemaPath) })
	if validatorErr != nil {
		t.Fatalf("compile SAM schema: %v", validatorErr)
	}
	return validator
}

func loadTemplate(t *testing.T) Template {
	t.Helper()
	tpl, err := LoadTemplate(templatePath)
	if err != nil {
		t.Fatalf("load %s: %v", templatePath, err)
	}
	return tpl
}

func readTemplate(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(templatePath)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// canonical marshals v so values decoded from YAML and from Go literals compare equal.
func canonical(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestTemplateSchemaCopyIsPinned: the schema copy must be the file testdata/README.md describes,
// so an edit that loosens it (and lets a broken template through) cannot pass unnoticed.
func TestTemplateSchemaCopyIsPinned(t *testing.T) {
	note, err := os.ReadFile("testdata/README.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^sha256: ([0-9a-f]{64})$`).FindSubmatch(note)
	if m == nil {
		t.Fatal("testdata/README.md has no \"sha256: <hex>\" line")
	}
	schema, err := os.ReadFile(schemaPath)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprintf("%x", sha256.Sum256(schema)); got != string(m[1]) {
		t.Fatalf("infra/%s has sha256 %s, testdata/README.md records %s: restore the copy, or record the refresh there", schemaPath, got, m[1])
	}
}

func TestTemplateMatchesSAMSchema(t *testing.T) {
	if err := samValidator(t).Validate(loadTemplate(t)); err != nil {
		t.Fatal(err)
	}
}

// TestTemplateSchemaRejectsTypos proves the schema check can fail: each case breaks the real
// template in one place, which must then be rejected with a message naming the place.
func TestTemplateSchemaRejectsTypos(t *testing.T) {
	v := samValidator(t)
	src := readTemplate(t)
	cases := []struct {
		name, old, new, wantInError string
	}{
		{"typo in FunctionUrlConfig", "FunctionUrlConfig:", "FunctionUrlConfg:", "FunctionUrlConfg"},
		{"typo in a function property", "MemorySize: 256", "MemorySise: 256", "MemorySise"},
		{"typo in FunctionUrlConfig.AuthType", "AuthType: NONE", "AuthTyp: NONE", "AuthTyp"},
		// Exercises the negative-lookahead pattern: a misspelt Serverless type must not pass
		// as "any CloudFormation resource".
		{"misspelt serverless type", "Type: AWS::Serverless::Function", "Type: AWS::Serverless::Functon", "AWS::Serverless::Functon"},
		{"typo in Metadata-level key", "    Metadata:\n      # `make", "    Metdata:\n      # `make", "Metdata"},
		{"typo in Globals", "Resources:\n", "Globals:\n  Function:\n    Timeot: 3\n\nResources:\n", "Timeot"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			broken := strings.Replace(src, tc.old, tc.new, 1)
			if broken == src {
				t.Fatalf("test setup: %q not found in template.yaml", tc.old)
			}
			tpl, err := ParseTemplate([]byte(broken))
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			err = v.Validate(tpl)
			if err == nil {
				t.Fatal("broken template accepted by the SAM schema")
			}
			t.Logf("rejected as expected: %v", err)
			if !strings.Contains(err.Error(), tc.wantInError) {
				t.Fatalf("error does not name %q:\n%v", tc.wantInError, err)
			}
		})
	}
}

func TestTemplateFunctionSettings(t *testing.T) {
	tpl := loadTemplate(t)
	const fn = "McpFunction"
	if got := tpl.Resource(fn)["Type"]; got != "AWS::Serverless::Function" {
		t.Fatalf("%s Type = %v, want AWS::Serverless::Function", fn, got)
	}
	prop := func(path ...string) any {
		v, ok := tpl.FunctionProperty(fn, path[0])
		if !ok {
			return nil
		}
		for _, p := range path[1:] {
			m, _ := v.(map[string]any)
			v = m[p]
		}
		return v
	}
	cases := []struct {
		name string
		got  any
		want any
	}{
		{"Runtime", prop("Runtime"), "provided.al2023"},
		{"Architectures", prop("Architectures"), []any{"arm64"}},
		{"Handler", prop("Handler"), "bootstrap"},
		{"CodeUri", prop("CodeUri"), "functions/mcp"},
		{"BuildMethod", tpl.Resource(fn)["Metadata"].(map[string]any)["BuildMethod"], "makefile"},
		{"ContextPath", tpl.Resource(fn)["Metadata"].(map[string]any)["ContextPath"], "."},
		{"FunctionUrlConfig.AuthType", prop("FunctionUrlConfig", "AuthType"), "NONE"},
		{"FunctionUrlConfig.InvokeMode", prop("FunctionUrlConfig", "InvokeMode"), "BUFFERED"},
		{"LoggingConfig.LogFormat", prop("LoggingConfig", "LogFormat"), "JSON"},
		{"LoggingConfig.ApplicationLogLevel", prop("LoggingConfig", "ApplicationLogLevel"), map[string]any{"Ref": "LogLevel"}},
		{"MemorySize", prop("MemorySize"), 256},
		{"ReservedConcurrentExecutions", prop("ReservedConcurrentExecutions"),
			map[string]any{"Fn::If": []any{"HasReservedConcurrency", map[string]any{"Ref": "ReservedConcurrency"}, map[string]any{"Ref": "AWS::NoValue"}}}},
		{"env STELLAR_NETWORK", prop("Environment", "Variables", "STELLAR_NETWORK"), map[string]any{"Ref": "Network"}},
		{"env MINDVAULT_CREDENTIALS", prop("Environment", "Variables", "MINDVAULT_CREDENTIALS"), map[string]any{"Fn::Sub": "secretsmanager:${CredentialPrefix}"}},
		{"env MINDVAULT_ACCESS_TOKENS_SECRET", prop("Environment", "Variables", "MINDVAULT_ACCESS_TOKENS_SECRET"), ifSet("IsTokensAuth", "AccessTokensSecretName")},
		{"env MINDVAULT_MAX_AUTO_PAY_USDC", prop("Environment", "Variables", "MINDVAULT_MAX_AUTO_PAY_USDC"), map[string]any{"Ref": "MaxAutoPayUsdc"}},
		// Explicit, and never "none": a deployment does not run open by accident.
		{"env MINDVAULT_AUTH", prop("Environment", "Variables", "MINDVAULT_AUTH"), map[string]any{"Ref": "AuthMode"}},
		{"auth choices", tpl.Section("Parameters")["AuthMode"].(map[string]any)["AllowedValues"], []any{"tokens", "oauth"}},
		{"auth default", tpl.Section("Parameters")["AuthMode"].(map[string]any)["Default"], "tokens"},
		{"env MINDVAULT_RESOURCE_URL", prop("Environment", "Variables", "MINDVAULT_RESOURCE_URL"), ifSet("HasResourceUrl", "ResourceUrl")},
		{"env MINDVAULT_OAUTH_ISSUER", prop("Environment", "Variables", "MINDVAULT_OAUTH_ISSUER"), ifSet("SetOAuthIssuer", "OAuthIssuer")},
		{"env MINDVAULT_OAUTH_AUDIENCE", prop("Environment", "Variables", "MINDVAULT_OAUTH_AUDIENCE"), ifSet("SetOAuthAudience", "OAuthAudience")},
		{"env MINDVAULT_OAUTH_PROFILES_CLAIM", prop("Environment", "Variables", "MINDVAULT_OAUTH_PROFILES_CLAIM"), ifSet("SetOAuthProfilesClaim", "OAuthProfilesClaim")},
		{"env MINDVAULT_OAUTH_SCOPE_PREFIX", prop("Environment", "Variables", "MINDVAULT_OAUTH_SCOPE_PREFIX"), ifSet("SetOAuthScopePrefix", "OAuthScopePrefix")},
		{"env MINDVAULT_CONFIRM", prop("Environment", "Variables", "MINDVAULT_CONFIRM"), map[string]any{"Ref": "ConfirmPolicy"}},
		{"env MINDVAULT_CONFIRM_KEY_SECRET", prop("Environment", "Variables", "MINDVAULT_CONFIRM_KEY_SECRET"), map[string]any{"Ref": "ConfirmKeySecret"}},
		// The confirmation key is generated in the stack: random, shared by every instance, never a parameter.
		{"confirm key type", tpl.Resource("ConfirmKeySecret")["Type"], "AWS::SecretsManager::Secret"},
		{"confirm key generated", tpl.Resource("ConfirmKeySecret")["Properties"].(map[string]any)["GenerateSecretString"],
			map[string]any{"PasswordLength": 64, "ExcludePunctuation": true, "IncludeSpace": false}},
		{"confirm policy choices", tpl.Section("Parameters")["ConfirmPolicy"].(map[string]any)["AllowedValues"], []any{"auto", "always", "off"}},
		{"output McpUrl", tpl.Section("Outputs")["McpUrl"].(map[string]any)["Value"], map[string]any{"Fn::Sub": "${McpFunctionUrl.FunctionUrl}mcp"}},
		{"network choices", tpl.Section("Parameters")["Network"].(map[string]any)["AllowedValues"], []any{"testnet", "mainnet"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got, want := canonical(t, tc.got), canonical(t, tc.want); got != want {
				t.Errorf("got %s, want %s", got, want)
			}
		})
	}

	t.Run("Timeout", func(t *testing.T) {
		n, ok := prop("Timeout").(json.Number)
		if !ok {
			t.Fatalf("Timeout = %v, want a number", prop("Timeout"))
		}
		// A paid call waits for x402 settlement (docs/operations.md "Lambda and SAM": about 90 s).
		if v, err := n.Int64(); err != nil || v < 60 || v > 900 {
			t.Fatalf("Timeout = %s, want 60..900 s", n)
		}
	})
	t.Run("outputs", func(t *testing.T) {
		for _, name := range []string{"McpUrl", "McpFunctionArn", "McpLogGroupName"} {
			if _, ok := tpl.Section("Outputs")[name]; !ok {
				t.Errorf("output %s missing", name)
			}
		}
	})
	t.Run("one function", func(t *testing.T) {
		n := 0
		for id := range tpl.Section("Resources") {
			if ty := tpl.Resource(id)["Type"]; ty == "AWS::Serverless::Function" || ty == "AWS::Lambda::Function" {
				n++
			}
		}
		if n != 1 {
			t.Fatalf("%d functions, want exactly 1", n)
		}
	})
}

// ifSet is `!If [cond, !Ref param, !Ref AWS::NoValue]`: a variable set only when its condition
// holds, so the function's own default applies otherwise.
func ifSet(cond, param string) map[string]any {
	return map[string]any{"Fn::If": []any{cond, map[string]any{"Ref": param}, map[string]any{"Ref": "AWS::NoValue"}}}
}

// TestTemplateOAuthConditions: the OAuth variables reach the function only in oauth mode and
// only when given, and the token secret only in tokens mode (oauth mode refuses one).
func TestTemplateOAuthConditions(t *testing.T) {
	conds := loadTemplate(t).Section("Conditions")
	isOAuth := map[string]any{"Condition": "IsOAuth"}
	notEmpty := func(p string) map[string]any {
		return map[string]any{"Fn::Not": []any{map[string]any{"Fn::Equals": []any{map[string]any{"Ref": p}, ""}}}}
	}
	want := map[string]any{
		"IsTokensAuth":          map[string]any{"Fn::Equals": []any{map[string]any{"Ref": "AuthMode"}, "tokens"}},
		"IsOAuth":               map[string]any{"Fn::Equals": []any{map[string]any{"Ref": "AuthMode"}, "oauth"}},
		"HasResourceUrl":        notEmpty("ResourceUrl"),
		"SetOAuthIssuer":        map[string]any{"Fn::And": []any{isOAuth, notEmpty("OAuthIssuer")}},
		"SetOAuthAudience":      map[string]any{"Fn::And": []any{isOAuth, notEmpty("OAuthAudience")}},
		"SetOAuthProfilesClaim": map[string]any{"Fn::And": []any{isOAuth, notEmpty("OAuthProfilesClaim")}},
		"SetOAuthScopePrefix":   map[string]any{"Fn::And": []any{isOAuth, notEmpty("OAuthScopePrefix")}},
	}
	for name, w := range want {
		if got := canonical(t, conds[name]); got != canonical(t, w) {
			t.Errorf("condition %s = %s, want %s", name, got, canonical(t, w))
		}
	}
}

// TestTemplateIAMLeastPrivilege pins the function's permissions: the profile actions only under the
// credential prefix, the token secret read-only, and nothing else.
func TestTemplateIAMLeastPrivilege(t *testing.T) {
	tpl := loadTemplate(t)
	policies, _ := tpl.FunctionProperty("McpFunction", "Policies")
	list, ok := policies.([]any)
	if !ok || len(list) != 1 {
		t.Fatalf("Policies = %v, want one inline policy document", canonical(t, policies))
	}
	doc, _ := list[0].(map[string]any)
	stmts, _ := doc["Statement"].([]any)
	type stmt struct {
		Effect   string
		Action   []string
		Resource any
	}
	got := map[string]stmt{}
	for _, s := range stmts {
		m, _ := s.(map[string]any)
		var st stmt
		st.Effect, _ = m["Effect"].(string)
		st.Resource = m["Resource"]
		switch a := m["Action"].(type) {
		case string:
			st.Action = []string{a}
		case []any:
			for _, x := range a {
				s, _ := x.(string)
				st.Action = append(st.Action, s)
			}
		}
		sid, _ := m["Sid"].(string)
		got[sid] = st
	}
	arn := "arn:${AWS::Partition}:secretsmanager:${AWS::Region}:${AWS::AccountId}:secret:"
	want := map[string]stmt{
		"CredentialProfiles": {"Allow", []string{
			"secretsmanager:GetSecretValue", "secretsmanager:DescribeSecret", "secretsmanager:CreateSecret",
			"secretsmanager:PutSecretValue", "secretsmanager:UpdateSecret",
		}, map[string]any{"Fn::Sub": arn + "${CredentialPrefix}*"}},
		"AccessTokens": {"Allow", []string{"secretsmanager:GetSecretValue"}, map[string]any{"Fn::Sub": arn + "${AccessTokensSecretName}-??????"}},
		"ConfirmKey":   {"Allow", []string{"secretsmanager:GetSecretValue"}, map[string]any{"Ref": "ConfirmKeySecret"}},
		// ListSecrets cannot be scoped; it reveals names only (values need GetSecretValue).
		"ListProfiles": {"Allow", []string{"secretsmanager:ListSecrets"}, "*"},
		// The spend ledger: its items only, read and conditionally updated (no scan, no delete).
		"SpendLedger": {"Allow", []string{"dynamodb:GetItem", "dynamodb:UpdateItem"}, map[string]any{"Fn::GetAtt": []any{"LedgerTable", "Arn"}}},
	}
	if canonical(t, got) != canonical(t, want) {
		t.Fatalf("IAM statements:\n got %s\nwant %s", canonical(t, got), canonical(t, want))
	}
}

// TestTemplateDefaultsKeepTokensOutsideProfiles: the function may write under the credential prefix,
// so a token secret inside it could be overwritten by a profile of the same name.
func TestTemplateDefaultsKeepTokensOutsideProfiles(t *testing.T) {
	params := loadTemplate(t).Section("Parameters")
	def := func(name string) string {
		p, _ := params[name].(map[string]any)
		s, _ := p["Default"].(string)
		return s
	}
	prefix, tokens := def("CredentialPrefix"), def("AccessTokensSecretName")
	if prefix == "" || tokens == "" {
		t.Fatalf("CredentialPrefix default %q, AccessTokensSecretName default %q: both must be set", prefix, tokens)
	}
	if strings.HasPrefix(tokens, prefix) {
		t.Fatalf("token secret %q lies under the writable credential prefix %q", tokens, prefix)
	}
}

func TestTemplateReferencesResolve(t *testing.T) {
	if problems := loadTemplate(t).CheckReferences(); len(problems) > 0 {
		t.Fatalf("unresolved references:\n  %s", strings.Join(problems, "\n  "))
	}
}

// TestTemplateCheckReferencesCatches proves the reference check can fail.
func TestTemplateCheckReferencesCatches(t *testing.T) {
	const head = `
Parameters:
  Used: {Type: String}
Conditions:
  IsUsed: !Equals [!Ref Used, "x"]
Resources:
  Fn:
    Type: AWS::Serverless::Function
    Properties:
      FunctionUrlConfig: {AuthType: NONE}
`
	cases := []struct {
		name, body, want string // want "" = no problem expected
	}{
		{"all good", `      Description: !Sub "${Used} ${FnUrl.FunctionUrl} ${FnRole.Arn} ${AWS::Region} ${!Literal}"`, ""},
		{"Sub local variable", `      Description: !Sub ["${X}", {X: !Ref Used}]`, ""},
		{"Ref to missing parameter", `      Description: !Ref Missing`, `Ref to unknown name "Missing"`},
		{"GetAtt on missing resource", `      Description: !GetAtt Nope.Arn`, `GetAtt on unknown resource "Nope"`},
		{"GetAtt on a parameter", `      Description: !GetAtt Used.Arn`, `GetAtt on unknown resource "Used"`},
		{"Sub unknown variable", `      Description: !Sub "${Used}-${Typo}"`, `Ref to unknown name "Typo"`},
		{"Sub unknown attribute owner", `      Description: !Sub "${Other.Arn}"`, `GetAtt on unknown resource "Other"`},
		{"If unknown condition", `      Description: !If [IsUsd, a, b]`, `unknown condition "IsUsd"`},
		{"known condition and output Ref", `      Description: !If [IsUsed, a, b]
Outputs:
  X: {Value: !Ref Fn}
`, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tpl, err := ParseTemplate([]byte(head + tc.body + "\n"))
			if err != nil {
				t.Fatal(err)
			}
			problems := strings.Join(tpl.CheckReferences(), "\n")
			if tc.want == "" {
				if problems != "" {
					t.Fatalf("unexpected problems:\n%s", problems)
				}
				return
			}
			if !strings.Contains(problems, tc.want) {
				t.Fatalf("problems %q do not contain %q", problems, tc.want)
			}
		})
	}

	t.Run("parameter never used", func(t *testing.T) {
		tpl, err := ParseTemplate([]byte("Parameters:\n  Lonely: {Type: String}\nResources: {}\n"))
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(tpl.CheckReferences(), "\n"); !strings.Contains(got, "/Parameters/Lonely: parameter is never used") {
			t.Fatalf("got %q", got)
		}
	})
}

func TestTemplateNoSecretsInEnvironment(t *testing.T) {
	if problems := loadTemplate(t).CheckEnvironment(); len(problems) > 0 {
		t.Fatalf("secret-looking environment:\n  %s", strings.Join(problems, "\n  "))
	}
}

// TestTemplateCheckEnvironmentCatches proves the secret check can fail.
func TestTemplateCheckEnvironmentCatches(t *testing.T) {
	cases := []struct {
		name, vars, want string
	}{
		{"plain config", `STELLAR_NETWORK: testnet`, ""},
		{"secret name variable", `MINDVAULT_ACCESS_TOKENS_SECRET: !Ref TokenName`, ""},
		{"dynamic reference", `STELLAR_NETWORK: "{{resolve:secretsmanager:x:SecretString:y}}"`, "resolves a secret"},
		{"dynamic reference in Sub", `X: !Sub "{{resolve:ssm-secure:/a/b}}"`, "resolves a secret"},
		{"wallet secret", `MINDVAULT_AGENT_SECRET: abc`, "looks like a secret value"},
		{"api key", `MINDVAULT_API_KEY: !Ref Key`, "looks like a secret value"},
		{"inline tokens", `MINDVAULT_ACCESS_TOKENS: "sha256:abc"`, "looks like a secret value"},
		{"aws secret key", `AWS_SECRET_ACCESS_KEY: x`, "looks like a secret value"},
		{"stellar seed under a harmless name", "DEMO: S" + strings.Repeat("ABCDEFG234567", 5)[:55], "Stellar secret key"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			src := "Resources:\n  Fn:\n    Type: AWS::Serverless::Function\n    Properties:\n      Environment:\n        Variables:\n          " + tc.vars + "\n"
			tpl, err := ParseTemplate([]byte(src))
			if err != nil {
				t.Fatal(err)
			}
			problems := strings.Join(tpl.CheckEnvironment(), "\n")
			if tc.want == "" && problems != "" {
				t.Fatalf("unexpected problems: %s", problems)
			}
			if !strings.Contains(problems, tc.want) {
				t.Fatalf("problems %q do not contain %q", problems, tc.want)
			}
		})
	}
	t.Run("globals are checked too", func(t *testing.T) {
		tpl, err := ParseTemplate([]byte("Globals:\n  Function:\n    Environment:\n      Variables:\n        API_TOKEN: x\nResources: {}\n"))
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(tpl.CheckEnvironment(), "\n"); !strings.Contains(got, "/Globals/Function/Environment/Variables/API_TOKEN") {
			t.Fatalf("got %q", got)
		}
	})
}

func TestTemplateShortTags(t *testing.T) {
	cases := []struct {
		yaml string
		want any
	}{
		{`!Ref X`, map[string]any{"Ref": "X"}},
		{`!GetAtt Fn.Arn`, map[string]any{"Fn::GetAtt": []any{"Fn", "Arn"}}},
		{`!GetAtt Db.Endpoint.Address`, map[string]any{"Fn::GetAtt": []any{"Db", "Endpoint.Address"}}},
		{`!GetAtt [Fn, Arn]`, map[string]any{"Fn::GetAtt": []any{"Fn", "Arn"}}},
		{`!Sub "a-${X}"`, map[string]any{"Fn::Sub": "a-${X}"}},
		{`!Sub ["${A}", {A: !Ref B}]`, map[string]any{"Fn::Sub": []any{"${A}", map[string]any{"A": map[string]any{"Ref": "B"}}}}},
		{`!If [C, 1, !Ref AWS::NoValue]`, map[string]any{"Fn::If": []any{"C", 1, map[string]any{"Ref": "AWS::NoValue"}}}},
		{`!Not [!Equals [!Ref P, ""]]`, map[string]any{"Fn::Not": []any{map[string]any{"Fn::Equals": []any{map[string]any{"Ref": "P"}, ""}}}}},
		{`!And [!Condition A, !Or [!Condition B, !Condition C]]`, map[string]any{"Fn::And": []any{
			map[string]any{"Condition": "A"}, map[string]any{"Fn::Or": []any{map[string]any{"Condition": "B"}, map[string]any{"Condition": "C"}}},
		}}},
		{`!Select [0, !GetAZs ""]`, map[string]any{"Fn::Select": []any{0, map[string]any{"Fn::GetAZs": ""}}}},
		{`!Join [",", !Split ["|", "a|b"]]`, map[string]any{"Fn::Join": []any{",", map[string]any{"Fn::Split": []any{"|", "a|b"}}}}},
		{`!FindInMap [M, K, V]`, map[string]any{"Fn::FindInMap": []any{"M", "K", "V"}}},
		{`!Base64 hello`, map[string]any{"Fn::Base64": "hello"}},
		{`!Cidr [10.0.0.0/16, 4, 8]`, map[string]any{"Fn::Cidr": []any{"10.0.0.0/16", 4, 8}}},
		{`!ImportValue shared-vpc`, map[string]any{"Fn::ImportValue": "shared-vpc"}},
	}
	for _, tc := range cases {
		t.Run(tc.yaml, func(t *testing.T) {
			tpl, err := ParseTemplate([]byte("V: " + tc.yaml + "\n"))
			if err != nil {
				t.Fatal(err)
			}
			if got, want := canonical(t, tpl["V"]), canonical(t, tc.want); got != want {
				t.Fatalf("got %s, want %s", got, want)
			}
		})
	}

	bad := []struct{ yaml, want string }{
		{"V: !Sbu x\n", "unknown tag !Sbu"},
		{"V: !GetAtt NoDot\n", "not Resource.Attribute"},
		{"A: 1\nA: 2\n", `duplicate key "A"`},
		{"- 1\n", "not a mapping"},
	}
	for _, tc := range bad {
		t.Run("rejects "+tc.want, func(t *testing.T) {
			_, err := ParseTemplate([]byte(tc.yaml))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

// TestTemplateParseKeepsNumbers: numbers must reach the schema as JSON numbers, not strings,
// or "type": "integer" checks would fail or pass for the wrong reason.
func TestTemplateParseKeepsNumbers(t *testing.T) {
	tpl, err := ParseTemplate([]byte("A: 90\nB: \"90\"\nC: true\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"A": json.Number("90"), "B": "90", "C": true}
	if !reflect.DeepEqual(map[string]any(tpl), want) {
		t.Fatalf("got %#v, want %#v", tpl, want)
	}
}

// TestTemplateParameterDefaultsAreAllowed: a default that fails its own AllowedPattern or
// AllowedValues makes `sam deploy` fail on the first try, which no schema catches.
func TestTemplateParameterDefaultsAreAllowed(t *testing.T) {
	params := loadTemplate(t).Section("Parameters")
	if len(params) == 0 {
		t.Fatal("template has no parameters")
	}
	for _, name := range sortedKeys(params) {
		t.Run(name, func(t *testing.T) {
			p, _ := params[name].(map[string]any)
			if d, _ := p["Description"].(string); d == "" {
				t.Error("no Description (shown by sam deploy --guided)")
			}
			def, hasDefault := p["Default"]
			if !hasDefault {
				return
			}
			text := fmt.Sprint(def)
			if pat, ok := p["AllowedPattern"].(string); ok {
				// CloudFormation patterns are Java regexes matched against the whole value;
				// the ones used here are also valid RE2.
				re, err := regexp.Compile(`^(?:` + pat + `)$`)
				if err != nil {
					t.Fatalf("AllowedPattern %q: %v", pat, err)
				}
				if !re.MatchString(text) {
					t.Errorf("Default %q does not match AllowedPattern %q", text, pat)
				}
			}
			if vals, ok := p["AllowedValues"].([]any); ok {
				found := false
				for _, v := range vals {
					found = found || fmt.Sprint(v) == text
				}
				if !found {
					t.Errorf("Default %q not in AllowedValues %v", text, vals)
				}
			}
		})
	}
}

// TestTemplateLedgerTable: the budgets' ledger is on demand with its TTL on expiresAt and the
// one string key pk the endpoint writes; the function learns the table only when a budget is
// set, and a budget parameter reaches the function's environment.
func TestTemplateLedgerTable(t *testing.T) {
	tpl := loadTemplate(t)
	props, _ := tpl.Resource("LedgerTable")["Properties"].(map[string]any)
	want := map[string]any{
		"BillingMode":             "PAY_PER_REQUEST",
		"AttributeDefinitions":    []any{map[string]any{"AttributeName": "pk", "AttributeType": "S"}},
		"KeySchema":               []any{map[string]any{"AttributeName": "pk", "KeyType": "HASH"}},
		"TimeToLiveSpecification": map[string]any{"AttributeName": "expiresAt", "Enabled": true},
	}
	if canonical(t, props) != canonical(t, want) {
		t.Fatalf("LedgerTable properties:\n got %s\nwant %s", canonical(t, props), canonical(t, want))
	}
	env, _ := tpl.FunctionProperty("McpFunction", "Environment")
	vars, _ := env.(map[string]any)["Variables"].(map[string]any)
	for name, want := range map[string]any{
		"MINDVAULT_BUDGET_USDC":        ifSet("HasWalletBudget", "BudgetUsdc"),
		"MINDVAULT_BUDGET_CALLER_USDC": ifSet("HasCallerBudget", "BudgetCallerUsdc"),
		// Always: the payment journal lives in the table, budget or not.
		"MINDVAULT_LEDGER": map[string]any{"Fn::Sub": "dynamodb:${LedgerTable}"},
	} {
		if canonical(t, vars[name]) != canonical(t, want) {
			t.Errorf("%s = %s, want %s", name, canonical(t, vars[name]), canonical(t, want))
		}
	}
}

// TestTemplateReservationIsOptIn: a default deploy reserves no concurrency, which a new
// account (whose unreserved pool cannot drop below 100) needs to deploy at all.
func TestTemplateReservationIsOptIn(t *testing.T) {
	p, _ := loadTemplate(t).Section("Parameters")["ReservedConcurrency"].(map[string]any)
	if d := fmt.Sprint(p["Default"]); d != "0" {
		t.Fatalf("ReservedConcurrency defaults to %s, want 0 (opt-in)", d)
	}
}
