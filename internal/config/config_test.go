package config

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func load(env map[string]string, lambda bool) (*Config, error) {
	return Load(func(k string) string { return env[k] }, lambda)
}

func TestDefaults(t *testing.T) {
	c, err := load(nil, false)
	if err != nil {
		t.Fatal(err)
	}
	if c.Network != Testnet || c.X402Network != "stellar:testnet" || c.Passphrase != TestnetPassphrase {
		t.Errorf("network defaults wrong: %+v", c)
	}
	if c.HTTPTimeout != 15*time.Second || c.RPCTimeout != 20*time.Second || c.PaymentTimeout != 45*time.Second || c.WriteWait != 20*time.Second || c.WritePoll != time.Second {
		t.Errorf("timeouts wrong")
	}
	if c.RetryAttempts != 3 || c.RetryBaseDelay != 250*time.Millisecond || c.RetryMaxDelay != 4*time.Second {
		t.Errorf("retry defaults wrong")
	}
	if c.MaxAutoPayUSDC != "10" || c.MaxBodyBytes != 1<<20 || c.Addr != "127.0.0.1:8080" || c.Credentials != "env" || c.DefaultProfile != "default" {
		t.Errorf("defaults wrong: %+v", c)
	}
	if c.MaxTxFeeStroops != 10000000 {
		t.Errorf("MaxTxFeeStroops = %d, want 10000000", c.MaxTxFeeStroops)
	}
	if c.MaxInlineBytes != 3145728 {
		t.Errorf("MaxInlineBytes = %d, want 3145728", c.MaxInlineBytes)
	}
	if c.Auth != "none" {
		t.Errorf("local auth default = %s, want none", c.Auth)
	}
	if len(c.Overrides()) != 0 {
		t.Errorf("no overrides expected: %v", c.Overrides())
	}
}

func TestLambdaDefaultsToTokens(t *testing.T) {
	c, err := load(nil, true)
	if err != nil || c.Auth != "tokens" {
		t.Fatalf("auth = %s, err %v", c.Auth, err)
	}
	c, err = load(map[string]string{"MINDVAULT_AUTH": "none"}, true)
	if err != nil || c.Auth != "none" {
		t.Fatalf("explicit none not honoured: %s %v", c.Auth, err)
	}
}

func TestNetworkAliases(t *testing.T) {
	base := map[string]string{"SOROBAN_RPC_URL": "https://rpc.example.org", "VAULT_REGISTRY_CONTRACT_ID": "CDQKUIADLO5S5WEHEUTTXX2M45WAHVRU2PBEBD6ZGDKMOP5A72FJ3OD4"}
	for _, alias := range []string{"mainnet", "pubnet", "PUBLIC"} {
		env := map[string]string{"STELLAR_NETWORK": alias}
		for k, v := range base {
			env[k] = v
		}
		c, err := load(env, false)
		if err != nil || c.Network != Mainnet || c.X402Network != "stellar:pubnet" || c.Passphrase != MainnetPassphrase {
			t.Errorf("%s: %v %+v", alias, err, c)
		}
	}
}

