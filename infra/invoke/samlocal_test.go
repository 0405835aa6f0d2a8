package main

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/mindvault/mcp-endpoint/infra"
	"github.com/mindvault/mcp-endpoint/internal/config"
)

// TestSamLocalEnvVars: events/sam-local/env-vars.json is what `sam local invoke --env-vars`
// needs for the shipped events to answer as their goldens do. With the template's own values the
// function would refuse every event (AuthMode=tokens and no token in them) or report a
// configuration it cannot reach locally (the confirmation-key secret, the Secrets Manager
// profile store, the ledger table). SAM passes only variables the template declares, so the file
// names no other; it sets the endpoint variables this harness gives the emulator to the same
// values, so make test-lambda's goldens are what sam local invoke prints; and the configuration
// it leaves loads under Lambda without a problem.
func TestSamLocalEnvVars(t *testing.T) {
	b, err := os.ReadFile("../../events/sam-local/env-vars.json")
	if err != nil {
		t.Fatal(err)
	}
	var file map[string]map[string]string
	if err := json.Unmarshal(b, &file); err != nil {
		t.Fatal(err)
	}
	tpl, err := infra.LoadTemplate("../../template.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(file) != 1 || file["McpFunction"] == nil || tpl.Resource("McpFunction")["Type"] != "AWS::Serverless::Function" {
		t.Fatalf("want one entry, the template's function McpFunction: %v", file)
	}
	vars := file["McpFunction"]
	envProp, _ := tpl.FunctionProperty("McpFunction", "Environment")
	declared, _ := envProp.(map[string]any)["Variables"].(map[string]any)
	for k := range vars {
		if _, ok := declared[k]; !ok {
			t.Errorf("%s is not a variable of McpFunction in template.yaml: sam local invoke would ignore it", k)
		}
	}
	// Everything that reaches AWS or refuses a tokenless event is overridden.
	for k := range declared {
		needsAWS := strings.HasSuffix(k, "_SECRET") || k == "MINDVAULT_CREDENTIALS" || k == "MINDVAULT_LEDGER" || k == "MINDVAULT_AUTH"
		if _, ok := vars[k]; needsAWS && !ok {
			t.Errorf("the template's %s is not overridden: locally it reaches AWS or refuses the events", k)
		}
	}
	// The same endpoint settings as the harness that made the goldens.
	for _, kv := range emulatorEnv(nil) {
		k, v, _ := strings.Cut(kv, "=")
		if (strings.HasPrefix(k, "MINDVAULT_") || k == "STELLAR_NETWORK") && vars[k] != v {
			t.Errorf("%s is %q in the env-vars file and %q where the goldens were made", k, vars[k], v)
		}
	}
	cfg, err := config.Load(func(k string) string { return vars[k] }, true)
	if err != nil || cfg.Auth != "none" {
		t.Fatalf("the file's configuration under Lambda: auth %q, %v", cfg.Auth, err)
	}
	if !slices.Contains([]string{"", "env"}, cfg.Credentials) {
		t.Fatalf("credential store %q reaches AWS", cfg.Credentials)
	}
}
