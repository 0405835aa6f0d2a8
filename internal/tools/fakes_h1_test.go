package tools

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"

	rpc "github.com/stellar/go-stellar-sdk/protocols/rpc"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/clients/horizon"
	"github.com/mindvault/mcp-endpoint/internal/clients/mindvault"
	"github.com/mindvault/mcp-endpoint/internal/credentials"
	"github.com/mindvault/mcp-endpoint/internal/mcp"
)

// The fakes of the read tools' table tests: each answers a value or a failure the row sets,
// and counts the calls made (an embedded interface left unset panics on any other call).

// h1API answers the MindVault reads; err fails every read, verErr only Verification.
type h1API struct {
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

func (f *h1API) Catalog(_ context.Context, q mindvault.CatalogQuery) (*mindvault.Page, error) {
	f.calls.Add(1)
	f.query = q
	if f.err != nil {
		return nil, f.err
	}
	return f.page, nil
}
func (f *h1API) Meta(context.Context, string) (*mindvault.Meta, error) {
	f.calls.Add(1)
	return f.meta, f.err
}
func (f *h1API) Verification(context.Context, string) (*mindvault.Verification, error) {
	f.calls.Add(1)
	return f.ver, f.verErr
}
func (f *h1API) AgentStatus(context.Context) (*mindvault.AgentStatus, error) {
	f.calls.Add(1)
	return f.agent, f.err
}
func (f *h1API) Payments(context.Context, string) ([]mindvault.Payment, error) {
	f.calls.Add(1)
	return f.payments, f.err
}

// h1Horizon answers one account read.
type h1Horizon struct {
	AccountReader
	acct  *horizon.Account
	found bool
	err   error
	calls atomic.Int32
}

func (f *h1Horizon) Account(context.Context, string) (*horizon.Account, bool, error) {
	f.calls.Add(1)
	return f.acct, f.found, f.err
}

// h1RPC answers one transaction lookup.
type h1RPC struct {
	ChainReader
	tx    *rpc.GetTransactionResponse
	err   error
	calls atomic.Int32
}

func (f *h1RPC) GetTransaction(context.Context, string) (*rpc.GetTransactionResponse, error) {
	f.calls.Add(1)
	return f.tx, f.err
}

// h1Store is a credential store of named profiles; listErr fails the listing.
type h1Store struct {
	credentials.Store
	profiles map[string]credentials.Profile
	names    []string
	listErr  error
}

func (s *h1Store) Kind() string { return "dir" }
func (s *h1Store) List(context.Context) ([]string, error) {
	return s.names, s.listErr
}
func (s *h1Store) Get(_ context.Context, name string) (credentials.Profile, error) {
	p, ok := s.profiles[name]
	if !ok {
		return credentials.Profile{Name: name}, credentials.Missing(s, name, "profile")
	}
	p.Name = name
	return p, nil
}

// h1Down is a downstream's HTTP failure, as its client reports it.
func h1Down(source errmap.Source, status int) error {
	return &errmap.Error{Facts: errmap.Facts{Source: source, Status: status, UpstreamDetail: "fault injected by the test"}}
}

// h1Want is what a row expects: a success whose structuredContent holds out (each top-level
// field compared as JSON), or a failure with this diagnostic code, category and stateChanged.
type h1Want struct {
	code, category, state string
	next                  string // a substring of the failure's Next line
	out                   map[string]any
}

// h1Check asserts res against w and returns the decoded structuredContent of a success.
func h1Check(t *testing.T, res mcp.ToolResult, w h1Want) map[string]any {
	t.Helper()
	if w.code != "" {
		d, _ := res.Meta[errmap.MetaKey].(errmap.Diagnostic)
		if !res.IsError || d.Code != w.code || d.Category != w.category || d.StateChanged != w.state {
			t.Fatalf("got isError %v %s/%s/stateChanged %s, want %s/%s/%s: %+v", res.IsError, d.Code, d.Category, d.StateChanged,
				w.code, w.category, w.state, res.Content)
		}
		if !strings.Contains(d.Next, w.next) {
			t.Fatalf("next %q lacks %q", d.Next, w.next)
		}
		return nil
	}
	if res.IsError {
		t.Fatalf("failed: %s", res.Content[0].Text)
	}
	raw, _ := res.StructuredContent.(json.RawMessage)
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	for k, want := range w.out {
		g, _ := json.Marshal(out[k])
		e, _ := json.Marshal(want)
		if string(g) != string(e) {
			t.Errorf("%s = %s, want %s", k, g, e)
		}
	}
	return out
}
