package tools

import (
	"strings"
	"testing"
)

// TestNetworkProfile: the configuration as the preset and the overrides make it, with a warning
// for each override and for mainnet, and never a credential store's path.
func TestNetworkProfile(t *testing.T) {
	cases := []struct {
		name     string
		env      map[string]string
		network  string
		warnings int
		check    func(t *testing.T, out map[string]any)
	}{
		{name: "testnet preset", network: "testnet", warnings: 0, check: func(t *testing.T, out map[string]any) {
			if out["x402Network"] != "stellar:testnet" {
				t.Errorf("x402Network = %v", out["x402Network"])
			}
		}},
		{name: "override warns", env: map[string]string{"HORIZON_URL": "https://horizon.example.org"}, network: "testnet", warnings: 1, check: func(t *testing.T, out map[string]any) {
			ov := out["overrides"].([]any)
			if len(ov) != 1 || ov[0].(map[string]any)["variable"] != "HORIZON_URL" {
				t.Errorf("overrides = %v", ov)
			}
		}},
		{name: "mainnet warns about real funds", env: map[string]string{
			"STELLAR_NETWORK": "pubnet", "SOROBAN_RPC_URL": "https://rpc.example.org",
			"VAULT_REGISTRY_CONTRACT_ID": "CDQKUIADLO5S5WEHEUTTXX2M45WAHVRU2PBEBD6ZGDKMOP5A72FJ3OD4",
		}, network: "mainnet", warnings: 3, check: func(t *testing.T, out map[string]any) {
			if w := out["warnings"].([]any); out["x402Network"] != "stellar:pubnet" || w[2] != "Mainnet: state-changing tools need confirmMainnet: true and spend real funds." {
				t.Errorf("x402Network = %v, warnings = %v", out["x402Network"], w)
			}
		}},
		{name: "mainnet allowed warns without confirmation", env: map[string]string{
			"STELLAR_NETWORK": "pubnet", "SOROBAN_RPC_URL": "https://rpc.example.org", "MINDVAULT_ALLOW_MAINNET": "true",
			"VAULT_REGISTRY_CONTRACT_ID": "CDQKUIADLO5S5WEHEUTTXX2M45WAHVRU2PBEBD6ZGDKMOP5A72FJ3OD4",
		}, network: "mainnet", warnings: 3, check: func(t *testing.T, out map[string]any) {
			if w := out["warnings"].([]any); out["allowMainnet"] != true || w[2] != "MINDVAULT_ALLOW_MAINNET is on: state-changing tools spend real funds without confirmMainnet." {
				t.Errorf("allowMainnet = %v, warnings = %v", out["allowMainnet"], w)
			}
		}},
		{name: "secret-bearing store path not shown", env: map[string]string{"MINDVAULT_CREDENTIALS": "dir:/home/op/secret-profiles"}, network: "testnet", check: func(t *testing.T, out map[string]any) {
			if out["credentialStore"] != "dir" {
				t.Errorf("credentialStore = %v", out["credentialStore"])
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			reg := All(&Deps{Config: testConfig(t, tc.env)})
			out := checkSuccess(t, reg, "mindvault_network_profile", call(t, reg, "mindvault_network_profile", ""))
			if out["network"] != tc.network {
				t.Errorf("network = %v, want %s", out["network"], tc.network)
			}
			if got := len(out["warnings"].([]any)); got != tc.warnings {
				t.Errorf("warnings = %v, want %d", out["warnings"], tc.warnings)
			}
			if strings.Contains(out["credentialStore"].(string), "/") {
				t.Errorf("store path leaked")
			}
			if tc.check != nil {
				tc.check(t, out)
			}
		})
	}
}
