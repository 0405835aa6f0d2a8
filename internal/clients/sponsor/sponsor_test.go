package sponsor_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/stellar/go-stellar-sdk/keypair"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/clients/sponsor"
	dt "github.com/mindvault/mcp-endpoint/internal/testkit/downstreamtest"
)

var (
	mine  = keypair.Master("sponsor-test/mine").(*keypair.Full)
	other = keypair.Master("sponsor-test/other").(*keypair.Full)
)

func client(url string) *sponsor.Client { return sponsor.New(dt.Service(errmap.SourceSponsor, url)) }

// Create names the account to create, once: POST /create {"publicKey": G...}, never retried.
func TestCreateRequest(t *testing.T) {
	srv := dt.New(t, dt.Status(503, `{}`))
	_, _ = client(srv.URL).Create(context.Background(), mine.Address())
	got := srv.Only(t) // a 503 is not retried: a second POST could create a second account
	if got.Method != "POST" || got.Path != "/create" || got.Header.Get("Content-Type") != "application/json" ||
		got.Body != `{"publicKey":"`+mine.Address()+`"}` {
		t.Fatalf("sent %s %s %q", got.Method, got.Path, got.Body)
	}
}

func TestCreateAnswers(t *testing.T) {
	cases := []struct {
		name   string
		answer dt.Answer
		secret string // the secret Wallet must carry
		note   string
		fails  bool
		code   string // when the client chooses it
		status int
		state  string
	}{
		{name: "the named account", answer: dt.JSON(`{"publicKey":"` + mine.Address() + `"}`)},
		{name: "the service's own key pair", answer: dt.JSON(`{"publicKey":"` + other.Address() + `","secretKey":"` + other.Seed() + `"}`), secret: other.Seed()},
		{name: "with funding", answer: dt.JSON(`{"publicKey":"` + mine.Address() + `","funding":{"asset":"USDC","amount":"10","note":"testnet faucet"}}`),
			note: "The sponsored-account service credited the new wallet with 10 USDC (testnet faucet)."},
		{name: "no account id", answer: dt.JSON(`{"ok":true}`), fails: true, code: "MALFORMED_RESPONSE", status: 200, state: "unknown"},
		{name: "an invalid account id", answer: dt.JSON(`{"publicKey":"GNOTANACCOUNT"}`), fails: true, code: "MALFORMED_RESPONSE", status: 200, state: "unknown"},
		{name: "a secret of another account", answer: dt.JSON(`{"publicKey":"` + mine.Address() + `","secretKey":"` + other.Seed() + `"}`),
			fails: true, code: "MALFORMED_RESPONSE", status: 200, state: "unknown"},
		{name: "400: refused, nothing created", answer: dt.Status(400, `{"error":"bad key"}`), fails: true, status: 400, state: "no"},
		{name: "409: refused, nothing created", answer: dt.Status(409, `{"error":"exists"}`), fails: true, status: 409, state: "no"},
		{name: "408: may have been created", answer: dt.Status(408, ``), fails: true, status: 408, state: "unknown"},
		{name: "500: may have been created", answer: dt.Status(500, `{}`), fails: true, status: 500, state: "unknown"},
		{name: "302 not followed: may have been created", answer: dt.Answer{Status: 302, Header: http.Header{"Location": {"/create"}}}, fails: true, status: 302, state: "unknown"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := dt.New(t, tc.answer)
			w, err := client(srv.URL).Create(context.Background(), mine.Address())
			if n := len(srv.Requests()); n != 1 {
				t.Fatalf("the service received %d requests, want 1", n)
			}
			if tc.fails {
				d := dt.Diagnostic(err)
				if !dt.IsErrmap(err) || (tc.code != "" && d.Code != tc.code) || d.Source != "sponsor" || d.Status != tc.status || d.StateChanged != tc.state {
					t.Fatalf("err = %v: %s %s HTTP %d state %s", err, d.Code, d.Source, d.Status, d.StateChanged)
				}
				// No failure text may show a secret the answer carried.
				if strings.Contains(err.Error(), other.Seed()) || strings.Contains(errmap.FromError(err, errmap.Call{}).Text, other.Seed()) {
					t.Fatal("a secret from the answer reached the failure text")
				}
				return
			}
			if err != nil || w.SecretKey != tc.secret || w.Note() != tc.note {
				t.Fatalf("wallet = %+v (note %q), %v", w, w.Note(), err)
			}
		})
	}
}

// A connection that never opened proves nothing was created; one that timed out does not.
func TestCreateTransportFailures(t *testing.T) {
	_, err := sponsor.New(dt.Service(errmap.SourceSponsor, dt.Refused(t))).Create(context.Background(), mine.Address())
	if d := dt.Diagnostic(err); d.Code != "NETWORK_ERROR" || d.StateChanged != "no" {
		t.Fatalf("refused: %s state %s", d.Code, d.StateChanged)
	}
	_, err = sponsor.New(dt.Quick(errmap.SourceSponsor, dt.New(t, dt.Answer{Hang: true}).URL)).Create(context.Background(), mine.Address())
	if d := dt.Diagnostic(err); d.Code != "TIMEOUT" || d.StateChanged != "unknown" {
		t.Fatalf("slow: %s state %s", d.Code, d.StateChanged)
	}
}

// Probe: any answer from the application proves it is up; 5xx, 408, 429 and transport
// failures do not.
func TestProbe(t *testing.T) {
	cases := []struct {
		name   string
		answer dt.Answer
		fails  bool
	}{
		{"200", dt.JSON(`{"status":"ok"}`), false},
		{"404 from a deployment without the route", dt.Status(404, `{}`), false},
		{"405", dt.Status(405, ``), false},
		{"401", dt.Status(401, ``), false},
		{"408", dt.Status(408, ``), true},
		{"429", dt.Status(429, ``), true},
		{"503", dt.Status(503, ``), true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := dt.New(t, tc.answer)
			status, err := client(srv.URL).Probe(context.Background())
			got := srv.Requests()[0]
			if got.Method != "GET" || got.Path != "/health" || got.Body != "" {
				t.Fatalf("sent %s %s", got.Method, got.Path)
			}
			if status != tc.answer.Status || (err != nil) != tc.fails {
				t.Fatalf("probe = %d, %v", status, err)
			}
			if tc.fails && dt.Diagnostic(err).Source != "sponsor" {
				t.Fatalf("source = %s", dt.Diagnostic(err).Source)
			}
		})
	}
	if _, err := sponsor.New(dt.Service(errmap.SourceSponsor, dt.Refused(t))).Probe(context.Background()); dt.Diagnostic(err).Code != "NETWORK_ERROR" {
		t.Fatalf("refused probe: %v", err)
	}
}
