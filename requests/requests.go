// Package requests holds one typed request struct per tool: the request models.
//
// Tags are the single source of truth for each argument (see package validate): `json` is
// its name, `validate` its rules (including the shared shapes of tools.md: resourceid,
// profile, usdc, usdcpos, gaccount, txhash, metaptr, tag, httpurl), `jsonschema_description`
// what an agent reads. Optional arguments are pointers (or carry a jsonschema default), so
// "absent" and "zero" never mix.
package requests

// NetworkProfile is mindvault_network_profile: no arguments.
type NetworkProfile struct{}

// Browse is mindvault_browse: every catalog filter, none required.
type Browse struct {
	Query              *string  `json:"query,omitempty" validate:"omitnil,min=1,max=256" jsonschema_description:"Keyword matched against title and description (case-insensitive)."`
	MinPrice           *string  `json:"minPrice,omitempty" validate:"omitnil,usdc" jsonschema_description:"Lowest price in USDC, e.g. \"0.5\"."`
	MaxPrice           *string  `json:"maxPrice,omitempty" validate:"omitnil,usdc" jsonschema_description:"Highest price in USDC; must not be below minPrice."`
	VerificationStatus *string  `json:"verificationStatus,omitempty" validate:"omitnil,oneof=pending verified rejected skipped" jsonschema_description:"Only resources with this verification status."`
	ResourceType       *string  `json:"resourceType,omitempty" validate:"omitnil,oneof=file link" jsonschema_description:"Only files or only links."`
	Owner              *string  `json:"owner,omitempty" validate:"omitnil,min=1,max=128" jsonschema_description:"Publisher name or wallet address (substring match)."`
	Sort               *string  `json:"sort,omitempty" validate:"omitnil,oneof=newest price_asc price_desc title" jsonschema_description:"Order of the results (default newest)."`
	Limit              int      `json:"limit,omitempty" validate:"min=1,max=100" jsonschema:"default=20" jsonschema_description:"Page size, 1-100."`
	Offset             int      `json:"offset,omitempty" validate:"min=0" jsonschema:"default=0" jsonschema_description:"Rows to skip; use nextOffset from the previous page."`
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
