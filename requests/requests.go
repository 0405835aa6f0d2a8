// Package requests holds one typed request struct per tool, the request models. Their tags are the
// single source of truth of each argument (`json` its name, `validate` its rules,
// `jsonschema_description` what an agent reads), from which package validate decodes and
// internal/gen/schemagen advertises; optional arguments are pointers, so absent and zero never mix,
// and arguments several requests share are embedded groups
// (docs/tools.md "Shared argument shapes").
package requests

// NetworkProfile is mindvault_network_profile: no arguments.
type NetworkProfile struct{}

// Browse is mindvault_browse: every catalog filter, none required.
type Browse struct {
	Query              *string  `json:"query,omitempty" validate:"omitnil,min=1,max=256" jsonschema_description:"Keyword matched against title and description (case-insensitive)."`
	MinPrice           *string  `json:"minPrice,omitempty" validate:"omitnil,usdc" jsonschema_description:"Lowest price in USDC, a string or a number with at most 7 decimals, e.g. 0.5 or \"0.5\"."`
	MaxPrice           *string  `json:"maxPrice,omitempty" validate:"omitnil,usdc" jsonschema_description:"Highest price in USDC, a string or a number with at most 7 decimals; must not be below minPrice."`
	VerificationStatus *string  `json:"verificationStatus,omitempty" validate:"omitnil,oneof=pending verified rejected skipped" jsonschema_description:"Only resources with this verification status."`
	ResourceType       *string  `json:"resourceType,omitempty" validate:"omitnil,oneof=file link" jsonschema_description:"Only files or only links."`
	Owner              *string  `json:"owner,omitempty" validate:"omitnil,min=1,max=128" jsonschema_description:"Publisher name or wallet address (substring match)."`
	Sort               *string  `json:"sort,omitempty" validate:"omitnil,oneof=newest price_asc price_desc title" jsonschema_description:"Order of the results (default newest)."`
	Limit              int      `json:"limit,omitempty" validate:"min=1,max=100" jsonschema:"default=20" jsonschema_description:"Page size, 1-100."`
	Offset             int      `json:"offset,omitempty" validate:"min=0,max=9007199254740991" jsonschema:"default=0" jsonschema_description:"Rows to skip; use nextOffset from the previous page. At most 9007199254740991 (2^53-1), the largest integer the API reads exactly."`
	Tags               []string `json:"tags,omitempty" validate:"omitempty,max=8,dive,tag" jsonschema_description:"Only resources carrying all these tags (lower-cased)."`
	Listed             *bool    `json:"listed,omitempty" jsonschema_description:"Only listed (true) or only delisted (false) resources."`
}

// CrossCheck enforces minPrice ≤ maxPrice.
func (b *Browse) CrossCheck() []Issue { return priceRange(b.MinPrice, b.MaxPrice) }

// Search is mindvault_search: the browse filters, at least one of them required.
type Search Browse

// CrossCheck enforces minPrice ≤ maxPrice and at least one criterion (reported at /query).
func (s *Search) CrossCheck() []Issue {
	if issues := priceRange(s.MinPrice, s.MaxPrice); issues != nil {
		return issues
	}
	if s.Query == nil && s.MinPrice == nil && s.MaxPrice == nil && s.VerificationStatus == nil &&
		s.ResourceType == nil && s.Owner == nil && len(s.Tags) == 0 && s.Listed == nil {
		return []Issue{{Path: "/query", Rule: "required_without_all", Expected: "a query or at least one filter",
			Message: "is required unless another filter (minPrice, maxPrice, verificationStatus, resourceType, owner, tags, listed) is given"}}
	}
	return nil
}

// Preview is mindvault_preview.
type Preview struct {
	ResourceID string `json:"resourceId" validate:"required,resourceid" jsonschema_description:"Catalog id of the resource (from mindvault_browse or mindvault_search)."`
}

