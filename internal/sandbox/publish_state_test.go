package sandbox

import (
	"strings"
	"testing"

	"github.com/stellar/go-stellar-sdk/keypair"

	"github.com/mindvault/mcp-endpoint/internal/clients/mindvault"
)

// TestPublishStates: the three states a publish can stop in read differently through /meta and
// /verification: created without its fee (pending, no verdict), verified but the registration
// failed (onchainStatus failed), and finished.
func TestPublishStates(t *testing.T) {
	sb, _ := start(t, "")
	key := withKey(sb.DemoAPIKey)
	// A resource whose wallet has no account: the server cannot sign its registration.
	ghost := keypair.MustRandom().Address()
	r := post(t, sb.APIURL+"/resources", `{"title":"Ghost Wallet","price":"1","walletAddress":"`+ghost+`","externalUrl":"https://example.com/ghost"}`, key)
	var res resourceBody
	mustJSON(t, r.body, &res)
	if r.status != 201 {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	state := func() (string, string, bool) {
		var m metaBody
		mustJSON(t, get(t, sb.APIURL+"/resources/"+res.ID+"/meta").body, &m)
		var v struct {
			Verification *mindvault.VerificationResult `json:"verification"`
		}
		mustJSON(t, get(t, sb.APIURL+"/resources/"+res.ID+"/verification").body, &v)
		return m.VerificationStatus, m.OnchainStatus, v.Verification != nil
	}
	if s, o, verdict := state(); s != "pending" || o != "none" || verdict {
		t.Fatalf("created, fee unpaid: %s %s %v", s, o, verdict)
	}
	if r := verifyContent(t, sb, res.ID, "ghost content"); r.status != 200 {
		t.Fatalf("verify: %d %s", r.status, r.body)
	}
	if s, o, verdict := state(); s != "verified" || o != "none" || !verdict {
		t.Fatalf("verified, not registered: %s %s %v", s, o, verdict)
	}
	r = post(t, sb.APIURL+"/resources/"+res.ID+"/register", "", key)
	if r.status != 502 || !strings.Contains(string(r.body), "does not exist on the network") {
		t.Fatalf("register: %d %s", r.status, r.body)
	}
	if s, o, _ := state(); s != "verified" || o != "failed" {
		t.Fatalf("verified, registration failed: %s %s", s, o)
	}
}
