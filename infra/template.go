// Package infra checks the deployment artefacts that have no compiler of their own: the SAM
// template (schema, references, settings, secrets) here, and the Function URL events in
// infra/invoke. The sam CLI is not available in CI (no PyPI, no Docker), so these checks stand
// in for `sam validate`.
package infra

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/dlclark/regexp2"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
	"gopkg.in/yaml.v3"
)

// Template is a CloudFormation/SAM template decoded to JSON values, intrinsic functions in
// their long form ({"Ref": ...}, {"Fn::GetAtt": [...]}).
type Template map[string]any

// LoadTemplate reads a template file and converts its short-form tags to long forms.
func LoadTemplate(path string) (Template, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseTemplate(data)
}

// ParseTemplate decodes template YAML, converting CloudFormation short tags to long forms.
func ParseTemplate(data []byte) (Template, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, err
	}
	if root.Kind != yaml.DocumentNode || len(root.Content) != 1 {
		return nil, errors.New("template: expected exactly one YAML document")
	}
	v, err := convert(root.Content[0])
	if err != nil {
		return nil, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, errors.New("template: top level is not a mapping")
	}
	// A JSON round trip turns YAML ints and floats into json.Number, the form the schema
	// validator and the checks below expect.
	return normalise(m)
}

func normalise(m map[string]any) (Template, error) {
	raw, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var out map[string]any
	if err := dec.Decode(&out); err != nil {
		return nil, err
	}
	return Template(out), nil
}

// shortTags maps each CloudFormation short tag to its long-form key.
var shortTags = map[string]string{
	"!Ref":         "Ref",
	"!Condition":   "Condition",
	"!GetAtt":      "Fn::GetAtt",
	"!Sub":         "Fn::Sub",
	"!If":          "Fn::If",
	"!Equals":      "Fn::Equals",
	"!Not":         "Fn::Not",
	"!And":         "Fn::And",
	"!Or":          "Fn::Or",
	"!Select":      "Fn::Select",
	"!Join":        "Fn::Join",
	"!Split":       "Fn::Split",
	"!FindInMap":   "Fn::FindInMap",
	"!Base64":      "Fn::Base64",
	"!Cidr":        "Fn::Cidr",
	"!GetAZs":      "Fn::GetAZs",
	"!ImportValue": "Fn::ImportValue",
}

func convert(n *yaml.Node) (any, error) {
	if n.Kind == yaml.AliasNode {
		return convert(n.Alias)
	}
	if strings.HasPrefix(n.Tag, "!") && !strings.HasPrefix(n.Tag, "!!") {
		key, ok := shortTags[n.Tag]
		if !ok {
			// An unknown tag is almost always a typo (!Sbu) that CloudFormation would reject.
			return nil, fmt.Errorf("line %d: unknown tag %s", n.Line, n.Tag)
		}
		var inner any
		var err error
		if n.Kind == yaml.ScalarNode {
			inner = n.Value
			if n.Tag == "!GetAtt" {
				res, attr, found := strings.Cut(n.Value, ".")
				if !found || res == "" || attr == "" {
					return nil, fmt.Errorf("line %d: !GetAtt %q is not Resource.Attribute", n.Line, n.Value)
				}
				inner = []any{res, attr}
			}
		} else {
			plain := *n
			plain.Tag = ""
			if inner, err = convert(&plain); err != nil {
				return nil, err
			}
		}
		return map[string]any{key: inner}, nil
	}
	switch n.Kind {
	case yaml.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i].Value
			if k == "<<" {
				return nil, fmt.Errorf("line %d: YAML merge keys are not supported by CloudFormation", n.Content[i].Line)
			}
			if _, dup := m[k]; dup {
				return nil, fmt.Errorf("line %d: duplicate key %q", n.Content[i].Line, k)
			}
			v, err := convert(n.Content[i+1])
			if err != nil {
				return nil, err
			}
			m[k] = v
		}
		return m, nil
	case yaml.SequenceNode:
		s := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			v, err := convert(c)
			if err != nil {
				return nil, err
			}
			s = append(s, v)
		}
		return s, nil
	case yaml.ScalarNode:
		var v any
		if err := n.Decode(&v); err != nil {
			return nil, fmt.Errorf("line %d: %w", n.Line, err)
		}
		return v, nil
	}
	return nil, fmt.Errorf("line %d: unexpected YAML node kind %d", n.Line, n.Kind)
}

// Validator validates templates against the SAM JSON schema.
type Validator struct{ schema *jsonschema.Schema }

