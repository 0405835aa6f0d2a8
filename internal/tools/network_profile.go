package tools

import (
	"cmp"
	"context"
	"fmt"
	"strings"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/config"
)

// NetworkProfileOutput is the result of mindvault_network_profile.
type NetworkProfileOutput struct {
	Network           string          `json:"network" jsonschema_description:"testnet, mainnet or sandbox"`
	X402Network       string          `json:"x402Network"`
	NetworkPassphrase string          `json:"networkPassphrase"`
	URLs              ServiceURLs     `json:"urls"`
	Contracts         ChainIDs        `json:"contracts"`
	ExplorerTxURL     string          `json:"explorerTxUrl" jsonschema_description:"prefix of a transaction's explorer page; empty when the network has none"`
	TimeoutsMs        Timeouts        `json:"timeoutsMs"`
	Retry             RetryPolicy     `json:"retry"`
	MaxAutoPayUSDC    string          `json:"maxAutoPayUsdc" jsonschema_description:"default spend cap per paid call, in USDC"`
	BudgetUSDC        string          `json:"budgetUsdc,omitempty" jsonschema_description:"daily budget per wallet in USDC (MINDVAULT_BUDGET_USDC); absent when none"`
	BudgetCallerUSDC  string          `json:"budgetCallerUsdc,omitempty" jsonschema_description:"daily budget per caller in USDC (MINDVAULT_BUDGET_CALLER_USDC); absent when none"`
	Ledger            string          `json:"ledger" jsonschema_description:"where budget reservations live: memory (this process) or dynamodb:<table>"`
	AllowMainnet      bool            `json:"allowMainnet" jsonschema_description:"state-changing tools run on mainnet without confirmMainnet"`
	CredentialStore   string          `json:"credentialStore" jsonschema:"enum=env,enum=dir,enum=secretsmanager"`
	DefaultProfile    string          `json:"defaultProfile"`
	PayeesAllowed     []string        `json:"payeesAllowed,omitempty" jsonschema_description:"the only accounts payments may go to (MINDVAULT_PAYEES_ALLOWED); absent when any"`
	PayeesDenied      []string        `json:"payeesDenied,omitempty" jsonschema_description:"accounts no payment goes to (MINDVAULT_PAYEES_DENIED)"`
	ResourcesDenied   []string        `json:"resourcesDenied,omitempty" jsonschema_description:"resource ids never bought (MINDVAULT_RESOURCES_DENIED)"`
	Spending          *SpendingView   `json:"spending"`
	Overrides         []OverrideEntry `json:"overrides" jsonschema_description:"configured values that differ from the network preset"`
	Warnings          []string        `json:"warnings"`
}

// ServiceURLs are the downstream base URLs in use.
type ServiceURLs struct {
	MindVault      string `json:"mindvault"`
	Horizon        string `json:"horizon"`
	StellarRPC     string `json:"stellarRpc"`
	SponsorService string `json:"sponsoredAccount"`
}

// ChainIDs are the on-chain identifiers in use.
type ChainIDs struct {
	VaultRegistry string `json:"vaultRegistry"`
	USDC          string `json:"usdc"`
	USDCIssuer    string `json:"usdcIssuer"`
}

// Timeouts are the per-service deadlines and the on-chain write wait, in milliseconds.
type Timeouts struct {
	HTTP    int64 `json:"http"`
	Horizon int64 `json:"horizon"`
	RPC     int64 `json:"rpc"`
	Payment int64 `json:"payment"`
	// WriteWait is the longest wait for an on-chain write's confirmation.
	WriteWait int64 `json:"writeWait"`
}

// RetryPolicy is the automatic retry policy for reads.
type RetryPolicy struct {
	Attempts    int   `json:"attempts"`
	BaseDelayMs int64 `json:"baseDelayMs"`
	MaxDelayMs  int64 `json:"maxDelayMs"`
}

// OverrideEntry is one configured value that differs from the preset.
type OverrideEntry struct {
	Variable string `json:"variable"`
	Preset   string `json:"preset"`
	Value    string `json:"value"`
}

// networkProfile is mindvault_network_profile: the configuration in effect, from memory, and
// the spending switch.
var networkProfile = Spec[NoInput, NetworkProfileOutput]{
	Name:      "mindvault_network_profile",
	Toolset:   config.ToolsetOps,
	Title:     "Network profile",
	Operation: "Network profile failed",
	Description: `Shows the Stellar network, service URLs, contract ids, timeouts, retry policy, spend cap
		and the operator's payee and resource lists this endpoint uses, whether spending is paused
		(since when, by whom), with warnings for settings that differ from the network preset. Free,
		reads configuration and the spending switch only. Call it first to confirm testnet vs
		mainnet before buying or writing on-chain.`,
	Kind:  introspection(errmap.SourceRequest),
	Guide: errmap.Guide{Role: errmap.RoleServices, NoID: true},
	Run: func(ctx context.Context, call *Call, _ *NoInput) (*NetworkProfileOutput, error) {
		c := call.Config
		out := &NetworkProfileOutput{
			Network:           string(c.Network),
			X402Network:       c.X402Network,
			NetworkPassphrase: c.Passphrase,
			URLs:              ServiceURLs{MindVault: c.MindVaultURL, Horizon: c.HorizonURL, StellarRPC: c.RPCURL, SponsorService: c.SponsorURL},
			Contracts:         ChainIDs{VaultRegistry: c.RegistryContract, USDC: c.USDCContractID, USDCIssuer: c.USDCIssuer},
			ExplorerTxURL:     c.ExplorerTxURL,
			TimeoutsMs: Timeouts{
				HTTP: c.HTTPTimeout.Milliseconds(), Horizon: c.HorizonTimeout.Milliseconds(),
				RPC: c.RPCTimeout.Milliseconds(), Payment: c.PaymentTimeout.Milliseconds(),
				WriteWait: c.WriteWait.Milliseconds(),
			},
			Retry:          RetryPolicy{Attempts: c.RetryAttempts, BaseDelayMs: c.RetryBaseDelay.Milliseconds(), MaxDelayMs: c.RetryMaxDelay.Milliseconds()},
			MaxAutoPayUSDC: c.MaxAutoPayUSDC,
			BudgetUSDC:     c.BudgetUSDC, BudgetCallerUSDC: c.BudgetCallerUSDC, Ledger: c.Ledger,
			PayeesAllowed: c.PayeesAllowed, PayeesDenied: c.PayeesDenied, ResourcesDenied: c.ResourcesDenied,
			AllowMainnet:    c.AllowMainnet,
			CredentialStore: strings.SplitN(c.Credentials, ":", 2)[0], // the kind, without its path or prefix
			DefaultProfile:  c.DefaultProfile,
			Overrides:       []OverrideEntry{},
			Warnings:        []string{},
			Spending:        call.spending(ctx),
		}
		for _, o := range c.Overrides() {
			out.Overrides = append(out.Overrides, OverrideEntry{Variable: o.Var, Preset: o.Preset, Value: o.Value})
			out.Warnings = append(out.Warnings, fmt.Sprintf("%s differs from the %s preset (%s).", o.Var, c.Network, cmp.Or(o.Preset, "none")))
		}
		if c.Network == config.Mainnet {
			if c.AllowMainnet {
				out.Warnings = append(out.Warnings, "MINDVAULT_ALLOW_MAINNET is on: state-changing tools spend real funds without confirmMainnet.")
			} else {
				out.Warnings = append(out.Warnings, "Mainnet: state-changing tools need confirmMainnet: true and spend real funds.")
			}
		}
		return out, nil
	},
}
