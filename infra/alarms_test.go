package infra

import (
	"bytes"
	"encoding/json"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/auth"
	"github.com/mindvault/mcp-endpoint/internal/config"
	"github.com/mindvault/mcp-endpoint/internal/obs"
	"github.com/mindvault/mcp-endpoint/internal/tools"
)

// alarmActions is the one notification rule of every alarm: the given topic, else the topic
// made for AlarmEmail, else none.
var alarmActions = map[string]any{"Fn::If": []any{"HasAlarmTopicArn", []any{map[string]any{"Ref": "AlarmTopicArn"}},
	map[string]any{"Fn::If": []any{"CreateAlarmTopic", []any{map[string]any{"Ref": "AlarmTopic"}}, map[string]any{"Ref": "AWS::NoValue"}}}}}

func props(t *testing.T, tpl Template, id string) map[string]any {
	t.Helper()
	p, ok := tpl.Resource(id)["Properties"].(map[string]any)
	if !ok {
		t.Fatalf("resource %s missing or without Properties", id)
	}
	return p
}

// TestTemplateFunctionAlarms: Errors and Throttles of this function, notifying the optional topic.
func TestTemplateFunctionAlarms(t *testing.T) {
	tpl := loadTemplate(t)
	for id, metric := range map[string]string{"ErrorsAlarm": "Errors", "ThrottlesAlarm": "Throttles"} {
		t.Run(id, func(t *testing.T) {
			if ty := tpl.Resource(id)["Type"]; ty != "AWS::CloudWatch::Alarm" {
				t.Fatalf("Type %v", ty)
			}
			p := props(t, tpl, id)
			want := map[string]any{
				"Namespace": "AWS/Lambda", "MetricName": metric, "Statistic": "Sum",
				"Dimensions":         []any{map[string]any{"Name": "FunctionName", "Value": map[string]any{"Ref": "McpFunction"}}},
				"ComparisonOperator": "GreaterThanOrEqualToThreshold", "Threshold": 1, "TreatMissingData": "notBreaching",
				"AlarmActions": alarmActions,
			}
			for k, w := range want {
				if canonical(t, p[k]) != canonical(t, w) {
					t.Errorf("%s = %s, want %s", k, canonical(t, p[k]), canonical(t, w))
				}
			}
		})
	}
}

// TestTemplateURLAlarms: 5xx answers and latency as the Function URL measures them (namespace
// AWS/Lambda, Url5xxCount and UrlRequestLatency by FunctionName), the latency threshold an
// operator parameter, and X-Ray tracing an option that defaults to off.
func TestTemplateURLAlarms(t *testing.T) {
	tpl := loadTemplate(t)
	fn := []any{map[string]any{"Name": "FunctionName", "Value": map[string]any{"Ref": "McpFunction"}}}
	cases := map[string]map[string]any{
		"Url5xxAlarm": {"Namespace": "AWS/Lambda", "MetricName": "Url5xxCount", "Statistic": "Sum", "Dimensions": fn,
			"ComparisonOperator": "GreaterThanOrEqualToThreshold", "Threshold": 1, "TreatMissingData": "notBreaching", "AlarmActions": alarmActions},
		"LatencyAlarm": {"Namespace": "AWS/Lambda", "MetricName": "UrlRequestLatency", "Statistic": "Average", "Dimensions": fn,
			"ComparisonOperator": "GreaterThanThreshold", "Threshold": map[string]any{"Ref": "LatencyAlarmMs"}, "TreatMissingData": "notBreaching", "AlarmActions": alarmActions},
	}
	for id, want := range cases {
		if ty := tpl.Resource(id)["Type"]; ty != "AWS::CloudWatch::Alarm" {
			t.Fatalf("%s: Type %v", id, ty)
		}
		p := props(t, tpl, id)
		for k, w := range want {
			if canonical(t, p[k]) != canonical(t, w) {
				t.Errorf("%s: %s = %s, want %s", id, k, canonical(t, p[k]), canonical(t, w))
			}
		}
	}
	params := tpl.Section("Parameters")
	if d := params["LatencyAlarmMs"].(map[string]any)["Default"]; canonical(t, d) != "10000" {
		t.Errorf("LatencyAlarmMs defaults to %v", d)
	}
	tr := params["Tracing"].(map[string]any)
	if canonical(t, tr["AllowedValues"]) != `["PassThrough","Active"]` || tr["Default"] != "PassThrough" {
		t.Errorf("Tracing = %s", canonical(t, tr))
	}
	if v, _ := tpl.FunctionProperty("McpFunction", "Tracing"); canonical(t, v) != `{"Ref":"Tracing"}` {
		t.Errorf("the function's Tracing = %s, want the parameter", canonical(t, v))
	}
}

