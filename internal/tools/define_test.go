package tools

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/config"
	"github.com/mindvault/mcp-endpoint/internal/mcp"
	"github.com/mindvault/mcp-endpoint/internal/testkit/schemacheck"
)

func testConfig(t *testing.T, env map[string]string) *config.Config {
	t.Helper()
	cfg, err := config.Load(func(k string) string { return env[k] }, false)
	if err != nil {
		t.Fatalf("config: %v", err)
	}
	return cfg
}

func toolRegistry(t *testing.T) *Registry {
	return All(&Deps{Config: testConfig(t, nil)})
}

var namePattern = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,128}$`)

// TestRegistryWide applies the tool-definition rules that span every tool (docs/protocol.md "Methods").
func TestRegistryWide(t *testing.T) {
	reg := toolRegistry(t)
	if len(reg.Tools()) == 0 {
		t.Fatal("no tools")
	}
	prev := ""
	for _, tool := range reg.Tools() {
		def := tool.Definition()
		t.Run(def.Name, func(t *testing.T) {
			if !namePattern.MatchString(def.Name) || !strings.HasPrefix(def.Name, "mindvault_") {
				t.Errorf("bad name %q", def.Name)
			}
			if def.Name <= prev {
				t.Errorf("tools not in a stable sorted order at %s", def.Name)
			}
			prev = def.Name
			if def.Title == "" || len(def.Description) < 40 {
				t.Errorf("title or description missing/too short")
			}
			// Descriptions are wrapped prose in the source; what is advertised is one line.
			if folded := strings.Join(strings.Fields(def.Description), " "); def.Description != folded {
				t.Errorf("description keeps the source's line breaks or indentation: %q", def.Description)
			}
			var ann map[string]any
			raw, _ := json.Marshal(def.Annotations)
			_ = json.Unmarshal(raw, &ann)
			for _, h := range []string{"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"} {
				if _, ok := ann[h].(bool); !ok {
					t.Errorf("annotation %s not set explicitly", h)
				}
			}
			checkInputSchema(t, def.InputSchema)
			var out map[string]any
			if err := json.Unmarshal(def.OutputSchema, &out); err != nil || out["type"] != "object" {
				t.Errorf("outputSchema must be object-rooted: %s", def.OutputSchema)
			}
			checkNoBareTrue(t, "outputSchema", out)
			// Every advertised argument is accepted and every accepted argument advertised.
			var in struct {
				Properties map[string]json.RawMessage `json:"properties"`
			}
			_ = json.Unmarshal(def.InputSchema, &in)
			accepted := tool.Model().Names()
			if len(accepted) != len(in.Properties) {
				t.Errorf("accepts %v, advertises %d properties", accepted, len(in.Properties))
			}
			for _, n := range accepted {
				if _, ok := in.Properties[n]; !ok {
					t.Errorf("argument %s accepted but not advertised", n)
				}
				for _, is := range tool.Model().Check(json.RawMessage(`{"` + n + `":null}`)) {
					if is.Rule == "unknown" {
						t.Errorf("advertised argument %s rejected as unknown", n)
					}
				}
			}
			unknown := tool.Model().Check(json.RawMessage(`{"definitely_not_an_argument":1}`))
			if len(unknown) == 0 || unknown[0].Rule != "unknown" {
				t.Errorf("an unknown argument was not rejected first: %+v", unknown)
			}
		})
	}
}

func checkInputSchema(t *testing.T, raw json.RawMessage) {
	t.Helper()
	var s map[string]any
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatalf("inputSchema is not JSON: %v", err)
	}
	if s["type"] != "object" || s["additionalProperties"] != false {
		t.Errorf("inputSchema must be a closed object: %s", raw)
	}
	for _, k := range []string{"anyOf", "oneOf", "allOf", "$ref", "$defs"} {
		if _, ok := s[k]; ok {
			t.Errorf("inputSchema has top-level %s", k)
		}
	}
	if strings.Contains(string(raw), `"$ref"`) {
		t.Errorf("inputSchema is not inlined")
	}
	checkNoBareTrue(t, "inputSchema", s)
}

// checkNoBareTrue rejects `true` used as a schema, which some LLM providers refuse.
func checkNoBareTrue(t *testing.T, where string, v any) {
	t.Helper()
	m, ok := v.(map[string]any)
	if !ok {
		return
	}
	for k, child := range m {
		switch k {
		case "properties":
			props, _ := child.(map[string]any)
			for name, p := range props {
				if b, isBool := p.(bool); isBool && b {
					t.Errorf("%s: property %s is a bare true schema", where, name)
				}
				checkNoBareTrue(t, where, p)
			}
		case "items", "additionalProperties":
			if b, isBool := child.(bool); isBool && b {
				t.Errorf("%s: %s is a bare true schema", where, k)
			}
			checkNoBareTrue(t, where, child)
		}
	}
}

// call runs a tool through the registry as the protocol layer would.
func call(t *testing.T, reg *Registry, name, args string) mcp.ToolResult {
	t.Helper()
	var raw json.RawMessage
	if args != "" {
		raw = json.RawMessage(args)
	}
	res, ok := reg.Call(context.Background(), name, raw)
	if !ok {
		t.Fatalf("no tool %s", name)
	}
	return res
}

// checkSuccess asserts a success result: text equals structuredContent, which conforms to
// the tool's outputSchema.
func checkSuccess(t *testing.T, reg *Registry, name string, res mcp.ToolResult) map[string]any {
	t.Helper()
	if res.IsError {
		t.Fatalf("unexpected error: %s", res.Content[0].Text)
	}
	raw, ok := res.StructuredContent.(json.RawMessage)
	if !ok || len(res.Content) != 1 || res.Content[0].Text != string(raw) {
		t.Fatalf("text block must equal structuredContent")
	}
	tool, _ := reg.Lookup(name)
	if err := schemacheck.Validate(tool.Definition().OutputSchema, raw); err != nil {
		t.Fatalf("result does not conform to the outputSchema: %v\n%s", err, raw)
	}
	var out map[string]any
	_ = json.Unmarshal(raw, &out)
	return out
}

// TestValidationFailureResult is the acceptance shape of an argument failure: line 1 names
// the tool and the path, line 2 the request source and validation category, the diagnostic
// carries -32602 and the issue path, and the rejected value appears nowhere.
func TestValidationFailureResult(t *testing.T) {
	reg := toolRegistry(t)
	const planted = "PLANTED-VALUE-9f3a"
	res := call(t, reg, "mindvault_network_profile", `{"surprise":"`+planted+`"}`)
	if !res.IsError || res.StructuredContent != nil {
		t.Fatalf("want an isError result without structuredContent")
	}
	lines := strings.Split(res.Content[0].Text, "\n")
	if len(lines) != 3 {
		t.Fatalf("want three lines, got %q", res.Content[0].Text)
	}
	if !strings.Contains(lines[0], "mindvault_network_profile") || !strings.Contains(lines[0], "/surprise") || !strings.Contains(lines[0], "-32602") {
		t.Errorf("line 1 = %q", lines[0])
	}
	if lines[1] != "Source: request validation · Category: validation · Code: INVALID_ARGUMENTS" {
		t.Errorf("line 2 = %q", lines[1])
	}
	d, ok := res.Meta[errmap.MetaKey].(errmap.Diagnostic)
	if !ok {
		t.Fatalf("no diagnostic under %s", errmap.MetaKey)
	}
	if d.JSONRPCCode != -32602 || len(d.Issues) != 1 || d.Issues[0].Path != "/surprise" || d.Issues[0].Rule != "unknown" {
		t.Errorf("diagnostic = %+v", d)
	}
	b, _ := json.Marshal(res)
	if strings.Contains(string(b), planted) {
		t.Fatalf("the rejected value leaked: %s", b)
	}
}
