package tools

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/clients/mindvault"
	"github.com/mindvault/mcp-endpoint/internal/clients/registry"
	"github.com/mindvault/mcp-endpoint/internal/clients/soroban"
	"github.com/mindvault/mcp-endpoint/internal/config"
	"github.com/mindvault/mcp-endpoint/validate"
)

// CheckConsistencyInput is mindvault_check_consistency.
type CheckConsistencyInput struct {
	ResourceID string `json:"resourceId" validate:"required,resourceid" jsonschema_description:"Resource id to compare between the MindVault API and the chain."`
}

// Compared is one field seen by the API and on chain.
type Compared struct {
	API     string `json:"api"`
	Onchain string `json:"onchain"`
}

// ConsistencyOutput is the result of mindvault_check_consistency.
type ConsistencyOutput struct {
	ResourceID   string              `json:"resourceId"`
	APIFound     bool                `json:"apiFound"`
	OnchainFound bool                `json:"onchainFound"`
	Matches      map[string]Compared `json:"matches"`
	Mismatches   map[string]Compared `json:"mismatches"`
	Unknown      map[string]Compared `json:"unknown,omitempty" jsonschema_description:"fields one side did not say (the API's listed comes from its verification record), neither match nor mismatch"`
	Summary      string              `json:"summary"`
}

var checkConsistency = Spec[CheckConsistencyInput, ConsistencyOutput]{
	Name:      "mindvault_check_consistency",
	Toolset:   config.ToolsetRegistry,
	Title:     "Check API vs chain",
	Operation: "Consistency check failed",
	Description: `Compares what the MindVault API says about a resource with the vault-registry contract
		(price in 7-decimal units, listed, creator wallet), reading both in parallel; the API's
		listed comes from its verification record, and a field one side does not say is reported
		as unknown, never guessed. Free. Use it
		before buying to confirm the price and owner on chain.`,
	Kind: lookup(errmap.SourceRegistry),
	Guide: errmap.Guide{Role: errmap.RoleCompare,
		Codes: map[string]string{errmap.CodePriceMismatch: "Call mindvault_check_consistency again once the publisher has synced the API and on-chain prices."},
	},
	Run: func(ctx context.Context, c *Call, req *CheckConsistencyInput) (*ConsistencyOutput, error) {
		var (
			meta       *mindvault.Meta
			ver        *mindvault.Verification
			onchain    *registry.Resource
			found      bool
			mErr, oErr error
		)
		parallel(
			func() { meta, mErr = c.API.Meta(ctx, req.ResourceID) },
			// /meta has no listed; the verification record does (false once delisted).
			func() { ver, _ = c.API.Verification(ctx, req.ResourceID) },
			func() {
				if validate.OnchainID(req.ResourceID) {
					onchain, found, oErr = c.Registry.Get(ctx, req.ResourceID)
				}
			},
		)
		if mErr != nil && !isStatus(mErr, 404) {
			return nil, mErr
		}
		if oErr != nil {
			return nil, oErr
		}
		out := &ConsistencyOutput{ResourceID: req.ResourceID, APIFound: mErr == nil, OnchainFound: found,
			Matches: map[string]Compared{}, Mismatches: map[string]Compared{}, Unknown: map[string]Compared{}}
		if out.APIFound && out.OnchainFound {
			compare(out, "price", apiPrice(string(meta.Price)), soroban.Decimal(onchain.Price))
			listed := "unknown"
			switch {
			case ver != nil && ver.Listed != nil:
				listed = fmt.Sprint(*ver.Listed)
			case meta.Listed != nil:
				listed = fmt.Sprint(*meta.Listed)
			}
			compare(out, "listed", listed, fmt.Sprint(onchain.Listed))
			compare(out, "creator", meta.PublisherWallet, onchain.Creator)
		}
		out.Summary = consistencySummary(out)
		return out, nil
	},
}

// apiPrice normalises the API's decimal price to 7 places so "1.5" equals 15000000 units.
func apiPrice(p string) string {
	u, err := soroban.Units(p)
	if err != nil {
		return p
	}
	return soroban.Decimal(u)
}

func compare(out *ConsistencyOutput, field, api, onchain string) {
	c := Compared{API: api, Onchain: onchain}
	if api == "unknown" || api == "" && onchain != "" {
		out.Unknown[field] = c
		return
	}
	if api == onchain {
		out.Matches[field] = c
	} else {
		out.Mismatches[field] = c
	}
}

func consistencySummary(o *ConsistencyOutput) string {
	switch {
	case !o.APIFound && !o.OnchainFound:
		return "Neither the API nor the registry knows this resource; check the id with mindvault_search."
	case !o.OnchainFound:
		return "Listed in the API but not registered on chain; the creator can run mindvault_register_onchain."
	case !o.APIFound:
		return "Registered on chain but unknown to the API."
	case len(o.Mismatches) == 0 && len(o.Unknown) == 0:
		return "API and chain agree on price, listing and creator."
	case len(o.Mismatches) == 0:
		return fmt.Sprintf("API and chain agree on %s; the API did not say %s, so that is unknown.", strings.Join(sortedKeys(o.Matches), ", "), strings.Join(sortedKeys(o.Unknown), ", "))
	}
	names := sortedKeys(o.Mismatches)
	return fmt.Sprintf("Found %d mismatched field(s): %s. The chain is authoritative.", len(names), strings.Join(names, ", "))
}

func sortedKeys(m map[string]Compared) []string { return slices.Sorted(maps.Keys(m)) }
