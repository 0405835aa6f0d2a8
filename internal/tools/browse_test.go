package tools

import (
	"net/http"
	"testing"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/clients/mindvault"
)

// browseRow is one catalog row of the fake API's page.
func browseRow(id, title, price, created string) mindvault.Resource {
	return mindvault.Resource{Listing: mindvault.Listing{ID: id, Title: title, Description: "about " + title,
		Price: mindvault.Decimal(price), ResourceType: "link", VerificationStatus: "verified", CreatedAt: created}}
}

// TestBrowse drives mindvault_browse and mindvault_search: the API's page is filtered, sorted
// and priced locally, an empty page is a success with a message, and an API failure is mapped.
func TestBrowse(t *testing.T) {
	total, next := 7, 2
	page := &mindvault.Page{Total: &total, NextOffset: &next, Age: "30", CacheControl: "max-age=60", Resources: []mindvault.Resource{
		browseRow("go-guide", "Go guide", "2.5", "2026-01-02"), browseRow("rust-book", "Rust book", "0.75", "2026-01-01")}}
	for _, tc := range []struct {
		name   string
		search bool
		args   string
		page   *mindvault.Page
		err    error
		calls  int32
		sent   string // the keyword the API was asked for
		want   readWant
	}{
		{name: "browse sorted by price", args: `{"sort":"price_asc","limit":2}`, page: page, calls: 1, want: readWant{out: map[string]any{
			"count": 2, "total": 7, "nextOffset": 2, "freshness": "Catalog cache age: 30s (max-age 60s), fresh.",
			"resources": []map[string]any{
				{"id": "rust-book", "title": "Rust book", "description": "about Rust book", "price": "0.7500000", "resourceType": "link",
					"verificationStatus": "verified", "publisherName": "", "accessUrl": "", "createdAt": "2026-01-01"},
				{"id": "go-guide", "title": "Go guide", "description": "about Go guide", "price": "2.5000000", "resourceType": "link",
					"verificationStatus": "verified", "publisherName": "", "accessUrl": "", "createdAt": "2026-01-02"}}}}},
		{name: "browse empty catalog", args: `{}`, page: &mindvault.Page{}, calls: 1, want: readWant{out: map[string]any{
			"count": 0, "resources": []any{}, "message": "No resources listed yet."}}},
		{name: "search keyword kept locally", search: true, args: `{"query":"GO"}`, page: page, calls: 1, sent: "GO", want: readWant{out: map[string]any{
			"count": 1, "freshness": nil}}},
		{name: "search matches nothing", search: true, args: `{"query":"haskell"}`, page: page, calls: 1, sent: "haskell", want: readWant{out: map[string]any{
			"count": 0, "resources": []any{}, "message": `No resources match "haskell".`}}},
		{name: "search without a criterion asks nothing", search: true, args: `{}`,
			want: readWant{code: errmap.CodeInvalidArguments, category: "validation", state: "no"}},
		{name: "API down", args: `{}`, err: fakeFailure(errmap.SourceAPI, http.StatusServiceUnavailable, ""), calls: 1,
			want: readWant{code: errmap.CodeServerError, category: "server", state: "no"}},
		{name: "API rate limit", search: true, args: `{"owner":"ann"}`, err: fakeFailure(errmap.SourceAPI, http.StatusTooManyRequests, ""), calls: 1,
			want: readWant{code: errmap.CodeRateLimited, category: "rate_limit", state: "no"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, _ := fakeDeps(t)
			api := &readAPI{page: tc.page, err: tc.err}
			d.API = api
			tool := browse.Define(d)
			if tc.search {
				tool = search.Define(d)
			}
			checkRead(t, callTool(t, tool, tc.args), tc.want)
			if api.calls.Load() != tc.calls || api.query.Search != tc.sent {
				t.Fatalf("API saw %d calls searching %q, want %d searching %q", api.calls.Load(), api.query.Search, tc.calls, tc.sent)
			}
		})
	}
}
