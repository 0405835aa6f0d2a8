package e2e_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stellar/go-stellar-sdk/keypair"

	"github.com/mindvault/mcp-endpoint/internal/testkit/smtest"
)

// writableStores boots one env per writable credential store (dir and a local Secrets
// Manager), so every wallet guarantee is checked against both exclusive-create paths.
func writableStores(t *testing.T, vars map[string]string, run func(t *testing.T, e *env, kind string)) {
	sm := smtest.New()
	t.Cleanup(sm.Close)
	sm.Setenv(t)
	stores := []string{"dir:" + t.TempDir(), "secretsmanager:mindvault/test/"}
	kinds := make([]string, len(stores))
	for i, store := range stores {
		kinds[i], _, _ = strings.Cut(store, ":")
	}
	// Each store has an env of its own (and its own names in the one Secrets Manager stand-in),
	// so the two run at once: their cases wait on the sponsor's stalls.
	concurrently(t, kinds, func(t *testing.T, i int) {
		all := map[string]string{"MINDVAULT_CREDENTIALS": stores[i]}
		for k, v := range vars {
			all[k] = v
		}
		run(t, newEnv(t, all), kinds[i])
	})
}

// storedWallet returns the address whose secret profile name holds, failing if none.
func storedWallet(e *env, name string) string {
	e.t.Helper()
	p, err := e.b.Deps.Store.Get(context.Background(), name)
	if err != nil {
		e.t.Fatalf("profile %q is not in the store: %v", name, err)
	}
	addr, err := p.Address()
	if err != nil {
		e.t.Fatalf("profile %q holds no usable key: %v", name, err)
	}
	if strings.Contains(e.logs.String(), p.SecretKey) {
		e.t.Fatal("the new wallet's secret reached the log")
	}
	return addr
}

// TestSetupWalletRaceCreatesOneAccount: six concurrent calls for one name — the sponsor is
// slowed so all six are in flight together — create exactly one account through exactly one
// sponsor request; the five others are PROFILE_EXISTS and never reach the service.
func TestSetupWalletRaceCreatesOneAccount(t *testing.T) {
	writableStores(t, nil, func(t *testing.T, e *env, _ string) {
		e.faults("service=sponsor,target=POST /create,kind=delay,delay=300ms")
		before := e.sb.SponsoredAccounts()
		results := make([]result, 6)
		var wg sync.WaitGroup
		for i := range results {
			wg.Add(1)
			go func() {
				defer wg.Done()
				results[i] = e.call("mindvault_setup_wallet", `{"profile":"sextet"}`)
			}()
		}
		wg.Wait()
		created, conflicts := 0, 0
		var address string
		for _, r := range results {
			switch {
			case !r.IsError:
				created++
				address = e.ok("mindvault_setup_wallet", r)["address"].(string)
			case r.Meta.Diag.Code == "PROFILE_EXISTS":
				conflicts++
				if r.Meta.Diag.StateChanged != "no" || r.Meta.Diag.ExecutionStarted {
					t.Errorf("a race loser changed or started nothing: %s", r.raw)
				}
			default:
				t.Fatalf("unexpected: %s", r.raw)
			}
		}
		if created != 1 || conflicts != 5 {
			t.Fatalf("created %d, conflicts %d; want 1 and 5", created, conflicts)
		}
		if n := e.sb.Count("sponsor", "POST /create"); n != 1 {
			t.Fatalf("the sponsored-account service saw %d requests, want 1", n)
		}
		if n := e.sb.SponsoredAccounts() - before; n != 1 {
			t.Fatalf("%d accounts created, want 1", n)
		}
		if got := storedWallet(e, "sextet"); got != address {
			t.Fatalf("profile holds %s, the result says %s", got, address)
		}
	})
}

