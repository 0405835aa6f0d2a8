package tools

// All builds the registry of every tool this build serves.
func All(d *Deps) *Registry {
	tools := []*Tool{
		NetworkProfile(d.Config),
		Browse(d),
		Search(d),
		Preview(d),
		PublishStatus(d),
		AgentStatus(d),
		WalletInfo(d),
		TxStatus(d),
		Health(d),
		RegistryInfo(d),
		RegistryLookup(d),
		RegistryList(d),
		CheckConsistency(d),
		Buy(d),
		PurchaseHistory(d),
		Publish(d),
		Register(d),
		RegisterOnchain(d),
		SetupWallet(d),
		ListProfiles(d),
	}
	r := NewRegistry(append(tools, RegistryWrites(d)...)...)
	r.keeper = d.Confirm
	return r
}
