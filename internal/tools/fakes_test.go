package tools

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"

	"github.com/stellar/go-stellar-sdk/keypair"
	rpc "github.com/stellar/go-stellar-sdk/protocols/rpc"
	"github.com/stellar/go-stellar-sdk/xdr"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/auth"
	"github.com/mindvault/mcp-endpoint/internal/clients/horizon"
	"github.com/mindvault/mcp-endpoint/internal/clients/mindvault"
	"github.com/mindvault/mcp-endpoint/internal/clients/registry"
	"github.com/mindvault/mcp-endpoint/internal/clients/transport"
	"github.com/mindvault/mcp-endpoint/internal/clients/x402"
	"github.com/mindvault/mcp-endpoint/internal/credentials"
	"github.com/mindvault/mcp-endpoint/internal/ledger"
	"github.com/mindvault/mcp-endpoint/internal/mcp"
)

// These tests drive the workflows through the Deps interfaces with in-memory fakes: no
// network, milliseconds each. Each fake embeds its interface unset, so a call the test did
// not expect panics instead of passing silently. The sandbox-backed endpoint tests cover the
// same workflows over the wire.

// fakeAPI answers the MindVault reads from memory and counts resources it was asked to create.
type fakeAPI struct {
	MindVaultAPI
	meta     *mindvault.Meta
	payments []mindvault.Payment
	catalog  error
	fee      mindvault.Decimal
	mu       sync.Mutex
	creates  int
	queries  []mindvault.CatalogQuery // what Catalog was asked
}

func (f *fakeAPI) AgentStatus(context.Context) (*mindvault.AgentStatus, error) {
	s := &mindvault.AgentStatus{}
	s.Agent.PricePerVerification = f.fee
	return s, nil
}
func (f *fakeAPI) CreateResource(context.Context, string, mindvault.NewResource) (*mindvault.Meta, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.creates++
	return nil, errors.New("fake API: creates nothing in unit tests")
}

func (f *fakeAPI) Meta(context.Context, string) (*mindvault.Meta, error) { return f.meta, nil }
func (f *fakeAPI) Payments(context.Context, string) ([]mindvault.Payment, error) {
	return f.payments, nil
}
func (f *fakeAPI) Catalog(_ context.Context, q mindvault.CatalogQuery) (*mindvault.Page, error) {
	f.mu.Lock()
	f.queries = append(f.queries, q)
	f.mu.Unlock()
	if f.catalog != nil {
		return nil, f.catalog
	}
	return &mindvault.Page{}, nil
}

// fakeHorizon holds one account with a USDC balance, and the network it serves.
type fakeHorizon struct {
	AccountReader
	issuer, usdc, passphrase string
}

func (f *fakeHorizon) Account(context.Context, string) (*horizon.Account, bool, error) {
	return &horizon.Account{Balances: []horizon.Balance{
		{Balance: "100.0000000", Asset: horizon.Asset{Type: "native"}},
		{Balance: f.usdc, Asset: horizon.Asset{Type: "credit_alphanum4", Code: "USDC", Issuer: f.issuer}},
	}}, true, nil
}
func (f *fakeHorizon) Root(context.Context) (*horizon.Root, error) {
	return &horizon.Root{NetworkPassphrase: f.passphrase}, nil
}

// fakePayer counts the paid requests it was asked to make; it pays nothing.
type fakePayer struct {
	mu    sync.Mutex
	calls int
}

func (f *fakePayer) Offer(context.Context, transport.Request, x402.Policy) (*x402.Offer, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	return nil, errors.New("fake payer: no payment in unit tests")
}
func (f *fakePayer) Sign(context.Context, *x402.Offer, *keypair.Full) (*x402.Signed, error) {
	return nil, errors.New("fake payer: no payment in unit tests")
}
func (f *fakePayer) Send(context.Context, *x402.Offer, *x402.Signed) (*x402.Outcome, error) {
	return nil, errors.New("fake payer: no payment in unit tests")
}
func (f *fakePayer) Service() *transport.Service {
	return &transport.Service{Source: errmap.SourceX402}
}

