package tools

import (
	"net/http"
	"testing"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/clients/mindvault"
)

// TestAgentStatus: the fee is stated with 7 decimals, an unreadable average confidence is left
// out rather than failing, and an API failure is mapped.
func TestAgentStatus(t *testing.T) {
	agent := func(conf mindvault.Number) *mindvault.AgentStatus {
		a := &mindvault.AgentStatus{}
		a.Agent.Name, a.Agent.WalletAddress, a.Agent.PricePerVerification, a.Agent.Currency = "verifier", "GAGENT", "0.25", "USDC"
		a.Stats.TotalVerifications, a.Stats.Verified, a.Stats.Rejected = mindvault.Number{V: 5, Known: true}, mindvault.Number{V: 4, Known: true}, mindvault.Number{V: 1, Known: true}
		a.Stats.AvgConfidence = conf
		return a
	}
	for _, tc := range []struct {
		name  string
		agent *mindvault.AgentStatus
		err   error
		want  readWant
	}{
		{name: "fee and stats", agent: agent(mindvault.Number{V: 0.93, Known: true}), want: readWant{out: map[string]any{
			"name": "verifier", "walletAddress": "GAGENT", "pricePerVerification": "0.2500000", "currency": "USDC",
			"totalVerifications": 5, "verified": 4, "rejected": 1, "avgConfidence": 0.93}}},
		{name: "confidence unreadable", agent: agent(mindvault.Number{}), want: readWant{out: map[string]any{
			"pricePerVerification": "0.2500000", "avgConfidence": nil}}},
		{name: "API down", err: fakeFailure(errmap.SourceAPI, http.StatusServiceUnavailable, ""),
			want: readWant{code: errmap.CodeServerError, category: "server", state: "no"}},
		{name: "API refuses access", err: fakeFailure(errmap.SourceAPI, http.StatusForbidden, ""),
			want: readWant{code: errmap.CodeForbidden, category: "auth", state: "no"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, _ := fakeDeps(t)
			d.API = &readAPI{agent: tc.agent, err: tc.err}
			checkRead(t, callTool(t, agentStatus.Define(d), `{}`), tc.want)
		})
	}
}
