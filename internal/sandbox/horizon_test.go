package sandbox

import (
	"strings"
	"testing"

	"github.com/stellar/go-stellar-sdk/protocols/horizon"
	"github.com/stellar/go-stellar-sdk/strkey"
	"github.com/stellar/go-stellar-sdk/support/render/problem"
)

// usdcLine finds the USDC balance entry whatever its issuer.
func usdcLine(a horizon.Account) *horizon.Balance {
	for i, b := range a.Balances {
		if b.Code == "USDC" {
			return &a.Balances[i]
		}
	}
	return nil
}

func TestHorizonAccountsDecodeIntoSDKTypes(t *testing.T) {
	sb, _ := start(t, "")
	tests := []struct {
		name       string
		usdc       string // "" = no USDC line
		issuerOK   bool
		subentries int32
		sponsored  bool
	}{
		{"demo", "100.0000000", true, 1, true},
		{"creator", "42.5000000", true, 1, false},
		{"notrust", "", false, 0, false},
		{"otherissuer", "100.0000000", false, 1, false},
		{"zero", "0.0000000", true, 1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			acc, ok := sb.Account(tt.name)
			if !ok {
				t.Fatal("not seeded")
			}
			r := get(t, sb.HorizonURL+"/accounts/"+acc.Address)
			if r.status != 200 || r.header.Get("Content-Type") != "application/hal+json; charset=utf-8" {
				t.Fatalf("%d %v %s", r.status, r.header, r.body)
			}
			var a horizon.Account
			mustJSON(t, r.body, &a)
			if a.ID != acc.Address || a.AccountID != acc.Address || a.Sequence <= 0 || a.SubentryCount != tt.subentries ||
				a.LastModifiedTime == nil || len(a.Signers) != 1 || a.Links.Self.Href == "" {
				t.Fatalf("account %+v", a)
			}
			if native, err := a.GetNativeBalance(); err != nil || !strings.HasSuffix(native, "0000000") {
				t.Errorf("native balance %q %v", native, err)
			}
			line := usdcLine(a)
			switch {
			case tt.usdc == "" && line != nil:
				t.Errorf("unexpected USDC line %+v", line)
			case tt.usdc != "" && (line == nil || line.Balance != tt.usdc || line.Type != "credit_alphanum4" ||
				line.Limit != "922337203685.4775807" || line.IsAuthorized == nil || !*line.IsAuthorized):
				t.Errorf("USDC line %+v", line)
			case line != nil && (line.Issuer == sb.USDCIssuer) != tt.issuerOK:
				t.Errorf("issuer %s, sandbox issuer %s", line.Issuer, sb.USDCIssuer)
			}
			if tt.usdc != "" && tt.issuerOK {
				if got := a.GetCreditBalance("USDC", sb.USDCIssuer); got != tt.usdc {
					t.Errorf("GetCreditBalance = %q", got)
				}
			}
			if tt.sponsored != (a.NumSponsored > 0 && a.Sponsor != "" && line.Sponsor != "") {
				t.Errorf("sponsorship: num_sponsored %d sponsor %q", a.NumSponsored, a.Sponsor)
			}
			if a.Balances[len(a.Balances)-1].Type != "native" {
				t.Error("the native balance must come last, as Horizon lists it")
			}
		})
	}
	sponsor, _ := sb.Account("sponsor")
	var sp horizon.Account
	mustJSON(t, get(t, sb.HorizonURL+"/accounts/"+sponsor.Address).body, &sp)
	if sp.NumSponsoring != 3 {
		t.Errorf("sponsor num_sponsoring = %d, want 3 (demo's two base reserves and its trustline)", sp.NumSponsoring)
	}
}

func TestHorizonProblems(t *testing.T) {
	sb, _ := start(t, "")
	missing, _ := sb.Account("missing")
	if missing.Secret != "" || !strkey.IsValidEd25519PublicKey(missing.Address) {
		t.Fatalf("missing account %+v", missing)
	}
	tests := []struct {
		path, typ string
		status    int
		extras    bool
	}{
		{"/accounts/" + missing.Address, "not_found", 404, false},
		{"/accounts/GABC", "bad_request", 400, true},
		{"/accounts/" + strings.ToLower(missing.Address), "bad_request", 400, true},
		{"/ledgers", "not_found", 404, false},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			r := get(t, sb.HorizonURL+tt.path)
			var p problem.P
			mustJSON(t, r.body, &p)
			if r.status != tt.status || p.Status != tt.status || p.Type != "https://stellar.org/horizon-errors/"+tt.typ ||
				r.header.Get("Content-Type") != "application/problem+json; charset=utf-8" || (p.Extras != nil) != tt.extras {
				t.Fatalf("%d %v %s", r.status, r.header, r.body)
			}
			if tt.extras && p.Extras["invalid_field"] != "account_id" {
				t.Errorf("extras %v", p.Extras)
			}
			if tt.status == 404 && p.Title != "Resource Missing" {
				t.Errorf("title %q", p.Title)
			}
		})
	}
}

func TestHorizonRootAndRateLimitHeaders(t *testing.T) {
	sb, clk := start(t, "")
	var root horizon.Root
	r := get(t, sb.HorizonURL+"/")
	mustJSON(t, r.body, &root)
	if root.NetworkPassphrase != "Test SDF Network ; September 2015" || root.HorizonSequence != firstLedger ||
		root.CoreSequence != firstLedger || root.CurrentProtocolVersion != protocolVersion || root.HorizonVersion == "" ||
		root.StellarCoreVersion == "" || root.Links.Account.Href == "" {
		t.Fatalf("root %s", r.body)
	}
	if r.header.Get("X-RateLimit-Limit") != "3600" || r.header.Get("X-RateLimit-Remaining") != "3599" || r.header.Get("X-RateLimit-Reset") != "3600" {
		t.Fatalf("rate-limit headers %v", r.header)
	}
	clk.advance(61e9)
	r = get(t, sb.HorizonURL+"/accounts/GABC")
	if r.header.Get("X-RateLimit-Remaining") != "3598" || r.header.Get("X-RateLimit-Reset") != "3539" {
		t.Fatalf("rate-limit headers on an error %v", r.header)
	}
	mustJSON(t, get(t, sb.HorizonURL+"/").body, &root)
	if root.HorizonSequence != firstLedger+12 {
		t.Fatalf("history_latest_ledger %d after 61 s", root.HorizonSequence)
	}
}
