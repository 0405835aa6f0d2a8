package tools

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/stellar/go-stellar-sdk/xdr"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/clients/registry"
	"github.com/mindvault/mcp-endpoint/internal/clients/soroban"
	"github.com/mindvault/mcp-endpoint/internal/config"
	"github.com/mindvault/mcp-endpoint/requests"
)

// SetPriceInput is mindvault_set_price.
type SetPriceInput struct {
	requests.OnchainResource
	Price string `json:"price" validate:"required,usdcpos" jsonschema_description:"New price in USDC, a string or a number above 0 with at most 7 decimals, e.g. 2.5 or \"2.5\"."`
	requests.Creator
}

// UpdateMetadataInput is mindvault_update_metadata.
type UpdateMetadataInput struct {
	requests.OnchainResource
	Metadata string `json:"metadata" validate:"required,metaptr" jsonschema_description:"New metadata pointer: ipfs://, ar://, https://, http://, sha256:, sha-256: or 0x."`
	requests.Creator
}

// SetListedInput is mindvault_set_listed.
type SetListedInput struct {
	requests.OnchainResource
	Listed *bool `json:"listed" validate:"required" jsonschema_description:"true to list the resource, false to delist it."`
	requests.Creator
}

// SetTagsInput is mindvault_set_tags.
type SetTagsInput struct {
	requests.OnchainResource
	Tags []string `json:"tags" validate:"required,max=8,dive,tag" jsonschema_description:"The complete new tag list (replaces the old one): up to 8 tags of a-z 0-9 _ -; [] clears."`
	requests.Creator
}

// TransferOwnershipInput is mindvault_transfer_ownership.
type TransferOwnershipInput struct {
	requests.OnchainResource
	NewCreator string `json:"newCreator" validate:"required,gaccount" jsonschema_description:"Stellar account (G...) that becomes the resource's creator."`
	requests.Creator
}

// WriteOutput is the result of a creator write.
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
	CatalogSync string    `json:"catalogSync,omitempty" jsonschema_description:"when the MindVault catalog shows this change (it copies on-chain changes within about 30 s; until then a purchase may be refused with PRICE_MISMATCH, retry after_wait)"`
	Message     string    `json:"message,omitempty"`
}

// catalogLag is the catalogSync of a price or ownership written on chain.
var catalogLag = fmt.Sprintf("The MindVault catalog shows this within about %d s: the API's event listener polls the contract; until then its price or owner is the old one and a purchase may be refused with PRICE_MISMATCH (retry after the wait).", errmap.DefaultPriceSyncSeconds)

// writeCost ends every write's description.
const writeCost = "Costs a Stellar network fee paid in XLM by the profile's wallet, which must be the resource's creator. " +
	"Needs confirmMainnet: true on mainnet. On an unconfirmed outcome it returns the transaction hash for mindvault_tx_status."

// The creator writes of the vault-registry contract, one row each.

var setPrice = writeSpec(registryWrite[SetPriceInput]{
	name: "mindvault_set_price", title: "Set on-chain price", operation: "Set price failed",
	does:  "Changes a resource's price in the vault-registry contract (signed by the creator's wallet).",
	hints: Hints{Destructive: true, OpenWorld: true}, fn: "set_price",
	change: func(r *SetPriceInput) (creatorWrite, error) {
		units, err := soroban.Units(r.Price)
		if err != nil {
			return creatorWrite{}, err
		}
		v, err := soroban.I128(units)
		if err != nil {
			return creatorWrite{}, err
		}
		price := soroban.Decimal(units)
		return creatorWrite{args: []xdr.ScVal{v},
			holds:     func(cur *registry.Resource) bool { return cur.Price.Cmp(units) == 0 },
			unchanged: fmt.Sprintf("Resource %s already costs %s USDC on chain.", r.ResourceID, price),
			report:    func(o *WriteOutput) { o.Price, o.CatalogSync = price, catalogLag }}, nil
	},
})

