package mindvault_test

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/clients/mindvault"
	dt "github.com/mindvault/mcp-endpoint/internal/testkit/downstreamtest"
)

const wallet = "GBBD47IF6LWK7P7MDEVSCWR7DPUWV3NY3DTQEVFL4NAT4AQH3ZLLFLA5"

func client(url string) *mindvault.Client {
	return mindvault.New(dt.Service(errmap.SourceAPI, url))
}

const metaJSON = `{"id":"rustguide","title":"T","price":"1.50","verificationStatus":"verified"}`

// Each method sends exactly the request its route expects: method, escaped path, query,
// headers and body, as the API received them.
func TestRequestsSent(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name   string
		answer dt.Answer
		call   func(*mindvault.Client) error
		method string
		path   string
		query  string
		header map[string]string // headers that must arrive with these values ("" = absent)
		body   string            // JSON the body must equal; "" = no body
	}{
		{name: "catalog, every filter", answer: dt.JSON(`[]`),
			call: func(c *mindvault.Client) error {
				_, err := c.Catalog(ctx, mindvault.CatalogQuery{Search: "rust book", MinPrice: "0.5", MaxPrice: "2", VerificationStatus: "verified",
					ResourceType: "file", Owner: "ann", Sort: "price_asc", Limit: 5, Offset: 10})
				return err
			},
			method: "GET", path: "/resources",
			query:  "limit=5&maxPrice=2&minPrice=0.5&offset=10&owner=ann&resourceType=file&search=rust+book&sort=price_asc&verificationStatus=verified",
			header: map[string]string{"Accept": "application/json", "User-Agent": "downstreamtest/1", "x-api-key": ""}},
		{name: "catalog, no filter", answer: dt.JSON(`[]`),
			call:   func(c *mindvault.Client) error { _, err := c.Catalog(ctx, mindvault.CatalogQuery{}); return err },
			method: "GET", path: "/resources"},
		{name: "meta, id escaped", answer: dt.JSON(metaJSON),
			call:   func(c *mindvault.Client) error { _, err := c.Meta(ctx, "a b/c"); return err },
			method: "GET", path: "/resources/a%20b%2Fc/meta"},
		{name: "verification", answer: dt.JSON(`{"resourceId":"r1","status":"verified"}`),
			call:   func(c *mindvault.Client) error { _, err := c.Verification(ctx, "r1"); return err },
			method: "GET", path: "/resources/r1/verification"},
		{name: "agent status", answer: dt.JSON(`{"agent":{"status":"active","pricePerVerification":"0.10","walletAddress":"` + wallet + `"}}`),
			call:   func(c *mindvault.Client) error { _, err := c.AgentStatus(ctx); return err },
			method: "GET", path: "/agent/status"},
		{name: "catalog with a limit", answer: dt.JSON(`[]`),
			call: func(c *mindvault.Client) error {
				_, err := c.Catalog(ctx, mindvault.CatalogQuery{Limit: 1})
				return err
			},
			method: "GET", path: "/resources", query: "limit=1"},
		{name: "payments", answer: dt.JSON(`[]`),
			call:   func(c *mindvault.Client) error { _, err := c.Payments(ctx, wallet); return err },
			method: "GET", path: "/buyers/" + wallet + "/payments"},
		{name: "create resource", answer: dt.JSON(metaJSON),
			call: func(c *mindvault.Client) error {
				_, err := c.CreateResource(ctx, "key-123", mindvault.NewResource{Title: "T", Price: "1.5", ExternalURL: "https://x.example/a"})
				return err
			},
			method: "POST", path: "/resources", header: map[string]string{"x-api-key": "key-123", "Content-Type": "application/json"},
			body: `{"title":"T","price":"1.5","externalUrl":"https://x.example/a"}`},
		{name: "register publisher sends no API key", answer: dt.JSON(`{"id":"p1","apiKey":"k"}`),
			call: func(c *mindvault.Client) error {
				_, err := c.RegisterPublisher(ctx, "Ann", "ann@example.com", wallet)
				return err
			},
			method: "POST", path: "/publishers", header: map[string]string{"x-api-key": "", "Content-Type": "application/json"},
			body: `{"name":"Ann","email":"ann@example.com","walletAddress":"` + wallet + `"}`},
		{name: "prepare registration", answer: dt.JSON(`{"unsignedXdr":"AAAA"}`),
			call:   func(c *mindvault.Client) error { _, err := c.PrepareRegistration(ctx, "key-123", "r1"); return err },
			method: "GET", path: "/resources/r1/register/prepare", header: map[string]string{"x-api-key": "key-123"}},
		{name: "register signed", answer: dt.JSON(`{"onchainStatus":"pending","txHash":"ab"}`),
			call:   func(c *mindvault.Client) error { _, err := c.Register(ctx, "key-123", "r1", "SIGNED"); return err },
			method: "POST", path: "/resources/r1/register", header: map[string]string{"x-api-key": "key-123"},
			body: `{"signedXdr":"SIGNED"}`},
		{name: "register, server signs: no body", answer: dt.JSON(`{}`),
			call:   func(c *mindvault.Client) error { _, err := c.Register(ctx, "key-123", "r1", ""); return err },
			method: "POST", path: "/resources/r1/register", header: map[string]string{"x-api-key": "key-123", "Content-Type": ""}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := dt.New(t, tc.answer)
			if err := tc.call(client(srv.URL)); err != nil {
				t.Fatalf("call failed: %v", err)
			}
			got := srv.Only(t)
			if got.Method != tc.method || got.Path != tc.path || got.Query != tc.query {
				t.Fatalf("sent %s %s?%s, want %s %s?%s", got.Method, got.Path, got.Query, tc.method, tc.path, tc.query)
			}
			for k, v := range tc.header {
				if g := got.Header.Get(k); g != v {
					t.Errorf("header %s = %q, want %q", k, g, v)
				}
			}
			if tc.body == "" {
				if got.Body != "" {
					t.Fatalf("sent a body: %s", got.Body)
				}
				return
			}
			var gotBody, wantBody any
			if json.Unmarshal([]byte(got.Body), &gotBody) != nil || json.Unmarshal([]byte(tc.body), &wantBody) != nil || !reflect.DeepEqual(gotBody, wantBody) {
				t.Fatalf("body = %s, want %s", got.Body, tc.body)
			}
		})
	}
}

