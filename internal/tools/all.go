package tools

// All builds the registry of every tool this build serves, each Spec bound to d.
func All(d *Deps) *Registry {
	return NewRegistry(
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
	)
}
