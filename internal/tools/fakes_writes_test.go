package tools

import (
	"context"
	"encoding/json"
	"errors"
	"math/big"
	"sync"
	"testing"

	"github.com/stellar/go-stellar-sdk/keypair"
	"github.com/stellar/go-stellar-sdk/xdr"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/clients/horizon"
	"github.com/mindvault/mcp-endpoint/internal/clients/mindvault"
	"github.com/mindvault/mcp-endpoint/internal/clients/registry"
	"github.com/mindvault/mcp-endpoint/internal/clients/soroban"
	"github.com/mindvault/mcp-endpoint/internal/clients/sponsor"
	"github.com/mindvault/mcp-endpoint/internal/credentials"
	"github.com/mindvault/mcp-endpoint/internal/mcp"
)

// The fakes of the registry, publishing and wallet tools' table tests: each answers what its
// fields say (an error field fails that call) and counts the calls whose absence a row asserts.

// fakeFailure is a downstream's failure as its client hands it to the tools (code "": the status decides).
func fakeFailure(src errmap.Source, status int, code string) error {
	return &errmap.Error{Err: errors.New("fake failure"), Facts: errmap.Facts{Source: src, Status: status, Code: code,
		Detail: "fake failure", StateChanged: errmap.StateNo}}
}

// contractRegistry is the vault-registry contract.
type contractRegistry struct {
	VaultRegistry
	cur                        *registry.Resource
	list                       []registry.Resource
	info                       *registry.Info
	getErr, listErr, infoErr   error
	invokeErr                  error
	mu                         sync.Mutex
	gets, lists, infos, writes int
	fn                         string
}

func (f *contractRegistry) Get(context.Context, string) (*registry.Resource, bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.gets++
	return f.cur, f.cur != nil, f.getErr
}
func (f *contractRegistry) List(_ context.Context, start, limit uint32) ([]registry.Resource, error) {
	f.lists++
	if f.listErr != nil {
		return nil, f.listErr
	}
	return f.list[min(int(start), len(f.list)):min(int(start+limit), len(f.list))], nil
}
func (f *contractRegistry) Info(context.Context) (*registry.Info, error) {
	f.infos++
	return f.info, f.infoErr
}
func (f *contractRegistry) InvokeApproved(_ context.Context, _ *keypair.Full, _ func(context.Context, registry.Plan) error, fn string, _ ...xdr.ScVal) (*registry.Written, error) {
	f.writes++
	f.fn = fn
	if f.invokeErr != nil {
		return nil, f.invokeErr
	}
	return &registry.Written{Hash: "ab12", Ledger: 7}, nil
}

// publishAPI is the MindVault API of the publishing tools.
type publishAPI struct {
	MindVaultAPI
	meta                     *mindvault.Meta
	ver                      *mindvault.Verification
	pub                      *mindvault.Publisher
	prep                     *mindvault.Prepared
	fee                      mindvault.Decimal
	metaErr, verErr, regErr  error
	prepErr, submitErr       error
	mu                       sync.Mutex
	registers, preps, submit int
	creates                  int
}

func (f *publishAPI) Meta(context.Context, string) (*mindvault.Meta, error) { return f.meta, f.metaErr }
func (f *publishAPI) Verification(context.Context, string) (*mindvault.Verification, error) {
	return f.ver, f.verErr
}
func (f *publishAPI) MalformedMeta(what string) error {
	return fakeFailure(errmap.SourceAPI, 200, errmap.CodeMalformedResponse)
}
func (f *publishAPI) AgentStatus(context.Context) (*mindvault.AgentStatus, error) {
	s := &mindvault.AgentStatus{}
	s.Agent.PricePerVerification, s.Agent.WalletAddress = f.fee, keypair.MustRandom().Address()
	return s, nil
}
func (f *publishAPI) CreateResource(context.Context, string, mindvault.NewResource) (*mindvault.Meta, error) {
	f.creates++
	return nil, errors.New("publishAPI: creates nothing")
}
func (f *publishAPI) RegisterPublisher(context.Context, string, string, string) (*mindvault.Publisher, error) {
	f.registers++
	return f.pub, f.regErr
}
func (f *publishAPI) PrepareRegistration(context.Context, string, string) (*mindvault.Prepared, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.preps++
	return f.prep, f.prepErr
}
func (f *publishAPI) Register(context.Context, string, string, string) (*mindvault.Registration, error) {
	f.submit++
	if f.submitErr != nil {
		return nil, f.submitErr
	}
	return &mindvault.Registration{OnchainStatus: "registered"}, nil
}