// A created resource carries a fresh Idempotency-Key, so a client-side replay of the same
// call is recognisable and two calls are not.
func TestCreateResourceIdempotencyKey(t *testing.T) {
	srv := dt.New(t, dt.JSON(metaJSON))
	c := client(srv.URL)
	for range 2 {
		if _, err := c.CreateResource(context.Background(), "k", mindvault.NewResource{Title: "T", Price: "1.5", ExternalURL: "https://x.example"}); err != nil {
			t.Fatal(err)
		}
	}
	seen := srv.Requests()
	k1, k2 := seen[0].Header.Get("Idempotency-Key"), seen[1].Header.Get("Idempotency-Key")
	if !regexp.MustCompile(`^[0-9a-f]{32}$`).MatchString(k1) || k1 == k2 {
		t.Fatalf("keys %q and %q: want two different 32-hex keys", k1, k2)
	}
}

// A caller's Idempotency-Key (the publish intent's) goes out verbatim in the header of the
// one request, never in the body; the API's two refusals of a reused key read as what they
// say: 409 (the first request with the key still in progress) may yet create the resource,
// 422 (the key came with another request) created nothing.
func TestCreateResourceCallerIdempotencyKey(t *testing.T) {
	ctx := context.Background()
	nr := mindvault.NewResource{Title: "T", Price: "1.5", ExternalURL: "https://x.example", IdempotencyKey: "publish-intent-0123"}
	srv := dt.New(t, dt.JSON(metaJSON))
	if _, err := client(srv.URL).CreateResource(ctx, "k", nr); err != nil {
		t.Fatal(err)
	}
	seen := srv.Requests()
	if len(seen) != 1 || seen[0].Header.Get("Idempotency-Key") != "publish-intent-0123" || len(seen[0].Header.Values("Idempotency-Key")) != 1 {
		t.Fatalf("requests %d, key %q", len(seen), seen[0].Header.Values("Idempotency-Key"))
	}
	var body map[string]any
	if err := json.Unmarshal([]byte(seen[0].Body), &body); err != nil || len(body) != 3 || body["title"] != "T" {
		t.Fatalf("body %s: the key must not be in it", seen[0].Body)
	}
	for _, tc := range []struct {
		answer      dt.Answer
		code, state string
	}{
		{dt.Status(409, `{"error":"Idempotent request already in progress"}`), "CONFLICT", "unknown"},
		{dt.Status(422, `{"error":"Idempotency-Key reused with a different request"}`), "BAD_REQUEST", "no"},
	} {
		srv := dt.New(t, tc.answer)
		_, err := client(srv.URL).CreateResource(ctx, "k", nr)
		d := dt.Diagnostic(err)
		if len(srv.Requests()) != 1 || d.Code != tc.code || d.StateChanged != tc.state || !strings.Contains(d.Detail, "dempoten") {
			t.Errorf("HTTP %d: %d requests, %s state %s (%s), want %s state %s", tc.answer.Status, len(srv.Requests()), d.Code, d.StateChanged, d.Detail, tc.code, tc.state)
		}
	}
}

