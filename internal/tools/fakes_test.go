package tools

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
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
func (f *fakeAPI) Catalog(context.Context, mindvault.CatalogQuery) (*mindvault.Page, error) {
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
	return &Deps{Config: cfg, Store: store, Ledger: ledger.NewMemoryStore()}, kp
}

func callTool(t *testing.T, tool *Tool, args string) mcp.ToolResult {
	t.Helper()
	// Inbound auth mode none: the caller may use every profile.
	return tool.call(auth.WithAllowed(context.Background(), nil, true, false), json.RawMessage(args))
}

// TestBuyRefusesBeforePaying: every refusal the buy workflow makes from what it read comes
// before the payer is asked for anything; the control row proves the counter sees a call.
func TestBuyRefusesBeforePaying(t *testing.T) {
	for _, tc := range []struct {
		name, args, usdc, code string
		history                []mindvault.Payment
		paid                   int
	}{
		{name: "price above cap", args: `{"resourceId":"guide","maxPriceUsdc":"1"}`, usdc: "100", code: errmap.CodePriceAboveCap},
		{name: "insufficient USDC", args: `{"resourceId":"guide"}`, usdc: "1.5", code: errmap.CodeInsufficientUSDC},
		{name: "repeat purchase", args: `{"resourceId":"guide"}`, usdc: "100", code: errmap.CodeAlreadyPurchased,
			history: []mindvault.Payment{{PaymentID: "p1", ResourceID: "guide", Amount: "2"}}},
		{name: "control: pays", args: `{"resourceId":"guide","allowRepeat":true}`, usdc: "100", paid: 1,
			history: []mindvault.Payment{{PaymentID: "p1", ResourceID: "guide", Amount: "2"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, _ := fakeDeps(t)
			d.Config.MaxAutoPayUSDC = "5"
			payer := &fakePayer{}
			d.API = &fakeAPI{meta: &mindvault.Meta{Listing: mindvault.Listing{ID: "guide", Title: "Guide", Price: "2", ResourceType: "link"}}, payments: tc.history}
			d.Horizon = &fakeHorizon{issuer: d.Config.USDCIssuer, usdc: tc.usdc}
			d.X402 = payer
			res := callTool(t, Define(d, buy), tc.args)
			if payer.calls != tc.paid {
				t.Fatalf("payer saw %d calls, want %d", payer.calls, tc.paid)
			}
			if tc.code != "" && (!res.IsError || res.Code != tc.code) {
				t.Fatalf("got isError %v code %q, want %s: %+v", res.IsError, res.Code, tc.code, res.Content)
			}
		})
	}
}

// TestRegistryWriteNoOpSendsNothing: a write whose value the chain already holds, asked by
// its creator, sends no transaction; a different value is sent once.
func TestRegistryWriteNoOpSendsNothing(t *testing.T) {
	for _, tc := range []struct {
		name   string
		listed bool
		writes int
	}{
		{name: "already listed", listed: true, writes: 0},
		{name: "delist", listed: false, writes: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, kp := fakeDeps(t)
			reg := &fakeRegistry{cur: &registry.Resource{ID: "guide", Creator: kp.Address(), Listed: true}}
			d.Registry = reg
			var tool *Tool
			for _, tl := range All(d).Tools() {
				if tl.Definition().Name == "mindvault_set_listed" {
					tool = tl
				}
			}
			args, _ := json.Marshal(map[string]any{"resourceId": "guide", "listed": tc.listed})
			res := callTool(t, tool, string(args))
			if res.IsError {
				t.Fatalf("failed: %+v", res.Content)
			}
			if reg.writes != tc.writes {
				t.Fatalf("registry saw %d writes, want %d", reg.writes, tc.writes)
			}
		})
	}
}

