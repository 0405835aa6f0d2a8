package tools

import (
	"strings"
	"testing"

	"github.com/stellar/go-stellar-sdk/keypair"

	"github.com/mindvault/mcp-endpoint/internal/clients/horizon"
)

// A new wallet counts as created only when its own key alone controls the account.
func TestControlGap(t *testing.T) {
	me, other := keypair.MustRandom().Address(), keypair.MustRandom().Address()
	master := func(w int32) horizon.Signer { return horizon.Signer{Key: me, Type: "ed25519_public_key", Weight: w} }
	for _, tc := range []struct {
		name    string
		acct    horizon.Account
		problem string // "" means controlled
	}{
		{"the key alone", horizon.Account{Signers: []horizon.Signer{master(1)}}, ""},
		{"the key alone, meeting raised thresholds", horizon.Account{Signers: []horizon.Signer{master(5)},
			Thresholds: horizon.AccountThresholds{LowThreshold: 1, MedThreshold: 3, HighThreshold: 5}}, ""},
		{"another key", horizon.Account{Signers: []horizon.Signer{{Key: other, Type: "ed25519_public_key", Weight: 1}, master(1)}}, other},
		{"a hash signer", horizon.Account{Signers: []horizon.Signer{master(1), {Key: "XABC", Type: "sha256_hash", Weight: 1}}}, "sha256_hash"},
		{"a high threshold above the key", horizon.Account{Signers: []horizon.Signer{master(1)},
			Thresholds: horizon.AccountThresholds{HighThreshold: 2}}, "below the account's thresholds"},
		{"a master key of weight 0", horizon.Account{Signers: []horizon.Signer{master(0)}}, "weight 0"},
		{"no signer listed", horizon.Account{}, "no signer"},
	} {
		got := controlGap(&tc.acct, me)
		if (got == "") != (tc.problem == "") || !strings.Contains(got, tc.problem) {
			t.Errorf("%s: %q, want one naming %q", tc.name, got, tc.problem)
		}
	}
}
