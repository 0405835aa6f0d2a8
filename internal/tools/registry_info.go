package tools

import (
	"context"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/config"
)

// LiveInfo is what the deployed contract says about itself.
type LiveInfo struct {
	Name                  string `json:"name"`
	Version               string `json:"version"`
	ResourceSchemaVersion string `json:"resourceSchemaVersion"`
}

// RegistryInfoOutput is the result of mindvault_registry_info.
type RegistryInfoOutput struct {
	ContractID        string    `json:"contractId"`
	Network           string    `json:"network"`
	NetworkPassphrase string    `json:"networkPassphrase"`
	RPCURL            string    `json:"rpcUrl"`
	X402Network       string    `json:"x402Network"`
	USDCContractID    string    `json:"usdcContractId"`
	Live              *LiveInfo `json:"live,omitempty"`
	LiveError         string    `json:"liveError,omitempty" jsonschema_description:"one-line summary of why registry_info could not be read"`
}

var registryInfo = Spec[NoInput, RegistryInfoOutput]{
	Name:      "mindvault_registry_info",
	Toolset:   config.ToolsetRegistry,
	Title:     "Registry info",
	Operation: "Registry info failed",
	Description: `Shows the vault-registry contract id, network, passphrase, RPC URL and USDC contract in use,
		plus the contract's own registry_info when it is reachable (liveError otherwise; this tool
		always answers). Free. Call it when registry tools fail with contract errors.`,
	Kind: lookup(errmap.SourceRegistry),
	Guide: errmap.Guide{Role: errmap.RoleContract, NoID: true,
		Categories: map[errmap.Category]string{
			errmap.CategoryContract: "Ask the operator to check VAULT_REGISTRY_CONTRACT_ID and STELLAR_NETWORK: the contract did not answer as the vault registry.",
		},
	},
	Run: func(ctx context.Context, c *Call, _ *NoInput) (*RegistryInfoOutput, error) {
		cfg := c.Config
		out := &RegistryInfoOutput{
			ContractID: cfg.RegistryContract, Network: string(cfg.Network), NetworkPassphrase: cfg.Passphrase,
			RPCURL: cfg.RPCURL, X402Network: cfg.X402Network, USDCContractID: cfg.USDCContractID,
		}
		if cfg.RegistryContract == "" {
			out.LiveError = "VAULT_REGISTRY_CONTRACT_ID is not set"
			return out, nil
		}
		info, err := c.Registry.Info(ctx)
		if err != nil {
			out.LiveError = c.summary("%s (%s)", err, "registry_info failed")
			return out, nil
		}
		out.Live = &LiveInfo{Name: info.Name, Version: info.Version, ResourceSchemaVersion: info.ResourceSchemaVersion}
		return out, nil
	},
}