func TestCatalogDecoding(t *testing.T) {
	srv := dt.New(t, dt.Answer{Status: 200,
		Header: http.Header{"X-Total-Count": {"42"}, "X-Next-Offset": {"20"}, "Age": {"7"}, "Cache-Control": {"max-age=30"}, "Date": {"Tue, 01 Dec 2026 05:49:19 GMT"}},
		Body:   `[{"id":"a","title":"A","price":"1.50","listed":true,"tags":["go"]},{"id":"b","price":2.5}]`})
	p, err := client(srv.URL).Catalog(context.Background(), mindvault.CatalogQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Resources) != 2 || p.Resources[0].Price != "1.50" || p.Resources[1].Price != "2.5" || !*p.Resources[0].Listed || p.Resources[0].Tags[0] != "go" {
		t.Fatalf("rows = %+v", p.Resources)
	}
	if p.Total == nil || *p.Total != 42 || p.NextOffset == nil || *p.NextOffset != 20 || p.Age != "7" || p.CacheControl != "max-age=30" || p.Date == "" {
		t.Fatalf("page facts = %+v", p)
	}
	// Without the headers the totals are unknown, not zero.
	srv = dt.New(t, dt.JSON(`[]`))
	p, err = client(srv.URL).Catalog(context.Background(), mindvault.CatalogQuery{})
	if err != nil || p.Total != nil || p.NextOffset != nil || len(p.Resources) != 0 {
		t.Fatalf("page = %+v, %v", p, err)
	}
}

func TestMetaDecoding(t *testing.T) {
	cases := []struct {
		name  string
		body  string
		size  int64
		known bool
	}{
		{"size as a number", `{"id":"r","price":1.5,"size":1234}`, 1234, true},
		{"fileSize as a string", `{"id":"r","price":"1.5","fileSize":"99"}`, 99, true},
		{"size wins over fileSize", `{"id":"r","price":"1","size":1,"fileSize":2}`, 1, true},
		{"negative size is unknown", `{"id":"r","price":"1","size":-4}`, 0, false},
		{"fractional size is unknown", `{"id":"r","price":"1","size":"1.5"}`, 0, false},
		{"no size", `{"id":"r","price":"1"}`, 0, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m, err := client(dt.New(t, dt.JSON(tc.body)).URL).Meta(context.Background(), "r")
			if err != nil {
				t.Fatal(err)
			}
			if n, ok := m.KnownSize(); n != tc.size || ok != tc.known {
				t.Fatalf("KnownSize = %d, %v; want %d, %v", n, ok, tc.size, tc.known)
			}
		})
	}
}

// TestVerificationWire pins the verification record to the document as the API spells it, in
// both directions: the client decodes it, and the sandbox, which writes its record with these
// same types, encodes exactly it. A misspelt tag would otherwise pass every sandbox test.
func TestVerificationWire(t *testing.T) {
	listed := true
	cases := []struct {
		name string
		wire string
		want mindvault.Verification
	}{
		{"verified",
			`{"resourceId":"r1","title":"Rust Guide","status":"verified","listed":true,"publishedAt":"2026-01-02T03:04:05.000Z",` +
				`"verification":{"isOriginal":true,"confidence":0.97,"flags":["ok"],"checkedAt":"2026-01-02T03:05:00.000Z"}}`,
			mindvault.Verification{ResourceID: "r1", Title: "Rust Guide", Status: "verified", Listed: &listed, PublishedAt: "2026-01-02T03:04:05.000Z",
				Verification: &mindvault.VerificationResult{IsOriginal: true, Confidence: 0.97, Flags: []string{"ok"}, CheckedAt: "2026-01-02T03:05:00.000Z"}}},
		{"no verdict yet",
			`{"resourceId":"r2","title":"Draft","status":"pending","listed":true,"publishedAt":"2026-01-02T03:04:05.000Z","verification":null}`,
			mindvault.Verification{ResourceID: "r2", Title: "Draft", Status: "pending", Listed: &listed, PublishedAt: "2026-01-02T03:04:05.000Z"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := client(dt.New(t, dt.JSON(tc.wire)).URL).Verification(context.Background(), tc.want.ResourceID)
			if err != nil || !reflect.DeepEqual(*got, tc.want) {
				t.Fatalf("decodes to %+v, %v; want %+v", got, err, tc.want)
			}
			enc, err := json.Marshal(tc.want)
			if err != nil || string(enc) != tc.wire {
				t.Fatalf("encodes to %s, %v; want %s", enc, err, tc.wire)
			}
		})
	}
}

