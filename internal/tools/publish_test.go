package tools

import (
	"strings"
	"testing"

	"github.com/mindvault/mcp-endpoint/errmap"
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
			d := &Deps{Config: cfg, Store: store, API: api, X402: payer, Ledger: ledger.NewMemoryStore(),
				Horizon: &fakeHorizon{issuer: cfg.USDCIssuer, usdc: tc.usdc}}
			res := callTool(t, Define(d, publish), tc.args)
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
