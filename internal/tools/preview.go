package tools

import (
	"context"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/config"
	"github.com/mindvault/mcp-endpoint/requests"
)

// PreviewOutput is the result of mindvault_preview.
type PreviewOutput struct {
	ID                 string `json:"id"`
	Title              string `json:"title"`
	Description        string `json:"description"`
	Price              string `json:"price" jsonschema_description:"the API's decimal string, e.g. \"1.50\""`
	PriceUSDC          string `json:"priceUsdc" jsonschema_description:"display form, e.g. \"$1.50 USDC\""`
	ResourceType       string `json:"resourceType"`
	VerificationStatus string `json:"verificationStatus"`
	AccessURL          string `json:"accessUrl"`
	OnchainStatus      string `json:"onchainStatus"`
	PublisherWallet    string `json:"publisherWallet"`
}

// preview is mindvault_preview.
var preview = serve(Spec[requests.Preview, PreviewOutput]{
	Name:      "mindvault_preview",
	Toolset:   config.ToolsetCatalog,
	Title:     "Preview a resource",
	Operation: "Preview failed",
	Description: `Shows one resource's title, description, price in USDC, type, verification and on-chain
		status before buying. Free. Call it before mindvault_buy to know the exact price.`,
	Kind: lookup(errmap.SourceAPI),
	Guide: errmap.Guide{Role: errmap.RolePrice,
		Codes: map[string]string{errmap.CodePriceChanged: "Call mindvault_preview again after a moment: the price changed while it was read."},
	},
	Run: func(ctx context.Context, d *Deps, req *requests.Preview) (*PreviewOutput, error) {
		m, err := d.API.Meta(ctx, req.ResourceID)
		if err != nil {
			return nil, err
		}
		return &PreviewOutput{
			ID: m.ID, Title: m.Title, Description: m.Description, Price: string(m.Price),
			PriceUSDC: "$" + string(m.Price) + " USDC", ResourceType: m.ResourceType,
			VerificationStatus: m.VerificationStatus, AccessURL: m.AccessURL,
			OnchainStatus: m.OnchainStatus, PublisherWallet: m.PublisherWallet,
		}, nil
	},
})
