package tools

// All builds the registry of every tool this build serves.
func All(d *Deps) *Registry {
	r := NewRegistry(
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
		SetPrice(d),
		UpdateMetadata(d),
		SetListed(d),
		SetTags(d),
		TransferOwnership(d),
		Buy(d),
		PurchaseHistory(d),
		Publish(d),
		Register(d),
		RegisterOnchain(d),
		SetupWallet(d),
		ListProfiles(d),
	)
	r.keeper = d.Confirm
	return r
}
