package errmap

import (
	"strings"
	"testing"
)

func BenchmarkMapProblemBody(b *testing.B) {
	f := Facts{Source: SourceHorizon, Operation: "Balance failed", Status: 400, Secrets: []string{testSeed, testAPIKey},
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
	f := Facts{Source: SourceAPI, Operation: s, Detail: s, UpstreamDetail: s, Body: []byte(`{"error":"` + s + `"}`), TxHash: s}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		Map(f)
	}
}
