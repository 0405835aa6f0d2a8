package tools

import (
	"slices"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/validate"
)

// served is every tool this build serves. All binds each to the Deps; init declares each
// one's Guide to errmap when the process starts, so a failure mapped anywhere, before All or
// without it, gets the tool's advice.
var served = []spec{
	networkProfile, browse, search, preview, publishStatus, agentStatus, walletInfo, txStatus,
	health, registryInfo, registryLookup, registryList, checkConsistency, buy, purchaseHistory,
	publish, register, registerOnchain, setupWallet, listProfiles,
	setPrice, updateMetadata, setListed, setTags, transferOwnership,
}

func init() {
	for _, s := range served {
		name, g := s.guide()
		errmap.Declare(name, g)
	}
}

// All builds the registry of every tool this build serves, each Spec bound to d.
func All(d *Deps) *Registry {
	ts := make([]*Tool, len(served))
	for i, s := range served {
		ts[i] = s.define(d)
	}
	return NewRegistry(ts...)
}

// spec is a Spec of any request and output types, as served lists it.
type spec interface {
	define(d *Deps) *Tool
	guide() (name string, g errmap.Guide)
}

func (s Spec[Req, Out]) define(d *Deps) *Tool { return Define(d, s) }

// guide is the tool's name and Guide, with the Profile trait its request model implies.
func (s Spec[Req, Out]) guide() (string, errmap.Guide) {
	g := s.Guide
	g.Profile = slices.Contains(validate.For[Req]().Names(), "profile")
	return s.Name, g
}