// NewValidator compiles the SAM schema at path. The schema has a negative-lookahead pattern
// (^(?!AWS::Serverless::).+$) that Go's RE2 rejects, so patterns go through regexp2.
func NewValidator(path string) (*Validator, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	c := jsonschema.NewCompiler()
	c.UseRegexpEngine(compileRegexp2)
	const url = "sam.schema.json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, err
	}
	sch, err := c.Compile(url)
	if err != nil {
		return nil, err
	}
	return &Validator{schema: sch}, nil
}

// Validate reports the template's schema violations, summarised to the deepest locations
// (the full error is one branch per resource type of an anyOf and not readable).
func (v *Validator) Validate(t Template) error {
	err := v.schema.Validate(map[string]any(t))
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return err
	}
	return errors.New(summarise(ve))
}

func summarise(ve *jsonschema.ValidationError) string {
	var lines []string
	for _, e := range leaves(ve) {
		lines = append(lines, fmt.Sprintf("/%s: %s", strings.Join(e.InstanceLocation, "/"), e.ErrorKind.LocalizedString(printer)))
	}
	lines = uniqueSorted(lines)
	const max = 15
	if len(lines) > max {
		lines = append(lines[:max], fmt.Sprintf("... and %d more", len(lines)-max))
	}
	return "template does not match the SAM schema:\n  " + strings.Join(lines, "\n  ")
}

var printer = message.NewPrinter(language.English)

// leaves returns the innermost errors. Every resource is matched against an anyOf of all
// resource types; the branches that failed on "Type" are other types, so only the branches
// for the resource's own type are followed when there are any, and when there are none
// (an unknown type) only the failures on "Type" are the point.
func leaves(e *jsonschema.ValidationError) []*jsonschema.ValidationError {
	if len(e.Causes) == 0 {
		return []*jsonschema.ValidationError{e}
	}
	var out []*jsonschema.ValidationError
	switch e.ErrorKind.(type) {
	case *kind.AnyOf, *kind.OneOf:
		var ownType, typeOnly []*jsonschema.ValidationError
		for _, c := range e.Causes {
			ls := leaves(c)
			onType := typeFailures(ls)
			if len(onType) == 0 {
				ownType = append(ownType, ls...)
			}
			typeOnly = append(typeOnly, onType...)
		}
		if len(ownType) > 0 {
			return ownType
		}
		if len(typeOnly) > 0 {
			return typeOnly
		}
	}
	for _, c := range e.Causes {
		out = append(out, leaves(c)...)
	}
	return out
}

func typeFailures(ls []*jsonschema.ValidationError) []*jsonschema.ValidationError {
	var out []*jsonschema.ValidationError
	for _, l := range ls {
		if n := len(l.InstanceLocation); n > 0 && l.InstanceLocation[n-1] == "Type" {
			out = append(out, l)
		}
	}
	return out
}

type regexp2Regexp struct{ re *regexp2.Regexp }

func (r regexp2Regexp) MatchString(s string) bool {
	ok, err := r.re.MatchString(s)
	return err == nil && ok
}

func (r regexp2Regexp) String() string { return r.re.String() }

func compileRegexp2(s string) (jsonschema.Regexp, error) {
	// JSON Schema patterns are ECMA-262 regular expressions.
	re, err := regexp2.Compile(s, regexp2.ECMAScript)
	if err != nil {
		return nil, err
	}
	// A bound on backtracking: a pathological pattern fails the test instead of hanging it.
	re.MatchTimeout = 2 * time.Second
	return regexp2Regexp{re}, nil
}

// pseudoParameters are the names !Ref can use without declaring them.
var pseudoParameters = map[string]bool{
	"AWS::AccountId": true, "AWS::NotificationARNs": true, "AWS::NoValue": true,
	"AWS::Partition": true, "AWS::Region": true, "AWS::StackId": true,
	"AWS::StackName": true, "AWS::URLSuffix": true,
}

// Section returns a top-level mapping of the template (Parameters, Resources, ...), or nil.
func (t Template) Section(name string) map[string]any {
	m, _ := t[name].(map[string]any)
	return m
}

// Resource returns the resource with a logical id, or nil.
func (t Template) Resource(id string) map[string]any {
	m, _ := t.Section("Resources")[id].(map[string]any)
	return m
}

