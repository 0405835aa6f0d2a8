package tools

import (
	"cmp"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stellar/go-stellar-sdk/keypair"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/clients/horizon"
	"github.com/mindvault/mcp-endpoint/internal/credentials"
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

// TestSetupWallet: the new profile holds the key of the account that was created; a refusal
// by the service leaves nothing behind, an unknown outcome keeps the profile, and an account
// someone else can sign for is an error after the fact (state changed).
func TestSetupWallet(t *testing.T) {
	serviceKey := keypair.MustRandom()
	lost := &errmap.Error{Err: errors.New("reset"), Facts: errmap.Facts{Source: errmap.SourceSponsor, Status: 502,
		ExecutionStarted: true, StateChanged: errmap.StateUnknown}}
	for _, tc := range []struct {
		name, profile string
		sponsorErr    error
		other         *keypair.Full
		signers       []horizon.Signer
		notFound      bool
		calls         int
		origin        string
		kept          bool // the profile exists afterwards
		fail          *failureWant
	}{
		{name: "creates", profile: "fresh", calls: 1, origin: keyLocal, kept: true},
		{name: "service's own key", profile: "fresh", other: serviceKey, calls: 1, origin: keySponsor, kept: true},
		{name: "profile exists", calls: 0, kept: true, fail: &failureWant{code: errmap.CodeProfileExists, category: "conflict", state: "no"}},
		{name: "service refuses", profile: "fresh", sponsorErr: fakeFailure(errmap.SourceSponsor, 400, ""), calls: 1,
			fail: &failureWant{code: errmap.CodeBadRequest, category: "validation", state: "no"}},
		{name: "outcome unknown", profile: "fresh", sponsorErr: lost, calls: 1, kept: true,
			fail: &failureWant{code: errmap.CodeServerError, state: "unknown"}},
		{name: "another signer", profile: "fresh", calls: 1, kept: true,
			signers: []horizon.Signer{{Key: serviceKey.Address(), Type: "ed25519_public_key", Weight: 1}},
			fail:    &failureWant{code: errmap.CodeConflict, category: "conflict", state: "yes", started: &startedYes}},
		{name: "account not visible yet", profile: "fresh", notFound: true, calls: 1, kept: true,
			fail: &failureWant{code: errmap.CodeAccountMissing, state: "yes", started: &startedYes}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, _ := dirDeps(t, credentials.Profile{})
			profile := cmp.Or(tc.profile, d.Config.DefaultProfile)
			sp := &sponsorFake{err: tc.sponsorErr, other: tc.other}
			d.Sponsor, d.Horizon = sp, &signerHorizon{signers: tc.signers, found: !tc.notFound}
			res := callTool(t, setupWallet.Define(d), `{"profile":"`+profile+`"}`)
			if sp.calls != tc.calls {
				t.Fatalf("service asked %d times, want %d", sp.calls, tc.calls)
			}
			stored, err := d.Store.Get(context.Background(), profile)
			if (err == nil) != tc.kept {
				t.Fatalf("profile kept %v, want %v", err == nil, tc.kept)
			}
			var out SetupWalletOutput
			if !decodeOrFail(t, res, tc.fail, &out) {
				return
			}
			addr, _ := stored.Address()
			if !out.Created || out.KeyOrigin != tc.origin || out.Profile != profile || out.Address != addr || (out.Warning != "") != (tc.origin == keySponsor) {
				t.Fatalf("got %+v, stored wallet %s", out, addr)
			}
			if tc.other != nil && addr != tc.other.Address() || strings.Contains(res.Content[0].Text, stored.SecretKey) {
				t.Fatalf("stored wallet %s, or the secret was shown", addr)
			}
		})
	}
}