// fakeRPC answers health and network.
type fakeRPC struct {
	ChainReader
	status, passphrase string
}

func (f *fakeRPC) GetHealth(context.Context) (*rpc.GetHealthResponse, error) {
	return &rpc.GetHealthResponse{Status: f.status}, nil
}
func (f *fakeRPC) GetNetwork(context.Context) (*rpc.GetNetworkResponse, error) {
	return &rpc.GetNetworkResponse{Passphrase: f.passphrase}, nil
}

// fakeRegistry holds one entry and counts the writes it was asked to send.
type fakeRegistry struct {
	VaultRegistry
	cur    *registry.Resource
	info   error
	mu     sync.Mutex
	writes int
}

func (f *fakeRegistry) Get(context.Context, string) (*registry.Resource, bool, error) {
	return f.cur, f.cur != nil, nil
}
func (f *fakeRegistry) Info(context.Context) (*registry.Info, error) {
	if f.info != nil {
		return nil, f.info
	}
	return &registry.Info{Name: "vault-registry"}, nil
}
func (f *fakeRegistry) InvokeApproved(context.Context, *keypair.Full, func(context.Context, registry.Plan) error, string, ...xdr.ScVal) (*registry.Written, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.writes++
	return &registry.Written{Hash: "ab", Ledger: 1}, nil
}

// fakeDeps is a testnet configuration with one wallet profile, and the wallet's key.
func fakeDeps(t *testing.T) (*Deps, *keypair.Full) {
	t.Helper()
	kp := keypair.MustRandom()
	cfg := testConfig(t, nil)
	store := credentials.NewEnv(func(k string) string {
		return map[string]string{"MINDVAULT_AGENT_SECRET": kp.Seed()}[k]
	}, cfg.DefaultProfile)
	return &Deps{Config: cfg, Store: store, Ledger: ledger.NewMemory()}, kp
}

func callTool(t *testing.T, tool *Tool, args string) mcp.ToolResult {
	t.Helper()
	// Inbound auth mode none: the caller may use every profile.
	return tool.call(auth.WithAllowed(context.Background(), nil, true, false), json.RawMessage(args))
}

// TestFailureEditsLeaveOriginal: the tools add what they learned to a failure as a new value;
// the failure they were handed (which a parallel read or a caller may still hold) keeps its facts.
func TestFailureEditsLeaveOriginal(t *testing.T) {
	buy := &BuyInput{ResourceID: "guide"}
	for _, tc := range []struct {
		name  string
		edit  func(error) error
		check func(errmap.Facts) bool
	}{
		{name: "readStarted", edit: readStarted, check: func(f errmap.Facts) bool { return f.ExecutionStarted }},
		{name: "withSignedHash", edit: func(err error) error { return withSignedHash(err, "abc") },
			check: func(f errmap.Facts) bool { return f.TxHash == "abc" && f.LookUpTx }},
		{name: "checkPurchaseAction", edit: func(err error) error { return checkPurchaseAction(err, buy) },
			check: func(f errmap.Facts) bool {
				return f.NextAction != nil && f.NextAction.Tool == "mindvault_purchase_history"
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			orig := &errmap.Error{Err: errors.New("cause"), Facts: errmap.Facts{Source: errmap.SourceRPC, StateChanged: errmap.StateUnknown}}
			before := orig.Facts
			got, _ := errmap.FactsOf(tc.edit(orig))
			if !tc.check(got) {
				t.Fatalf("edit not applied: %+v", got)
			}
			if orig.Facts.ExecutionStarted != before.ExecutionStarted || orig.Facts.TxHash != before.TxHash || orig.Facts.NextAction != before.NextAction {
				t.Fatalf("original changed: %+v", orig.Facts)
			}
		})
	}
}
