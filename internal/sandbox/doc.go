// Package sandbox runs in-process simulators of the endpoint's downstreams (the MindVault API with
// its x402 paywall and facilitator, Horizon, Stellar RPC with the vault-registry and USDC
// contracts, the sponsored-account service) on 127.0.0.1, for the offline demo and as the test bed.
// They speak the real wire formats, so the product's clients run unchanged against them; this is
// the only place downstreams are faked, and only local builds and tests link it (docs/sandbox.md).
package sandbox
