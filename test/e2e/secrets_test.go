//go:build node

package e2e_test

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"github.com/aws/aws-sdk-go-v2/aws"
	awscreds "github.com/aws/aws-sdk-go-v2/credentials"
	"io"
	"net/http"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mindvault/mcp-endpoint/internal/credentials"
	"github.com/mindvault/mcp-endpoint/internal/redact"
	"github.com/mindvault/mcp-endpoint/internal/sandbox"
	"github.com/mindvault/mcp-endpoint/internal/server"
	"github.com/mindvault/mcp-endpoint/internal/server/local"
)

// Secrets without a recognisable shape: only exact-value redaction can catch them.
const (
	envAPIKey   = "PlainKey7f3a9c2e1bXYZ" // MINDVAULT_API_KEY, known from boot
	dirAPIKey   = "DirKeyQ4w8e2r6t1y9uZZ" // a dir profile's API key, known once the profile is read
	bearerToken = "BearerTok5v9b3n7m1k4jQQ"
)

// spellings are the forms a downstream can give a secret in; every one must vanish.
func spellings(s string) []string {
	b := []byte(s)
	return []string{s, base64.StdEncoding.EncodeToString(b), base64.RawURLEncoding.EncodeToString(b), hex.EncodeToString(b), strings.ToUpper(hex.EncodeToString(b))}
}

