package tools

import (
	"context"
	"fmt"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/clients/registry"
	"github.com/mindvault/mcp-endpoint/internal/clients/soroban"
	"github.com/mindvault/mcp-endpoint/internal/config"
)

// RegistryListInput is mindvault_registry_list.
type RegistryListInput struct {
	Start int `json:"start,omitempty" validate:"min=0,max=4294967295" jsonschema:"default=0" jsonschema_description:"Index of the first entry (registration order)."`
	Limit int `json:"limit,omitempty" validate:"min=1,max=20" jsonschema:"default=20" jsonschema_description:"Entries per page, 1-20 (the contract's cap)."`
}

// OnchainResource is a registry entry as tools report it.
type OnchainResource struct {
	ID       string   `json:"id"`
	Creator  string   `json:"creator"`
	Price    string   `json:"price" jsonschema_description:"USDC with exactly 7 decimals"`
	Metadata string   `json:"metadata"`
	Listed   bool     `json:"listed"`
	Tags     []string `json:"tags,omitempty"`
	State    string   `json:"state,omitempty"`
	Verified *bool    `json:"verified,omitempty"`
}

func onchainResource(r *registry.Resource) OnchainResource {
	o := OnchainResource{ID: r.ID, Creator: r.Creator, Price: soroban.Decimal(r.Price), Metadata: r.Metadata,
		Listed: r.Listed, Tags: r.Tags, Verified: r.Verified}
	if r.State != nil {
		o.State = *r.State
	}
	return o
}

// RegistryListOutput is the result of mindvault_registry_list.
type RegistryListOutput struct {
	Count     int               `json:"count"`
	Resources []OnchainResource `json:"resources"`
	NextStart *uint32           `json:"nextStart" jsonschema:"nullable" jsonschema_description:"start of the next page; null at the end"`
	Message   string            `json:"message,omitempty"`
}

var registryList = Spec[RegistryListInput, RegistryListOutput]{
	Name:      "mindvault_registry_list",
	Toolset:   config.ToolsetRegistry,
	Title:     "Registry list",
	Operation: "Registry list failed",
	Description: `Lists vault-registry entries straight from the contract in registration order, up to 20 per
		page; pass nextStart to continue. Free (a simulation). An empty page is a normal result with
		a message.`,
	Kind: lookup(errmap.SourceRegistry),
	Run: func(ctx context.Context, c *Call, req *RegistryListInput) (*RegistryListOutput, error) {
		items, err := c.Registry.List(ctx, uint32(req.Start), uint32(req.Limit))
		if err != nil {
			return nil, err
		}
		out := &RegistryListOutput{Count: len(items), Resources: make([]OnchainResource, 0, len(items))}
		for i := range items {
			out.Resources = append(out.Resources, onchainResource(&items[i]))
		}
		if len(items) == req.Limit {
			n := uint32(req.Start + req.Limit)
			out.NextStart = &n
		}
		if len(items) == 0 {
			if req.Start == 0 {
				out.Message = "No resources are registered on chain yet."
			} else {
				out.Message = fmt.Sprintf("No on-chain resources in range [%d, %d); try a lower start.", req.Start, req.Start+req.Limit)
			}
		}
		return out, nil
	},
}
