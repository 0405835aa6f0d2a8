package tools

import (
	"context"

	"github.com/stellar/go-stellar-sdk/keypair"

	"github.com/mindvault/mcp-endpoint/auth"

	"github.com/mindvault/mcp-endpoint/clients/horizon"
	"github.com/mindvault/mcp-endpoint/clients/mindvault"
	"github.com/mindvault/mcp-endpoint/clients/registry"
	"github.com/mindvault/mcp-endpoint/clients/sponsor"
	"github.com/mindvault/mcp-endpoint/clients/stellarrpc"
	"github.com/mindvault/mcp-endpoint/clients/x402"
	"github.com/mindvault/mcp-endpoint/config"
	"github.com/mindvault/mcp-endpoint/confirm"
	"github.com/mindvault/mcp-endpoint/credentials"
)

// Deps is what handlers call: configuration, the credential store and one client per
// downstream. Built once per process; nothing in it holds request state.
type Deps struct {
	Config  *config.Config
	Store   credentials.Store
	API     *mindvault.Client
	Horizon *horizon.Client
	RPC     *stellarrpc.Client
	// Registry reads and writes the vault-registry contract over RPC.
	Registry *registry.Client
	// X402 performs paid requests against the MindVault API.
	X402 *x402.Client
	// Sponsor creates sponsored wallets.
	Sponsor *sponsor.Client
	// Confirm is the human-confirmation policy and key; nil never asks (confirm.go).
	Confirm *confirm.Keeper
}

// profile loads the named profile (or the default). The store has made its secrets known to
// the process-wide redaction already; WithSecrets adds them to the call's own collector too.
func (d *Deps) profile(ctx context.Context, name *string) (context.Context, credentials.Profile, error) {
	n := d.Config.DefaultProfile
	if name != nil {
		n = *name
	}
	if !auth.Permits(ctx, n) {
		return ctx, credentials.Profile{Name: n}, credentials.NotAllowed(n)
	}
	p, err := d.Store.Get(ctx, n)
	if err != nil {
		return ctx, credentials.Profile{Name: n}, err
	}
	return WithSecrets(ctx, p.Secrets()...), p, nil
}

// address loads a profile and its wallet's address, for the tools that read a wallet
// without signing for it.
func (d *Deps) address(ctx context.Context, name *string) (context.Context, credentials.Profile, string, error) {
	ctx, p, err := d.profile(ctx, name)
	if err != nil {
		return ctx, p, "", err
	}
	addr, err := p.Address()
	if err != nil {
		return ctx, p, "", credentials.Missing(d.Store, p.Name, "valid wallet secret")
	}
	return ctx, p, addr, nil
}

// publisher loads a profile that can publish: a wallet and a publisher API key.
func (d *Deps) publisher(ctx context.Context, profile *string) (context.Context, credentials.Profile, *keypair.Full, error) {
	ctx, p, err := d.profile(ctx, profile)
	if err != nil {
		return ctx, p, nil, err
	}
	if p.APIKey == "" {
		return ctx, p, nil, credentials.Missing(d.Store, p.Name, "publisher API key (run mindvault_register first)")
	}
	ctx, kp, err := d.wallet(ctx, profile)
	return ctx, p, kp, err
}

// wallet loads the signing key of a profile; its secret joins the redaction set.
func (d *Deps) wallet(ctx context.Context, profile *string) (context.Context, *keypair.Full, error) {
	ctx, p, err := d.profile(ctx, profile)
	if err != nil {
		return ctx, nil, err
	}
	if p.SecretKey == "" {
		return ctx, nil, credentials.Missing(d.Store, p.Name, "wallet")
	}
	kp, err := keypair.ParseFull(p.SecretKey)
	if err != nil {
		return ctx, nil, credentials.Missing(d.Store, p.Name, "valid wallet secret")
	}
	return ctx, kp, nil
}
