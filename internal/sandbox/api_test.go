package sandbox

import (
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

func catalogIDs(rows []catalogRow) []string {
	var ids []string
	for _, r := range rows {
		ids = append(ids, r.ID)
	}
	return ids
}

func TestCatalogQueries(t *testing.T) {
	sb, _ := start(t, "")
	demo, _ := sb.Account("demo")
	tests := []struct {
		query   string
		ids     []string // exact page, in order; nil = not checked
		total   string
		next    string // "" = header absent
		limit   string
		offset  string
		checkFn func(t *testing.T, rows []catalogRow)
	}{
		{query: "", total: "10", limit: "20", offset: "0",
			ids: []string{"zkprimer", "diagramset", "datasetcard", "agentpromptpack", "gotestingtips", "vectordbbench", "sorobanaudit", "stellarcheatsheet", "llmprompts", "rustguide"}},
		{query: "limit=3", ids: []string{"zkprimer", "diagramset", "datasetcard"}, total: "10", next: "3", limit: "3", offset: "0"},
		{query: "limit=3&offset=9", ids: []string{"rustguide"}, total: "10", limit: "3", offset: "9"},
		{query: "limit=5&offset=5", total: "10", limit: "5", offset: "5", ids: []string{"vectordbbench", "sorobanaudit", "stellarcheatsheet", "llmprompts", "rustguide"}},
		{query: "offset=50", ids: []string{}, total: "10", limit: "20", offset: "50"},
		{query: "sort=price_asc&limit=3", ids: []string{"llmprompts", "datasetcard", "gotestingtips"}, total: "10", next: "3", limit: "3", offset: "0"},
		{query: "sort=price_desc&limit=2", ids: []string{"stellarcheatsheet", "vectordbbench"}, total: "10", next: "2", limit: "2", offset: "0"},
		{query: "sort=title&limit=2", ids: []string{"agentpromptpack", "diagramset"}, total: "10", next: "2", limit: "2", offset: "0"},
		{query: "minPrice=1&maxPrice=8", ids: []string{"zkprimer", "diagramset", "agentpromptpack", "sorobanaudit", "rustguide"}, total: "5", limit: "20", offset: "0"},
		{query: "maxPrice=0.10", ids: []string{"llmprompts"}, total: "1", limit: "20", offset: "0"},
		{query: "search=PROMPT", ids: []string{"agentpromptpack", "llmprompts"}, total: "2", limit: "20", offset: "0"},
		{query: "search=soroban", ids: []string{"sorobanaudit", "stellarcheatsheet"}, total: "2", limit: "20", offset: "0"}, // description match
		{query: "verificationStatus=pending", ids: []string{"sorobanaudit"}, total: "1", limit: "20", offset: "0"},
		{query: "verificationStatus=rejected", ids: []string{}, total: "0", limit: "20", offset: "0"}, // the rejected row is unlisted
		{query: "resourceType=link&sort=title", ids: []string{"gotestingtips", "llmprompts", "vectordbbench", "zkprimer"}, total: "4", limit: "20", offset: "0"},
		{query: "owner=demo+publisher", ids: []string{"agentpromptpack", "vectordbbench", "llmprompts"}, total: "3", limit: "20", offset: "0"},
		{query: "owner=" + strings.ToLower(demo.Address[:12]), total: "3", limit: "20", offset: "0"},
		{query: "owner=northwind&resourceType=file&sort=price_desc", ids: []string{"stellarcheatsheet", "diagramset", "sorobanaudit", "rustguide", "datasetcard"}, total: "5", limit: "20", offset: "0"},
		{query: "limit=1", total: "10", next: "1", limit: "1", offset: "0", checkFn: func(t *testing.T, rows []catalogRow) {
			r := rows[0]
			if r.Price != "6.25" || r.ResourceType != "link" || r.MimeType != nil || r.VerificationStatus != "verified" ||
				r.PublisherName != "Northwind Labs" || r.AccessURL != sb.APIURL+"/resources/zkprimer" {
				t.Errorf("row %+v", r)
			}
			if _, err := time.Parse(time.RFC3339, r.CreatedAt); err != nil {
				t.Errorf("createdAt %q: %v", r.CreatedAt, err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			r := get(t, sb.APIURL+"/resources?"+tt.query)
			if r.status != 200 {
				t.Fatalf("status %d: %s", r.status, r.body)
			}
			var rows []catalogRow
			mustJSON(t, r.body, &rows)
			if rows == nil {
				t.Fatal("body is not a JSON array")
			}
			if tt.ids != nil && !slices.Equal(catalogIDs(rows), tt.ids) {
				t.Errorf("ids %v, want %v", catalogIDs(rows), tt.ids)
			}
			for h, want := range map[string]string{"X-Total-Count": tt.total, "X-Next-Offset": tt.next, "X-Limit": tt.limit, "X-Offset": tt.offset} {
				if got := r.header.Get(h); got != want {
					t.Errorf("%s = %q, want %q", h, got, want)
				}
			}
			if _, ok := r.header["X-Next-Offset"]; tt.next == "" && ok {
				t.Error("X-Next-Offset present on the last page")
			}
			if r.header.Get("Cache-Control") != "public, max-age=10" || r.header.Get("Date") == "" {
				t.Errorf("cache headers: %v", r.header)
			}
			for _, row := range rows {
				if !regexp.MustCompile(`^[a-z0-9]{1,24}$`).MatchString(row.ID) {
					t.Errorf("id %q is not a valid on-chain id", row.ID)
				}
			}
			if tt.checkFn != nil {
				tt.checkFn(t, rows)
			}
		})
	}
}

func TestCatalogRejectsBadQueries(t *testing.T) {
	sb, _ := start(t, "")
	tests := []struct{ query, want string }{
		{"foo=1", "Unrecognized key(s) in object: 'foo'"},
		{"tags=a&listed=true", "Unrecognized key(s) in object: 'listed', 'tags'"},
		{"verificationStatus=skipped", "Invalid enum value. Expected 'verified' | 'pending' | 'rejected', received 'skipped'"},
		{"resourceType=video", "Invalid enum value. Expected 'file' | 'link', received 'video'"},
		{"sort=oldest", "Invalid enum value"},
		{"limit=0", "Number must be greater than or equal to 1"},
		{"limit=101", "Number must be less than or equal to 100"},
		{"limit=abc", "Expected number, received nan"},
		{"limit=2.5", "Expected integer, received float"},
		{"offset=-1", "Number must be greater than or equal to 0"},
		{"minPrice=-1", "minPrice must be a decimal number"},
		{"maxPrice=1e3", "maxPrice must be a decimal number"},
		{"limit=1&limit=2", "limit: Expected string, received array"},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			r := get(t, sb.APIURL+"/resources?"+tt.query)
			var body struct{ Error string }
			mustJSON(t, r.body, &body)
			if r.status != 400 || body.Error != tt.want && !strings.HasPrefix(body.Error, tt.want) {
				t.Fatalf("got %d %s, want 400 %q", r.status, r.body, tt.want)
			}
		})
	}
}

func TestResourceMetaVerificationAndAgent(t *testing.T) {
	sb, _ := start(t, "")
	creator, _ := sb.Account("creator")

	var m metaBody
	r := get(t, sb.APIURL+"/resources/diagramset/meta")
	mustJSON(t, r.body, &m)
	if r.status != 200 || m.Price != "8.00" || m.PublisherWallet != creator.Address || m.OnchainStatus != "registered" ||
		m.OnchainTxHash == nil || len(*m.OnchainTxHash) != 64 || m.ThumbnailURL == "" || m.ThumbnailPath == nil || len(m.ContentHash) != 64 {
		t.Fatalf("meta: %d %s", r.status, r.body)
	}
	// Unlisted rows are visible through meta and verification, not in the catalog.
	for _, id := range []string{"copiedessay", "draftnotes"} {
		if r := get(t, sb.APIURL+"/resources/"+id+"/meta"); r.status != 200 {
			t.Errorf("meta of unlisted %s: %d", id, r.status)
		}
	}
	var v struct {
		ResourceID, Title, Status, PublishedAt string
		Listed                                 bool
		Verification                           *struct {
			IsOriginal bool
			Confidence float64
			Flags      []string
			CheckedAt  string
		}
	}
	r = get(t, sb.APIURL+"/resources/copiedessay/verification")
	mustJSON(t, r.body, &v)
	if v.Status != "rejected" || v.Listed || v.Verification == nil || v.Verification.IsOriginal || len(v.Verification.Flags) == 0 {
		t.Fatalf("verification: %s", r.body)
	}
	r = get(t, sb.APIURL+"/resources/draftnotes/verification")
	if !strings.Contains(string(r.body), `"verification":null`) {
		t.Fatalf("pending verification should be null: %s", r.body)
	}

	var a struct {
		Agent struct {
			WalletAddress, Network, Endpoint, PricePerVerification, Currency, Status string
		}
		Stats struct {
			TotalVerifications, Verified, Rejected int
			TotalEarned, AvgConfidence             string
		}
		Usage          map[string]any
		RecentActivity []struct{ ID, ResourceTitle string }
	}
	r = get(t, sb.APIURL+"/agent/status")
	mustJSON(t, r.body, &a)
	agent, _ := sb.Account("agent")
	if a.Agent.PricePerVerification != "0.10" || a.Agent.Currency != "USDC" || a.Agent.Status != "active" ||
		a.Agent.WalletAddress != agent.Address || a.Stats.TotalVerifications != 9 || a.Stats.Rejected != 1 ||
		a.Stats.TotalEarned != "0.9000" || !regexp.MustCompile(`^0\.[0-9]{2}$`).MatchString(a.Stats.AvgConfidence) || len(a.RecentActivity) != 9 || a.RecentActivity[0].ID != "vrf_copiedessay" {
		t.Fatalf("agent status: %s", r.body)
	}

	for _, path := range []string{"/resources/nope/meta", "/resources/nope/verification"} {
		r := get(t, sb.APIURL+path)
		if r.status != 404 || string(r.body) != `{"error":"Resource not found"}` {
			t.Errorf("%s: %d %s", path, r.status, r.body)
		}
	}
	for _, req := range [][2]string{{"GET", "/nothing"}, {"PUT", "/resources/rustguide"}, {"POST", "/resources/rustguide/meta"}, {"DELETE", "/resources/rustguide/meta"}} {
		r := do(t, req[0], sb.APIURL+req[1], nil, nil)
		if r.status != 404 || string(r.body) != `{"error":"Not found"}` || !strings.HasPrefix(r.header.Get("Content-Type"), "application/json") {
			t.Errorf("%v: %d %s", req, r.status, r.body)
		}
	}
}

func TestCatalogQueryEscaping(t *testing.T) {
	sb, _ := start(t, "")
	r := get(t, sb.APIURL+"/resources?search="+url.QueryEscape("Table-Driven"))
	var rows []catalogRow
	mustJSON(t, r.body, &rows)
	if r.status != http.StatusOK || len(rows) != 1 || rows[0].ID != "gotestingtips" {
		t.Fatalf("%d %s", r.status, r.body)
	}
}

// Catalog rows and /meta carry no tags (the real server keeps them on chain only), and the
// catalog refuses ?tags= with a 400, as the real server does.
func TestCatalogCarriesNoTags(t *testing.T) {
	sb, _ := start(t, "")
	r := get(t, sb.APIURL+"/resources?limit=100")
	if r.status != http.StatusOK || strings.Contains(string(r.body), `"tags"`) {
		t.Fatalf("catalog rows with tags: %d %s", r.status, r.body)
	}
	if m := get(t, sb.APIURL+"/resources/zkprimer/meta"); strings.Contains(string(m.body), `"tags"`) {
		t.Fatalf("meta with tags: %s", m.body)
	}
	if r := get(t, sb.APIURL+"/resources?tags=rust"); r.status != http.StatusBadRequest {
		t.Fatalf("?tags=: %d %s", r.status, r.body)
	}
}

// TestSearchMatchesWords: a search matches the starts of words, not substrings of words.
func TestSearchMatchesWords(t *testing.T) {
	for _, tc := range []struct {
		text, query string
		want        bool
	}{
		{"Rust Ownership Field Guide", "rust", true},
		{"Stellar cheat sheet: trustlines, assets", "rust", false},
		{"Rust Ownership Field Guide", "own guide", true},
		{"Rust Ownership Field Guide", "rust zk", false},
		{"LLM prompt patterns", "PROMPT", true},
	} {
		if got := matchesWords(tc.text, tc.query); got != tc.want {
			t.Errorf("matchesWords(%q, %q) = %v, want %v", tc.text, tc.query, got, tc.want)
		}
	}
}
