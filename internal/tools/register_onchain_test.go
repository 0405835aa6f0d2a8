package tools

import (
	"errors"
	"testing"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/clients/mindvault"
	"github.com/mindvault/mcp-endpoint/internal/credentials"
)

// TestRegisterOnchain: the prepared registration is checked against the listing before the
// wallet signs, so a transaction that is not the one asked for is never submitted; a
// submission of unknown outcome carries the hash of what was signed.
func TestRegisterOnchain(t *testing.T) {
	mustVerify := &errmap.Error{Err: errors.New("must be verified"), Facts: errmap.Facts{Source: errmap.SourceAPI, Status: 400,
		Detail: "resource must be verified before registration", StateChanged: errmap.StateNo}}
	lost := &errmap.Error{Err: errors.New("reset"), Facts: errmap.Facts{Source: errmap.SourceAPI, Status: 502,
		ExecutionStarted: true, StateChanged: errmap.StateUnknown}}
	for _, tc := range []struct {
		name, listed    string // the API's listed price; the registration is prepared at 2
		noKey           bool
		prepErr, subErr error
		ver             *mindvault.Verification
		preps, submits  int
		fail            *failureWant
	}{
		{name: "registers", listed: "2", preps: 1, submits: 1},
		{name: "prepared at another price", listed: "3", preps: 1,
			fail: &failureWant{code: errmap.CodeUnexpectedTransaction, state: "no", started: &startedNo}},
		{name: "fee unpaid", listed: "2", prepErr: mustVerify, ver: &mindvault.Verification{Status: "pending"}, preps: 1,
			fail: &failureWant{code: errmap.CodePaymentRequired, category: "payment", state: "no"}},
		{name: "no API key", noKey: true, fail: &failureWant{code: errmap.CodeCredentialsMissing, category: "auth", state: "no"}},
		{name: "submission lost", listed: "2", subErr: lost, preps: 1, submits: 1,
			fail: &failureWant{code: errmap.CodeServerError, state: "unknown", started: &startedYes}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := credentials.Profile{APIKey: "k"}
			if tc.noKey {
				p.APIKey = ""
			}
			d, kp := dirDeps(t, p)
			api := &publishAPI{meta: &mindvault.Meta{Listing: mindvault.Listing{ID: "guide", Price: mindvault.Decimal(tc.listed)}},
				prep:    preparedTx(t, d.Config.RegistryContract, d.Config.Passphrase, kp.Address(), "guide", "2"),
				prepErr: tc.prepErr, submitErr: tc.subErr, ver: tc.ver}
			d.API, d.Horizon = api, &signerHorizon{found: true}
			res := callTool(t, registerOnchain.Define(d), `{"resourceId":"guide"}`)
			if api.preps != tc.preps || api.submit != tc.submits {
				t.Fatalf("API saw %d prepares and %d submissions, want %d and %d", api.preps, api.submit, tc.preps, tc.submits)
			}
			if tc.fail != nil {
				diag := tc.fail.check(t, res)
				if (tc.subErr != nil) != (len(diag.TxHash) == 64) {
					t.Fatalf("txHash %q", diag.TxHash)
				}
				return
			}
			var out RegisterOnchainOutput
			decodeOut(t, res, &out)
			if out.ResourceID != "guide" || out.OnchainStatus != "registered" || len(out.TxHash) != 64 || out.ExplorerURL == "" {
				t.Fatalf("got %+v", out)
			}
		})
	}
}
