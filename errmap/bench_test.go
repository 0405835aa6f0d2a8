package errmap

import (
	"strings"
	"testing"
)

func BenchmarkMapProblemBody(b *testing.B) {
	f := Facts{Guides: testGuides, Source: SourceHorizon, Operation: "Balance failed", Status: 400, Secrets: []string{testSeed, testAPIKey},
		Body: []byte(`{"type":"https://stellar.org/horizon-errors/transaction_failed","title":"Transaction Failed","status":400,` +
			`"detail":"The transaction failed.","extras":{"result_codes":{"transaction":"tx_failed","operations":["op_underfunded"]}}}`)}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		Map(f)
	}
}

func BenchmarkValidation(b *testing.B) {
	issues := []Issue{{Path: "/resourceId", Rule: "required", Expected: "string"}, {Path: "/limit", Rule: "max", Expected: "at most 100"}}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		Validation("mindvault_browse", issues, []string{"query", "limit", "offset"}, nil)
	}
}

// BenchmarkMapHuge shows that caller strings far beyond every bound cost little: the 64 KiB body
// limit and the pre-redaction cut keep the work bounded.
func BenchmarkMapHuge(b *testing.B) {
	s := strings.Repeat("token=abc Bearer x "+testSeed+" ", 1<<14)
	f := Facts{Guides: testGuides, Source: SourceAPI, Operation: s, Detail: s, UpstreamDetail: s, Body: []byte(`{"error":"` + s + `"}`), TxHash: s}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		Map(f)
	}
}

// benchKey is a known secret with characters every escaper spells differently.
const benchKey = "Qx7/Lm+Tz&Rk<9>Pw"

// BenchmarkRedactPlain is the common case: a short upstream message that holds no secret.
func BenchmarkRedactPlain(b *testing.B) {
	r := NewRedactor([]string{testSeed, testAPIKey, benchKey})
	s := "Resource not found: no resource with id 7f3a9c2e for account " + testAccount
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		r.Redact(s)
	}
}

// BenchmarkRedactEscaped is an upstream body full of escapes (a query string, JSON and HTML
// escapes) that holds no secret: the text every escape-aware rule must look at.
func BenchmarkRedactEscaped(b *testing.B) {
	r := NewRedactor([]string{testSeed, testAPIKey, benchKey})
	s := strings.Repeat(`{\"path\":\"/resources/42/register/prepare?limit=5&amp;offset=10%2F20\",\"note\":\"a \u003c b\"} `, 8)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		r.Redact(s)
	}
}

// BenchmarkRedactSecret is a 403 body that echoes the key.
func BenchmarkRedactSecret(b *testing.B) {
	r := NewRedactor([]string{testSeed, testAPIKey, benchKey})
	s := `{"error":"forbidden: api key Qx7%2FLm%2BTz%26Rk%3C9%3EPw is not allowed for GET /resources/42/register/prepare"}`
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		r.Redact(s)
	}
}