func TestPaymentsDecoding(t *testing.T) {
	cases := []struct {
		name   string
		answer dt.Answer
		want   []mindvault.Payment
	}{
		{"a list", dt.JSON(`[{"paymentId":"p1","resourceId":"r1","title":"T","amount":"1.50","currency":"USDC","txHash":"ab","paidAt":"2026-01-01T00:00:00Z"}]`),
			[]mindvault.Payment{{PaymentID: "p1", ResourceID: "r1", Title: "T", Amount: "1.50", Currency: "USDC", TxHash: "ab", PaidAt: "2026-01-01T00:00:00Z"}}},
		{"wrapped, other field names", dt.JSON(`{"payments":[{"id":"p2","resourceId":" r2 ","amount":2,"createdAt":"2026-02-02T00:00:00Z"}]}`),
			[]mindvault.Payment{{PaymentID: "p2", ResourceID: "r2", Amount: "2", PaidAt: "2026-02-02T00:00:00Z"}}},
		{"empty list", dt.JSON(`[]`), []mindvault.Payment{}},
		{"404: no record", dt.Status(404, `{"error":"not found"}`), nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := client(dt.New(t, tc.answer).URL).Payments(context.Background(), wallet)
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("payments = %#v, %v; want %#v", got, err, tc.want)
			}
		})
	}
}

func TestWriteDecoding(t *testing.T) {
	ctx := context.Background()
	r, err := client(dt.New(t, dt.JSON(`{}`)).URL).Register(ctx, "k", "r1", "")
	if err != nil || r.OnchainStatus != "registered" {
		t.Fatalf("an empty registration answer = %+v, %v; want onchainStatus registered", r, err)
	}
	p, err := client(dt.New(t, dt.JSON(`{"id":"p1","name":"Ann","walletAddress":"`+wallet+`","apiKey":"secret-key"}`)).URL).RegisterPublisher(ctx, "Ann", "a@example.com", wallet)
	if err != nil || p.APIKey != "secret-key" || p.ID != "p1" {
		t.Fatalf("publisher = %+v, %v", p, err)
	}
	a, err := client(dt.New(t, dt.JSON(`{"agent":{"status":"active","pricePerVerification":0.25,"currency":"USDC","walletAddress":"`+wallet+`"},"stats":{"verified":3}}`)).URL).AgentStatus(ctx)
	if err != nil || a.Agent.PricePerVerification != "0.25" || a.Stats.Verified.Int() != 3 {
		t.Fatalf("agent status = %+v, %v", a, err)
	}
}

// TestAgentStatusAsTheRealServerSends reads the real server's answer: statistics as strings
// (avgConfidence "0.93", totalEarned "1.1000"), usage and recentActivity beside them; a
// statistic nobody can read is unknown, never a failed answer.
func TestAgentStatusAsTheRealServerSends(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name, stats string
		avg         *float64
	}{
		{"string", `{"totalVerifications":11,"verified":11,"rejected":0,"totalEarned":"1.1000","avgConfidence":"0.93"}`, ptrTo(0.93)},
		{"number", `{"totalVerifications":"11","verified":11,"rejected":0,"totalEarned":1.1,"avgConfidence":0.93}`, ptrTo(0.93)},
		{"unreadable", `{"totalVerifications":11,"avgConfidence":{"x":1}}`, nil},
		{"null", `{"avgConfidence":null}`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := `{"agent":{"name":"MindVault Verification Agent","walletAddress":"` + wallet + `","network":"stellar:testnet","pricePerVerification":"0.10","currency":"USDC","status":"active"},` +
				`"stats":` + tc.stats + `,"usage":{"totalTokens":4840,"estimatedCostUsd":"0.019800"},"recentActivity":[{"id":"v1","confidence":0.93}]}`
			a, err := client(dt.New(t, dt.JSON(body)).URL).AgentStatus(ctx)
			if err != nil {
				t.Fatalf("agent status: %v", err)
			}
			if got := a.Stats.AvgConfidence.Ptr(); (got == nil) != (tc.avg == nil) || (got != nil && *got != *tc.avg) {
				t.Errorf("avgConfidence = %v, want %v", got, tc.avg)
			}
			if a.Agent.PricePerVerification != "0.10" {
				t.Errorf("fee = %q", a.Agent.PricePerVerification)
			}
		})
	}
	// The fee decides a payment: without it the answer is unusable, and the failure names it.
	_, err := client(dt.New(t, dt.JSON(`{"agent":{"status":"active"},"stats":{}}`)).URL).AgentStatus(ctx)
	if f, ok := errmap.FactsOf(err); !ok || f.Code != errmap.CodeMalformedResponse || !strings.Contains(f.Detail, "pricePerVerification") {
		t.Fatalf("an answer without the fee = %v, want MALFORMED_RESPONSE naming the field", err)
	}
}