// TestTemplateFailedPaymentsAlarm: the alarm watches the metric the endpoint really emits for
// a failed payment. The expected namespace, metric name and dimensions are read from an EMF
// line obs.WriteEMF writes for such a call (not copied from the template), and the tools are
// the registry's paying tools (OAuth scope spend), so renaming a metric or adding a paying
// tool fails here.
func TestTemplateFailedPaymentsAlarm(t *testing.T) {
	tpl := loadTemplate(t)
	p := props(t, tpl, "FailedPaymentsAlarm")
	if canonical(t, p["AlarmActions"]) != canonical(t, alarmActions) {
		t.Errorf("AlarmActions = %s", canonical(t, p["AlarmActions"]))
	}
	if canonical(t, p["Threshold"]) != canonical(t, map[string]any{"Ref": "FailedPaymentsThreshold"}) || p["TreatMissingData"] != "notBreaching" {
		t.Errorf("Threshold %v, TreatMissingData %v", p["Threshold"], p["TreatMissingData"])
	}

	cfg, err := config.Load(func(string) string { return "" }, false)
	if err != nil {
		t.Fatal(err)
	}
	var paying []string
	for _, tl := range tools.All(&tools.Deps{Config: cfg}).Tools() {
		if tl.Scope() == auth.ScopeSpend {
			paying = append(paying, tl.Name())
		}
	}
	sort.Strings(paying)
	if len(paying) == 0 {
		t.Fatal("no paying tool registered")
	}

	type query struct {
		Id, Expression string
		ReturnData     bool
		MetricStat     *struct {
			Metric struct {
				Namespace, MetricName string
				Dimensions            []struct{ Name, Value string }
			}
			Period json.Number
			Stat   string
		}
	}
	var queries []query
	if err := json.Unmarshal([]byte(canonical(t, p["Metrics"])), &queries); err != nil {
		t.Fatalf("Metrics: %v", err)
	}
	var expression string
	var watched []string
	for _, q := range queries {
		if q.MetricStat == nil {
			if !q.ReturnData || expression != "" {
				t.Fatalf("want exactly one expression, the one returned: %+v", queries)
			}
			expression = q.Expression
			continue
		}
		if q.ReturnData {
			t.Errorf("%s: a metric behind the expression must not be returned", q.Id)
		}
		m := q.MetricStat.Metric
		dims := map[string]string{}
		var names []string
		for _, d := range m.Dimensions {
			dims[d.Name] = d.Value
			names = append(names, d.Name)
		}
		// What the endpoint writes for a payment failure of this tool.
		var buf bytes.Buffer
		obs.WriteEMF(&buf, time.Now(), dims["Tool"], string(errmap.CategoryPayment), time.Millisecond, nil)
		line := strings.SplitN(buf.String(), "\n", 2)[0]
		var emf struct {
			AWS struct {
				CloudWatchMetrics []struct {
					Namespace  string
					Dimensions [][]string
					Metrics    []struct{ Name string }
				}
			} `json:"_aws"`
		}
		var values map[string]any
		if json.Unmarshal([]byte(line), &emf) != nil || json.Unmarshal([]byte(line), &values) != nil || len(emf.AWS.CloudWatchMetrics) == 0 {
			t.Fatalf("EMF line: %s", line)
		}
		// The directive that carries the alarm's dimension set.
		cw := emf.AWS.CloudWatchMetrics[0]
		for _, d := range emf.AWS.CloudWatchMetrics {
			if slices.ContainsFunc(d.Dimensions, func(set []string) bool { return slices.Equal(set, names) }) {
				cw = d
			}
		}
		if m.Namespace != obs.Namespace || cw.Namespace != obs.Namespace {
			t.Errorf("%s: namespace %q, the endpoint emits %q", q.Id, m.Namespace, cw.Namespace)
		}
		if !slices.ContainsFunc(cw.Metrics, func(x struct{ Name string }) bool { return x.Name == m.MetricName }) {
			t.Errorf("%s: metric %q is not among those emitted: %+v", q.Id, m.MetricName, cw.Metrics)
		}
		if v, _ := values[m.MetricName].(float64); v != 1 {
			t.Errorf("%s: a failed payment sets %s to %v, want 1", q.Id, m.MetricName, values[m.MetricName])
		}
		if !slices.ContainsFunc(cw.Dimensions, func(set []string) bool { return slices.Equal(set, names) }) {
			t.Errorf("%s: dimensions %v are not a dimension set emitted (%v)", q.Id, names, cw.Dimensions)
		}
		for k, v := range dims {
			if values[k] != v {
				t.Errorf("%s: dimension %s = %q, the line has %v", q.Id, k, v, values[k])
			}
		}
		if dims["Category"] != string(errmap.CategoryPayment) {
			t.Errorf("%s: Category %q, want %q", q.Id, dims["Category"], errmap.CategoryPayment)
		}
		if q.Id != dims["Tool"] {
			t.Errorf("metric id %q should be its tool's name %q", q.Id, dims["Tool"])
		}
		if q.MetricStat.Stat != "Sum" || q.MetricStat.Period.String() != "300" {
			t.Errorf("%s: %s over %s s, want Sum over 300", q.Id, q.MetricStat.Stat, q.MetricStat.Period)
		}
		watched = append(watched, dims["Tool"])
	}
	sort.Strings(watched)
	if !slices.Equal(watched, paying) {
		t.Errorf("the alarm watches %v, the paying tools are %v", watched, paying)
	}
	for _, id := range watched {
		if !strings.Contains(expression, "FILL("+id+", 0)") {
			t.Errorf("expression %q does not sum %s", expression, id)
		}
	}
}

