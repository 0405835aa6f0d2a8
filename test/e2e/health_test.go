package e2e_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stellar/go-stellar-sdk/strkey"
)

// healthChecks calls mindvault_health, which must succeed whatever is down, and returns its
// verdict and checks by name.
func healthChecks(e *env) (bool, map[string]map[string]any) {
	e.t.Helper()
	out := e.ok("mindvault_health", e.call("mindvault_health", ``))
	checks := map[string]map[string]any{}
	for _, c := range out["checks"].([]any) {
		m := c.(map[string]any)
		checks[m["name"].(string)] = m
	}
	return out["healthy"].(bool), checks
}

var healthNames = []string{"MindVault API", "Horizon", "Stellar RPC", "Registry contract", "Sponsored-account service", "Configuration"}

// expectHealth asserts healthy is true exactly when no check is named in failing, that the
// failing checks have ok false with a detail containing want, and every other check ok true.
func expectHealth(e *env, failing map[string]string) {
	e.t.Helper()
	healthy, checks := healthChecks(e)
	if len(checks) != len(healthNames) {
		e.t.Fatalf("checks %v, want exactly %v", checks, healthNames)
	}
	for _, name := range healthNames {
		c, ok := checks[name]
		if !ok {
			e.t.Fatalf("no %q check in %v", name, checks)
		}
		want, fails := failing[name]
		if c["ok"] != !fails {
			e.t.Errorf("%s: ok = %v, want %v (%v)", name, c["ok"], !fails, c["detail"])
		}
		if fails && !strings.Contains(c["detail"].(string), want) {
			e.t.Errorf("%s: detail %q lacks %q", name, c["detail"], want)
		}
		if !fails && c["detail"] == "" {
			e.t.Errorf("%s: a passing check says nothing about what it probed", name)
		}
	}
	if healthy != (len(failing) == 0) {
		e.t.Errorf("healthy = %v with failing checks %v", healthy, failing)
	}
}

// Every dependency is probed on a route the tools use, and a failure of any one makes its
// check fail and healthy false, reported as a result, never as an error.
func TestHealthProbesEveryDependency(t *testing.T) {
	e := newEnv(t, nil)

	t.Run("all up", func(t *testing.T) {
		e := e.in(t)
		e.faults("")
		expectHealth(e, nil)
		// What the downstreams actually received: one probe each, and no wallet created.
		for _, c := range []struct{ service, target string }{
			{"api", "GET /resources"}, {"horizon", "GET /accounts/*"}, {"horizon", "GET /"},
			{"rpc", "getHealth"}, {"rpc", "getNetwork"}, {"rpc", "simulateTransaction"}, {"sponsor", "GET /health"},
		} {
			if n := e.sb.Count(c.service, c.target); n != 1 {
				t.Errorf("%s %s received %d probes, want 1", c.service, c.target, n)
			}
		}
		if n := e.sb.Count("sponsor", "POST /create"); n != 0 {
			t.Errorf("health created %d wallets", n)
		}
	})

	for _, tc := range []struct {
		name, plan    string
		check, detail string
		service       string // the faulted downstream and route, which must have been probed
		target        string
	}{
		{"api 5xx", "service=api,target=GET /resources,kind=status,status=503", "MindVault API", "(server)", "api", "GET /resources"},
		{"api malformed catalog", "service=api,target=GET /resources,kind=malformed", "MindVault API", "(server)", "api", "GET /resources"},
		{"api dropped", "service=api,kind=drop", "MindVault API", "(network)", "api", "GET /resources"},
		{"horizon 5xx on the account route", "service=horizon,target=GET /accounts/*,kind=html,status=502", "Horizon", "(server)", "horizon", "GET /accounts/*"},
		{"horizon root 5xx", "service=horizon,target=GET /,kind=status,status=500", "Horizon", "(server)", "horizon", "GET /"},
		{"rpc getHealth 5xx", "service=rpc,target=getHealth,kind=status,status=503", "Stellar RPC", "(server)", "rpc", "getHealth"},
		{"rpc getNetwork error", "service=rpc,target=getNetwork,kind=rpcerror,code=-32603", "Stellar RPC", "(server)", "rpc", "getNetwork"},
		{"registry contract missing", "service=rpc,target=simulateTransaction,kind=nocontract", "Registry contract", "(contract)", "rpc", "simulateTransaction"},
		{"registry contract error", "service=rpc,target=simulateTransaction,kind=contracterror,code=23", "Registry contract", "(contract)", "rpc", "simulateTransaction"},
		{"sponsor 503", "service=sponsor,kind=status,status=503", "Sponsored-account service", "(server)", "sponsor", "GET /health"},
		{"sponsor rate limited", "service=sponsor,kind=status,status=429,retry-after=1", "Sponsored-account service", "(rate_limit)", "sponsor", "GET /health"},
		{"sponsor dropped", "service=sponsor,kind=drop", "Sponsored-account service", "(network)", "sponsor", "GET /health"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := e.in(t)
			e.faults(tc.plan)
			expectHealth(e, map[string]string{tc.check: tc.detail})
			if e.sb.Count(tc.service, tc.target) == 0 {
				t.Errorf("%s %s was never probed", tc.service, tc.target)
			}
		})
	}
}

