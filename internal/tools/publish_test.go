package tools

import (
	"cmp"
	"strings"
	"testing"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/clients/mindvault"
	"github.com/mindvault/mcp-endpoint/internal/credentials"
	"github.com/mindvault/mcp-endpoint/internal/ledger"
	"github.com/stellar/go-stellar-sdk/keypair"
)

// TestVerificationOfReadsLeniently: the paid verification's answer is read once the fee is
// paid, so a field that is not the verdict never fails it: a confidence sent as a string
// ("0.91") or unreadable still gives the verdict; only a missing isOriginal proves none.
func TestVerificationOfReadsLeniently(t *testing.T) {
	for _, tc := range []struct {
		body string
		ok   bool
		conf float64
	}{
		{`{"isOriginal":true,"confidence":0.91,"flags":["ok"],"usage":{"totalTokens":450}}`, true, 0.91},
		{`{"isOriginal":true,"confidence":"0.91","flags":[]}`, true, 0.91},
		{`{"isOriginal":false,"confidence":{"x":1}}`, true, 0},
		{`{"confidence":0.91}`, false, 0},
	} {
		v, ok := verificationOf([]byte(tc.body))
		if ok != tc.ok || (ok && v.Confidence != tc.conf) {
			t.Errorf("%s: %+v %v", tc.body, v, ok)
		}
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
			d := &Deps{Config: cfg, Store: store, API: api, X402: payer, Ledger: ledger.NewMemory(),
				Horizon: &fakeHorizon{issuer: cfg.USDCIssuer, usdc: tc.usdc}}
			res := callTool(t, publish.Define(d), tc.args)
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

// TestPublish: a dry run plans every step and sends nothing; a resume runs only the missing
// steps, and only for the publisher's own resource; a failed registration after verification
// is a success that gives the call finishing it.
func TestPublish(t *testing.T) {
	const newArgs = `{"title":"Guide","price":"2","externalUrl":"https://example.com/g","dryRun":true}`
	const resume = `{"resourceId":"guide"}`
	for _, tc := range []struct {
		name, args, verification, onchain string
		publisher                         string // "" is the profile's wallet
		metaErr, prepErr                  error
		preps, submits                    int
		steps, onchainStatus, message     string
		resumeTool                        string
		fail                              *failureWant
	}{
		{name: "dry run", args: newArgs, steps: "create:planned verify:planned register:planned", onchainStatus: "none",
			message: "Dry run"},
		{name: "resume registers", args: resume, verification: "verified", onchain: "none", preps: 1, submits: 1,
			steps: "create:skipped verify:skipped register:done", onchainStatus: "registered", message: "Resumed: the missing steps ran"},
		{name: "resume, registration fails", args: resume, verification: "verified", onchain: "none",
			prepErr: fakeFailure(errmap.SourceAPI, 503, ""), preps: 1, steps: "create:skipped verify:skipped register:failed",
			onchainStatus: "failed", message: "on-chain registration failed", resumeTool: "mindvault_publish"},
		{name: "nothing to resume", args: resume, verification: "verified", onchain: "registered",
			steps: "create:skipped verify:skipped register:skipped", onchainStatus: "registered", message: "Nothing to resume"},
		{name: "another publisher's resource", args: resume, verification: "verified", onchain: "none", publisher: "GOTHER",
			fail: &failureWant{code: errmap.CodeForbidden, category: "auth", state: "no"}},
		{name: "resource unreadable", args: resume, metaErr: fakeFailure(errmap.SourceAPI, 500, ""),
			fail: &failureWant{code: errmap.CodeServerError, category: "server", state: "no"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, kp := dirDeps(t, credentials.Profile{APIKey: "k"})
			meta := &mindvault.Meta{Listing: mindvault.Listing{ID: "guide", Title: "Guide", Price: "2", VerificationStatus: tc.verification},
				PublisherWallet: cmp.Or(tc.publisher, kp.Address()), OnchainStatus: tc.onchain}
			api := &publishAPI{fee: "1", meta: meta, metaErr: tc.metaErr, prepErr: tc.prepErr,
				ver:  &mindvault.Verification{Status: tc.verification},
				prep: preparedTx(t, d.Config.RegistryContract, d.Config.Passphrase, kp.Address(), "guide", "2")}
			payer := &fakePayer{}
			d.API, d.X402, d.Horizon = api, payer, &fakeHorizon{issuer: d.Config.USDCIssuer, usdc: "100"}
			res := callTool(t, publish.Define(d), tc.args)
			if api.creates != 0 || payer.calls != 0 || api.preps != tc.preps || api.submit != tc.submits {
				t.Fatalf("API saw %d creates, %d prepares, %d submissions (want 0, %d, %d); payer %d calls",
					api.creates, api.preps, api.submit, tc.preps, tc.submits, payer.calls)
			}
			var out PublishOutput
			if !decodeOrFail(t, res, tc.fail, &out) {
				return
			}
			var steps []string
			for _, s := range out.Steps {
				steps = append(steps, s.Name+":"+s.Status)
			}
			if strings.Join(steps, " ") != tc.steps || out.OnchainStatus != tc.onchainStatus || !strings.Contains(out.Message, tc.message) {
				t.Fatalf("steps %v onchain %q message %q", steps, out.OnchainStatus, out.Message)
			}
			if out.FeeSettlement != SettlementNone || out.FeePaidUSDC != "" {
				t.Fatalf("no fee was paid, got %q %q", out.FeeSettlement, out.FeePaidUSDC)
			}
			if next := out.NextAction; (next == nil) != (tc.resumeTool == "") || next != nil && (next.Tool != tc.resumeTool || next.Arguments.ResourceID != "guide") {
				t.Fatalf("nextAction %+v, want %q", next, tc.resumeTool)
			}
			if tc.args == newArgs && (out.FeeUSDC != "1.0000000" || out.USDCBalance != "100.0000000" || !out.DryRun) {
				t.Fatalf("dry run reports fee %q balance %q", out.FeeUSDC, out.USDCBalance)
			}
		})
	}
}
