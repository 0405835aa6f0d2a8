package config

import (
	"errors"
	"strings"
	"testing"
)

// TestLocalNetworks: a network a local build brings applies its preset off Lambda (explicit
// variables still win, and differ from the preset as overrides), and is a problem naming
// STELLAR_NETWORK under Lambda or in a build that does not bring it.
func TestLocalNetworks(t *testing.T) {
	sandbox := Preset{
		X402Network: "stellar:testnet", Passphrase: TestnetPassphrase,
		MindVaultURL: "http://127.0.0.1:1001", HorizonURL: "http://127.0.0.1:1002", RPCURL: "http://127.0.0.1:1003",
		SponsorURL: "http://127.0.0.1:1004", RegistryContract: "CDQKUIADLO5S5WEHEUTTXX2M45WAHVRU2PBEBD6ZGDKMOP5A72FJ3OD4",
		USDCContractID: "CBIELTK6YBZJU5UP2WWQEUCYKLPU6AUNZ2BQ4WWFEIE3USCIHMXQDAMA", USDCIssuer: "GBBD47IF6LWK7P7MDEVSCWR7DPUWV3NY3DTQEVFL4NAT4AQH3ZLLFLA5",
	}
	local := []LocalNetwork{{"sandbox", sandbox}}
	cases := []struct {
		name      string
		env       map[string]string
		lambda    bool
		local     []LocalNetwork
		want      Network
		horizon   string // HorizonURL wanted when the load succeeds
		overrides int
		problem   string // part of the STELLAR_NETWORK problem; "" = no problem
	}{
		{"local network off Lambda", map[string]string{"STELLAR_NETWORK": "Sandbox"}, false, local, "sandbox", sandbox.HorizonURL, 0, ""},
		{"explicit variables win", map[string]string{"STELLAR_NETWORK": "sandbox", "HORIZON_URL": "http://127.0.0.1:9"}, false, local, "sandbox", "http://127.0.0.1:9", 1, ""},
		{"public networks stay", map[string]string{"STELLAR_NETWORK": "testnet"}, false, local, Testnet, "https://horizon-testnet.stellar.org", 0, ""},
		{"local network under Lambda", map[string]string{"STELLAR_NETWORK": "sandbox"}, true, local, Testnet, "", 0, "local build only"},
		{"sandbox in a build without it", map[string]string{"STELLAR_NETWORK": "sandbox"}, false, nil, Testnet, "", 0, "must be testnet or mainnet"},
		{"sandbox in the Lambda binary", map[string]string{"STELLAR_NETWORK": "sandbox"}, true, nil, Testnet, "", 0, "must be testnet or mainnet"},
		{"unknown name lists the local ones", map[string]string{"STELLAR_NETWORK": "moonnet"}, false, local, Testnet, "", 0, "testnet, mainnet (pubnet, public), sandbox"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := Load(func(k string) string { return c.env[k] }, c.lambda, c.local...)
			if c.problem != "" {
				var probs Problems
				if !errors.As(err, &probs) || len(probs) != 1 || probs[0].Var != "STELLAR_NETWORK" || !strings.Contains(probs[0].Reason, c.problem) {
					t.Fatalf("err = %v, want one STELLAR_NETWORK problem containing %q", err, c.problem)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Network != c.want || cfg.HorizonURL != c.horizon || len(cfg.Overrides()) != c.overrides {
				t.Fatalf("network %s, horizon %s, overrides %v", cfg.Network, cfg.HorizonURL, cfg.Overrides())
			}
			if c.want == "sandbox" && (cfg.Passphrase != sandbox.Passphrase || cfg.RPCURL != sandbox.RPCURL || cfg.RegistryContract != sandbox.RegistryContract) {
				t.Fatalf("the local preset did not apply: %+v", cfg)
			}
		})
	}
}