func ptrTo[T any](v T) *T { return &v }

// A 2xx whose body is not what the route promises is MALFORMED_RESPONSE, never a zero value;
// after a write it leaves the outcome unknown, since the service accepted the request.
func TestMalformedAnswers(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name  string
		body  string
		call  func(*mindvault.Client) error
		state string
	}{
		{"catalog not an array", `{"resources":[]}`, func(c *mindvault.Client) error { _, err := c.Catalog(ctx, mindvault.CatalogQuery{}); return err }, "no"},
		{"catalog row without id", `[{"title":"x"}]`, func(c *mindvault.Client) error { _, err := c.Catalog(ctx, mindvault.CatalogQuery{}); return err }, "no"},
		{"catalog price not a decimal", `[{"id":"a","price":true}]`, func(c *mindvault.Client) error { _, err := c.Catalog(ctx, mindvault.CatalogQuery{}); return err }, "no"},
		{"meta without id", `{"title":"x"}`, func(c *mindvault.Client) error { _, err := c.Meta(ctx, "r"); return err }, "no"},
		{"meta not JSON", `<html>`, func(c *mindvault.Client) error { _, err := c.Meta(ctx, "r"); return err }, "no"},
		{"verification an array", `[]`, func(c *mindvault.Client) error { _, err := c.Verification(ctx, "r"); return err }, "no"},
		{"agent status without agent", `{"stats":{}}`, func(c *mindvault.Client) error { _, err := c.AgentStatus(ctx); return err }, "no"},
		{"payments neither shape", `{"items":[]}`, func(c *mindvault.Client) error { _, err := c.Payments(ctx, wallet); return err }, "no"},
		{"payment without resource", `[{"paymentId":"p"}]`, func(c *mindvault.Client) error { _, err := c.Payments(ctx, wallet); return err }, "no"},
		{"prepare without XDR", `{}`, func(c *mindvault.Client) error { _, err := c.PrepareRegistration(ctx, "k", "r"); return err }, "no"},
		{"created resource without id", `{}`, func(c *mindvault.Client) error {
			_, err := c.CreateResource(ctx, "k", mindvault.NewResource{Title: "T", Price: "1.5", ExternalURL: "https://x.example"})
			return err
		}, "unknown"},
		{"publisher without API key", `{"id":"p1"}`, func(c *mindvault.Client) error {
			_, err := c.RegisterPublisher(ctx, "A", "a@example.com", wallet)
			return err
		}, "unknown"},
		{"registration not an object", `"ok"`, func(c *mindvault.Client) error { _, err := c.Register(ctx, "k", "r", "X"); return err }, "unknown"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call(client(dt.New(t, dt.JSON(tc.body)).URL))
			if !dt.IsErrmap(err) {
				t.Fatalf("err = %v, want a mapped failure", err)
			}
			d := dt.Diagnostic(err)
			if d.Code != "MALFORMED_RESPONSE" || d.Category != "server" || d.Source != "api" || d.StateChanged != tc.state {
				t.Fatalf("diagnostic = %s/%s/%s state %s, want MALFORMED_RESPONSE/server/api state %s", d.Code, d.Category, d.Source, d.StateChanged, tc.state)
			}
		})
	}
}

