package tools

import (
	"context"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/config"
)

// AgentStatusOutput is the result of mindvault_agent_status.
type AgentStatusOutput struct {
	Name                 string   `json:"name"`
	WalletAddress        string   `json:"walletAddress"`
	Network              string   `json:"network"`
	Status               string   `json:"status"`
	PricePerVerification string   `json:"pricePerVerification" jsonschema_description:"verification fee, USDC with exactly 7 decimals"`
	Currency             string   `json:"currency"`
	TotalVerifications   int      `json:"totalVerifications"`
	Verified             int      `json:"verified"`
	Rejected             int      `json:"rejected"`
	AvgConfidence        *float64 `json:"avgConfidence,omitempty" jsonschema_description:"absent when the API's value is unreadable"`
}

var agentStatus = Spec[NoInput, AgentStatusOutput]{
	Name:      "mindvault_agent_status",
	Toolset:   config.ToolsetPublishing,
	Title:     "Verification agent status",
	Operation: "Agent status failed",
	Description: `Shows the MindVault verification agent's fee per verification (paid in USDC when
		publishing), its network, status and statistics. Free. Check the fee before
		mindvault_publish.`,
	Kind:  lookup(errmap.SourceAPI),
	Guide: errmap.Guide{NoID: true},
	Run: func(ctx context.Context, c *Call, _ *NoInput) (*AgentStatusOutput, error) {
		a, err := c.API.AgentStatus(ctx)
		if err != nil {
			return nil, err
		}
		return &AgentStatusOutput{
			Name: a.Agent.Name, WalletAddress: a.Agent.WalletAddress, Network: a.Agent.Network,
			Status: a.Agent.Status, PricePerVerification: usdc7(string(a.Agent.PricePerVerification)),
			Currency: a.Agent.Currency, TotalVerifications: a.Stats.TotalVerifications.Int(),
			Verified: a.Stats.Verified.Int(), Rejected: a.Stats.Rejected.Int(), AvgConfidence: a.Stats.AvgConfidence.Ptr(),
		}, nil
	},
}