// FunctionProperty returns a property of a function, falling back to Globals.Function as the
// SAM transform does.
func (t Template) FunctionProperty(id, name string) (any, bool) {
	props, _ := t.Resource(id)["Properties"].(map[string]any)
	if v, ok := props[name]; ok {
		return v, true
	}
	globals, _ := t.Section("Globals")["Function"].(map[string]any)
	v, ok := globals[name]
	return v, ok
}

// generatedNames are the logical ids the SAM transform adds for the template's functions:
// <Fn>Url for a FunctionUrlConfig and <Fn>Role when no Role is given.
func (t Template) generatedNames() map[string]bool {
	out := map[string]bool{}
	for id, r := range t.Section("Resources") {
		res, _ := r.(map[string]any)
		if res["Type"] != "AWS::Serverless::Function" {
			continue
		}
		if _, ok := t.FunctionProperty(id, "FunctionUrlConfig"); ok {
			out[id+"Url"] = true
		}
		if _, ok := t.FunctionProperty(id, "Role"); !ok {
			out[id+"Role"] = true
		}
	}
	return out
}

// subVariable matches ${Name} and ${Resource.Attr} in Fn::Sub strings; ${!Literal} is an
// escape and is skipped by the caller.
var subVariable = regexp.MustCompile(`\$\{([^}]*)\}`)

// CheckReferences reports every Ref, Fn::GetAtt, Fn::Sub variable and condition name that
// points nowhere, and every declared parameter that nothing uses. The SAM schema cannot see
// these: it validates shapes, not names.
func (t Template) CheckReferences() []string {
	params := t.Section("Parameters")
	resources := t.Section("Resources")
	conditions := t.Section("Conditions")
	generated := t.generatedNames()
	used := map[string]bool{}
	var problems []string
	bad := func(path, format string, args ...any) {
		problems = append(problems, path+": "+fmt.Sprintf(format, args...))
	}
	isResource := func(name string) bool {
		_, ok := resources[name]
		return ok || generated[name]
	}
	ref := func(path, name string) {
		used[name] = true
		if _, ok := params[name]; ok || pseudoParameters[name] || isResource(name) {
			return
		}
		bad(path, "Ref to unknown name %q", name)
	}
	getAtt := func(path, res string) {
		if !isResource(res) {
			bad(path, "GetAtt on unknown resource %q", res)
		}
	}
	condition := func(path string, v any) {
		name, ok := v.(string)
		if !ok {
			bad(path, "condition name is not a string")
			return
		}
		if _, ok := conditions[name]; !ok {
			bad(path, "unknown condition %q", name)
		}
	}

	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch x := v.(type) {
		case []any:
			for i, e := range x {
				walk(fmt.Sprintf("%s/%d", path, i), e)
			}
		case map[string]any:
			if len(x) == 1 {
				for k, arg := range x {
					switch k {
					case "Ref":
						if s, ok := arg.(string); ok {
							ref(path, s)
						} else {
							bad(path, "Ref argument is not a string")
						}
						return
					case "Fn::GetAtt":
						if parts, ok := arg.([]any); ok && len(parts) == 2 {
							if s, ok := parts[0].(string); ok {
								getAtt(path, s)
								walk(path+"/Fn::GetAtt/1", parts[1])
								return
							}
						}
						bad(path, "Fn::GetAtt needs [Resource, Attribute]")
						return
					case "Fn::Sub":
						str, locals := arg, map[string]any{}
						if parts, ok := arg.([]any); ok && len(parts) == 2 {
							str = parts[0]
							locals, _ = parts[1].(map[string]any)
							walk(path+"/Fn::Sub/1", parts[1])
						}
						s, ok := str.(string)
						if !ok {
							bad(path, "Fn::Sub needs a string or [string, variables]")
							return
						}
						for _, m := range subVariable.FindAllStringSubmatch(s, -1) {
							name := strings.TrimSpace(m[1])
							if strings.HasPrefix(name, "!") {
								continue
							}
							if _, ok := locals[name]; ok {
								continue
							}
							if res, _, isAttr := strings.Cut(name, "."); isAttr {
								getAtt(path, res)
							} else {
								ref(path, name)
							}
						}
						return
					case "Fn::If":
						if parts, ok := arg.([]any); ok && len(parts) == 3 {
							condition(path+"/Fn::If/0", parts[0])
							walk(path+"/Fn::If/1", parts[1])
							walk(path+"/Fn::If/2", parts[2])
							return
						}
						bad(path, "Fn::If needs [Condition, IfTrue, IfFalse]")
						return
					case "Condition":
						// {"Condition": name} inside Conditions is a condition reference; a
						// resource's Condition attribute is handled by the resource loop below.
						if _, isString := arg.(string); isString && strings.HasPrefix(path, "/Conditions/") {
							condition(path, arg)
							return
						}
					}
				}
			}
			for _, k := range sortedKeys(x) {
				walk(path+"/"+k, x[k])
			}
		}
	}
	for _, section := range []string{"Conditions", "Resources", "Outputs", "Globals"} {
		walk("/"+section, t[section])
	}
	for _, id := range sortedKeys(resources) {
		if res, ok := resources[id].(map[string]any); ok {
			if c, ok := res["Condition"]; ok {
				condition("/Resources/"+id+"/Condition", c)
			}
		}
	}
	for _, id := range sortedKeys(t.Section("Outputs")) {
		if out, ok := t.Section("Outputs")[id].(map[string]any); ok {
			if c, ok := out["Condition"]; ok {
				condition("/Outputs/"+id+"/Condition", c)
			}
		}
	}
	for _, p := range sortedKeys(params) {
		if !used[p] {
			bad("/Parameters/"+p, "parameter is never used")
		}
	}
	return problems
}