// PublishStatus is mindvault_publish_status.
type PublishStatus struct {
	ResourceID  string `json:"resourceId" validate:"required,resourceid" jsonschema_description:"Id returned by mindvault_publish."`
	WaitSeconds int    `json:"waitSeconds,omitempty" validate:"min=0,max=60" jsonschema:"default=0" jsonschema_description:"Poll every 2 s for up to this many seconds until verification settles (0 = answer at once)."`
}

// AgentStatus is mindvault_agent_status: no arguments.
type AgentStatus struct{}

// WalletInfo is mindvault_wallet_info.
type WalletInfo struct {
	Profile *string `json:"profile,omitempty" validate:"omitnil,profile" jsonschema_description:"Credential profile (default: the configured default profile)."`
}

// TxStatus is mindvault_tx_status.
type TxStatus struct {
	TxHash string `json:"txHash" validate:"required,txhash" jsonschema_description:"Transaction hash: 64 hex characters, optionally prefixed sha256:."`
}

// Health is mindvault_health: no arguments.
type Health struct{}

// RegistryInfo is mindvault_registry_info: no arguments.
type RegistryInfo struct{}

// RegistryLookup is mindvault_registry_lookup.
type RegistryLookup struct {
	ResourceID string `json:"resourceId" validate:"required,resourceid" jsonschema_description:"Resource id; on-chain ids are 1-24 lowercase letters and digits."`
}

// RegistryList is mindvault_registry_list.
type RegistryList struct {
	Start int `json:"start,omitempty" validate:"min=0,max=4294967295" jsonschema:"default=0" jsonschema_description:"Index of the first entry (registration order)."`
	Limit int `json:"limit,omitempty" validate:"min=1,max=20" jsonschema:"default=20" jsonschema_description:"Entries per page, 1-20 (the contract's cap)."`
}

// CheckConsistency is mindvault_check_consistency.
type CheckConsistency struct {
	ResourceID string `json:"resourceId" validate:"required,resourceid" jsonschema_description:"Resource id to compare between the MindVault API and the chain."`
}

// SetPrice is mindvault_set_price.
type SetPrice struct {
	OnchainResource
	Price string `json:"price" validate:"required,usdcpos" jsonschema_description:"New price in USDC, a string or a number above 0 with at most 7 decimals, e.g. 2.5 or \"2.5\"."`
	Creator
}

// UpdateMetadata is mindvault_update_metadata.
type UpdateMetadata struct {
	OnchainResource
	Metadata string `json:"metadata" validate:"required,metaptr" jsonschema_description:"New metadata pointer: ipfs://, ar://, https://, http://, sha256:, sha-256: or 0x."`
	Creator
}

// SetListed is mindvault_set_listed.
type SetListed struct {
	OnchainResource
	Listed *bool `json:"listed" validate:"required" jsonschema_description:"true to list the resource, false to delist it."`
	Creator
}

// SetTags is mindvault_set_tags.
type SetTags struct {
	OnchainResource
	Tags []string `json:"tags" validate:"required,max=8,dive,tag" jsonschema_description:"The complete new tag list (replaces the old one): up to 8 tags of a-z 0-9 _ -; [] clears."`
	Creator
}

// TransferOwnership is mindvault_transfer_ownership.
type TransferOwnership struct {
	OnchainResource
	NewCreator string `json:"newCreator" validate:"required,gaccount" jsonschema_description:"Stellar account (G...) that becomes the resource's creator."`
	Creator
}

