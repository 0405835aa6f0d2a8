package tools

import (
	"context"
	"fmt"

	"github.com/stellar/go-stellar-sdk/keypair"
	"github.com/stellar/go-stellar-sdk/xdr"

	"github.com/mindvault/mcp-endpoint/clients/soroban"
	"github.com/mindvault/mcp-endpoint/config"
	"github.com/mindvault/mcp-endpoint/credentials"
	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/requests"
)

// WriteOutput is the result of a creator write: the transaction and the new value.
type WriteOutput struct {
	Status      string   `json:"status" jsonschema:"enum=success"`
	ResourceID  string   `json:"resourceId"`
	TxHash      string   `json:"txHash"`
	Ledger      uint32   `json:"ledger"`
	ExplorerURL string   `json:"explorerUrl,omitempty"`
	Price       string   `json:"price,omitempty" jsonschema_description:"new price, USDC with 7 decimals"`
	Metadata    string   `json:"metadata,omitempty"`
	Listed      *bool    `json:"listed,omitempty"`
	Tags        []string `json:"tags,omitempty"`
	NewCreator  string   `json:"newCreator,omitempty"`
}

// MainnetUnconfirmed is the refusal of a state-changing call on mainnet without confirmation.
func MainnetUnconfirmed(c *config.Config, confirmed bool) error {
	if c.Network != config.Mainnet || c.AllowMainnet || confirmed {
		return nil
	}
	return &errmap.Error{Err: fmt.Errorf("mainnet not confirmed"), Facts: errmap.Facts{
		Source: errmap.SourceRequest, Code: errmap.CodeMainnetNotConfirmed,
		Detail: "this call changes state on Stellar mainnet (real funds); nothing was sent",
		Next:   "Call again with confirmMainnet: true if you intend to act on mainnet.",
	}}
}

// wallet loads the signing key of a profile; its secret joins the redaction set.
func (d *Deps) wallet(ctx context.Context, profile *string) (context.Context, *keypair.Full, error) {
	ctx, p, err := d.profile(ctx, profile)
	if err != nil {
		return ctx, nil, err
	}
	if p.SecretKey == "" {
		return ctx, nil, credentials.Missing(d.Store, p.Name, "wallet")
	}
	kp, err := keypair.ParseFull(p.SecretKey)
	if err != nil {
		return ctx, nil, credentials.Missing(d.Store, p.Name, "valid wallet secret")
	}
	return ctx, kp, nil
}

// write runs one creator write after the mainnet check and returns its output skeleton.
func (d *Deps) write(ctx context.Context, id string, profile *string, confirm bool, fn string, args ...xdr.ScVal) (*WriteOutput, error) {
	if err := MainnetUnconfirmed(d.Config, confirm); err != nil {
		return nil, err
	}
	ctx, kp, err := d.wallet(ctx, profile)
	if err != nil {
		return nil, err
	}
	w, err := d.Registry.Invoke(ctx, kp, fn, append([]xdr.ScVal{soroban.Str(id)}, args...)...)
	if err != nil {
		return nil, err
	}
	return &WriteOutput{Status: "success", ResourceID: id, TxHash: w.Hash, Ledger: w.Ledger, ExplorerURL: d.Config.ExplorerURL(w.Hash)}, nil
}

const writeCost = "Costs a Stellar network fee paid in XLM by the profile's wallet, which must be the resource's creator. " +
	"Needs confirmMainnet: true on mainnet. On an unconfirmed outcome it returns the transaction hash for mindvault_tx_status."

// SetPrice is mindvault_set_price.
func SetPrice(d *Deps) *Tool {
	return Define(Spec[requests.SetPrice, WriteOutput]{
		Name: "mindvault_set_price", Title: "Set on-chain price",
		Description: "Changes a resource's price in the vault-registry contract (signed by the creator's wallet). " + writeCost,
		Operation:   "Set price failed", Source: errmap.SourceRegistry,
		Hints: Hints{Destructive: true, OpenWorld: true},
		Run: func(ctx context.Context, req *requests.SetPrice) (*WriteOutput, error) {
			units, err := soroban.Units(req.Price)
			if err != nil {
				return nil, err
			}
			v, err := soroban.I128(units)
			if err != nil {
				return nil, err
			}
			out, err := d.write(ctx, req.ResourceID, req.Profile, req.ConfirmMainnet, "set_price", v)
			if err != nil {
				return nil, err
			}
			out.Price = soroban.Decimal(units)
			return out, nil
		},
	})
}

