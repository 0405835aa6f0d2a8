package tools

import (
	"slices"
	"sync"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/validate"
)

// specs is every tool of this build (TestGeneratedDefinitions checks it against the generated ones).
func specs() []anySpec {
	return []anySpec{agentStatus, browse, search, buy, checkConsistency, health, listProfiles, networkProfile,
		preview, publish, publishStatus, purchaseHistory, register, registerOnchain, registryInfo, registryList,
		registryLookup, setPrice, updateMetadata, setListed, setTags, transferOwnership, setupWallet, txStatus,
		walletInfo}
}

// Guides is every tool's Guide, built on the first failure mapped.
var Guides = sync.OnceValue(func() *errmap.Guides {
	byTool := map[string]errmap.Guide{}
	for _, s := range specs() {
		name, g := s.guide()
		byTool[name] = g
	}
	return errmap.NewGuides(byTool)
})

// All builds the registry of every tool, each defined with d on the first call of one.
func All(d *Deps) *Registry {
	return newGeneratedRegistry(func() []*Tool { return allTools(d) })
}

// allTools defines every tool of this build, each Spec bound to d.
func allTools(d *Deps) (ts []*Tool) {
	for _, s := range specs() {
		ts = append(ts, s.Define(d))
	}
	return ts
}

// anySpec is a Spec of any request and output types, as specs lists it.
type anySpec interface {
	Define(d *Deps) *Tool
	guide() (name string, g errmap.Guide)
}

// guide is the tool's name and Guide, with the Profile trait its request model implies.
func (s Spec[Req, Out]) guide() (string, errmap.Guide) {
	g := s.Guide
	g.Profile = slices.Contains(validate.For[Req]().Names(), "profile")
	return s.Name, g
}