// Buy is mindvault_buy.
type Buy struct {
	ResourceID   string  `json:"resourceId" validate:"required,resourceid" jsonschema_description:"Catalog id of the resource to buy."`
	MaxPriceUSDC *string `json:"maxPriceUsdc,omitempty" validate:"omitnil,usdcpos" jsonschema_description:"Most you agree to pay, in USDC: a string or a number with at most 7 decimals, e.g. 2.5 or \"2.5\" (default: the operator's MINDVAULT_MAX_AUTO_PAY_USDC, 10)."`
	AllowRepeat  bool    `json:"allowRepeat,omitempty" jsonschema_description:"Buy again even though this wallet already bought the resource (refused by default with ALREADY_PURCHASED)."`
	// IdempotencyKey names one purchase: the same key from the same wallet never pays twice.
	IdempotencyKey *string `json:"idempotencyKey,omitempty" validate:"omitnil,idemkey" jsonschema_description:"Names this purchase so it is paid at most once: reuse the same key when you retry the same purchase (after a timeout or an unknown outcome), use a new key for a new purchase. 8-64 of A-Z a-z 0-9 _ -."`
	DryRun         bool    `json:"dryRun,omitempty" jsonschema_description:"Check price, wallet and network and show what would be paid; send nothing."`
	Profile        *string `json:"profile,omitempty" validate:"omitnil,profile" jsonschema_description:"Credential profile that pays (default: the configured default profile)."`
	Confirm
}

// DryRunRequested implements DryRunner.
func (b *Buy) DryRunRequested() bool { return b.DryRun }

// PurchaseHistory is mindvault_purchase_history.
type PurchaseHistory struct {
	Profile    *string `json:"profile,omitempty" validate:"omitnil,profile" jsonschema_description:"Credential profile whose wallet's purchases to list (default: the configured default profile)."`
	ResourceID *string `json:"resourceId,omitempty" validate:"omitnil,resourceid" jsonschema_description:"Only purchases of this resource."`
	Limit      int     `json:"limit,omitempty" validate:"min=1,max=100" jsonschema:"default=20" jsonschema_description:"Most purchases to return, newest first, 1-100."`
}

// NewResource is what describes a new resource to publish: title, price and externalUrl
// together, description optional. A resumed resource (resourceId) takes none of it, which
// Publish's cross-check enforces argument by argument (newResourceFields).
type NewResource struct {
	Title       *string `json:"title,omitempty" validate:"omitnil,min=1,max=256" jsonschema_description:"Title shown in the catalog. Required unless resourceId is given."`
	Description *string `json:"description,omitempty" validate:"omitnil,min=1,max=2048" jsonschema_description:"What buyers get. Not with resourceId."`
	Price       *string `json:"price,omitempty" validate:"omitnil,usdcpos" jsonschema_description:"Price in USDC, a string or a number above 0 with at most 7 decimals, e.g. 1.5 or \"1.5\". Required unless resourceId is given."`
	ExternalURL *string `json:"externalUrl,omitempty" validate:"omitnil,httpurl" jsonschema_description:"The http(s) link buyers receive after paying. Required unless resourceId is given."`
}

// Publish is mindvault_publish: a new resource (title, price and externalUrl), or resourceId
// to resume one the publisher already created.
type Publish struct {
	NewResource
	ResourceID     *string `json:"resourceId,omitempty" validate:"omitnil,resourceid" jsonschema_description:"Resume a resource you created whose verification fee was never paid or whose on-chain registration failed: only the missing steps run. Instead of title, description, price and externalUrl."`
	MaxFeeUSDC     *string `json:"maxFeeUsdc,omitempty" validate:"omitnil,usdcpos" jsonschema_description:"Most you agree to pay for verification, in USDC: a string or a number with at most 7 decimals (default: MINDVAULT_MAX_AUTO_PAY_USDC)."`
	IdempotencyKey *string `json:"idempotencyKey,omitempty" validate:"omitnil,idemkey" jsonschema_description:"Names this publication so it creates one resource and pays one fee however often it is sent: reuse the same key when you retry the same publication, use a new key for a new one. 8-64 of A-Z a-z 0-9 _ -."`
	DryRun         bool    `json:"dryRun,omitempty" jsonschema_description:"Check everything the real call needs (API key, wallet, USDC for the current fee, maxFeeUsdc, mainnet confirmation) and show the steps; send nothing."`
	Profile        *string `json:"profile,omitempty" validate:"omitnil,profile" jsonschema_description:"Publisher profile (needs a wallet and an API key from mindvault_register)."`
	ConfirmMainnet bool    `json:"confirmMainnet,omitempty" jsonschema_description:"Must be true on mainnet (real funds), for a dry run too, unless the operator set MINDVAULT_ALLOW_MAINNET."`
}