// TestHealthAllChecksMustPass: healthy only when every probe passes; any one failing probe
// makes the whole report unhealthy.
func TestHealthAllChecksMustPass(t *testing.T) {
	for _, tc := range []struct {
		name    string
		break_  func(api *fakeAPI, hz *fakeHorizon, rpc *fakeRPC, reg *fakeRegistry)
		healthy bool
	}{
		{name: "all pass", break_: func(*fakeAPI, *fakeHorizon, *fakeRPC, *fakeRegistry) {}, healthy: true},
		{name: "API fails", break_: func(a *fakeAPI, _ *fakeHorizon, _ *fakeRPC, _ *fakeRegistry) { a.catalog = errors.New("down") }},
		{name: "Horizon on another network", break_: func(_ *fakeAPI, h *fakeHorizon, _ *fakeRPC, _ *fakeRegistry) { h.passphrase = "other" }},
		{name: "RPC unhealthy", break_: func(_ *fakeAPI, _ *fakeHorizon, r *fakeRPC, _ *fakeRegistry) { r.status = "catching up" }},
		{name: "registry fails", break_: func(_ *fakeAPI, _ *fakeHorizon, _ *fakeRPC, g *fakeRegistry) { g.info = errors.New("gone") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, _ := fakeDeps(t)
			d.Config.SponsorURL = ""
			api := &fakeAPI{}
			hz := &fakeHorizon{issuer: d.Config.USDCIssuer, usdc: "1", passphrase: d.Config.Passphrase}
			rp := &fakeRPC{status: "healthy", passphrase: d.Config.Passphrase}
			reg := &fakeRegistry{}
			tc.break_(api, hz, rp, reg)
			d.API, d.Horizon, d.RPC, d.Registry = api, hz, rp, reg
			res := callTool(t, Define(d, health), `{}`)
			if res.IsError {
				t.Fatalf("failed: %+v", res.Content)
			}
			out, ok := res.StructuredContent.(*HealthOutput)
			if !ok {
				raw, _ := json.Marshal(res.StructuredContent)
				out = &HealthOutput{}
				if err := json.Unmarshal(raw, out); err != nil {
					t.Fatal(err)
				}
			}
			if out.Healthy != tc.healthy {
				t.Fatalf("healthy %v, want %v: %+v", out.Healthy, tc.healthy, out.Checks)
			}
		})
	}
}

// TestPublishRefusesBeforeCreating: a wallet that cannot pay the verification fee (above the
// cap, too little USDC) leaves nothing behind: no resource is created and nothing is paid.
func TestPublishRefusesBeforeCreating(t *testing.T) {
	const args = `{"title":"Guide","description":"A guide","price":"2","externalUrl":"https://example.com/g"`
	for _, tc := range []struct {
		name, args, usdc, code, detail string
		creates                        int
	}{
		{name: "fee above cap", args: args + `,"maxFeeUsdc":"0.5"}`, usdc: "100", code: errmap.CodePriceAboveCap},
		{name: "insufficient USDC", args: args + `}`, usdc: "0.5", code: errmap.CodeInsufficientUSDC,
			detail: "less than the verification fee 1.0000000 USDC; nothing was created"},
		{name: "control: creates", args: args + `}`, usdc: "100", creates: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kp := keypair.MustRandom()
			cfg := testConfig(t, nil)
			store := credentials.NewEnv(func(k string) string {
				return map[string]string{"MINDVAULT_AGENT_SECRET": kp.Seed(), "MINDVAULT_API_KEY": "key"}[k]
			}, cfg.DefaultProfile)
			api := &fakeAPI{fee: "1"}
			payer := &fakePayer{}
			d := &Deps{Config: cfg, Store: store, API: api, X402: payer, Ledger: ledger.NewMemoryStore(),
				Horizon: &fakeHorizon{issuer: cfg.USDCIssuer, usdc: tc.usdc}}
			res := callTool(t, Define(d, publish), tc.args)
			if api.creates != tc.creates || payer.calls != 0 {
				t.Fatalf("API saw %d creates (want %d), payer %d calls (want 0)", api.creates, tc.creates, payer.calls)
			}
			if tc.code == "" {
				return
			}
			if !res.IsError || res.Code != tc.code {
				t.Fatalf("got isError %v code %q, want %s: %+v", res.IsError, res.Code, tc.code, res.Content)
			}
			if !strings.Contains(res.Content[0].Text, tc.detail) {
				t.Fatalf("text %q lacks %q", res.Content[0].Text, tc.detail)
			}
		})
	}
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