// Status failures: reads are retried once on a 503 (two requests), writes never (one); a
// write that failed with a 5xx may have happened, one refused with a 4xx did not.
func TestStatusFailures(t *testing.T) {
	ctx := context.Background()
	create := func(c *mindvault.Client) error {
		_, err := c.CreateResource(ctx, "k", mindvault.NewResource{Title: "T", Price: "1.5", ExternalURL: "https://x.example"})
		return err
	}
	cases := []struct {
		name     string
		answer   dt.Answer
		call     func(*mindvault.Client) error
		requests int
		status   int
		category string
		state    string
	}{
		{"meta 404", dt.Status(404, `{"error":"Resource not found"}`), func(c *mindvault.Client) error { _, err := c.Meta(ctx, "r"); return err }, 1, 404, "not_found", "no"},
		{"catalog 503 is retried", dt.Status(503, `{}`), func(c *mindvault.Client) error { _, err := c.Catalog(ctx, mindvault.CatalogQuery{}); return err }, 2, 503, "server", "no"},
		{"prepare 401", dt.Status(401, `{"error":"bad key"}`), func(c *mindvault.Client) error { _, err := c.PrepareRegistration(ctx, "k", "r"); return err }, 1, 401, "auth", "no"},
		{"payments 500 is retried", dt.Status(500, `{}`), func(c *mindvault.Client) error { _, err := c.Payments(ctx, wallet); return err }, 2, 500, "server", "no"},
		{"create 503 is not retried, outcome unknown", dt.Status(503, `{}`), create, 1, 503, "server", "unknown"},
		{"create 400 changed nothing", dt.Status(400, `{"error":"bad price"}`), create, 1, 400, "validation", "no"},
		{"create redirect not followed", dt.Answer{Status: 307, Header: http.Header{"Location": {"/elsewhere"}}}, create, 1, 307, "", "unknown"},
		{"publisher 409", dt.Status(409, `{"error":"email taken"}`), func(c *mindvault.Client) error {
			_, err := c.RegisterPublisher(ctx, "A", "a@example.com", wallet)
			return err
		}, 1, 409, "conflict", "no"},
		{"register 502 outcome unknown", dt.Status(502, `{}`), func(c *mindvault.Client) error { _, err := c.Register(ctx, "k", "r", "X"); return err }, 1, 502, "server", "unknown"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := dt.New(t, tc.answer)
			err := tc.call(client(srv.URL))
			if n := len(srv.Requests()); n != tc.requests {
				t.Fatalf("the API received %d requests, want %d", n, tc.requests)
			}
			if !dt.IsErrmap(err) {
				t.Fatalf("err = %v, want a mapped failure", err)
			}
			d := dt.Diagnostic(err)
			if d.Status != tc.status || (tc.category != "" && d.Category != tc.category) || d.StateChanged != tc.state {
				t.Fatalf("diagnostic = HTTP %d %s state %s, want HTTP %d %s state %s", d.Status, d.Category, d.StateChanged, tc.status, tc.category, tc.state)
			}
		})
	}
}

// Transport failures: nothing listening is NETWORK_ERROR and, for a write, proves nothing was
// created; a write that timed out may have been acted on.
func TestTransportFailures(t *testing.T) {
	ctx := context.Background()
	refused := mindvault.New(dt.Service(errmap.SourceAPI, dt.Refused(t)))
	if _, err := refused.Meta(ctx, "r"); dt.Diagnostic(err).Code != "NETWORK_ERROR" {
		t.Fatalf("refused read: %+v", dt.Diagnostic(err))
	}
	_, err := refused.CreateResource(ctx, "k", mindvault.NewResource{Title: "T", Price: "1.5", ExternalURL: "https://x.example"})
	if d := dt.Diagnostic(err); d.Code != "NETWORK_ERROR" || d.StateChanged != "no" {
		t.Fatalf("refused write: %s state %s", d.Code, d.StateChanged)
	}
	hang := dt.New(t, dt.Answer{Hang: true})
	slow := mindvault.New(dt.Quick(errmap.SourceAPI, hang.URL))
	if _, err := slow.AgentStatus(ctx); dt.Diagnostic(err).Code != "TIMEOUT" {
		t.Fatalf("slow read: %+v", dt.Diagnostic(err))
	}
	_, err = slow.Register(ctx, "k", "r", "X")
	if d := dt.Diagnostic(err); d.Code != "TIMEOUT" || d.StateChanged != "unknown" {
		t.Fatalf("slow write: %s state %s", d.Code, d.StateChanged)
	}
}