// TestTemplateAlarmTopic: the topic exists only for an email and no given topic, and
// subscribes that email.
func TestTemplateAlarmTopic(t *testing.T) {
	tpl := loadTemplate(t)
	conds := tpl.Section("Conditions")
	notEmpty := func(p string) map[string]any {
		return map[string]any{"Fn::Not": []any{map[string]any{"Fn::Equals": []any{map[string]any{"Ref": p}, ""}}}}
	}
	want := map[string]any{
		"HasAlarmTopicArn": notEmpty("AlarmTopicArn"),
		"CreateAlarmTopic": map[string]any{"Fn::And": []any{notEmpty("AlarmEmail"), map[string]any{"Fn::Not": []any{map[string]any{"Condition": "HasAlarmTopicArn"}}}}},
	}
	for name, w := range want {
		if canonical(t, conds[name]) != canonical(t, w) {
			t.Errorf("condition %s = %s, want %s", name, canonical(t, conds[name]), canonical(t, w))
		}
	}
	topic := tpl.Resource("AlarmTopic")
	if topic["Type"] != "AWS::SNS::Topic" || topic["Condition"] != "CreateAlarmTopic" {
		t.Fatalf("AlarmTopic: %s", canonical(t, topic))
	}
	sub := canonical(t, props(t, tpl, "AlarmTopic")["Subscription"])
	if sub != canonical(t, []any{map[string]any{"Protocol": "email", "Endpoint": map[string]any{"Ref": "AlarmEmail"}}}) {
		t.Errorf("Subscription = %s", sub)
	}
	for _, id := range sortedKeys(tpl.Section("Resources")) {
		if tpl.Resource(id)["Type"] == "AWS::CloudWatch::Alarm" {
			if _, conditional := tpl.Resource(id)["Condition"]; conditional {
				t.Errorf("%s has a Condition: alarms exist without a topic too", id)
			}
		}
	}
}

