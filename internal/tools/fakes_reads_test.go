package tools

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"

	rpc "github.com/stellar/go-stellar-sdk/protocols/rpc"

	"github.com/mindvault/mcp-endpoint/internal/clients/horizon"
	"github.com/mindvault/mcp-endpoint/internal/clients/mindvault"
	"github.com/mindvault/mcp-endpoint/internal/credentials"
	"github.com/mindvault/mcp-endpoint/internal/mcp"
)

// The fakes of the read tools' table tests: each answers a value or a failure the row sets,
// and counts the calls made (an embedded interface left unset panics on any other call).

// readAPI answers the MindVault reads; err fails every read, verErr only Verification.
type readAPI struct {
	MindVaultAPI
	page     *mindvault.Page
	meta     *mindvault.Meta
	ver      *mindvault.Verification
	agent    *mindvault.AgentStatus
	payments []mindvault.Payment
	err      error
	verErr   error
	calls    atomic.Int32
	query    mindvault.CatalogQuery
}

func (f *readAPI) Catalog(_ context.Context, q mindvault.CatalogQuery) (*mindvault.Page, error) {
	f.calls.Add(1)
	f.query = q
	if f.err != nil {
		return nil, f.err
	}
	return f.page, nil
}
func (f *readAPI) Meta(context.Context, string) (*mindvault.Meta, error) {
	f.calls.Add(1)
	return f.meta, f.err
}
func (f *readAPI) Verification(context.Context, string) (*mindvault.Verification, error) {
	f.calls.Add(1)
	return f.ver, f.verErr
}
func (f *readAPI) AgentStatus(context.Context) (*mindvault.AgentStatus, error) {
	f.calls.Add(1)
	return f.agent, f.err
}
func (f *readAPI) Payments(context.Context, string) ([]mindvault.Payment, error) {
	f.calls.Add(1)
	return f.payments, f.err
}

// accountHorizon answers one account read.
type accountHorizon struct {
	AccountReader
	acct  *horizon.Account
	found bool
	err   error
	calls atomic.Int32
}

func (f *accountHorizon) Account(context.Context, string) (*horizon.Account, bool, error) {
	f.calls.Add(1)
	return f.acct, f.found, f.err
}

// txRPC answers one transaction lookup.
type txRPC struct {
	ChainReader
	tx    *rpc.GetTransactionResponse
	err   error
	calls atomic.Int32
}

func (f *txRPC) GetTransaction(context.Context, string) (*rpc.GetTransactionResponse, error) {
	f.calls.Add(1)
	return f.tx, f.err
}

// profileStore is a credential store of named profiles; listErr fails the listing.
type profileStore struct {
	credentials.Store
	profiles map[string]credentials.Profile
	names    []string
	listErr  error
}

func (s *profileStore) Kind() string { return "dir" }
func (s *profileStore) List(context.Context) ([]string, error) {
	return s.names, s.listErr
}
func (s *profileStore) Get(_ context.Context, name string) (credentials.Profile, error) {
	p, ok := s.profiles[name]
	if !ok {
		return credentials.Profile{Name: name}, credentials.Missing(s, name, "profile")
	}
	p.Name = name
	return p, nil
}

// readWant is what a row expects: a success whose structuredContent holds out (each top-level
// field compared as JSON), or a failure with this diagnostic code, category and stateChanged.
type readWant struct {
	code, category, state string
	next                  string // a substring of the failure's Next line
	out                   map[string]any
}

// checkRead asserts res against w and returns the decoded structuredContent of a success.
func checkRead(t *testing.T, res mcp.ToolResult, w readWant) map[string]any {
	t.Helper()
	if w.code != "" {
		d := failureWant{code: w.code, category: w.category, state: w.state}.check(t, res)
		if !strings.Contains(d.Next, w.next) {
			t.Fatalf("next %q lacks %q", d.Next, w.next)
		}
		return nil
	}
	var out map[string]any
	decodeOut(t, res, &out)
	for k, want := range w.out {
		g, _ := json.Marshal(out[k])
		e, _ := json.Marshal(want)
		if string(g) != string(e) {
			t.Errorf("%s = %s, want %s", k, g, e)
		}
	}
	return out
}
