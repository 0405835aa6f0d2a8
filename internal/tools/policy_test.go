package tools

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/config"
	"github.com/mindvault/mcp-endpoint/internal/credentials"
	"github.com/mindvault/mcp-endpoint/requests"
)

// TestDeclaredPolicies: every tool that is not read-only declares the mainnet confirmation
// (Define gives it the configuration it reads), so a new write cannot forget it; read-only tools declare
// none, so the confirmation never stands in front of a read.
func TestDeclaredPolicies(t *testing.T) {
	d := &Deps{Config: testConfig(t, nil)}
	writes := 0
	for _, tool := range All(d).Tools() {
		def, p, dry := tool.Definition(), tool.kind.Mainnet, tool.dryRun
		t.Run(def.Name, func(t *testing.T) {
			if def.Annotations.ReadOnly {
				if p != NoMainnetPolicy || dry != NoDryRun {
					t.Errorf("a read-only tool declares a policy: %v, %v", p, dry)
				}
				return
			}
			writes++
			if p != ConfirmRequired {
				t.Errorf("a state-changing tool must declare ConfirmRequired: %v", p)
			}
		})
	}
	if writes == 0 {
		t.Fatal("no state-changing tool found")
	}
}

// stateChangingArgs are valid arguments of every state-changing tool; a tool missing here
// fails TestMainnetConfirmationEnforced, so a new one is covered as soon as it exists.
var stateChangingArgs = map[string]string{
	"mindvault_buy":                `{"resourceId":"rustguide"}`,
	"mindvault_publish":            `{"title":"T","price":"1","externalUrl":"https://example.org/t"}`,
	"mindvault_register":           `{"name":"N","email":"n@example.org"}`,
	"mindvault_register_onchain":   `{"resourceId":"abc"}`,
	"mindvault_setup_wallet":       `{"profile":"fresh"}`,
	"mindvault_set_price":          `{"resourceId":"abc","price":"2"}`,
	"mindvault_update_metadata":    `{"resourceId":"abc","metadata":"ipfs://x"}`,
	"mindvault_set_listed":         `{"resourceId":"abc","listed":false}`,
	"mindvault_set_tags":           `{"resourceId":"abc","tags":["a"]}`,
	"mindvault_transfer_ownership": `{"resourceId":"abc","newCreator":"GBBD47IF6LWK7P7MDEVSCWR7DPUWV3NY3DTQEVFL4NAT4AQH3ZLLFLA5"}`,
}

// with adds one argument to a JSON object.
func with(args, extra string) string {
	return strings.TrimSuffix(args, "}") + "," + extra + "}"
}

// TestMainnetConfirmationEnforced calls every state-changing tool through its definition.
// On mainnet a call without confirmMainnet is refused before Run, as a validation failure
// that started nothing; with it, on testnet, or with the operator's waiver, Run starts (and
// stops at once at the empty credential store, so nothing is sent anywhere). A dry run of
// buy needs no confirmation, a dry run of publish does.
func TestMainnetConfirmationEnforced(t *testing.T) {
	mainnet := map[string]string{"STELLAR_NETWORK": "mainnet", "SOROBAN_RPC_URL": "https://rpc.example.org",
		"VAULT_REGISTRY_CONTRACT_ID": "CDQKUIADLO5S5WEHEUTTXX2M45WAHVRU2PBEBD6ZGDKMOP5A72FJ3OD4", "X402_NETWORK": "stellar:pubnet"}
	waived := map[string]string{"MINDVAULT_ALLOW_MAINNET": "true"}
	for k, v := range mainnet {
		waived[k] = v
	}
	store := credentials.NewEnv(func(string) string { return "" }, "default")
	regs := map[string]*Registry{}
	for name, env := range map[string]map[string]string{"mainnet": mainnet, "waived": waived, "testnet": nil} {
		regs[name] = All(&Deps{Config: testConfig(t, env), Store: store})
	}
	type run struct {
		net, args string
		refused   bool
	}
	for _, tool := range regs["mainnet"].Tools() {
		def := tool.Definition()
		if def.Annotations.ReadOnly {
			continue
		}
		args, ok := stateChangingArgs[def.Name]
		if !ok {
			t.Errorf("%s changes state but has no arguments in stateChangingArgs", def.Name)
			continue
		}
		runs := []run{
			{"mainnet", args, true},
			{"mainnet", with(args, `"confirmMainnet":false`), true},
			{"mainnet", with(args, `"confirmMainnet":true`), false},
			{"waived", args, false},
			{"testnet", args, false},
		}
		switch def.Name {
		case "mindvault_buy":
			runs = append(runs, run{"mainnet", with(args, `"dryRun":true`), false}, run{"mainnet", with(args, `"dryRun":false`), true})
		case "mindvault_publish":
			runs = append(runs, run{"mainnet", with(args, `"dryRun":true`), true}, run{"mainnet", with(with(args, `"dryRun":true`), `"confirmMainnet":true`), false})
		}
		for _, r := range runs {
			res, _ := regs[r.net].Call(context.Background(), def.Name, json.RawMessage(r.args))
			d, _ := res.Meta[errmap.MetaKey].(errmap.Diagnostic)
			if !res.IsError || d.Code == errmap.CodeInvalidArguments {
				t.Errorf("%s on %s %s: want a failure past validation, got %s", def.Name, r.net, r.args, res.Content[0].Text)
				continue
			}
			if refused := d.Code == errmap.CodeMainnetNotConfirmed; refused != r.refused {
				t.Errorf("%s on %s %s: refused = %v, want %v (%s)", def.Name, r.net, r.args, refused, r.refused, d.Code)
			}
			if r.refused && (d.ExecutionStarted || d.StateChanged != string(errmap.StateNo) || d.Category != string(errmap.CategoryValidation)) {
				t.Errorf("%s: the refusal must be a validation failure that started and changed nothing: %+v", def.Name, d)
			}
		}
	}
}

