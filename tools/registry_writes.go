package tools

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/stellar/go-stellar-sdk/xdr"

	"github.com/mindvault/mcp-endpoint/clients/registry"
	"github.com/mindvault/mcp-endpoint/clients/soroban"
	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/requests"
)

// WriteOutput is the result of a creator write: what changed, the transaction and the value
// now on chain.
type WriteOutput struct {
	Status      string    `json:"status" jsonschema:"enum=success"`
	ResourceID  string    `json:"resourceId"`
	Changed     bool      `json:"changed" jsonschema_description:"false when the chain already held the requested value: no transaction was sent and no fee was spent"`
	TxHash      string    `json:"txHash,omitempty" jsonschema_description:"the write's transaction; absent when nothing was sent"`
	Ledger      uint32    `json:"ledger,omitempty"`
	ExplorerURL string    `json:"explorerUrl,omitempty"`
	Price       string    `json:"price,omitempty" jsonschema_description:"the price now, USDC with 7 decimals"`
	Metadata    string    `json:"metadata,omitempty"`
	Listed      *bool     `json:"listed,omitempty"`
	Tags        *[]string `json:"tags,omitempty" jsonschema_description:"the tags now; [] when cleared"`
	NewCreator  string    `json:"newCreator,omitempty"`
	Message     string    `json:"message,omitempty"`
}

// creatorWrite is one contract write and how to tell, from the current entry, that it would
// change nothing.
type creatorWrite struct {
	fn   string
	args []xdr.ScVal
	// holds reports that the entry already has the requested value.
	holds func(cur *registry.Resource) bool
	// anySigner answers a write whose result already holds without requiring the signer to
	// be the creator: after a transfer the old creator, who asked, no longer is.
	anySigner bool
	// unchanged is the message of a write that was not sent.
	unchanged string
}

// write runs one creator write (the mainnet confirmation has passed). It reads the entry first (a
// simulation, free): when the chain already holds the requested value and the wallet is
// the creator, it answers changed: false without sending anything, so a repeated call or a
// retry after an unknown outcome spends no fee. Otherwise it sends the write; a wallet that
// is not the creator, or an entry that does not exist, is refused by the contract's own
// simulation with its error.
func (d *Deps) write(ctx context.Context, id string, profile *string, w creatorWrite) (*WriteOutput, error) {
	ctx, kp, err := d.wallet(ctx, profile)
	if err != nil {
		return nil, err
	}
	cur, found, err := d.Registry.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	if found && w.holds(cur) && (w.anySigner || cur.Creator == kp.Address()) {
		return &WriteOutput{Status: "success", ResourceID: id, Changed: false,
			Message: w.unchanged + " Nothing was sent and no fee was spent."}, nil
	}
	res, err := d.Registry.InvokeApproved(ctx, kp, d.approveWrite(kp.Address(), id, w.args), w.fn, append([]xdr.ScVal{soroban.Str(id)}, w.args...)...)
	if err != nil {
		return nil, err
	}
	return &WriteOutput{Status: "success", ResourceID: id, Changed: true, TxHash: res.Hash, Ledger: res.Ledger,
		ExplorerURL: d.Config.ExplorerURL(res.Hash)}, nil
}

