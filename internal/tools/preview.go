package tools

import (
	"context"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/config"
)

// PreviewInput is mindvault_preview.
type PreviewInput struct {
	ResourceID string `json:"resourceId" validate:"required,resourceid" jsonschema_description:"Catalog id of the resource (from mindvault_browse or mindvault_search)."`
}

// PreviewOutput is the result of mindvault_preview.
type PreviewOutput struct {
	ID                 string `json:"id"`
	Title              string `json:"title"`
	Description        string `json:"description"`
	Price              string `json:"price" jsonschema_description:"USDC with exactly 7 decimals, e.g. \"1.5000000\""`
	PriceUSDC          string `json:"priceUsdc" jsonschema_description:"the same price, USDC with exactly 7 decimals"`
	ResourceType       string `json:"resourceType"`
	MimeType           string `json:"mimeType,omitempty" jsonschema_description:"a file's media type, when the API names one"`
	SizeBytes          *int64 `json:"sizeBytes,omitempty" jsonschema_description:"a file's length in bytes, when the API announces it (the real API does not: then absent, unknown)"`
	PublisherName      string `json:"publisherName,omitempty"`
	VerificationStatus string `json:"verificationStatus"`
	AccessURL          string `json:"accessUrl"`
	OnchainStatus      string `json:"onchainStatus"`
	PublisherWallet    string `json:"publisherWallet"`
}

var preview = Spec[PreviewInput, PreviewOutput]{
	Name:      "mindvault_preview",
	Toolset:   config.ToolsetCatalog,
	Title:     "Preview a resource",
	Operation: "Preview failed",
	Description: `Shows one resource's title, description, price in USDC, type, media type and size (when
		announced), publisher, verification and on-chain status before buying. Free. Call it before mindvault_buy to know the exact price.`,
	Kind: lookup(errmap.SourceAPI),
	Guide: errmap.Guide{Role: errmap.RolePrice,
		Codes: map[string]string{errmap.CodePriceChanged: "Call mindvault_preview again after a moment: the price changed while it was read."},
	},
	Run: func(ctx context.Context, c *Call, req *PreviewInput) (*PreviewOutput, error) {
		m, err := c.API.Meta(ctx, req.ResourceID)
		if err != nil {
			return nil, err
		}
		out := &PreviewOutput{
			ID: m.ID, Title: m.Title, Description: m.Description, Price: usdc7(string(m.Price)),
			PriceUSDC: usdc7(string(m.Price)), ResourceType: m.ResourceType, MimeType: m.MimeType,
			PublisherName: m.PublisherName, VerificationStatus: m.VerificationStatus, AccessURL: m.AccessURL,
			OnchainStatus: m.OnchainStatus, PublisherWallet: m.PublisherWallet,
		}
		if n, ok := m.KnownSize(); ok {
			out.SizeBytes = &n
		}
		return out, nil
	},
}