// confirmable is a request under a mainnet policy, for the guard tests.
type confirmable struct {
	Name string `json:"name" validate:"required,max=8"`
	requests.Confirm
}

type guardOut struct {
	Name string `json:"name"`
}

var errGuard = &errmap.Error{Err: errors.New("declined"), Facts: errmap.Facts{Source: errmap.SourceRequest, Code: errmap.CodeForbidden, Detail: "declined"}}

// TestChecksRunBeforeRun: Run sees only validated, decoded requests, after the mainnet
// confirmation, and Run's refusal is the call's failure.
func TestChecksRunBeforeRun(t *testing.T) {
	mainnet := testConfig(t, map[string]string{"STELLAR_NETWORK": "mainnet", "SOROBAN_RPC_URL": "https://rpc.example.org",
		"VAULT_REGISTRY_CONTRACT_ID": "CDQKUIADLO5S5WEHEUTTXX2M45WAHVRU2PBEBD6ZGDKMOP5A72FJ3OD4", "X402_NETWORK": "stellar:pubnet"})
	cases := []struct {
		name, args string
		decline    bool
		trail      string // what ran, in order
		code       string // "" for success
	}{
		{"invalid arguments reach no Run", `{"name":"far too long"}`, false, "", errmap.CodeInvalidArguments},
		{"unconfirmed on mainnet reaches no Run", `{"name":"a"}`, false, "", errmap.CodeMainnetNotConfirmed},
		{"confirmed: Run sees the decoded request", `{"name":" a ","confirmMainnet":true}`, false, "run(a)", ""},
		{"a refusal is the call's failure", `{"name":"a","confirmMainnet":true}`, true, "run(a)", errmap.CodeForbidden},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var trail []string
			tool := defineReflected(&Deps{Config: mainnet}, Spec[confirmable, guardOut]{
				Name: "test_guarded", Operation: "Test failed", Toolset: config.ToolsetOps,
				Kind: Kind{Source: errmap.SourceRequest, Mainnet: ConfirmRequired},
				Run: func(_ context.Context, _ *Call, req *confirmable) (*guardOut, error) {
					trail = append(trail, "run("+req.Name+")")
					if tc.decline {
						return nil, errGuard
					}
					return &guardOut{Name: req.Name}, nil
				},
			})
			res := tool.call(context.Background(), json.RawMessage(tc.args))
			if got := strings.Join(trail, " "); got != tc.trail {
				t.Errorf("ran %q, want %q", got, tc.trail)
			}
			d, _ := res.Meta[errmap.MetaKey].(errmap.Diagnostic)
			if res.IsError != (tc.code != "") || d.Code != tc.code {
				t.Errorf("result: isError %v, code %q; want %q", res.IsError, d.Code, tc.code)
			}
		})
	}
}

// TestPolicyDeclarationsRefused: a declaration that does not fit its request is refused when
// the tool is defined, not discovered at a call.
func TestPolicyDeclarationsRefused(t *testing.T) {
	run := func(context.Context, *Call, *BuyInput) (*guardOut, error) { return nil, nil }
	cfg := testConfig(t, nil)
	cases := []struct {
		name   string
		define func()
		want   string
	}{
		{"confirmation declared, request takes none", func() {
			defineReflected(&Deps{Config: cfg}, Spec[PreviewInput, guardOut]{Name: "t", Kind: Kind{Mainnet: ConfirmRequired},
				Run: func(context.Context, *Call, *PreviewInput) (*guardOut, error) { return nil, nil }})
		}, "does not take confirmMainnet"},
		{"request takes confirmMainnet, no policy", func() {
			defineReflected(&Deps{Config: cfg}, Spec[SetPriceInput, guardOut]{Name: "t",
				Run: func(context.Context, *Call, *SetPriceInput) (*guardOut, error) { return nil, nil }})
		}, "declares no mainnet policy"},
		{"request takes dryRun, nothing declared for it", func() {
			defineReflected(&Deps{Config: cfg}, Spec[BuyInput, guardOut]{Name: "t", Kind: Kind{Mainnet: ConfirmRequired}, Run: run})
		}, "declare what a dry run does"},
		{"dry run declared, request takes none", func() {
			defineReflected(&Deps{Config: cfg}, Spec[SetPriceInput, guardOut]{Name: "t", Kind: Kind{Mainnet: ConfirmRequired}, DryRun: DryRunExempt,
				Run: func(context.Context, *Call, *SetPriceInput) (*guardOut, error) { return nil, nil }})
		}, "does not take dryRun"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(r.(string), tc.want) {
					t.Fatalf("Define panicked with %v, want %q", r, tc.want)
				}
			}()
			tc.define()
		})
	}
}