// A dependency that does not answer in time fails its check (timeout) and the others pass.
func TestHealthTimeouts(t *testing.T) {
	// Long and self-contained: harness_test.go, "Which tests run in parallel".
	t.Parallel()
	cases := []struct{ plan, check string }{
		{"service=api,target=GET /resources,kind=delay,delay=30s", "MindVault API"},
		{"service=horizon,target=GET /accounts/*,kind=delay,delay=30s", "Horizon"},
		{"service=rpc,target=getHealth,kind=delay,delay=30s", "Stellar RPC"},
		{"service=rpc,target=simulateTransaction,kind=delay,delay=30s", "Registry contract"},
		{"service=sponsor,target=GET /health,kind=delay,delay=30s", "Sponsored-account service"},
	}
	names := make([]string, len(cases))
	for i, tc := range cases {
		names[i] = tc.check
	}
	// Each case waits out a 2 s timeout: they run at once, each on its own sandbox.
	concurrently(t, names, func(t *testing.T, i int) {
		e := newEnv(t, map[string]string{
			"MINDVAULT_HTTP_TIMEOUT_MS": "2000", "MINDVAULT_HORIZON_TIMEOUT_MS": "2000", "MINDVAULT_RPC_TIMEOUT_MS": "2000",
			"MINDVAULT_RETRY_ATTEMPTS": "1",
		})
		e.faults(cases[i].plan)
		expectHealth(e, map[string]string{cases[i].check: "(timeout)"})
	})
}

// A contract id with no instance and settings that contradict each other fail the registry
// and configuration checks, while the services themselves pass.
func TestHealthMisconfigured(t *testing.T) {
	var raw [32]byte
	for i := range raw {
		raw[i] = 7
	}
	nowhere, err := strkey.Encode(strkey.VersionByteContract, raw[:])
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, map[string]string{"VAULT_REGISTRY_CONTRACT_ID": nowhere, "X402_NETWORK": "stellar:pubnet"})
	expectHealth(e, map[string]string{"Registry contract": "(contract)", "Configuration": "x402 network"})
	if n := e.sb.Count("rpc", "simulateTransaction"); n != 1 {
		t.Errorf("registry_info was simulated %d times, want 1", n)
	}

	e = newEnv(t, map[string]string{"USDC_CONTRACT_ID": nowhere})
	expectHealth(e, map[string]string{"Configuration": "is not the asset contract of USDC"})
}

// With no sponsored-account service configured there is no check for it.
func TestHealthWithoutSponsor(t *testing.T) {
	e := newEnv(t, nil)
	e.b.Config.SponsorURL = ""
	healthy, checks := healthChecks(e)
	if _, ok := checks["Sponsored-account service"]; ok || !healthy || len(checks) != len(healthNames)-1 {
		b, _ := json.Marshal(checks)
		t.Fatalf("healthy %v, checks %s", healthy, b)
	}
}
