package tools

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/mindvault/mcp-endpoint/clients/mindvault"
	"github.com/mindvault/mcp-endpoint/clients/registry"
	"github.com/mindvault/mcp-endpoint/clients/soroban"
	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/requests"
)

// LiveInfo is what the deployed contract says about itself.
type LiveInfo struct {
	Name                  string `json:"name"`
	Version               string `json:"version"`
	ResourceSchemaVersion string `json:"resourceSchemaVersion"`
}

// RegistryInfoOutput is the result of mindvault_registry_info.
type RegistryInfoOutput struct {
	ContractID        string    `json:"contractId"`
	Network           string    `json:"network"`
	NetworkPassphrase string    `json:"networkPassphrase"`
	RPCURL            string    `json:"rpcUrl"`
	X402Network       string    `json:"x402Network"`
	USDCContractID    string    `json:"usdcContractId"`
	Live              *LiveInfo `json:"live,omitempty"`
	LiveError         string    `json:"liveError,omitempty" jsonschema_description:"one-line summary of why registry_info could not be read"`
}

// RegistryInfo is mindvault_registry_info.
func RegistryInfo(d *Deps) *Tool {
	return Define(Spec[requests.RegistryInfo, RegistryInfoOutput]{
		Name:  "mindvault_registry_info",
		Title: "Registry info",
		Description: "Shows the vault-registry contract id, network, passphrase, RPC URL and USDC contract in use, plus the " +
			"contract's own registry_info when it is reachable (liveError otherwise; this tool always answers). Free. " +
			"Call it when registry tools fail with contract errors.",
		Operation: "Registry info failed",
		Source:    errmap.SourceRegistry,
		Hints:     Hints{ReadOnly: true, Idempotent: true, OpenWorld: true},
		Run: func(ctx context.Context, _ *requests.RegistryInfo) (*RegistryInfoOutput, error) {
			c := d.Config
			out := &RegistryInfoOutput{
				ContractID: c.RegistryContract, Network: string(c.Network), NetworkPassphrase: c.Passphrase,
				RPCURL: c.RPCURL, X402Network: c.X402Network, USDCContractID: c.USDCContractID,
			}
			if c.RegistryContract == "" {
				out.LiveError = "VAULT_REGISTRY_CONTRACT_ID is not set"
				return out, nil
			}
			info, err := d.Registry.Info(ctx)
			if err != nil {
				out.LiveError = summary(err, "registry_info")
				return out, nil
			}
			out.Live = &LiveInfo{Name: info.Name, Version: info.Version, ResourceSchemaVersion: info.ResourceSchemaVersion}
			return out, nil
		},
	})
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

// RegistryLookup is mindvault_registry_lookup.
func RegistryLookup(d *Deps) *Tool {
	return Define(Spec[requests.RegistryLookup, LookupOutput]{
		Name:  "mindvault_registry_lookup",
		Title: "Registry lookup",
		Description: "Reads one resource straight from the vault-registry contract on Stellar (creator, price, metadata, " +
			"listed, tags) without trusting the MindVault API. Free (a simulation, nothing is submitted). A resource " +
			"that is not on chain is a normal result with found: false and what to do next.",
		Operation: "Registry lookup failed",
		Source:    errmap.SourceRegistry,
		Hints:     Hints{ReadOnly: true, Idempotent: true, OpenWorld: true},
		Run: func(ctx context.Context, req *requests.RegistryLookup) (*LookupOutput, error) {
			out := &LookupOutput{ResourceID: req.ResourceID, ContractID: d.Config.RegistryContract, Network: string(d.Config.Network)}
			if !registry.OnchainID(req.ResourceID) {
				out.Message = fmt.Sprintf("%q cannot be an on-chain id (on-chain ids are 1-24 lowercase letters and digits); the contract was not called.", req.ResourceID)
				out.Next = notOnchainNext
				return out, nil
			}
			r, found, err := d.Registry.Get(ctx, req.ResourceID)
			if err != nil {
				return nil, err
			}
			if !found {
				out.Message = fmt.Sprintf("Resource %q is not registered in contract %s on %s: it may not be published or verified yet, or the id is wrong.", req.ResourceID, d.Config.RegistryContract, d.Config.Network)
				out.Next = notOnchainNext
				return out, nil
			}
			o := onchainResource(r)
			out.Found, out.ID, out.Creator, out.Price, out.Metadata = true, o.ID, o.Creator, o.Price, o.Metadata
			out.Listed, out.Tags, out.State, out.Verified = &o.Listed, o.Tags, o.State, o.Verified
			return out, nil
		},
	})
}

// RegistryListOutput is the result of mindvault_registry_list.
type RegistryListOutput struct {
	Count     int               `json:"count"`
	Resources []OnchainResource `json:"resources"`
	NextStart *uint32           `json:"nextStart" jsonschema:"nullable" jsonschema_description:"start of the next page; null at the end"`
	Message   string            `json:"message,omitempty"`
}

// RegistryList is mindvault_registry_list.
func RegistryList(d *Deps) *Tool {
	return Define(Spec[requests.RegistryList, RegistryListOutput]{
		Name:  "mindvault_registry_list",
		Title: "Registry list",
		Description: "Lists vault-registry entries straight from the contract in registration order, up to 20 per page; " +
			"pass nextStart to continue. Free (a simulation). An empty page is a normal result with a message.",
		Operation: "Registry list failed",
		Source:    errmap.SourceRegistry,
		Hints:     Hints{ReadOnly: true, Idempotent: true, OpenWorld: true},
		Run: func(ctx context.Context, req *requests.RegistryList) (*RegistryListOutput, error) {
			items, err := d.Registry.List(ctx, uint32(req.Start), uint32(req.Limit))
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
	})
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
	Summary      string              `json:"summary"`
}

// CheckConsistency is mindvault_check_consistency.
func CheckConsistency(d *Deps) *Tool {
	return Define(Spec[requests.CheckConsistency, ConsistencyOutput]{
		Name:  "mindvault_check_consistency",
		Title: "Check API vs chain",
		Description: "Compares what the MindVault API says about a resource with the vault-registry contract (price in " +
			"7-decimal units, listed, creator wallet), reading both in parallel. Free. Use it before buying to confirm " +
			"the price and owner on chain.",
		Operation: "Consistency check failed",
		Source:    errmap.SourceRegistry,
		Hints:     Hints{ReadOnly: true, Idempotent: true, OpenWorld: true},
		Run: func(ctx context.Context, req *requests.CheckConsistency) (*ConsistencyOutput, error) {
			var (
				meta         *mindvault.Meta
				onchain      *registry.Resource
				found        bool
				mErr, oErr   error
				canBeOnchain = registry.OnchainID(req.ResourceID)
			)
			parallel(
				func() { meta, mErr = d.API.Meta(ctx, req.ResourceID) },
				func() {
					if canBeOnchain {
						onchain, found, oErr = d.Registry.Get(ctx, req.ResourceID)
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
				Matches: map[string]Compared{}, Mismatches: map[string]Compared{}}
			if out.APIFound && out.OnchainFound {
				compare(out, "price", apiPrice(string(meta.Price)), soroban.Decimal(onchain.Price))
				listed := meta.VerificationStatus == "verified"
				if meta.Listed != nil {
					listed = *meta.Listed
				}
				compare(out, "listed", fmt.Sprint(listed), fmt.Sprint(onchain.Listed))
				compare(out, "creator", meta.PublisherWallet, onchain.Creator)
			}
			out.Summary = consistencySummary(out)
			return out, nil
		},
	})
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
	case len(o.Mismatches) == 0:
		return "API and chain agree on price, listing and creator."
	}
	var names []string
	for k := range o.Mismatches {
		names = append(names, k)
	}
	return fmt.Sprintf("Found %d mismatched field(s): %s. The chain is authoritative.", len(names), strings.Join(sortStrings(names), ", "))
}

func sortStrings(s []string) []string {
	sort.Strings(s)
	return s
}
