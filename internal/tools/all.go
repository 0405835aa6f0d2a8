package tools

// All builds the registry of every tool this build serves, each Spec bound to d. It lists them
// from their generated definitions and defines them (Define) on the first call of one, so that
// a start, and a tools/list, pay for none of it.
func All(d *Deps) *Registry {
	r := newGeneratedRegistry(func() []*Tool { return allTools(d) })
	r.keeper = d.Confirm
	return r
}

// allTools defines every tool this build serves, each Spec bound to d.
func allTools(d *Deps) []*Tool {
	return []*Tool{
		Define(d, networkProfile),
		Define(d, browse),
		Define(d, search),
		Define(d, preview),
		Define(d, publishStatus),
		Define(d, agentStatus),
		Define(d, walletInfo),
		Define(d, txStatus),
		Define(d, health),
		Define(d, registryInfo),
		Define(d, registryLookup),
		Define(d, registryList),
		Define(d, checkConsistency),
		Define(d, buy),
		Define(d, purchaseHistory),
		Define(d, publish),
		Define(d, register),
		Define(d, registerOnchain),
		Define(d, setupWallet),
		Define(d, listProfiles),
		Define(d, setPrice),
		Define(d, updateMetadata),
		Define(d, setListed),
		Define(d, setTags),
		Define(d, transferOwnership),
	}
}