// tagSet normalises tags as the contract does (trimmed, lower-cased, de-duplicated), in order.
func tagSet(tags []string) []string {
	out := []string{}
	for _, t := range tags {
		t = strings.ToLower(strings.TrimSpace(t))
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

// sameTags compares tag lists as sets after normalisation: the order carries no meaning.
func sameTags(a, b []string) bool {
	x, y := tagSet(a), tagSet(b)
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(x, y)
}

const writeCost = "Costs a Stellar network fee paid in XLM by the profile's wallet, which must be the resource's creator. " +
	"Needs confirmMainnet: true on mainnet. On an unconfirmed outcome it returns the transaction hash for mindvault_tx_status."

// SetPrice is mindvault_set_price.
func SetPrice(d *Deps) *Tool {
	return Define(Spec[requests.SetPrice, WriteOutput]{
		Name: "mindvault_set_price", Title: "Set on-chain price",
		Description: "Changes a resource's price in the vault-registry contract (signed by the creator's wallet). " + writeCost,
		Operation:   "Set price failed", Source: errmap.SourceRegistry,
		Hints:   Hints{Destructive: true, OpenWorld: true},
		Mainnet: ConfirmRequired, Config: d.Config,
		Run: func(ctx context.Context, req *requests.SetPrice) (*WriteOutput, error) {
			units, err := soroban.Units(req.Price)
			if err != nil {
				return nil, err
			}
			v, err := soroban.I128(units)
			if err != nil {
				return nil, err
			}
			price := soroban.Decimal(units)
			out, err := d.write(ctx, req.ResourceID, req.Profile, creatorWrite{fn: "set_price", args: []xdr.ScVal{v},
				holds:     func(cur *registry.Resource) bool { return cur.Price.Cmp(units) == 0 },
				unchanged: fmt.Sprintf("Resource %s already costs %s USDC on chain.", req.ResourceID, price)})
			if err != nil {
				return nil, err
			}
			out.Price = price
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
		Hints:   Hints{Destructive: true, OpenWorld: true},
		Mainnet: ConfirmRequired, Config: d.Config,
		Run: func(ctx context.Context, req *requests.UpdateMetadata) (*WriteOutput, error) {
			out, err := d.write(ctx, req.ResourceID, req.Profile, creatorWrite{fn: "update_metadata",
				args:      []xdr.ScVal{soroban.Str(req.Metadata)},
				holds:     func(cur *registry.Resource) bool { return cur.Metadata == req.Metadata },
				unchanged: fmt.Sprintf("Resource %s already has this metadata pointer on chain.", req.ResourceID)})
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
		Hints:   Hints{Destructive: true, Idempotent: true, OpenWorld: true},
		Mainnet: ConfirmRequired, Config: d.Config,
		Run: func(ctx context.Context, req *requests.SetListed) (*WriteOutput, error) {
			state := "delisted"
			if *req.Listed {
				state = "listed"
			}
			out, err := d.write(ctx, req.ResourceID, req.Profile, creatorWrite{fn: "set_listed",
				args:      []xdr.ScVal{soroban.Bool(*req.Listed)},
				holds:     func(cur *registry.Resource) bool { return cur.Listed == *req.Listed },
				unchanged: fmt.Sprintf("Resource %s is already %s on chain.", req.ResourceID, state)})
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
		Hints:   Hints{Destructive: true, Idempotent: true, OpenWorld: true},
		Mainnet: ConfirmRequired, Config: d.Config,
		Run: func(ctx context.Context, req *requests.SetTags) (*WriteOutput, error) {
			tags := tagSet(req.Tags)
			out, err := d.write(ctx, req.ResourceID, req.Profile, creatorWrite{fn: "set_tags",
				args:      []xdr.ScVal{soroban.StrVec(tags)},
				holds:     func(cur *registry.Resource) bool { return sameTags(cur.Tags, tags) },
				unchanged: fmt.Sprintf("Resource %s already has exactly these tags on chain.", req.ResourceID)})
			if err != nil {
				return nil, err
			}
			out.Tags = &tags
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
		Hints:   Hints{Destructive: true, OpenWorld: true},
		Mainnet: ConfirmRequired, Config: d.Config,
		Run: func(ctx context.Context, req *requests.TransferOwnership) (*WriteOutput, error) {
			to, err := soroban.Account(req.NewCreator)
			if err != nil {
				return nil, err
			}
			out, err := d.write(ctx, req.ResourceID, req.Profile, creatorWrite{fn: "transfer_ownership",
				args: []xdr.ScVal{to}, anySigner: true,
				holds:     func(cur *registry.Resource) bool { return cur.Creator == req.NewCreator },
				unchanged: fmt.Sprintf("%s already is the creator of resource %s on chain.", req.NewCreator, req.ResourceID)})
			if err != nil {
				return nil, err
			}
			out.NewCreator = req.NewCreator
			return out, nil
		},
	})
}
