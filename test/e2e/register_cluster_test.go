//go:build node

package e2e_test

import (
	"encoding/json"
	"strconv"
	"testing"
	"time"

	"github.com/stellar/go-stellar-sdk/keypair"

	"github.com/mindvault/mcp-endpoint/internal/ledger/ledgertest"
	"github.com/mindvault/mcp-endpoint/internal/testkit/smtest"
)

// envVars collects what smtest.Setenv sets, for processes rather than this one.
type envVars map[string]string

func (m envVars) Setenv(k, v string) { m[k] = v }

// TestRegisterKeepsEveryKeyAcrossInstances: mindvault_register sent at once for one profile
// without a key, over two processes that share only the sandbox, one ledger table and one
// Secrets Manager (each process caches what it read): the API registers exactly one publisher,
// the profile holds that publisher's key, and every other call is refused before anything is
// sent, then and later. The API shows a key once, so a second registration would have
// replaced a key for good.
func TestRegisterKeepsEveryKeyAcrossInstances(t *testing.T) {
	// Long and self-contained: harness_test.go, "Which tests run in parallel".
	t.Parallel()
	sm := smtest.New()
	t.Cleanup(sm.Close)
	const prefix = "mindvault/cluster/"
	sm.Put(prefix+"pub", `{"secretKey":"`+keypair.MustRandom().Seed()+`"}`)
	url := ledgertest.Dynalite(t, "../..")
	table := "ledger" + strconv.FormatInt(time.Now().UnixNano(), 36)
	ledgertest.CreateTable(t, url, table)
	vars := envVars{}
	sm.Setenv(vars)
	vars["MINDVAULT_CREDENTIALS"] = "secretsmanager:" + prefix
	vars["MINDVAULT_DEFAULT_PROFILE"] = "pub"
	vars["MINDVAULT_LEDGER"], vars["MINDVAULT_LEDGER_ENDPOINT"] = "dynamodb:"+table, url
	c := newCluster(t, 2, vars)
	// Each process reads (and caches) the keyless profile before the race.
	for i := range 2 {
		c.ok("mindvault_list_profiles", c.call(i, "mindvault_list_profiles", ""))
	}
	// The registrations overlap: each stalls at the API as a slow network would.
	if err := c.sb.SetFaults("service=api,target=POST /publishers,kind=delay,delay=300ms"); err != nil {
		t.Fatal(err)
	}
	rs := c.all(6, func(k int) result {
		n := strconv.Itoa(k)
		return c.call(k, "mindvault_register", `{"name":"Publisher `+n+`","email":"pub`+n+`@example.org","profile":"pub"}`)
	})
	stored := 0
	for _, r := range rs {
		switch {
		case !r.IsError:
			stored++
		case r.Meta.Diag != nil && (r.Meta.Diag.Code == "IN_PROGRESS" || r.Meta.Diag.Code == "ALREADY_REGISTERED") && r.Meta.Diag.StateChanged == "no":
		default:
			t.Errorf("unexpected answer: %s", tail(r.raw, 500))
		}
	}
	// Once the race is over, each process still holds its cached keyless copy (the one that
	// stored the key dropped its own): a call now must see the key all the same.
	for i := range 2 {
		if r := c.call(i, "mindvault_register", `{"name":"Late","email":"late@example.org","profile":"pub"}`); r.Meta.Diag == nil || r.Meta.Diag.Code != "ALREADY_REGISTERED" {
			t.Errorf("process %d, a later call: %s", i, tail(r.raw, 500))
		}
	}
	if n := c.sb.Count("api", "POST /publishers"); n != 1 || stored != 1 {
		t.Fatalf("the API registered %d publishers and %d calls stored a key; want 1 and 1", n, stored)
	}
	raw, _ := sm.Value(prefix + "pub")
	var p struct {
		APIKey string `json:"apiKey"`
	}
	if json.Unmarshal([]byte(raw), &p) != nil || p.APIKey == "" {
		t.Fatalf("profile pub holds no API key: %d bytes", len(raw))
	}
}
