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
	"github.com/mindvault/mcp-endpoint/internal/redact"
)

type secretOut struct {
	Note string `json:"note"`
}

// TestCallSecretsReachDefine: a secret a handler learns (as Call.profile does) is redacted from
// the call's success and failure alike, once the answer passes the output boundary
// (redact.JSON against the registry).
func TestCallSecretsReachDefine(t *testing.T) {
	const learned = "LearnedInChildCtx7q2w9e"
	for _, fail := range []bool{false, true} {
		tool := defineReflected(&Deps{}, Spec[NoInput, secretOut]{
			Name: "test_secret", Operation: "Test failed", Toolset: config.ToolsetOps, Kind: Kind{Source: errmap.SourceAPI},
			Run: func(ctx context.Context, c *Call, _ *NoInput) (*secretOut, error) {
				c.addSecrets(learned)
				if len(c.secretValues()) != 1 {
					t.Fatal("the call must hold the secret")
				}
				if fail {
					return nil, &errmap.Error{Err: errors.New("x"), Facts: errmap.Facts{Status: 500, Body: []byte(`{"error":"echo ` + learned + `"}`)}}
				}
				return &secretOut{Note: "echo " + learned}, nil
			},
		})
		res := tool.call(context.Background(), json.RawMessage(`{}`))
		b, _ := json.Marshal(res)
		b, _ = redact.JSON(b, nil)
		if strings.Contains(string(b), learned) || !strings.Contains(string(b), redact.Marker) {
			t.Fatalf("fail=%v: %s", fail, b)
		}
		if redact.Unregistered([]string{learned}) != nil {
			t.Fatal("addSecrets must register the value process-wide")
		}
	}
}

// TestUnredactableSuccessIsNotClaimed: a success that cannot be cleaned (a call's own secret,
// which the registry refused, inside a number) is not sent, and the failure that replaces it
// does not pretend nothing happened.
func TestUnredactableSuccessIsNotClaimed(t *testing.T) {
	type numberOut struct {
		N int64 `json:"n"`
	}
	res := successResult(&numberOut{N: 1234567890123456789}, redact.NewValues([]string{"1234567890123456789"}), "Buy failed", "mindvault_buy")
	d, _ := res.Meta[errmap.MetaKey].(errmap.Diagnostic)
	if !res.IsError || d.StateChanged != string(errmap.StateUnknown) || !d.ExecutionStarted {
		t.Fatalf("want an error with stateChanged unknown: %+v", res)
	}
	if b, _ := json.Marshal(res); strings.Contains(string(b), "1234567890123456789") {
		t.Fatalf("leaked: %s", b)
	}
}

// TestRegisteredSecretsLeaveOnce: a success whose secrets the registry holds is not scanned
// here; the output boundary scans the whole answer once.
func TestRegisteredSecretsLeaveOnce(t *testing.T) {
	const known = "RegisteredOnce5t8y1u4i7o"
	if err := redact.Register(known); err != nil {
		t.Fatal(err)
	}
	if redact.Unregistered([]string{known}) != nil {
		t.Fatal("a registered value needs no pass of its own")
	}
	res := successResult(&secretOut{Note: known}, redact.Unregistered([]string{known}), "Op failed", "test_secret")
	if res.IsError || !strings.Contains(res.Content[0].Text, known) {
		t.Fatalf("the result was scanned before the boundary: %+v", res)
	}
}

// TestProductAdviceSurvives: every sentence the tools and the credential stores write, and
// every Next line for every tool and code, reaches the agent unredacted.
func TestProductAdviceSurvives(t *testing.T) {
	env := credentials.NewEnv(func(string) string { return "" }, "default")
	mainnet := testConfig(t, map[string]string{"STELLAR_NETWORK": "mainnet", "SOROBAN_RPC_URL": "https://rpc.example.org",
		"VAULT_REGISTRY_CONTRACT_ID": "CDQKUIADLO5S5WEHEUTTXX2M45WAHVRU2PBEBD6ZGDKMOP5A72FJ3OD4", "X402_NETWORK": "stellar:pubnet"})
	own := []error{
		credentials.ReadOnlyStore(env),
		credentials.NotAllowed("alice"),
		credentials.Missing(env, "alice", "publisher API key (run mindvault_register first)"),
		credentials.Exists(env, "alice"),
		mainnetConfirmation(nil, mainnet, NoDryRun, &confirmable{}),
		walletFailure(errmap.SourceHorizon, errmap.CodeAccountMissing, "account GABC was created and its key is stored in profile \"alice\", but Horizon could not confirm it",
			"The wallet exists in profile \"alice\": check it with mindvault_wallet_info in a few seconds, and do not run mindvault_setup_wallet again."),
	}
	for _, err := range own {
		var e *errmap.Error
		if !errors.As(err, &e) {
			t.Fatalf("%v is not an *errmap.Error", err)
		}
		got := errmap.FromError(err, errmap.Call{Operation: "Op failed", Tool: "mindvault_register"})
		if strings.Contains(got.Text, redact.Marker) || !strings.Contains(got.Text, e.Facts.Detail) {
			t.Errorf("the product's own text was changed:\n%s\nwant the detail %q", got.Text, e.Facts.Detail)
		}
		if e.Facts.Next != "" && !strings.Contains(got.Text, e.Facts.Next) {
			t.Errorf("the product's own Next was changed:\n%s", got.Text)
		}
	}
	if got := errmap.FromError(credentials.ReadOnlyStore(env), errmap.Call{}); !strings.Contains(got.Text, "configure MINDVAULT_CREDENTIALS=dir:<path> or secretsmanager:<prefix>") {
		t.Errorf("the read-only advice lost its variable: %s", got.Text)
	}
	reg := All(&Deps{Config: testConfig(t, nil)})
	for _, tl := range reg.Tools() {
		name := tl.Definition().Name
		for _, c := range errmap.Codes() {
			for _, st := range []errmap.State{errmap.StateNo, errmap.StateYes, errmap.StateUnknown} {
				got := errmap.Map(errmap.Facts{Source: errmap.SourceAPI, Tool: name, Code: c.Code, StateChanged: st,
					Operation: "Op failed", AllowedArgs: tl.args})
				if strings.Contains(got.Text, redact.Marker) {
					t.Errorf("%s/%s/%s: %s", name, c.Code, st, got.Text)
				}
			}
		}
		// Validation failures list the tool's arguments on the Next line.
		res := tl.call(context.Background(), json.RawMessage(`{"notAnArgument":1}`))
		if b, _ := json.Marshal(res); strings.Contains(string(b), redact.Marker) {
			t.Errorf("%s: validation text was redacted: %s", name, b)
		}
	}
}
