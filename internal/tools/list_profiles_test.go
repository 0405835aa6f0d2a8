package tools

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stellar/go-stellar-sdk/keypair"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/auth"
	"github.com/mindvault/mcp-endpoint/internal/credentials"
)

// TestListProfiles: only the profiles the caller may use are listed, with address and publisher
// flag and never a secret; none usable is a success with a message, and a store failure is mapped.
func TestListProfiles(t *testing.T) {
	alice, bob := keypair.MustRandom(), keypair.MustRandom()
	profiles := map[string]credentials.Profile{"alice": {SecretKey: alice.Seed(), APIKey: "mv-alice-api-key"}, "bob": {SecretKey: bob.Seed()}}
	unreadable := credentials.StoreFailure(&profileStore{}, "list profiles", errors.New("permission denied"))
	for _, tc := range []struct {
		name    string
		names   []string
		only    []string // the profiles the caller's token is bound to; nil: every profile
		listErr error
		want    readWant
	}{
		{name: "every profile", names: []string{"alice", "bob", "deleted"}, want: readWant{out: map[string]any{
			"store": "dir", "defaultProfile": "default", "message": nil, "profiles": []any{
				map[string]any{"name": "alice", "address": alice.Address(), "publisherRegistered": true},
				map[string]any{"name": "bob", "address": bob.Address(), "publisherRegistered": false}}}}},
		{name: "bound to one", names: []string{"alice", "bob"}, only: []string{"bob"}, want: readWant{out: map[string]any{
			"profiles": []any{map[string]any{"name": "bob", "address": bob.Address(), "publisherRegistered": false}}}}},
		{name: "none bound", names: []string{"alice"}, only: []string{"bob"}, want: readWant{out: map[string]any{"profiles": []any{},
			"message": "The dir store holds profiles, but none is bound to this caller's access; ask the operator to bind one to your token, or create one with mindvault_setup_wallet."}}},
		{name: "empty store", want: readWant{out: map[string]any{"profiles": []any{},
			"message": "No profiles yet in the dir store; create one with mindvault_setup_wallet."}}},
		{name: "store unreadable", listErr: unreadable, want: readWant{code: errmap.CodeUnknown, category: "unknown", state: "no", next: "Retry once"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, _ := fakeDeps(t)
			d.Store = &profileStore{profiles: profiles, names: tc.names, listErr: tc.listErr}
			ctx := auth.WithAllowed(context.Background(), tc.only, tc.only == nil, tc.only != nil)
			res := listProfiles.Define(d).call(ctx, json.RawMessage(`{}`))
			checkRead(t, res, tc.want)
			if b, _ := json.Marshal(res); strings.Contains(string(b), alice.Seed()) || strings.Contains(string(b), "mv-alice-api-key") {
				t.Fatalf("a secret leaked: %s", b)
			}
		})
	}
}