// MainnetConfirmed implements MainnetConfirmer; publish's own description says that a dry
// run needs the confirmation too.
func (p *Publish) MainnetConfirmed() bool { return p.ConfirmMainnet }

// DryRunRequested implements DryRunner.
func (p *Publish) DryRunRequested() bool { return p.DryRun }

// newResourceFields are the arguments that describe a new resource, in the model's order.
var newResourceFields = []string{"title", "description", "price", "externalUrl"}

// CrossCheck enforces the two shapes: title, price and externalUrl for a new resource, or
// resourceId alone to resume one.
func (p *Publish) CrossCheck() []Issue {
	given := map[string]bool{"title": p.Title != nil, "description": p.Description != nil, "price": p.Price != nil, "externalUrl": p.ExternalURL != nil}
	var issues []Issue
	for _, f := range newResourceFields {
		switch {
		case p.ResourceID != nil && given[f]:
			issues = append(issues, Issue{Path: "/" + f, Rule: "excluded_with", Expected: "absent when resourceId is given",
				Message: "must not be combined with resourceId (a resumed resource keeps what it was created with)"})
		case p.ResourceID == nil && !given[f] && f != "description":
			issues = append(issues, Issue{Path: "/" + f, Rule: "required_without", Expected: "a value unless resourceId is given",
				Message: "is required unless resourceId is given"})
		}
	}
	return issues
}

// DependentRequired advertises the part of the cross-field rule JSON Schema can say without a
// top-level combinator (as dependentRequired, when the tool definitions are generated): a new
// resource names title, price and externalUrl together.
func (Publish) DependentRequired() map[string][]string {
	return map[string][]string{
		"title":       {"price", "externalUrl"},
		"price":       {"title", "externalUrl"},
		"externalUrl": {"title", "price"},
	}
}

// Register is mindvault_register.
type Register struct {
	Name          string  `json:"name" validate:"required,max=128" jsonschema_description:"Publisher name shown to buyers."`
	Email         string  `json:"email" validate:"required,max=254,email" jsonschema_description:"Contact email (one publisher per email)."`
	WalletAddress *string `json:"walletAddress,omitempty" validate:"omitnil,gaccount" jsonschema_description:"Payout wallet (default: the profile's wallet)."`
	Profile       *string `json:"profile,omitempty" validate:"omitnil,profile" jsonschema_description:"Profile that stores the API key (default: the configured default profile)."`
	Confirm
}

// RegisterOnchain is mindvault_register_onchain.
type RegisterOnchain struct {
	ResourceID string  `json:"resourceId" validate:"required,resourceid" jsonschema_description:"A verified resource of yours."`
	Profile    *string `json:"profile,omitempty" validate:"omitnil,profile" jsonschema_description:"Publisher profile (wallet and API key)."`
	Confirm
}

// SetupWallet is mindvault_setup_wallet.
type SetupWallet struct {
	Profile        string `json:"profile" validate:"required,profile" jsonschema_description:"Name of the new profile that will hold the wallet."`
	ConfirmMainnet bool   `json:"confirmMainnet,omitempty" jsonschema_description:"Must be true on mainnet unless the operator set MINDVAULT_ALLOW_MAINNET."`
}

// MainnetConfirmed implements MainnetConfirmer.
func (s *SetupWallet) MainnetConfirmed() bool { return s.ConfirmMainnet }

// ListProfiles is mindvault_list_profiles: no arguments.
type ListProfiles struct{}

// ActingProfile implements Acting.
func (r *Buy) ActingProfile() *string { return r.Profile }

// ActingProfile implements Acting.
func (r *Publish) ActingProfile() *string { return r.Profile }

// ActingProfile implements Acting.
func (r *Register) ActingProfile() *string { return r.Profile }

// ActingProfile implements Acting.
func (r *RegisterOnchain) ActingProfile() *string { return r.Profile }

// ActingProfile implements Acting.
func (r *SetupWallet) ActingProfile() *string { return &r.Profile }