// bootLambda boots the product as the Lambda main does (JSON logs to logw, EMF metrics to
// stdout, which is captured): the Lambda binary has no sandbox network, so it runs on testnet
// settings pointed at the simulators (local.Env), as `make invoke SANDBOX=1` runs it, with a
// dir: store holding the funded demo profile.
func bootLambda(t *testing.T, vars map[string]string) (*env, func() string) {
	t.Helper()
	sb, err := sandbox.Start(sandbox.Options{ApplyDelay: fastApply})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sb.Close)
	dir := t.TempDir()
	all := local.Env(sb)
	delete(all, "MINDVAULT_AGENT_SECRET") // the demo profile is in the dir: store instead
	delete(all, "MINDVAULT_API_KEY")
	all["MINDVAULT_CREDENTIALS"] = "dir:" + dir
	store, err := credentials.Open(all["MINDVAULT_CREDENTIALS"], func(string) string { return "" }, local.DemoProfile, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Create(context.Background(), credentials.Profile{Name: local.DemoProfile, SecretKey: sb.Demo.Secret, APIKey: sb.DemoAPIKey}); err != nil {
		t.Fatal(err)
	}
	for k, v := range fastRetries {
		all[k] = v
	}
	// Under Lambda payments need the shared ledger (docs/once.md "The journal").
	for k, v := range lambdaLedger(t) {
		all[k] = v
	}
	for k, v := range vars {
		all[k] = v
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	metrics := &syncBuffer{}
	copied := make(chan struct{})
	go func() { _, _ = io.Copy(metrics, r); close(copied) }()
	stdout := os.Stdout
	os.Stdout = w // the handler picks its EMF writer up at construction
	logs := &syncBuffer{}
	// The ledger's AWS credentials come from the test, not the process environment.
	static := func(context.Context) (aws.Config, error) {
		return aws.Config{Region: "us-east-1", Credentials: awscreds.NewStaticCredentialsProvider("test", "test", "")}, nil
	}
	b := server.BootWith(func(k string) string { return all[k] }, true, logs, server.Local{AWSConfig: static})
	os.Stdout = stdout
	var once sync.Once
	drain := func() string { // every request has returned, so its metric lines are in the pipe
		once.Do(func() { w.Close(); <-copied; r.Close() })
		return metrics.String()
	}
	t.Cleanup(func() { drain() })
	if b.Err != nil {
		t.Fatalf("boot: %v", b.Err)
	}
	e := &env{t: t, b: &local.Booted{Booted: b, Sandbox: sb}, sb: sb, logs: logs, schemas: map[string]json.RawMessage{}, token: vars["test.token"]}
	return e, drain
}

// TestSecretsNeverLeave attacks every tool: shapeless secrets (the environment's API key, a
// dir profile's API key, the caller's bearer token) and every wallet secret, raw, in base64
// and in hex, are planted in every downstream's error bodies, success bodies and headers; the
// whole HTTP response of every call, the log and the metric lines must hold none of them.
func TestSecretsNeverLeave(t *testing.T) {
	e, metrics := bootLambda(t, map[string]string{
		"MINDVAULT_API_KEY":       envAPIKey,
		"MINDVAULT_AUTH":          "tokens",
		"MINDVAULT_ACCESS_TOKENS": digest(bearerToken) + ":*",
		"test.token":              bearerToken,
	})
	ctx := context.Background()
	creator, _ := e.sb.Account("creator")
	if err := e.b.Deps.Store.Create(ctx, credentials.Profile{Name: "plain", SecretKey: creator.Secret, APIKey: dirAPIKey}); err != nil {
		t.Fatal(err)
	}
	reg, _ := e.sb.Account("zero")
	if err := e.b.Deps.Store.Create(ctx, credentials.Profile{Name: "reg", SecretKey: reg.Secret}); err != nil {
		t.Fatal(err)
	}

	// What the process knows: list_profiles reads every profile; the demo profile gets a real
	// publisher key through mindvault_register.
	var tools struct {
		Result struct {
			Tools []struct{ Name string } `json:"tools"`
		} `json:"result"`
	}
	e.rpc(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, &tools)
	e.call("mindvault_list_profiles", `{}`)
	e.call("mindvault_register", `{"name":"Demo Two","email":"demo2@example.org"}`)
	demo, err := e.b.Deps.Store.Get(ctx, "demo")
	if err != nil || demo.APIKey == "" {
		t.Fatalf("demo has no publisher key: %v", err)
	}

	secrets := []string{envAPIKey, dirAPIKey, bearerToken, demo.APIKey}
	for _, a := range e.sb.Accounts() {
		if a.Secret != "" {
			secrets = append(secrets, a.Secret)
		}
	}
	var forms []string
	for _, s := range secrets {
		forms = append(forms, spellings(s)...)
	}
	// The planted text: every spelling of the shapeless secrets and the wallet's.
	var plantList []string
	for _, s := range []string{envAPIKey, dirAPIKey, bearerToken, demo.APIKey, e.sb.Demo.Secret, creator.Secret} {
		plantList = append(plantList, spellings(s)...)
	}
	planted := strings.Join(plantList, " ")

	successBody := func(path string) string {
		resp, err := http.Get(e.sb.APIURL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var v any
		if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(poison(v, planted))
		return string(b)
	}

	type rule map[string]any
	everywhere := func(kind string, status int, bodies map[string]string, extra rule) []rule {
		var out []rule
		for _, svc := range []string{"api", "horizon", "rpc", "sponsor"} {
			r := rule{"service": svc, "target": "*", "kind": kind, "header": []string{"X-Echo:" + planted, "X-Debug:token=" + bearerToken}}
			if status != 0 {
				r["status"] = status
			}
			if b := bodies[svc]; b != "" {
				r["body"] = b
			}
			for k, v := range extra {
				r[k] = v
			}
			out = append(out, r)
		}
		return out
	}
	quoted, _ := json.Marshal(planted)
	q := string(quoted)
	plans := map[string][]rule{
		"server errors": everywhere("status", 500, map[string]string{
			"api":     `{"error":` + q + `,"message":` + q + `}`,
			"horizon": `{"type":"https://stellar.org/horizon-errors/server_error","title":` + q + `,"status":500,"detail":` + q + `}`,
			"rpc":     planted,
			"sponsor": `{"error":` + q + `}`,
		}, nil),
		"bad requests": append(everywhere("status", 400, map[string]string{
			"api":     `{"error":{"_errors":[` + q + `],"title":{"_errors":[` + q + `]}}}`,
			"horizon": `{"type":"https://stellar.org/horizon-errors/transaction_failed","title":` + q + `,"status":400,"extras":{"result_codes":{"transaction":` + q + `}}}`,
			"sponsor": `{"error":` + q + `}`,
		}, nil)[:2], rule{"service": "rpc", "target": "*", "kind": "rpcerror", "code": -32602, "message": planted},
			rule{"service": "sponsor", "target": "*", "kind": "status", "status": 400, "body": `{"error":` + q + `}`}),
		"rate limits": everywhere("status", 429, map[string]string{
			"api":     `{"error":` + q + `,"code":"RATE_LIMITED","retryAfterSeconds":1}`,
			"horizon": `{"type":"https://stellar.org/horizon-errors/rate_limit_exceeded","title":` + q + `,"status":429,"detail":` + q + `}`,
			"rpc":     planted,
			"sponsor": `{"error":` + q + `}`,
		}, rule{"retry-after": "1"}),
		"success with echoing headers": everywhere("delay", 0, nil, rule{"delay": "1ms"}),
		"success bodies": {
			{"service": "api", "target": "GET /resources/*/meta", "kind": "status", "status": 200, "body": successBody("/resources/rustguide/meta")},
			{"service": "api", "target": "GET /resources", "kind": "status", "status": 200, "body": successBody("/resources?limit=100")},
			{"service": "api", "target": "GET /agent/status", "kind": "status", "status": 200, "body": successBody("/agent/status")},
			{"service": "api", "target": "GET /buyers/*/payments", "kind": "status", "status": 200, "body": `{"payments":[{"resourceId":"llmprompts","title":` + q + `,"amount":"0.1","txHash":` + q + `,"paidAt":` + q + `,"paymentId":` + q + `}]}`},
			{"service": "rpc", "target": "getNetwork", "kind": "status", "status": 200, "body": `{"jsonrpc":"2.0","id":1,"result":{"friendbotUrl":` + q + `,"passphrase":` + q + `,"protocolVersion":22}}`},
			{"service": "rpc", "target": "getTransaction", "kind": "status", "status": 200, "count": 1, "body": `{"jsonrpc":"2.0","id":1,"result":{"status":` + q + `,"latestLedger":1000,"latestLedgerCloseTime":"1","oldestLedger":1,"oldestLedgerCloseTime":"1"}}`},
		},
	}

	calls := []struct{ tool, args string }{
		// First: the success-bodies plan poisons one getTransaction answer, for this call.
		{"mindvault_tx_status", `{"txHash":"` + strings.Repeat("ab", 32) + `"}`},
		{"mindvault_agent_status", `{}`},
		{"mindvault_browse", `{}`},
		{"mindvault_buy", `{"resourceId":"llmprompts","maxPriceUsdc":"1"}`},
		{"mindvault_buy", `{"resourceId":"llmprompts","dryRun":true,"profile":"plain"}`},
		{"mindvault_check_consistency", `{"resourceId":"rustguide"}`},
		{"mindvault_health", `{}`},
		{"mindvault_list_profiles", `{}`},
		{"mindvault_network_profile", `{}`},
		{"mindvault_preview", `{"resourceId":"rustguide"}`},
		{"mindvault_publish", `{"title":"Planted","price":"0.5","externalUrl":"https://example.org/planted"}`},
		{"mindvault_publish", `{"title":"Planted","price":"0.5","externalUrl":"https://example.org/planted","profile":"plain"}`},
		{"mindvault_publish_status", `{"resourceId":"rustguide"}`},
		{"mindvault_purchase_history", `{}`},
		{"mindvault_purchase_history", `{"profile":"plain","resourceId":"llmprompts"}`},
		{"mindvault_register", `{"name":"Reg","email":"reg-%d@example.org","profile":"reg"}`},
		{"mindvault_register_onchain", `{"resourceId":"llmprompts"}`},
		{"mindvault_register_onchain", `{"resourceId":"rustguide","profile":"plain"}`},
		{"mindvault_registry_info", `{}`},
		{"mindvault_registry_list", `{}`},
		{"mindvault_registry_lookup", `{"resourceId":"rustguide"}`},
		{"mindvault_search", `{"query":"rust"}`},
		{"mindvault_set_listed", `{"resourceId":"llmprompts","listed":true}`},
		{"mindvault_set_price", `{"resourceId":"llmprompts","price":"0.1"}`},
		{"mindvault_set_tags", `{"resourceId":"rustguide","tags":["planted"],"profile":"plain"}`},
		{"mindvault_setup_wallet", `{"profile":"wallet-%d"}`},
		{"mindvault_transfer_ownership", `{"resourceId":"llmprompts","newCreator":"` + e.sb.Demo.Address + `"}`},
		{"mindvault_update_metadata", `{"resourceId":"llmprompts","metadata":"ipfs://planted"}`},
		{"mindvault_wallet_info", `{}`},
		{"mindvault_wallet_info", `{"profile":"plain"}`},
	}
	covered := map[string]bool{}
	for _, c := range calls {
		covered[c.tool] = true
	}
	for _, tl := range tools.Result.Tools {
		if !covered[tl.Name] {
			t.Errorf("tool %s is not attacked by this test; add a call for it", tl.Name)
		}
	}

	names := make([]string, 0, len(plans))
	for n := range plans {
		names = append(names, n)
	}
	sort.Strings(names)
	n := 0
	for _, name := range names {
		plan, _ := json.Marshal(plans[name])
		t.Run(name, func(t *testing.T) {
			e := e.in(t)
			e.faults(string(plan))
			marked := 0
			var mu sync.Mutex
			for _, c := range calls {
				n++
				args := c.args
				if strings.Contains(args, "%d") {
					args = fmt.Sprintf(args, n)
				}
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				raw := e.rpcCtx(ctx, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"`+c.tool+`","arguments":`+args+`}}`, nil)
				cancel()
				if os.Getenv("SECRETS_DEBUG") != "" {
					t.Logf("%s: %.300s", c.tool, raw)
				}
				if !json.Valid([]byte(raw)) {
					t.Fatalf("%s: the response is not JSON: %s", c.tool, raw)
				}
				if f := leaked(raw, forms); f != "" {
					t.Errorf("%s %s: a secret (%.6s…) reached the response: %.600s", c.tool, args, f, raw)
				}
				if strings.Contains(raw, redact.Marker) {
					mu.Lock()
					marked++
					mu.Unlock()
				}
				if name == "success bodies" && c.tool == "mindvault_health" && !strings.Contains(raw, redact.Marker) {
					t.Errorf("health should have met the planted passphrase: %.600s", raw)
				}
			}
			if marked == 0 && name != "success with echoing headers" { // no tool shows a header
				t.Errorf("no response met a planted secret: the plan did not reach the tools")
			}
		})
	}
	e.rpc(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"mindvault_no_such_tool_`+strings.Repeat("z", 100)+`","arguments":{}}}`, nil)

	logs, emf := e.logs.String(), metrics()
	if f := leaked(logs, forms); f != "" {
		t.Errorf("a secret (%.6s…) reached the log", f)
	}
	if f := leaked(emf, forms); f != "" {
		t.Errorf("a secret (%.6s…) reached a metric", f)
	}
	if !strings.Contains(logs, `"tool":"mindvault_preview"`) || !strings.Contains(emf, `"Tool":"mindvault_preview"`) {
		t.Fatalf("the log or the metrics are missing: %.300s / %.300s", logs, emf)
	}
	valid := map[string]bool{"unknown": true}
	for _, tl := range tools.Result.Tools {
		valid[tl.Name] = true
	}
	for _, line := range strings.Split(strings.TrimSpace(emf), "\n") {
		var m struct{ Tool, Route *string }
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("EMF line is not JSON: %q", line)
		}
		if m.Tool != nil && !valid[*m.Tool] {
			t.Errorf("EMF Tool dimension %q is not a registered tool", *m.Tool)
		}
		// Routes are the code's, so every one has a shape the metrics keep.
		if m.Route != nil && *m.Route == "unknown" {
			t.Errorf("a downstream call of some tool is recorded under Route unknown: %s", line)
		}
	}
	if !strings.Contains(emf, `"Tool":"unknown"`) {
		t.Error("the unknown tool must be counted as unknown")
	}
}

// leaked returns the first form of which out holds any 12-character piece: a cut through a
// secret must not leave half of it behind either.
func leaked(out string, forms []string) string {
	const piece = 12
	for _, f := range forms {
		for i := 0; i+piece <= len(f); i++ {
			if strings.Contains(out, f[i:i+piece]) {
				return f
			}
		}
	}
	return ""
}

// poison puts the planted text into every human-readable field of a success body, keeping
// ids, prices and numbers, so the body stays a valid answer.
func poison(v any, planted string) any {
	switch x := v.(type) {
	case map[string]any:
		for k, val := range x {
			switch k {
			case "title", "description", "name", "message":
				if _, ok := val.(string); ok {
					x[k] = "planted " + planted
					continue
				}
			}
			x[k] = poison(val, planted)
		}
	case []any:
		for i := range x {
			x[i] = poison(x[i], planted)
		}
	}
	return v
}
