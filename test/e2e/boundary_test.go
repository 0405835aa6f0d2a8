package e2e_test

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestBoundaryRejectsBeforeAnyCall: amounts beyond the contract's maximum, integers beyond what
// the API or the tool takes, resource ids and profile names without a letter or digit ("." and
// "..", which would be path segments) and objects with a key given twice are -32602 issues at
// their path, and no downstream sees a single request.
func TestBoundaryRejectsBeforeAnyCall(t *testing.T) {
	e := newEnv(t, nil)
	huge := strings.Repeat("9", 32)
	cases := []struct {
		name, tool, args, path, rule string
	}{
		{"32-digit set_price", "mindvault_set_price", `{"resourceId":"rustguide","price":"` + huge + `"}`, "/price", "usdcpos"},
		{"set_price above the contract maximum", "mindvault_set_price", `{"resourceId":"rustguide","price":"100000000000.0000001"}`, "/price", "usdcpos"},
		{"32-digit publish price", "mindvault_publish", `{"title":"t","price":"` + huge + `","externalUrl":"https://example.org/x"}`, "/price", "usdcpos"},
		{"publish fee cap", "mindvault_publish", `{"title":"t","price":"1","externalUrl":"https://example.org/x","maxFeeUsdc":"` + huge + `"}`, "/maxFeeUsdc", "usdcpos"},
		{"buy cap", "mindvault_buy", `{"resourceId":"rustguide","maxPriceUsdc":"` + huge + `"}`, "/maxPriceUsdc", "usdcpos"},
		{"browse filter", "mindvault_browse", `{"maxPrice":"` + huge + `"}`, "/maxPrice", "usdc"},
		{"search filter", "mindvault_search", `{"minPrice":"100000000001"}`, "/minPrice", "usdc"},
		{"setup_wallet dot", "mindvault_setup_wallet", `{"profile":"."}`, "/profile", "profile"},
		{"setup_wallet dot dot", "mindvault_setup_wallet", `{"profile":".."}`, "/profile", "profile"},
		{"wallet_info dot dot", "mindvault_wallet_info", `{"profile":".."}`, "/profile", "profile"},
		{"buy profile of punctuation", "mindvault_buy", `{"resourceId":"rustguide","profile":"-_"}`, "/profile", "profile"},
		{"duplicate resourceId", "mindvault_preview", `{"resourceId":"rustguide","resourceId":"zkprimer"}`, "/resourceId", "duplicate"},
		{"duplicate spelled with an escape", "mindvault_buy", `{"resourceId":"rustguide","\u0072esourceId":"zkprimer"}`, "/resourceId", "duplicate"},
		{"duplicate profile on a write", "mindvault_setup_wallet", `{"profile":"a","profile":"b"}`, "/profile", "duplicate"},
		{"nested duplicate", "mindvault_set_tags", `{"resourceId":"rustguide","tags":[{"k":1,"k":2}]}`, "/tags/0/k", "duplicate"},
		{"browse offset of int64's maximum", "mindvault_browse", `{"offset":9223372036854775807}`, "/offset", "max"},
		{"browse offset past what the API reads exactly", "mindvault_browse", `{"offset":9007199254740992}`, "/offset", "max"},
		{"search offset", "mindvault_search", `{"query":"rust","offset":9223372036854775807}`, "/offset", "max"},
		{"registry_list start past u32", "mindvault_registry_list", `{"start":4294967296}`, "/start", "max"},
		{"publish_status wait", "mindvault_publish_status", `{"resourceId":"rustguide","waitSeconds":61}`, "/waitSeconds", "max"},
		{"preview dot dot", "mindvault_preview", `{"resourceId":".."}`, "/resourceId", "resourceid"},
		{"preview dot", "mindvault_preview", `{"resourceId":"."}`, "/resourceId", "resourceid"},
		{"preview dot dot, padded", "mindvault_preview", `{"resourceId":"  ..  "}`, "/resourceId", "resourceid"},
		{"buy dot dot", "mindvault_buy", `{"resourceId":".."}`, "/resourceId", "resourceid"},
		{"publish_status dot dot", "mindvault_publish_status", `{"resourceId":".."}`, "/resourceId", "resourceid"},
		{"publish resume dot", "mindvault_publish", `{"resourceId":"."}`, "/resourceId", "resourceid"},
		{"register_onchain dot dot", "mindvault_register_onchain", `{"resourceId":".."}`, "/resourceId", "resourceid"},
		{"check_consistency dot dot", "mindvault_check_consistency", `{"resourceId":".."}`, "/resourceId", "resourceid"},
		{"registry_lookup dot dot", "mindvault_registry_lookup", `{"resourceId":".."}`, "/resourceId", "resourceid"},
		{"purchase_history dot dot", "mindvault_purchase_history", `{"resourceId":".."}`, "/resourceId", "resourceid"},
		{"set_listed dot dot", "mindvault_set_listed", `{"resourceId":"..","listed":true}`, "/resourceId", "resourceid"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := e.in(t)
			e.faults("")
			r := e.call(tc.tool, tc.args)
			if !r.IsError || r.Meta.Diag == nil || r.Meta.Diag.Code != "INVALID_ARGUMENTS" {
				t.Fatalf("want INVALID_ARGUMENTS, got %s", r.raw)
			}
			var meta struct {
				Meta struct {
					Diag struct {
						JSONRPCCode int `json:"jsonrpcCode"`
						Issues      []struct {
							Path, Rule string
						} `json:"issues"`
					} `json:"io.mindvault/error"`
				} `json:"_meta"`
			}
			var resp struct {
				Result json.RawMessage `json:"result"`
			}
			_ = json.Unmarshal([]byte(r.raw), &resp)
			_ = json.Unmarshal(resp.Result, &meta)
			d := meta.Meta.Diag
			found := false
			for _, is := range d.Issues {
				found = found || (is.Path == tc.path && is.Rule == tc.rule)
			}
			if d.JSONRPCCode != -32602 || !found {
				t.Fatalf("want -32602 with issue %s %s, got %+v", tc.path, tc.rule, d)
			}
			if !strings.Contains(r.Content[0].Text, "(-32602): ") || !strings.Contains(r.Content[0].Text, tc.path) {
				t.Errorf("line 1 must name the path: %q", r.Content[0].Text)
			}
			for _, svc := range []string{"api", "horizon", "rpc", "sponsor"} {
				if n := e.sb.Count(svc, "*"); n != 0 {
					t.Errorf("%s saw %d requests for rejected arguments", svc, n)
				}
			}
		})
	}
}

// TestLargestOffsetReachesTheAPI: the largest offset the boundary accepts, 2^53-1, is one the
// API reads exactly: the page past the end is the usual soft miss, not an API error.
func TestLargestOffsetReachesTheAPI(t *testing.T) {
	e := newEnv(t, nil)
	for _, tool := range []string{"mindvault_browse", "mindvault_search"} {
		out := e.ok(tool, e.call(tool, `{"query":"rust","offset":9007199254740991}`))
		if out["count"] != float64(0) || out["message"] == nil {
			t.Errorf("%s: want an empty page with a message, got %v", tool, out)
		}
	}
	if n := e.sb.Count("api", "GET /resources"); n != 2 {
		t.Errorf("the API saw %d catalog requests, want 2", n)
	}
}
