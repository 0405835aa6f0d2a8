package tools

import (
	"cmp"
	"context"

	"github.com/stellar/go-stellar-sdk/keypair"
	rpc "github.com/stellar/go-stellar-sdk/protocols/rpc"
	"github.com/stellar/go-stellar-sdk/xdr"

	"github.com/mindvault/mcp-endpoint/internal/auth"
	"github.com/mindvault/mcp-endpoint/internal/clients/horizon"
	"github.com/mindvault/mcp-endpoint/internal/clients/mindvault"
	"github.com/mindvault/mcp-endpoint/internal/clients/registry"
	"github.com/mindvault/mcp-endpoint/internal/clients/sponsor"
	"github.com/mindvault/mcp-endpoint/internal/clients/transport"
	"github.com/mindvault/mcp-endpoint/internal/clients/x402"
	"github.com/mindvault/mcp-endpoint/internal/config"
	"github.com/mindvault/mcp-endpoint/internal/confirm"
	"github.com/mindvault/mcp-endpoint/internal/credentials"
	"github.com/mindvault/mcp-endpoint/internal/ledger"
)

// The interfaces below are what the tools call on each downstream, so a workflow can be
// tested against small in-memory fakes; the concrete clients satisfy them.

// MindVaultAPI is all the tools call on the MindVault API.
type MindVaultAPI interface {
	Catalog(ctx context.Context, q mindvault.CatalogQuery) (*mindvault.Page, error)
	Meta(ctx context.Context, id string) (*mindvault.Meta, error)
	Verification(ctx context.Context, id string) (*mindvault.Verification, error)
	AgentStatus(ctx context.Context) (*mindvault.AgentStatus, error)
	// MalformedMeta is the failure of an API answer whose shape the tool cannot use.
	MalformedMeta(what string) error
	Payments(ctx context.Context, address string) ([]mindvault.Payment, error)
	RegisterPublisher(ctx context.Context, name, email, wallet string) (*mindvault.Publisher, error)
	CreateResource(ctx context.Context, apiKey string, r mindvault.NewResource) (*mindvault.Meta, error)
	PrepareRegistration(ctx context.Context, apiKey, id string) (*mindvault.Prepared, error)
	Register(ctx context.Context, apiKey, id, signedXDR string) (*mindvault.Registration, error)
}

// AccountReader reads Stellar accounts and the network Horizon serves.
type AccountReader interface {
	Account(ctx context.Context, address string) (acct *horizon.Account, found bool, err error)
	Root(ctx context.Context) (*horizon.Root, error)
}

// ChainReader is the Stellar RPC reads the tools make directly.
type ChainReader interface {
	GetTransaction(ctx context.Context, hash string) (*rpc.GetTransactionResponse, error)
	GetHealth(ctx context.Context) (*rpc.GetHealthResponse, error)
	GetNetwork(ctx context.Context) (*rpc.GetNetworkResponse, error)
}

// VaultRegistry reads the vault-registry contract, and writes once approve accepts the plan.
type VaultRegistry interface {
	Get(ctx context.Context, id string) (*registry.Resource, bool, error)
	List(ctx context.Context, start, limit uint32) ([]registry.Resource, error)
	Info(ctx context.Context) (*registry.Info, error)
	InvokeApproved(ctx context.Context, kp *keypair.Full, approve func(context.Context, registry.Plan) error, fn string, args ...xdr.ScVal) (*registry.Written, error)
}

// Payer performs a request that may ask for an x402 payment, in the steps payWith drives.
type Payer interface {
	Offer(ctx context.Context, req transport.Request, policy x402.Policy) (*x402.Offer, error)
	Sign(ctx context.Context, o *x402.Offer, kp *keypair.Full) (*x402.Signed, error)
	Send(ctx context.Context, o *x402.Offer, s *x402.Signed) (*x402.Outcome, error)
	// Service is the paid requests' service, which turns an unusable answer into a failure.
	Service() *transport.Service
}

// Sponsor creates sponsored wallets and probes the service's health.
type Sponsor interface {
	Create(ctx context.Context, publicKey string) (*sponsor.Wallet, error)
	Probe(ctx context.Context) (int, error)
}

// Deps is what handlers call: configuration, the credential store and one client per
// downstream; nothing in it holds request state.
type Deps struct {
	Config   *config.Config
	Store    credentials.Store
	API      MindVaultAPI
	Horizon  AccountReader
	RPC      ChainReader
	Registry VaultRegistry
	X402     Payer
	Sponsor  Sponsor
	// Confirm is the human-confirmation policy and key; nil never asks (confirm.go).
	Confirm *confirm.Settings
	// Ledger holds the budgets and the payment journal; LedgerErr is why there is none usable.
	Ledger    ledger.Store
	LedgerErr error
}

// profile loads the named profile (or the default); its secrets join the call's own list.
func (c *Call) profile(ctx context.Context, name *string) (credentials.Profile, error) {
	n := cmp.Or(deref(name), c.Config.DefaultProfile) // a profile argument is never empty
	if !auth.Permits(ctx, n) {
		return credentials.Profile{Name: n}, credentials.NotAllowed(n)
	}
	p, err := c.Store.Get(ctx, n)
	if err != nil {
		return credentials.Profile{Name: n}, err
	}
	c.addSecrets(p.Secrets()...)
	return p, nil
}

// address loads a profile and its wallet's address, for tools that read a wallet.
func (c *Call) address(ctx context.Context, name *string) (credentials.Profile, string, error) {
	p, err := c.profile(ctx, name)
	if err != nil {
		return p, "", err
	}
	addr, err := p.Address()
	if err != nil {
		return p, "", credentials.Missing(c.Store, p.Name, "valid wallet secret")
	}
	return p, addr, nil
}

// publisher loads a profile that can publish: a wallet and a publisher API key.
func (c *Call) publisher(ctx context.Context, profile *string) (credentials.Profile, *keypair.Full, error) {
	p, err := c.profile(ctx, profile)
	if err != nil {
		return p, nil, err
	}
	if p.APIKey == "" {
		return p, nil, credentials.Missing(c.Store, p.Name, "publisher API key (run mindvault_register first)")
	}
	kp, err := c.signer(p)
	return p, kp, err
}

// wallet loads the signing key of a profile; its secret joins the redaction set.
func (c *Call) wallet(ctx context.Context, profile *string) (*keypair.Full, error) {
	p, err := c.profile(ctx, profile)
	if err != nil {
		return nil, err
	}
	return c.signer(p)
}

// signer is the signing key of a loaded profile.
func (c *Call) signer(p credentials.Profile) (*keypair.Full, error) {
	if p.SecretKey == "" {
		return nil, credentials.Missing(c.Store, p.Name, "wallet")
	}
	kp, err := keypair.ParseFull(p.SecretKey)
	if err != nil {
		return nil, credentials.Missing(c.Store, p.Name, "valid wallet secret")
	}
	return kp, nil
}
