package tools

import (
	"net/http"
	"testing"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/clients/mindvault"
)

// TestPreview: the price is stated with 7 decimals, an announced size is passed on and an
// unannounced one left out, and an API failure is mapped.
func TestPreview(t *testing.T) {
	meta := func(price string, size mindvault.Bytes) *mindvault.Meta {
		return &mindvault.Meta{Listing: mindvault.Listing{ID: "guide", Title: "Guide", Price: mindvault.Decimal(price),
			ResourceType: "file", MimeType: "text/plain", VerificationStatus: "verified"},
			PublisherWallet: "GPUB", OnchainStatus: "registered", FileSize: size}
	}
	for _, tc := range []struct {
		name string
		args string
		meta *mindvault.Meta
		err  error
		want readWant
	}{
		{name: "file with size", args: `{"resourceId":"guide"}`, meta: meta("1.5", mindvault.Bytes{N: 2048, Known: true}), want: readWant{out: map[string]any{
			"id": "guide", "price": "1.5000000", "priceUsdc": "1.5000000", "mimeType": "text/plain", "sizeBytes": 2048,
			"onchainStatus": "registered", "publisherWallet": "GPUB"}}},
		{name: "size not announced", args: `{"resourceId":"guide"}`, meta: meta("2", mindvault.Bytes{}), want: readWant{out: map[string]any{
			"price": "2.0000000", "sizeBytes": nil}}},
		{name: "unknown id", args: `{"resourceId":"nope"}`, err: fakeFailure(errmap.SourceAPI, http.StatusNotFound, ""),
			want: readWant{code: errmap.CodeNotFound, category: "not_found", state: "no", next: "mindvault_browse"}},
		{name: "API down", args: `{"resourceId":"guide"}`, err: fakeFailure(errmap.SourceAPI, http.StatusBadGateway, ""),
			want: readWant{code: errmap.CodeServerError, category: "server", state: "no"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, _ := fakeDeps(t)
			d.API = &readAPI{meta: tc.meta, err: tc.err}
			checkRead(t, callTool(t, preview.Define(d), tc.args), tc.want)
		})
	}
}
