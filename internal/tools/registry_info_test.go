package tools

import (
	"strings"
	"testing"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/clients/registry"
)

// TestRegistryInfo: the configuration is always answered; the contract's own registry_info
// joins it when readable, else liveError says why (the tool never fails for it).
func TestRegistryInfo(t *testing.T) {
	for _, tc := range []struct {
		name, contract string // contract "-" unsets VAULT_REGISTRY_CONTRACT_ID
		infoErr        error
		live, liveErr  string
		infos          int
	}{
		{name: "live", live: "vault-registry 1.2", infos: 1},
		{name: "contract not configured", contract: "-", liveErr: "VAULT_REGISTRY_CONTRACT_ID is not set"},
		{name: "contract missing", infoErr: fakeFailure(errmap.SourceRegistry, 0, errmap.CodeContractMissing),
			liveErr: "registry_info failed: fake failure (contract)", infos: 1},
		{name: "RPC down", infoErr: fakeFailure(errmap.SourceRPC, 503, ""), liveErr: "(server)", infos: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, _ := fakeDeps(t)
			if tc.contract == "-" {
				d.Config.RegistryContract = ""
			}
			reg := &contractRegistry{info: &registry.Info{Name: "vault-registry", Version: "1.2"}, infoErr: tc.infoErr}
			d.Registry = reg
			var out RegistryInfoOutput
			decodeOut(t, callTool(t, registryInfo.Define(d), `{}`), &out)
			if reg.infos != tc.infos {
				t.Fatalf("registry_info read %d times, want %d", reg.infos, tc.infos)
			}
			if out.ContractID != d.Config.RegistryContract || out.NetworkPassphrase != d.Config.Passphrase || out.USDCContractID == "" {
				t.Fatalf("configuration not reported: %+v", out)
			}
			if live := out.Live; (live == nil) != (tc.live == "") || live != nil && live.Name+" "+live.Version != tc.live {
				t.Fatalf("live %+v, want %q", live, tc.live)
			}
			if (tc.liveErr == "") != (out.LiveError == "") || !strings.Contains(out.LiveError, tc.liveErr) {
				t.Fatalf("liveError %q, want one with %q", out.LiveError, tc.liveErr)
			}
		})
	}
}
