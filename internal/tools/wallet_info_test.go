package tools

import (
	"net/http"
	"testing"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/clients/horizon"
)

// TestWalletInfo: USDC counts only with the configured issuer, the reserve follows the
// minimum-balance rule, a missing account is a success with a note, and a failure is mapped.
func TestWalletInfo(t *testing.T) {
	issuer := testConfig(t, nil).USDCIssuer
	for _, tc := range []struct {
		name  string
		args  string
		usdc  []horizon.Balance // besides 10 XLM; Issuer "" is the configured issuer
		found bool
		err   error
		calls int32
		want  readWant
	}{
		{name: "funded", args: `{}`, found: true, calls: 1, usdc: []horizon.Balance{{Balance: "12.5", Asset: horizon.Asset{Code: "USDC"}}},
			want: readWant{out: map[string]any{"profile": "default", "network": "testnet", "publisherRegistered": false, "note": nil,
				"xlm":  map[string]any{"balance": "10.0000000", "reserved": "1.5000000", "available": "8.5000000"},
				"usdc": map[string]any{"balance": "12.5000000", "issuer": issuer, "status": "funded"}}}},
		{name: "USDC of another issuer", args: `{}`, found: true, calls: 1,
			usdc: []horizon.Balance{{Balance: "12.5", Asset: horizon.Asset{Code: "USDC", Issuer: "GOTHER"}}},
			want: readWant{out: map[string]any{"usdc": map[string]any{"balance": "0.0000000", "issuer": issuer, "status": "no_trustline"}}}},
		{name: "account missing", args: `{}`, calls: 1, want: readWant{out: map[string]any{
			"usdc": map[string]any{"balance": "0.0000000", "issuer": issuer, "status": "missing"},
			"note": "The account does not exist on this network yet. Create a sponsored wallet with mindvault_setup_wallet, or fund the address with XLM and add a USDC trustline."}}},
		{name: "unknown profile reads nothing", args: `{"profile":"other"}`,
			want: readWant{code: errmap.CodeCredentialsMissing, category: "auth", state: "no", next: "mindvault_list_profiles lists them"}},
		{name: "Horizon down", args: `{}`, err: fakeFailure(errmap.SourceHorizon, http.StatusGatewayTimeout, ""), calls: 1,
			want: readWant{code: errmap.CodeTimeout, category: "timeout", state: "no"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, _ := fakeDeps(t)
			acct := &horizon.Account{SubentryCount: 1, Balances: []horizon.Balance{{Balance: "10", Asset: horizon.Asset{Type: "native"}}}}
			for _, b := range tc.usdc {
				b.Asset.Type = "credit_alphanum4"
				if b.Asset.Issuer == "" {
					b.Asset.Issuer = issuer
				}
				acct.Balances = append(acct.Balances, b)
			}
			hz := &accountHorizon{acct: acct, found: tc.found, err: tc.err}
			d.Horizon = hz
			checkRead(t, callTool(t, walletInfo.Define(d), tc.args), tc.want)
			if hz.calls.Load() != tc.calls {
				t.Fatalf("Horizon saw %d calls, want %d", hz.calls.Load(), tc.calls)
			}
		})
	}
}
