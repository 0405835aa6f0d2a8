package horizon_test

import (
	"context"
	"testing"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/clients/horizon"
	dt "github.com/mindvault/mcp-endpoint/internal/testkit/downstreamtest"
)

const address = "GBBD47IF6LWK7P7MDEVSCWR7DPUWV3NY3DTQEVFL4NAT4AQH3ZLLFLA5"

const accountJSON = `{"id":"` + address + `","account_id":"` + address + `","sequence":"1234567890123","balances":[` +
	`{"balance":"10.0000000","asset_type":"native"},` +
	`{"balance":"5.5000000","asset_type":"credit_alphanum4","asset_code":"USDC","asset_issuer":"GBBD47IF6LWK7P7MDEVSCWR7DPUWV3NY3DTQEVFL4NAT4AQH3ZLLFLA5"}]}`

// Horizon's own 404 is a problem document; a proxy's is anything else.
const problem404 = `{"type":"https://stellar.org/horizon-errors/not_found","title":"Resource Missing","status":404}`

func client(url string) *horizon.Client { return horizon.New(dt.Service(errmap.SourceHorizon, url)) }

func TestAccount(t *testing.T) {
	cases := []struct {
		name     string
		answer   dt.Answer
		found    bool
		seq      int64
		fails    bool
		code     string // the failure's code, when the client chooses it ("" = the taxonomy's choice)
		status   int
		requests int
	}{
		{name: "found", answer: dt.JSON(accountJSON), found: true, seq: 1234567890123, requests: 1},
		{name: "Horizon 404: missing, not a failure", answer: dt.Status(404, problem404), requests: 1},
		{name: "a proxy's 404 is a failure", answer: dt.Answer{Status: 404, Body: "<html>not here</html>"}, fails: true, status: 404, requests: 1},
		{name: "a 404 with an empty object is a failure", answer: dt.Status(404, `{}`), fails: true, status: 404, requests: 1},
		{name: "429 is retried, then fails", answer: dt.Status(429, `{}`), fails: true, code: "RATE_LIMITED", status: 429, requests: 2},
		{name: "no account_id", answer: dt.JSON(`{"id":"x","sequence":"1"}`), fails: true, code: "MALFORMED_RESPONSE", status: 200, requests: 1},
		{name: "sequence not a string number", answer: dt.JSON(`{"account_id":"` + address + `","sequence":12}`), fails: true, code: "MALFORMED_RESPONSE", status: 200, requests: 1},
		{name: "an array", answer: dt.JSON(`[]`), fails: true, code: "MALFORMED_RESPONSE", status: 200, requests: 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := dt.New(t, tc.answer)
			acct, found, err := client(srv.URL).Account(context.Background(), address)
			seen := srv.Requests()
			if len(seen) != tc.requests {
				t.Fatalf("Horizon received %d requests, want %d", len(seen), tc.requests)
			}
			if seen[0].Method != "GET" || seen[0].Path != "/accounts/"+address || seen[0].Query != "" || seen[0].Header.Get("Accept") != "application/json" {
				t.Fatalf("sent %s %s?%s", seen[0].Method, seen[0].Path, seen[0].Query)
			}
			if tc.fails {
				d := dt.Diagnostic(err)
				if !dt.IsErrmap(err) || found || (tc.code != "" && d.Code != tc.code) || d.Source != "horizon" || d.Status != tc.status {
					t.Fatalf("err = %v: %s %s HTTP %d, want %s horizon HTTP %d", err, d.Code, d.Source, d.Status, tc.code, tc.status)
				}
				return
			}
			if err != nil || found != tc.found {
				t.Fatalf("found = %v, err = %v; want found %v", found, err, tc.found)
			}
			if found && (acct.Sequence != tc.seq || len(acct.Balances) != 2 || acct.Balances[1].Code != "USDC") {
				t.Fatalf("account = %+v", acct)
			}
		})
	}
}

func TestRoot(t *testing.T) {
	cases := []struct {
		name   string
		answer dt.Answer
		code   string
	}{
		{name: "root", answer: dt.JSON(`{"horizon_version":"23.0.0","core_version":"v23","network_passphrase":"Test SDF Network ; September 2015","history_latest_ledger":99}`)},
		{name: "no passphrase", answer: dt.JSON(`{"horizon_version":"23.0.0"}`), code: "MALFORMED_RESPONSE"},
		{name: "not JSON", answer: dt.Answer{Status: 200, Body: "ok"}, code: "MALFORMED_RESPONSE"},
		{name: "502", answer: dt.Status(502, ``), code: "SERVER_ERROR"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := dt.New(t, tc.answer)
			r, err := client(srv.URL).Root(context.Background())
			if got := srv.Requests()[0]; got.Method != "GET" || got.Path != "/" {
				t.Fatalf("sent %s %s", got.Method, got.Path)
			}
			if tc.code != "" {
				if d := dt.Diagnostic(err); d.Code != tc.code || d.Source != "horizon" {
					t.Fatalf("err = %v: %s", err, d.Code)
				}
				return
			}
			if err != nil || r.NetworkPassphrase != "Test SDF Network ; September 2015" || r.HistoryLatest != 99 || r.HorizonVersion != "23.0.0" || r.CoreVersion != "v23" {
				t.Fatalf("root = %+v, %v", r, err)
			}
		})
	}
}

// Sequence reads the account; a missing one is ACCOUNT_MISSING, since nothing can be signed.
func TestSequence(t *testing.T) {
	seq, err := client(dt.New(t, dt.JSON(accountJSON)).URL).Sequence(context.Background(), address)
	if err != nil || seq != 1234567890123 {
		t.Fatalf("sequence = %d, %v", seq, err)
	}
	_, err = client(dt.New(t, dt.Status(404, problem404)).URL).Sequence(context.Background(), address)
	if d := dt.Diagnostic(err); d.Code != "ACCOUNT_MISSING" || d.Source != "horizon" {
		t.Fatalf("missing account: %+v", d)
	}
}

func TestTransportFailures(t *testing.T) {
	_, _, err := horizon.New(dt.Service(errmap.SourceHorizon, dt.Refused(t))).Account(context.Background(), address)
	if d := dt.Diagnostic(err); d.Code != "NETWORK_ERROR" || d.Source != "horizon" {
		t.Fatalf("refused: %+v", d)
	}
	_, err = horizon.New(dt.Quick(errmap.SourceHorizon, dt.New(t, dt.Answer{Hang: true}).URL)).Root(context.Background())
	if d := dt.Diagnostic(err); d.Code != "TIMEOUT" {
		t.Fatalf("slow: %+v", d)
	}
}
