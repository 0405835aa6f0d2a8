package tools

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/clients/mindvault"
)

// TestHealth: healthy only when every probe passes; a failing probe is reported in its check
// as the mapped one-line summary (never as an error), and the other checks still pass.
func TestHealth(t *testing.T) {
	for _, tc := range []struct {
		name          string
		break_        func(api *fakeAPI, hz *fakeHorizon, rpc *fakeRPC, reg *fakeRegistry)
		check, detail string // the failing check and a substring of its detail
	}{
		{name: "all pass", break_: func(*fakeAPI, *fakeHorizon, *fakeRPC, *fakeRegistry) {}},
		{name: "API fails", break_: func(a *fakeAPI, _ *fakeHorizon, _ *fakeRPC, _ *fakeRegistry) {
			a.catalog = fakeFailure(errmap.SourceAPI, http.StatusServiceUnavailable, "")
		}, check: "MindVault API", detail: "(server)"},
		{name: "Horizon on another network", break_: func(_ *fakeAPI, h *fakeHorizon, _ *fakeRPC, _ *fakeRegistry) { h.passphrase = "other" },
			check: "Horizon", detail: `"other"`},
		{name: "RPC unhealthy", break_: func(_ *fakeAPI, _ *fakeHorizon, r *fakeRPC, _ *fakeRegistry) { r.status = "catching up" },
			check: "Stellar RPC", detail: "catching up"},
		{name: "registry fails", break_: func(_ *fakeAPI, _ *fakeHorizon, _ *fakeRPC, g *fakeRegistry) { g.info = errors.New("gone") },
			check: "Registry contract", detail: "(unknown)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, _ := fakeDeps(t)
			d.Config.SponsorURL = ""
			api := &fakeAPI{}
			hz := &fakeHorizon{issuer: d.Config.USDCIssuer, usdc: "1", passphrase: d.Config.Passphrase}
			rp := &fakeRPC{status: "healthy", passphrase: d.Config.Passphrase}
			reg := &fakeRegistry{}
			tc.break_(api, hz, rp, reg)
			d.API, d.Horizon, d.RPC, d.Registry = api, hz, rp, reg
			res := callTool(t, health.Define(d), `{}`)
			if res.IsError {
				t.Fatalf("failed: %+v", res.Content)
			}
			var out HealthOutput
			if err := json.Unmarshal(res.StructuredContent.(json.RawMessage), &out); err != nil {
				t.Fatal(err)
			}
			// The API probe reads one catalog row, not a page: health runs often.
			if len(api.queries) != 1 || api.queries[0] != (mindvault.CatalogQuery{Limit: 1}) {
				t.Fatalf("catalog queries %+v, want one of limit 1", api.queries)
			}
			if out.Healthy != (tc.check == "") || len(out.Checks) != 5 {
				t.Fatalf("healthy %v with %d checks, want %v: %+v", out.Healthy, len(out.Checks), tc.check == "", out.Checks)
			}
			for _, c := range out.Checks {
				if failing := c.Name == tc.check; c.OK == failing || failing && !strings.Contains(c.Detail, tc.detail) {
					t.Errorf("check %s: ok %v, detail %q (want failing %v, detail with %q)", c.Name, c.OK, c.Detail, failing, tc.detail)
				}
			}
		})
	}
}