var updateMetadata = writeSpec(registryWrite[UpdateMetadataInput]{
	name: "mindvault_update_metadata", title: "Update on-chain metadata", operation: "Update metadata failed",
	does:  "Replaces a resource's metadata pointer in the vault-registry contract (signed by the creator's wallet).",
	hints: Hints{Destructive: true, OpenWorld: true}, fn: "update_metadata",
	change: func(r *UpdateMetadataInput) (creatorWrite, error) {
		return creatorWrite{args: []xdr.ScVal{soroban.Str(r.Metadata)},
			holds:     func(cur *registry.Resource) bool { return cur.Metadata == r.Metadata },
			unchanged: fmt.Sprintf("Resource %s already has this metadata pointer on chain.", r.ResourceID),
			report:    func(o *WriteOutput) { o.Metadata = r.Metadata }}, nil
	},
})

var setListed = writeSpec(registryWrite[SetListedInput]{
	name: "mindvault_set_listed", title: "List or delist on-chain", operation: "Set listed failed",
	does:  "Lists or delists a resource in the vault-registry contract (signed by the creator's wallet).",
	hints: Hints{Destructive: true, Idempotent: true, OpenWorld: true}, fn: "set_listed",
	change: func(r *SetListedInput) (creatorWrite, error) {
		state := "delisted"
		if *r.Listed {
			state = "listed"
		}
		return creatorWrite{args: []xdr.ScVal{soroban.Bool(*r.Listed)},
			holds:     func(cur *registry.Resource) bool { return cur.Listed == *r.Listed },
			unchanged: fmt.Sprintf("Resource %s is already %s on chain.", r.ResourceID, state),
			report:    func(o *WriteOutput) { o.Listed = r.Listed }}, nil
	},
})

var setTags = writeSpec(registryWrite[SetTagsInput]{
	name: "mindvault_set_tags", title: "Set on-chain tags", operation: "Set tags failed",
	does: `Replaces a resource's tag list in the vault-registry contract (signed by the creator's
		wallet). Tags are trimmed, lower-cased and de-duplicated as the contract does, and compared
		as a set: the same tags in another order change nothing.`,
	hints: Hints{Destructive: true, Idempotent: true, OpenWorld: true}, fn: "set_tags",
	change: func(r *SetTagsInput) (creatorWrite, error) {
		tags := tagSet(r.Tags)
		return creatorWrite{args: []xdr.ScVal{soroban.StrVec(tags)},
			holds:     func(cur *registry.Resource) bool { return sameTags(cur.Tags, tags) },
			unchanged: fmt.Sprintf("Resource %s already has exactly these tags on chain.", r.ResourceID),
			report:    func(o *WriteOutput) { o.Tags = &tags }}, nil
	},
})

var transferOwnership = writeSpec(registryWrite[TransferOwnershipInput]{
	name: "mindvault_transfer_ownership", title: "Transfer on-chain ownership", operation: "Transfer ownership failed",
	does: `Makes another Stellar account the creator of a resource in the vault-registry contract
		(signed by the current creator's wallet); the old wallet loses control.`,
	hints: Hints{Destructive: true, OpenWorld: true}, fn: "transfer_ownership",
	// After a transfer the old creator, who asks again, no longer is the creator.
	anySigner: true,
	change: func(r *TransferOwnershipInput) (creatorWrite, error) {
		to, err := soroban.Account(r.NewCreator)
		if err != nil {
			return creatorWrite{}, err
		}
		return creatorWrite{args: []xdr.ScVal{to},
			holds:     func(cur *registry.Resource) bool { return cur.Creator == r.NewCreator },
			unchanged: fmt.Sprintf("%s already is the creator of resource %s on chain.", r.NewCreator, r.ResourceID),
			report:    func(o *WriteOutput) { o.NewCreator, o.CatalogSync = r.NewCreator, catalogLag }}, nil
	},
})

// registryWrite is one row: a creator write.
type registryWrite[Req any] struct {
	name, title, operation string
	does                   string // the description before writeCost
	hints                  Hints
	fn                     string // the contract function; its first argument is the resource id
	// anySigner answers a write whose result already holds whoever signs.
	anySigner bool
	change    func(req *Req) (creatorWrite, error)
}

// creatorWrite is what one write asks of the entry.
type creatorWrite struct {
	args      []xdr.ScVal
	holds     func(cur *registry.Resource) bool // the entry already has the requested value
	unchanged string                            // the message of a write that was not sent
	report    func(out *WriteOutput)            // sets the output field of the value now on chain
}