// UpdateMetadata is mindvault_update_metadata.
func UpdateMetadata(d *Deps) *Tool {
	return Define(Spec[requests.UpdateMetadata, WriteOutput]{
		Name: "mindvault_update_metadata", Title: "Update on-chain metadata",
		Description: "Replaces a resource's metadata pointer in the vault-registry contract (signed by the creator's wallet). " + writeCost,
		Operation:   "Update metadata failed", Source: errmap.SourceRegistry,
		Hints: Hints{Destructive: true, OpenWorld: true},
		Run: func(ctx context.Context, req *requests.UpdateMetadata) (*WriteOutput, error) {
			out, err := d.write(ctx, req.ResourceID, req.Profile, req.ConfirmMainnet, "update_metadata", soroban.Str(req.Metadata))
			if err != nil {
				return nil, err
			}
			out.Metadata = req.Metadata
			return out, nil
		},
	})
}

// SetListed is mindvault_set_listed.
func SetListed(d *Deps) *Tool {
	return Define(Spec[requests.SetListed, WriteOutput]{
		Name: "mindvault_set_listed", Title: "List or delist on-chain",
		Description: "Lists or delists a resource in the vault-registry contract (signed by the creator's wallet). " + writeCost,
		Operation:   "Set listed failed", Source: errmap.SourceRegistry,
		Hints: Hints{Destructive: true, Idempotent: true, OpenWorld: true},
		Run: func(ctx context.Context, req *requests.SetListed) (*WriteOutput, error) {
			out, err := d.write(ctx, req.ResourceID, req.Profile, req.ConfirmMainnet, "set_listed", soroban.Bool(*req.Listed))
			if err != nil {
				return nil, err
			}
			out.Listed = req.Listed
			return out, nil
		},
	})
}

// SetTags is mindvault_set_tags.
func SetTags(d *Deps) *Tool {
	return Define(Spec[requests.SetTags, WriteOutput]{
		Name: "mindvault_set_tags", Title: "Set on-chain tags",
		Description: "Replaces a resource's tag list in the vault-registry contract (signed by the creator's wallet). " + writeCost,
		Operation:   "Set tags failed", Source: errmap.SourceRegistry,
		Hints: Hints{Destructive: true, Idempotent: true, OpenWorld: true},
		Run: func(ctx context.Context, req *requests.SetTags) (*WriteOutput, error) {
			out, err := d.write(ctx, req.ResourceID, req.Profile, req.ConfirmMainnet, "set_tags", soroban.StrVec(req.Tags))
			if err != nil {
				return nil, err
			}
			out.Tags = nonNil(req.Tags)
			return out, nil
		},
	})
}

// TransferOwnership is mindvault_transfer_ownership.
func TransferOwnership(d *Deps) *Tool {
	return Define(Spec[requests.TransferOwnership, WriteOutput]{
		Name: "mindvault_transfer_ownership", Title: "Transfer on-chain ownership",
		Description: "Makes another Stellar account the creator of a resource in the vault-registry contract (signed by " +
			"the current creator's wallet); the old wallet loses control. " + writeCost,
		Operation: "Transfer ownership failed", Source: errmap.SourceRegistry,
		Hints: Hints{Destructive: true, OpenWorld: true},
		Run: func(ctx context.Context, req *requests.TransferOwnership) (*WriteOutput, error) {
			to, err := soroban.Account(req.NewCreator)
			if err != nil {
				return nil, err
			}
			out, err := d.write(ctx, req.ResourceID, req.Profile, req.ConfirmMainnet, "transfer_ownership", to)
			if err != nil {
				return nil, err
			}
			out.NewCreator = req.NewCreator
			return out, nil
		},
	})
}
