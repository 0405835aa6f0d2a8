package tools

import (
	"encoding/json"
	"errors"
	"testing"
)

// TestHealthAllChecksMustPass: healthy only when every probe passes; any one failing probe
// makes the whole report unhealthy.
func TestHealthAllChecksMustPass(t *testing.T) {
	for _, tc := range []struct {
		name    string
		break_  func(api *fakeAPI, hz *fakeHorizon, rpc *fakeRPC, reg *fakeRegistry)
		healthy bool
	}{
		{name: "all pass", break_: func(*fakeAPI, *fakeHorizon, *fakeRPC, *fakeRegistry) {}, healthy: true},
		{name: "API fails", break_: func(a *fakeAPI, _ *fakeHorizon, _ *fakeRPC, _ *fakeRegistry) { a.catalog = errors.New("down") }},
		{name: "Horizon on another network", break_: func(_ *fakeAPI, h *fakeHorizon, _ *fakeRPC, _ *fakeRegistry) { h.passphrase = "other" }},
		{name: "RPC unhealthy", break_: func(_ *fakeAPI, _ *fakeHorizon, r *fakeRPC, _ *fakeRegistry) { r.status = "catching up" }},
		{name: "registry fails", break_: func(_ *fakeAPI, _ *fakeHorizon, _ *fakeRPC, g *fakeRegistry) { g.info = errors.New("gone") }},
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
			res := callTool(t, Define(d, health), `{}`)
			if res.IsError {
				t.Fatalf("failed: %+v", res.Content)
			}
			out, ok := res.StructuredContent.(*HealthOutput)
			if !ok {
				raw, _ := json.Marshal(res.StructuredContent)
				out = &HealthOutput{}
				if err := json.Unmarshal(raw, out); err != nil {
					t.Fatal(err)
				}
			}
			if out.Healthy != tc.healthy {
				t.Fatalf("healthy %v, want %v: %+v", out.Healthy, tc.healthy, out.Checks)
			}
		})
	}
}