// writeSpec is the Spec of one row (its request embeds requests.RegistryWrite's groups).
func writeSpec[Req any, P interface {
	*Req
	requests.RegistryWrite
}](w registryWrite[Req]) Spec[Req, WriteOutput] {
	kind := action(errmap.SourceRegistry)
	kind.Hints = w.hints
	return Spec[Req, WriteOutput]{
		Name: w.name, Title: w.title, Description: w.does + " " + writeCost, Toolset: config.ToolsetRegistryWrites,
		Operation: w.operation, Kind: kind,
		Guide: errmap.Guide{CreatorWrite: true},
		Run: func(ctx context.Context, c *Call, req *Req) (*WriteOutput, error) {
			change, err := w.change(req)
			if err != nil {
				return nil, err
			}
			return c.write(ctx, P(req).Resource(), P(req).ActingProfile(), w.fn, w.anySigner, change)
		},
	}
}

// write runs one creator write. It reads the entry first (a free simulation): when the chain
// already holds the value and the wallet is the creator it answers changed: false without
// sending, so a retry spends no fee. A nil output with a nil error: the call asks the user.
func (c *Call) write(ctx context.Context, id string, profile *string, fn string, anySigner bool, w creatorWrite) (*WriteOutput, error) {
	kp, err := c.wallet(ctx, profile)
	if err != nil {
		return nil, err
	}
	cur, found, err := c.Registry.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	out := &WriteOutput{Status: "success", ResourceID: id}
	if found && w.holds(cur) && (anySigner || cur.Creator == kp.Address()) {
		out.Message = w.unchanged + " Nothing was sent and no fee was spent."
		w.report(out)
		return out, nil
	}
	res, err := c.Registry.InvokeApproved(ctx, kp, c.approveWrite(kp.Address(), id, w.args), fn, append([]xdr.ScVal{soroban.Str(id)}, w.args...)...)
	if c.asking() {
		return nil, nil
	}
	if err != nil {
		if found {
			// The entry was just read: a refusal of the signer can name the wallet that may sign.
			err = errmap.With(err, func(f *errmap.Facts) { f.Advice.Creator = cur.Creator })
		}
		if c.confirmation.ApprovalNonce() != "" && isCode(err, errmap.CodeTxBadSequence) {
			err = usedApproval(err, id)
		}
		if isCode(err, errmap.CodeInsufficientBalance) {
			err = needsXLM(err, c.Config.Network, kp.Address())
		}
		return nil, err
	}
	out.Changed, out.TxHash, out.Ledger, out.ExplorerURL = true, res.Hash, res.Ledger, c.Config.ExplorerURL(res.Hash)
	w.report(out)
	return out, nil
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

// needsXLM says how to get the XLM a write's fee needs: a sponsored wallet's own transactions
// are not sponsored, and Friendbot does not top up an existing account.
func needsXLM(err error, network config.Network, wallet string) error {
	how := "send it XLM from an exchange or another wallet you control"
	if network != config.Mainnet {
		how = "send it some XLM from another account (on testnet, https://friendbot.stellar.org/?addr=<a new address> funds a new account with 10000 XLM to send from; Friendbot does not fund an account that exists)"
	}
	return errmap.With(err, func(f *errmap.Facts) {
		f.Next = "The wallet " + wallet + " has too little XLM for this write's network fee (USDC payments are fee-sponsored, contract writes are not): " +
			how + ", check it with mindvault_wallet_info, then call again."
	})
}

// usedApproval is a round 2 that met an already used sequence: carried out by another call.
func usedApproval(err error, id string) error {
	return errmap.With(err, func(f *errmap.Facts) {
		f.Code, f.Category, f.StateChanged, f.NextAction = errmap.CodeConfirmationStale, errmap.CategoryValidation, errmap.StateNo, nil
		f.Detail = "the approved transaction's sequence number was already used (this approval was carried out by another call, or the account sent another transaction); this one cannot apply"
		f.Next = "Check resource " + id + " with mindvault_registry_lookup; call again only if the user wants a new change, and the user will be asked again."
	})
}