func TestProblemsNameTheVariables(t *testing.T) {
	cases := []struct {
		name string
		env  map[string]string
		vars []string
	}{
		{"unknown network", map[string]string{"STELLAR_NETWORK": "moonnet"}, []string{"STELLAR_NETWORK"}},
		{"mainnet without rpc and registry", map[string]string{"STELLAR_NETWORK": "mainnet"}, []string{"SOROBAN_RPC_URL", "VAULT_REGISTRY_CONTRACT_ID"}},
		{"relative url", map[string]string{"HORIZON_URL": "horizon.local"}, []string{"HORIZON_URL"}},
		{"bad scheme", map[string]string{"MINDVAULT_URL": "ftp://x.org"}, []string{"MINDVAULT_URL"}},
		{"bad contract id", map[string]string{"USDC_CONTRACT_ID": "GABC"}, []string{"USDC_CONTRACT_ID"}},
		{"bad numbers", map[string]string{"MINDVAULT_RETRY_ATTEMPTS": "0", "MINDVAULT_HTTP_TIMEOUT_MS": "-5", "MINDVAULT_MAX_BODY_BYTES": "lots"}, []string{"MINDVAULT_HTTP_TIMEOUT_MS", "MINDVAULT_RETRY_ATTEMPTS", "MINDVAULT_MAX_BODY_BYTES"}},
		{"bad write wait", map[string]string{"MINDVAULT_WRITE_WAIT_MS": "0"}, []string{"MINDVAULT_WRITE_WAIT_MS"}},
		{"write wait not a number", map[string]string{"MINDVAULT_WRITE_WAIT_MS": "20s"}, []string{"MINDVAULT_WRITE_WAIT_MS"}},
		{"write poll too short", map[string]string{"MINDVAULT_WRITE_POLL_MS": "1"}, []string{"MINDVAULT_WRITE_POLL_MS"}},
		{"bad cap", map[string]string{"MINDVAULT_MAX_AUTO_PAY_USDC": "1.123456789"}, []string{"MINDVAULT_MAX_AUTO_PAY_USDC"}},
		{"zero cap", map[string]string{"MINDVAULT_MAX_AUTO_PAY_USDC": "0.0"}, []string{"MINDVAULT_MAX_AUTO_PAY_USDC"}},
		{"bad bool", map[string]string{"MINDVAULT_ALLOW_MAINNET": "maybe"}, []string{"MINDVAULT_ALLOW_MAINNET"}},
		{"bad store", map[string]string{"MINDVAULT_CREDENTIALS": "dir:"}, []string{"MINDVAULT_CREDENTIALS"}},
		{"bad auth", map[string]string{"MINDVAULT_AUTH": "open"}, []string{"MINDVAULT_AUTH"}},
		{"bad profile", map[string]string{"MINDVAULT_DEFAULT_PROFILE": "a b"}, []string{"MINDVAULT_DEFAULT_PROFILE"}},
		{"profile without a letter or digit", map[string]string{"MINDVAULT_DEFAULT_PROFILE": ".."}, []string{"MINDVAULT_DEFAULT_PROFILE"}},
		{"fee cap below the base fee", map[string]string{"MINDVAULT_MAX_TX_FEE_STROOPS": "99"}, []string{"MINDVAULT_MAX_TX_FEE_STROOPS"}},
		{"fee cap above a uint32", map[string]string{"MINDVAULT_MAX_TX_FEE_STROOPS": "4294967296"}, []string{"MINDVAULT_MAX_TX_FEE_STROOPS"}},
		{"inline limit of zero", map[string]string{"MINDVAULT_MAX_INLINE_BYTES": "0"}, []string{"MINDVAULT_MAX_INLINE_BYTES"}},
		{"inline limit beyond what Lambda can return", map[string]string{"MINDVAULT_MAX_INLINE_BYTES": "4194305"}, []string{"MINDVAULT_MAX_INLINE_BYTES"}},
		{"bad level", map[string]string{"LOG_LEVEL": "loud"}, []string{"LOG_LEVEL"}},
		{"bad auth servers", map[string]string{"MINDVAULT_AUTHORIZATION_SERVERS": "https://ok.example, nope"}, []string{"MINDVAULT_AUTHORIZATION_SERVERS"}},
		{"bad payee lists", map[string]string{"MINDVAULT_PAYEES_ALLOWED": "GBBD47IF6LWK7P7MDEVSCWR7DPUWV3NY3DTQEVFL4NAT4AQH3ZLLFLA5, CDQKUIADLO5S5WEHEUTTXX2M45WAHVRU2PBEBD6ZGDKMOP5A72FJ3OD4",
			"MINDVAULT_PAYEES_DENIED": "alice"}, []string{"MINDVAULT_PAYEES_ALLOWED", "MINDVAULT_PAYEES_DENIED"}},
		{"pause cache above a minute", map[string]string{"MINDVAULT_PAUSE_CACHE_MS": "60001"}, []string{"MINDVAULT_PAUSE_CACHE_MS"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := load(tc.env, false)
			if c == nil {
				t.Fatal("a configuration must be returned even with problems")
			}
			var probs Problems
			if !errors.As(err, &probs) {
				t.Fatalf("want Problems, got %v", err)
			}
			if len(probs) != len(tc.vars) {
				t.Fatalf("problems = %v, want %v", probs, tc.vars)
			}
			for i, v := range tc.vars {
				if probs[i].Var != v || !strings.Contains(err.Error(), v) {
					t.Errorf("problem %d = %+v, want %s", i, probs[i], v)
				}
			}
		})
	}
}

func TestOverridesAndExplorer(t *testing.T) {
	c, err := load(map[string]string{"HORIZON_URL": "https://h.example.org/", "USDC_CONTRACT_ID": "CCW67TSZV3SSS2HXMBQ5JFGCKJNXKZM7UQUWUZPUTHXSTZLEO7SJMI75"}, false)
	if err != nil {
		t.Fatal(err)
	}
	ov := c.Overrides()
	if len(ov) != 2 || ov[0].Var != "HORIZON_URL" || ov[0].Value != "https://h.example.org" || ov[1].Var != "USDC_CONTRACT_ID" {
		t.Fatalf("overrides = %+v", ov)
	}
	if got := c.ExplorerURL("abc"); got != "https://stellar.expert/explorer/testnet/tx/abc" {
		t.Errorf("explorer = %s", got)
	}
}
