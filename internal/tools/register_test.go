package tools

import (
	"cmp"
	"context"
	"strings"
	"testing"

	"github.com/stellar/go-stellar-sdk/keypair"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/clients/mindvault"
	"github.com/mindvault/mcp-endpoint/internal/credentials"
)

// TestRegister: the publisher's API key lands in the profile and is never shown; a profile that
// holds a key, a store that cannot keep one or a profile without a wallet is refused before
// the API is asked; the API's refusal changes nothing.
func TestRegister(t *testing.T) {
	const key = "mvk_live_0123456789abcdef"
	payout := keypair.MustRandom().Address()
	for _, tc := range []struct {
		name, args string
		profile    credentials.Profile // SecretKey "-": no wallet
		readOnly   bool
		regErr     error
		wallet     string // "" is the profile's
		registers  int
		fail       *failureWant
		next       string
	}{
		{name: "registers", registers: 1},
		{name: "payout wallet given", args: `,"walletAddress":"` + payout + `"`, wallet: payout, registers: 1},
		{name: "profile already a publisher", profile: credentials.Profile{APIKey: "old"},
			fail: &failureWant{code: errmap.CodeAlreadyRegistered, category: "conflict", state: "no"}, next: "nothing was sent"},
		{name: "read-only store", readOnly: true, fail: &failureWant{code: errmap.CodeReadOnlyStore, state: "no"}},
		{name: "no wallet", profile: credentials.Profile{SecretKey: "-"},
			fail: &failureWant{code: errmap.CodeCredentialsMissing, category: "auth", state: "no"}, next: "walletAddress"},
		{name: "email taken", regErr: fakeFailure(errmap.SourceAPI, 409, ""), registers: 1,
			fail: &failureWant{code: errmap.CodeConflict, category: "conflict", state: "no"}, next: "another email"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, kp := dirDeps(t, tc.profile)
			if tc.readOnly {
				d, kp = fakeDeps(t)
			}
			api := &publishAPI{pub: &mindvault.Publisher{ID: "pub1", APIKey: key}, regErr: tc.regErr}
			d.API = api
			res := callTool(t, register.Define(d), `{"name":"Ada","email":"ada@example.com"`+tc.args+`}`)
			if api.registers != tc.registers {
				t.Fatalf("API saw %d registrations, want %d", api.registers, tc.registers)
			}
			stored, _ := d.Store.Get(context.Background(), d.Config.DefaultProfile)
			if tc.fail != nil {
				tc.fail.check(t, res)
				if !strings.Contains(res.Content[0].Text, tc.next) {
					t.Fatalf("text lacks %q: %s", tc.next, res.Content[0].Text)
				}
				if stored.APIKey == key {
					t.Fatal("a failed registration stored the key")
				}
				return
			}
			var out RegisterOutput
			decodeOut(t, res, &out)
			want := cmp.Or(tc.wallet, kp.Address())
			if out.PublisherID != "pub1" || out.Profile != d.Config.DefaultProfile || out.WalletAddress != want || !out.APIKeyStored {
				t.Fatalf("got %+v, want wallet %s", out, want)
			}
			if stored.APIKey != key || strings.Contains(res.Content[0].Text, key) {
				t.Fatalf("key stored %v, shown %v", stored.APIKey == key, strings.Contains(res.Content[0].Text, key))
			}
		})
	}
}