// preparedTx is the registration of id by wallet at price (USDC) the API would prepare for
// contract on the network of passphrase, at the sequence after an account's 0.
func preparedTx(t *testing.T, contract, passphrase, wallet, id, price string) *mindvault.Prepared {
	t.Helper()
	creator, err := soroban.Account(wallet)
	if err != nil {
		t.Fatal(err)
	}
	units, _ := soroban.Units(price)
	p, err := soroban.I128(units)
	if err != nil {
		t.Fatal(err)
	}
	tx, err := soroban.Build(wallet, 0, soroban.Call{Contract: contract, Function: "register",
		Args: []xdr.ScVal{creator, soroban.Str(id), p, soroban.Str("ipfs://bafy"), soroban.StrVec(nil)}}, nil, nil, 100)
	if err != nil {
		t.Fatal(err)
	}
	env, err := tx.Base64()
	if err != nil {
		t.Fatal(err)
	}
	return &mindvault.Prepared{UnsignedXDR: env, NetworkPassphrase: passphrase}
}

// signerHorizon is an account Horizon reports with the given signers (the wallet's own by default).
type signerHorizon struct {
	AccountReader
	signers []horizon.Signer
	err     error
	found   bool
}

func (f *signerHorizon) Account(_ context.Context, address string) (*horizon.Account, bool, error) {
	s := f.signers
	if s == nil {
		s = []horizon.Signer{{Key: address, Type: "ed25519_public_key", Weight: 1}}
	}
	return &horizon.Account{Signers: s}, f.found, f.err
}

// sponsorFake is the sponsored-account service.
type sponsorFake struct {
	Sponsor
	err   error
	other *keypair.Full // creates this account instead of the requested one
	calls int
}

func (f *sponsorFake) Create(_ context.Context, publicKey string) (*sponsor.Wallet, error) {
	f.calls++
	if f.err != nil {
		return nil, f.err
	}
	if f.other != nil {
		return &sponsor.Wallet{PublicKey: f.other.Address(), SecretKey: f.other.Seed()}, nil
	}
	return &sponsor.Wallet{PublicKey: publicKey}, nil
}

// decodeOut decodes a successful result's structuredContent into out.
// decodeOrFail checks a failing row's diagnostic (fail set) or decodes a success into out; it
// reports whether the row goes on to its success checks.
func decodeOrFail(t *testing.T, res mcp.ToolResult, fail *failureWant, out any) bool {
	t.Helper()
	if fail != nil {
		fail.check(t, res)
		return false
	}
	decodeOut(t, res, out)
	return true
}

func decodeOut(t *testing.T, res mcp.ToolResult, out any) {
	t.Helper()
	if res.IsError {
		t.Fatalf("failed: %s", res.Content[0].Text)
	}
	raw, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(raw, out); err != nil {
		t.Fatal(err)
	}
}

// diagnosticOf is a failed result's diagnostic.
func diagnosticOf(t *testing.T, res mcp.ToolResult) errmap.Diagnostic {
	t.Helper()
	if !res.IsError {
		raw, _ := json.Marshal(res.StructuredContent)
		t.Fatalf("succeeded, want a failure: %s", raw)
	}
	d, ok := res.Meta[errmap.MetaKey].(errmap.Diagnostic)
	if !ok {
		t.Fatalf("no diagnostic in %+v", res.Meta)
	}
	return d
}

// failureWant is the diagnostic a failing row expects; empty fields are not checked.
type failureWant struct {
	code, category, state string
	started               *bool
}

func (w failureWant) check(t *testing.T, res mcp.ToolResult) errmap.Diagnostic {
	t.Helper()
	d := diagnosticOf(t, res)
	if d.Code != w.code || (w.category != "" && d.Category != w.category) || (w.state != "" && d.StateChanged != w.state) ||
		(w.started != nil && d.ExecutionStarted != *w.started) {
		t.Fatalf("diagnostic %s/%s stateChanged %s started %v, want %+v: %s", d.Code, d.Category, d.StateChanged, d.ExecutionStarted, w, res.Content[0].Text)
	}
	return d
}

// priceUnits is a USDC price in 7-decimal units.
func priceUnits(usdc string) *big.Int {
	u, _ := soroban.Units(usdc)
	return u
}

var startedYes, startedNo = true, false

// dirDeps is fakeDeps with a writable directory store holding the default profile p (its
// name is set here); kp is p's wallet when p has none.
func dirDeps(t *testing.T, p credentials.Profile) (*Deps, *keypair.Full) {
	t.Helper()
	d, kp := fakeDeps(t)
	store, err := credentials.NewDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	p.Name = d.Config.DefaultProfile
	if p.SecretKey == "-" {
		p.SecretKey = ""
	} else if p.SecretKey == "" {
		p.SecretKey = kp.Seed()
	}
	if err := store.Create(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	d.Store = store
	return d, kp
}