// SecretNameVariables are environment variables that carry the *name* of a secret, not its
// value, and may therefore look like secrets.
var SecretNameVariables = map[string]bool{
	"MINDVAULT_ACCESS_TOKENS_SECRET": true,
	"MINDVAULT_CONFIRM_KEY_SECRET":   true,
}

var (
	// secretishName matches variable names whose value would be a secret.
	secretishName = regexp.MustCompile(`(?i)(SECRET|TOKEN|API_?KEY|PASSWORD|PRIVATE_?KEY|CREDENTIAL_?VALUE)`)
	// stellarSeed is a Stellar secret key (S followed by 55 base32 characters).
	stellarSeed = regexp.MustCompile(`\bS[A-Z2-7]{55}\b`)
)

// CheckEnvironment reports environment variables of every function (and Globals) that hold, or
// could hold, a secret value. A value in Environment is plaintext in the function
// configuration (GetFunctionConfiguration, the console), whether written literally, passed as
// a parameter or resolved with {{resolve:secretsmanager:...}}; secrets are read at run time by
// name instead.
func (t Template) CheckEnvironment() []string {
	var problems []string
	check := func(where string, fn map[string]any) {
		env, _ := fn["Environment"].(map[string]any)
		vars, _ := env["Variables"].(map[string]any)
		for _, name := range sortedKeys(vars) {
			raw, _ := json.Marshal(vars[name])
			text := string(raw)
			path := where + "/Environment/Variables/" + name
			switch {
			case strings.Contains(text, "{{resolve:secretsmanager") || strings.Contains(text, "{{resolve:ssm-secure"):
				problems = append(problems, path+": resolves a secret into the function configuration")
			case stellarSeed.MatchString(text):
				problems = append(problems, path+": holds a Stellar secret key")
			case secretishName.MatchString(name) && !SecretNameVariables[name]:
				problems = append(problems, path+": looks like a secret value; pass the secret's name and read it at run time")
			}
		}
	}
	if g, ok := t.Section("Globals")["Function"].(map[string]any); ok {
		check("/Globals/Function", g)
	}
	for _, id := range sortedKeys(t.Section("Resources")) {
		res, _ := t.Resource(id)["Properties"].(map[string]any)
		if t.Resource(id)["Type"] == "AWS::Serverless::Function" || t.Resource(id)["Type"] == "AWS::Lambda::Function" {
			check("/Resources/"+id+"/Properties", res)
		}
	}
	return problems
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func uniqueSorted(s []string) []string {
	sort.Strings(s)
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

// KnownProperties are the properties CloudFormation accepts for the template's resource types
// that are not SAM's (from the CloudFormation resource reference). The SAM schema validates
// only the AWS::Serverless types and lets every other type through with any properties, so a
// misspelt alarm property (Treshold) would otherwise reach the deploy.
var KnownProperties = map[string][]string{
	"AWS::CloudWatch::Alarm": {"ActionsEnabled", "AlarmActions", "AlarmDescription", "AlarmName", "ComparisonOperator",
		"DatapointsToAlarm", "Dimensions", "EvaluateLowSampleCountPercentile", "EvaluationPeriods", "ExtendedStatistic",
		"InsufficientDataActions", "MetricName", "Metrics", "Namespace", "OKActions", "Period", "Statistic", "Tags",
		"Threshold", "ThresholdMetricId", "TreatMissingData", "Unit"},
	"AWS::SNS::Topic": {"ArchivePolicy", "ContentBasedDeduplication", "DataProtectionPolicy", "DeliveryStatusLogging",
		"DisplayName", "FifoThroughputScope", "FifoTopic", "KmsMasterKeyId", "SignatureVersion", "Subscription", "Tags",
		"TopicName", "TracingConfig"},
	"AWS::Logs::LogGroup": {"DataProtectionPolicy", "DeletionProtectionEnabled", "FieldIndexPolicies", "KmsKeyId",
		"LogGroupClass", "LogGroupName", "ResourcePolicyDocument", "RetentionInDays", "Tags"},
	"AWS::SecretsManager::Secret": {"Description", "GenerateSecretString", "KmsKeyId", "Name", "ReplicaRegions",
		"SecretString", "Tags"},
	"AWS::DynamoDB::Table": {"AttributeDefinitions", "BillingMode", "ContributorInsightsSpecification",
		"DeletionProtectionEnabled", "GlobalSecondaryIndexes", "ImportSourceSpecification", "KeySchema",
		"KinesisStreamSpecification", "LocalSecondaryIndexes", "OnDemandThroughput", "PointInTimeRecoverySpecification",
		"ProvisionedThroughput", "ResourcePolicy", "SSESpecification", "StreamSpecification", "TableClass", "TableName",
		"Tags", "TimeToLiveSpecification", "WarmThroughput"},
}

// knownNested are the keys of the nested shapes an alarm's metric math uses: MetricDataQuery,
// MetricStat, Metric and Dimension, and an SNS topic's Subscription.
var knownNested = map[string][]string{
	"MetricDataQuery": {"AccountId", "Expression", "Id", "Label", "MetricStat", "Period", "ReturnData"},
	"MetricStat":      {"Metric", "Period", "Stat", "Unit"},
	"Metric":          {"Dimensions", "MetricName", "Namespace"},
	"Dimension":       {"Name", "Value"},
	"Subscription":    {"Endpoint", "Protocol"},
}

// CheckProperties reports every resource of a non-SAM type without an entry in
// KnownProperties, and every property (and alarm metric or subscription key) CloudFormation
// does not know.
func (t Template) CheckProperties() []string {
	var problems []string
	keys := func(path, shape string, v any) {
		m, _ := v.(map[string]any)
		for _, k := range sortedKeys(m) {
			if !slices.Contains(knownNested[shape], k) {
				problems = append(problems, fmt.Sprintf("%s: %s is not a property of %s", path, k, shape))
			}
		}
	}
	list := func(v any) []any { l, _ := v.([]any); return l }
	for _, id := range sortedKeys(t.Section("Resources")) {
		res := t.Resource(id)
		typ, _ := res["Type"].(string)
		if strings.HasPrefix(typ, "AWS::Serverless::") {
			continue
		}
		known, ok := KnownProperties[typ]
		if !ok {
			problems = append(problems, fmt.Sprintf("/Resources/%s: type %s has no entry in KnownProperties", id, typ))
			continue
		}
		props, _ := res["Properties"].(map[string]any)
		path := "/Resources/" + id + "/Properties"
		for _, k := range sortedKeys(props) {
			if !slices.Contains(known, k) {
				problems = append(problems, fmt.Sprintf("%s: %s is not a property of %s", path, k, typ))
			}
		}
		for i, d := range list(props["Dimensions"]) {
			keys(fmt.Sprintf("%s/Dimensions/%d", path, i), "Dimension", d)
		}
		for i, q := range list(props["Metrics"]) {
			p := fmt.Sprintf("%s/Metrics/%d", path, i)
			keys(p, "MetricDataQuery", q)
			stat, _ := q.(map[string]any)["MetricStat"].(map[string]any)
			if stat == nil {
				continue
			}
			keys(p+"/MetricStat", "MetricStat", stat)
			keys(p+"/MetricStat/Metric", "Metric", stat["Metric"])
			metric, _ := stat["Metric"].(map[string]any)
			for j, d := range list(metric["Dimensions"]) {
				keys(fmt.Sprintf("%s/MetricStat/Metric/Dimensions/%d", p, j), "Dimension", d)
			}
		}
		for i, s := range list(props["Subscription"]) {
			keys(fmt.Sprintf("%s/Subscription/%d", path, i), "Subscription", s)
		}
	}
	return problems
}