// TestTemplateOperatorParameters: the parameters that narrow or point the endpoint reach the
// function only when set, so an empty one keeps the function's default.
func TestTemplateOperatorParameters(t *testing.T) {
	tpl := loadTemplate(t)
	env, _ := tpl.FunctionProperty("McpFunction", "Environment")
	vars, _ := env.(map[string]any)["Variables"].(map[string]any)
	want := map[string]any{
		"MINDVAULT_DEFAULT_PROFILE": ifSet("HasDefaultProfile", "DefaultProfile"),
		"MINDVAULT_ALLOWED_ORIGINS": ifSet("HasAllowedOrigins", "AllowedOrigins"),
		"MINDVAULT_TOOLSETS":        ifSet("HasToolsets", "Toolsets"),
		"MINDVAULT_READ_ONLY":       map[string]any{"Fn::If": []any{"IsReadOnly", "true", map[string]any{"Ref": "AWS::NoValue"}}},
	}
	for name, w := range want {
		if canonical(t, vars[name]) != canonical(t, w) {
			t.Errorf("%s = %s, want %s", name, canonical(t, vars[name]), canonical(t, w))
		}
	}
	params := tpl.Section("Parameters")
	for _, name := range []string{"DefaultProfile", "AllowedOrigins", "Toolsets", "AlarmEmail", "AlarmTopicArn"} {
		if d := params[name].(map[string]any)["Default"]; d != "" {
			t.Errorf("%s defaults to %v, want empty (the function's default)", name, d)
		}
	}
	ro := params["ReadOnly"].(map[string]any)
	if canonical(t, ro["AllowedValues"]) != `["false","true"]` || ro["Default"] != "false" {
		t.Errorf("ReadOnly = %s", canonical(t, ro))
	}
}

// TestTemplateDefaultProfilePattern: the DefaultProfile pattern lets through only names the
// function accepts as MINDVAULT_DEFAULT_PROFILE, so a typo fails at deploy time, not at the
// first request.
func TestTemplateDefaultProfilePattern(t *testing.T) {
	p := loadTemplate(t).Section("Parameters")["DefaultProfile"].(map[string]any)
	re := mustAnchored(t, p["AllowedPattern"].(string))
	maxLen, err := p["MaxLength"].(json.Number).Int64()
	if err != nil {
		t.Fatalf("MaxLength %v: %v", p["MaxLength"], err)
	}
	allowed := func(s string) bool { return re.MatchString(s) && int64(len(s)) <= maxLen }
	for _, name := range []string{"alice", "team.main", "a_b-9", strings.Repeat("x", 64), "bad name", "ünï", strings.Repeat("x", 65), "a/b", "...", "-_"} {
		_, err := config.Load(func(k string) string {
			if k == "MINDVAULT_DEFAULT_PROFILE" {
				return name
			}
			return ""
		}, false)
		if accepted := err == nil; allowed(name) && !accepted {
			t.Errorf("%q matches the pattern but the function refuses it: %v", name, err)
		} else if !allowed(name) && accepted {
			t.Errorf("%q is refused by the pattern but accepted by the function", name)
		}
	}
}

func TestTemplateResourcePropertiesAreKnown(t *testing.T) {
	if problems := loadTemplate(t).CheckProperties(); len(problems) > 0 {
		t.Fatalf("unknown properties:\n  %s", strings.Join(problems, "\n  "))
	}
}

// TestTemplateCheckPropertiesCatches proves the property check can fail where the SAM schema
// does not look.
func TestTemplateCheckPropertiesCatches(t *testing.T) {
	src := readTemplate(t)
	cases := []struct{ old, new, want string }{
		{"      TreatMissingData: notBreaching\n      AlarmActions", "      TreatMisingData: notBreaching\n      AlarmActions", "TreatMisingData is not a property of AWS::CloudWatch::Alarm"},
		{"              MetricName: ToolErrors", "              Metricname: ToolErrors", "Metricname is not a property of Metric"},
		{"            Stat: Sum", "            Statistic: Sum", "Statistic is not a property of MetricStat"},
		{"          Endpoint: !Ref AlarmEmail", "          EndPoint: !Ref AlarmEmail", "EndPoint is not a property of Subscription"},
		{"    Type: AWS::SNS::Topic", "    Type: AWS::SNS::Topik", "type AWS::SNS::Topik has no entry in KnownProperties"},
	}
	for _, tc := range cases {
		t.Run(tc.want, func(t *testing.T) {
			broken := strings.Replace(src, tc.old, tc.new, 1)
			if broken == src {
				t.Fatalf("test setup: %q not in template.yaml", tc.old)
			}
			tpl, err := ParseTemplate([]byte(broken))
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(tpl.CheckProperties(), "\n"); !strings.Contains(got, tc.want) {
				t.Fatalf("problems %q do not contain %q", got, tc.want)
			}
		})
	}
}

// mustAnchored compiles a CloudFormation AllowedPattern, which must match the whole value.
func mustAnchored(t *testing.T, pat string) *regexp.Regexp {
	t.Helper()
	re, err := regexp.Compile(`^(?:` + pat + `)$`)
	if err != nil {
		t.Fatalf("AllowedPattern %q: %v", pat, err)
	}
	return re
}