// TestSetupWalletKeepsTheKeyAfterTheServiceCall: once the service was asked, a failure never
// loses the secret: the profile is kept with it, the failure names the address, and
// stateChanged says "yes" (the service answered success) or "unknown" (its answer is not
// known). Only a refusal that proves nothing was created withdraws the claim, in the store
// that can (dir); Secrets Manager keeps it and says so.
func TestSetupWalletKeepsTheKeyAfterTheServiceCall(t *testing.T) {
	cases := []struct {
		name, plan string
		state      string   // stateChanged
		code       string   // diagnostic code
		kept       []string // stores in which the profile must remain
		created    int      // accounts the service created
		inText     string
	}{
		{"horizon fails after creation", "service=horizon,target=GET /accounts/*,kind=status,status=503",
			"yes", "SERVER_ERROR", []string{"dir", "secretsmanager"}, 1, "was created and its key is stored"},
		{"horizon does not know the account yet", "service=horizon,target=GET /accounts/*,kind=status,status=404",
			"yes", "ACCOUNT_MISSING", []string{"dir", "secretsmanager"}, 1, "not found yet"},
		{"sponsor timeout", "service=sponsor,target=POST /create,kind=delay,delay=1500ms",
			"unknown", "TIMEOUT", []string{"dir", "secretsmanager"}, 0, "may have been created"},
		{"sponsor drops the connection", "service=sponsor,target=POST /create,kind=drop",
			"unknown", "NETWORK_ERROR", []string{"dir", "secretsmanager"}, 0, "may have been created"},
		{"sponsor 500", "service=sponsor,target=POST /create,kind=status,status=500",
			"unknown", "SERVER_ERROR", []string{"dir", "secretsmanager"}, 0, "may have been created"},
		{"sponsor 408", "service=sponsor,target=POST /create,kind=status,status=408",
			"unknown", "TIMEOUT", []string{"dir", "secretsmanager"}, 0, "may have been created"},
		{"sponsor answers nonsense", "service=sponsor,target=POST /create,kind=malformed",
			"unknown", "MALFORMED_RESPONSE", []string{"dir", "secretsmanager"}, 0, "may have been created"},
		{"sponsor answers a secret of another account", `[{"service":"sponsor","target":"POST /create","kind":"malformed","body":"{\"publicKey\":\"` +
			keypair.Master("setup/a").Address() + `\",\"secretKey\":\"` + keypair.Master("setup/b").(*keypair.Full).Seed() + `\"}"}]`,
			"unknown", "MALFORMED_RESPONSE", []string{"dir", "secretsmanager"}, 0, "may have been created"},
		{"sponsor refuses (429)", "service=sponsor,target=POST /create,kind=status,status=429,retry-after=5",
			"no", "RATE_LIMITED", nil, 0, "Too many requests"},
	}
	writableStores(t, map[string]string{"MINDVAULT_HTTP_TIMEOUT_MS": "1000"}, func(t *testing.T, e *env, kind string) {
		for i, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				e := e.in(t)
				e.faults(tc.plan)
				before := e.sb.SponsoredAccounts()
				name := "kept" + string(rune('a'+i))
				r := e.call("mindvault_setup_wallet", `{"profile":"`+name+`"}`)
				kept := false
				for _, k := range tc.kept {
					kept = kept || k == kind
				}
				state := tc.state
				if !kept && tc.state == "no" && kind == "secretsmanager" {
					state = "yes" // the claim could not be withdrawn: a profile now exists
				}
				if !r.IsError || r.Meta.Diag == nil {
					t.Fatalf("want a failure, got %s", r.raw)
				}
				d := r.Meta.Diag
				if d.Code != tc.code || d.StateChanged != state || !d.ExecutionStarted {
					t.Fatalf("code %s stateChanged %s executionStarted %v, want %s %s true: %s", d.Code, d.StateChanged, d.ExecutionStarted, tc.code, state, r.Content[0].Text)
				}
				if state != "no" && d.Retry != "no" {
					t.Errorf("retry = %s after the service was called", d.Retry)
				}
				if !strings.Contains(r.Content[0].Text, tc.inText) {
					t.Errorf("text lacks %q: %s", tc.inText, r.Content[0].Text)
				}
				if n := e.sb.Count("sponsor", "POST /create"); n != 1 {
					t.Errorf("sponsor requests = %d, want exactly 1", n)
				}
				if strings.Contains(tc.plan, "kind=delay") {
					// The stalled service finishes its work after the endpoint gave up (the
					// account then exists: the outcome really was unknown). Wait for it, so it
					// cannot be counted by a later case.
					for end := time.Now().Add(10 * time.Second); e.sb.SponsoredAccounts()-before == 0 && time.Now().Before(end); {
						time.Sleep(20 * time.Millisecond)
					}
				} else if n := e.sb.SponsoredAccounts() - before; n != tc.created {
					t.Errorf("accounts created = %d, want %d", n, tc.created)
				}
				_, err := e.b.Deps.Store.Get(context.Background(), name)
				present := err == nil
				switch {
				case state == "no" && present:
					t.Fatalf("a refused claim was left in the %s store", kind)
				case state == "no":
					return
				case !present:
					t.Fatalf("the profile was discarded after the service was called: %v", err)
				}
				addr := storedWallet(e, name)
				if tc.state != "no" && !strings.Contains(r.Content[0].Text, addr) {
					t.Errorf("the failure does not name the address %s whose key the profile holds: %s", addr, r.Content[0].Text)
				}
				if tc.state == "no" && !strings.Contains(r.Content[0].Text, "was kept") {
					t.Errorf("a kept refused claim must say so: %s", r.Content[0].Text)
				}
				if p, _ := e.b.Deps.Store.Get(context.Background(), name); strings.Contains(r.raw, p.SecretKey) {
					t.Fatal("the secret reached the result")
				}
			})
		}
	})
}

