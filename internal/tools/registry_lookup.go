package tools

import (
	"context"
	"fmt"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/config"
	"github.com/mindvault/mcp-endpoint/validate"
)

// RegistryLookupInput is mindvault_registry_lookup.
type RegistryLookupInput struct {
	ResourceID string `json:"resourceId" validate:"required,resourceid" jsonschema_description:"Resource id; on-chain ids are 1-24 lowercase letters and digits."`
}

// LookupOutput is the result of mindvault_registry_lookup.
type LookupOutput struct {
	Found      bool     `json:"found"`
	ResourceID string   `json:"resourceId"`
	ID         string   `json:"id,omitempty"`
	Creator    string   `json:"creator,omitempty"`
	Price      string   `json:"price,omitempty" jsonschema_description:"USDC with exactly 7 decimals"`
	Metadata   string   `json:"metadata,omitempty"`
	Listed     *bool    `json:"listed,omitempty"`
	Tags       []string `json:"tags,omitempty"`
	State      string   `json:"state,omitempty"`
	Verified   *bool    `json:"verified,omitempty"`
	ContractID string   `json:"contractId"`
	Network    string   `json:"network"`
	Message    string   `json:"message,omitempty"`
	Next       string   `json:"next,omitempty"`
}

// notOnchainNext is the not_found recovery step, as a soft hint.
const notOnchainNext = "Confirm the id with mindvault_browse or mindvault_search, or register it on-chain with mindvault_register_onchain."

var registryLookup = Spec[RegistryLookupInput, LookupOutput]{
	Name:      "mindvault_registry_lookup",
	Toolset:   config.ToolsetRegistry,
	Title:     "Registry lookup",
	Operation: "Registry lookup failed",
	Description: `Reads one resource straight from the vault-registry contract on Stellar (creator, price,
		metadata, listed, tags) without trusting the MindVault API. Free (a simulation, nothing is
		submitted). A resource that is not on chain is a normal result with found: false and what to
		do next.`,
	Kind:  lookup(errmap.SourceRegistry),
	Guide: errmap.Guide{Role: errmap.RoleEntry},
	Run: func(ctx context.Context, c *Call, req *RegistryLookupInput) (*LookupOutput, error) {
		out := &LookupOutput{ResourceID: req.ResourceID, ContractID: c.Config.RegistryContract, Network: string(c.Config.Network)}
		if !validate.OnchainID(req.ResourceID) {
			out.Message = fmt.Sprintf("%q cannot be an on-chain id (on-chain ids are 1-24 lowercase letters and digits); the contract was not called.", req.ResourceID)
			out.Next = notOnchainNext
			return out, nil
		}
		r, found, err := c.Registry.Get(ctx, req.ResourceID)
		if err != nil {
			return nil, err
		}
		if !found {
			out.Message = fmt.Sprintf("Resource %q is not registered in contract %s on %s: it may not be published or verified yet, or the id is wrong.", req.ResourceID, c.Config.RegistryContract, c.Config.Network)
			out.Next = notOnchainNext
			return out, nil
		}
		o := onchainResource(r)
		out.Found, out.ID, out.Creator, out.Price, out.Metadata = true, o.ID, o.Creator, o.Price, o.Metadata
		out.Listed, out.Tags, out.State, out.Verified = &o.Listed, o.Tags, o.State, o.Verified
		return out, nil
	},
}