// TestSetupWalletAcceptsAServiceGeneratedKey: a service that ignores the requested account
// and answers a key pair of its own (as the deployed one does) leaves that secret in the
// profile — the one key that controls the account it reports.
func TestSetupWalletAcceptsAServiceGeneratedKey(t *testing.T) {
	e := newEnv(t, nil)
	kp := keypair.MustRandom()
	e.faults(`[{"service":"sponsor","target":"POST /create","kind":"malformed","body":"{\"publicKey\":\"` + kp.Address() + `\",\"secretKey\":\"` + kp.Seed() + `\"}"}]`)
	r := e.call("mindvault_setup_wallet", `{"profile":"custodial"}`)
	// The crafted account is not on the sandbox ledger, so Horizon cannot confirm it: the
	// failure must still say the account exists and that the profile holds its key.
	if !r.IsError || r.Meta.Diag.StateChanged != "yes" || !strings.Contains(r.Content[0].Text, kp.Address()) {
		t.Fatalf("want stateChanged yes naming %s: %s", kp.Address(), r.raw)
	}
	if got := storedWallet(e, "custodial"); got != kp.Address() {
		t.Fatalf("profile holds %s, want the service's account %s", got, kp.Address())
	}
	if strings.Contains(r.raw, kp.Seed()) {
		t.Fatal("the service's secret reached the result")
	}
}

// horizonSigners reads an account's signers and thresholds from the sandbox's Horizon.
func horizonSigners(e *env, address string) (signers []struct {
	Key    string `json:"key"`
	Weight int    `json:"weight"`
}, thresholds map[string]int) {
	e.t.Helper()
	var acct struct {
		Signers []struct {
			Key    string `json:"key"`
			Weight int    `json:"weight"`
		} `json:"signers"`
		Thresholds map[string]int `json:"thresholds"`
	}
	getJSON(e.t, e.sb.HorizonURL+"/accounts/"+address, &acct)
	return acct.Signers, acct.Thresholds
}

// TestSetupWalletSaysWhoKnowsTheKey: the endpoint generates the key and the service only
// hears the address (keyOrigin "local", no warning); a service that ignores it and answers a
// key pair of its own (sandbox fault kind=ownkey) still yields a working wallet, but the
// result says keyOrigin "sponsor" and warns that the service knows the key.
func TestSetupWalletSaysWhoKnowsTheKey(t *testing.T) {
	e := newEnv(t, nil)
	for _, tc := range []struct {
		plan, origin string
	}{
		{"", "local"},
		{"service=sponsor,kind=ownkey", "sponsor"},
	} {
		t.Run(tc.origin, func(t *testing.T) {
			e := e.in(t)
			e.faults(tc.plan)
			name := "origin-" + tc.origin
			out := e.ok("mindvault_setup_wallet", e.call("mindvault_setup_wallet", `{"profile":"`+name+`"}`))
			address, _ := out["address"].(string)
			if out["created"] != true || out["keyOrigin"] != tc.origin || storedWallet(e, name) != address {
				t.Fatalf("want created with keyOrigin %s holding %s: %v", tc.origin, address, out)
			}
			warning, _ := out["warning"].(string)
			if knows := strings.Contains(warning, "knows the key"); knows != (tc.origin == "sponsor") {
				t.Fatalf("keyOrigin %s, warning %q", tc.origin, warning)
			}
			if signers, _ := horizonSigners(e, address); len(signers) != 1 || signers[0].Key != address {
				t.Fatalf("the account's signers: %+v", signers)
			}
		})
	}
}

// TestSetupWalletRefusesAWalletItDoesNotControlAlone: a service that creates the account with
// a signer of its own besides the requested key (sandbox fault kind=cosigner) can move the
// wallet's funds. Setup does not claim success: the failure names the address, says that the
// account exists but is not safely controlled by this key alone and which other signer it
// has, with stateChanged "yes" and the profile kept (it holds a key of an existing account).
func TestSetupWalletRefusesAWalletItDoesNotControlAlone(t *testing.T) {
	e := newEnv(t, nil)
	e.faults("service=sponsor,kind=cosigner")
	before := e.sb.SponsoredAccounts()
	r := e.call("mindvault_setup_wallet", `{"profile":"cosigned"}`)
	address := storedWallet(e, "cosigned")
	signers, _ := horizonSigners(e, address)
	if len(signers) != 2 || e.sb.SponsoredAccounts()-before != 1 {
		t.Fatalf("the sandbox did not create a cosigned account: %+v", signers)
	}
	other := signers[0].Key
	if other == address {
		other = signers[1].Key
	}
	e.fails("mindvault_setup_wallet", r, failure{category: "conflict", code: "CONFLICT", source: "sponsor", state: "yes", retry: "no",
		next: "Do not fund or use account " + address})
	text := r.Content[0].Text
	for _, want := range []string{address, "not safely controlled by this key alone", other, `profile "cosigned" holds its key`} {
		if !strings.Contains(text, want) {
			t.Errorf("the failure lacks %q: %s", want, text)
		}
	}
	if !r.Meta.Diag.ExecutionStarted {
		t.Errorf("executionStarted false after the account was created: %s", r.raw)
	}
}
