package tools

import (
	"net/http"
	"testing"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/clients/mindvault"
)

// TestPublishStatus: what a resource waits for follows from its meta and verification record
// (a missing record is pending, not a failure), with the resume call when one can help; a
// failed read is mapped, with the tool's own not-found advice.
func TestPublishStatus(t *testing.T) {
	meta := func(status, onchain string) *mindvault.Meta {
		return &mindvault.Meta{Listing: mindvault.Listing{ID: "guide", VerificationStatus: status}, OnchainStatus: onchain}
	}
	verdict := &mindvault.Verification{Status: "verified", Verification: &mindvault.VerificationResult{IsOriginal: true, Confidence: 0.9}}
	resume := map[string]any{"tool": "mindvault_publish", "arguments": map[string]any{"resourceId": "guide"}}
	for _, tc := range []struct {
		name        string
		meta        *mindvault.Meta
		ver         *mindvault.Verification
		err, verErr error
		want        readWant
	}{
		{name: "registered", meta: meta("verified", "registered"), ver: verdict, want: readWant{out: map[string]any{
			"resourceId": "guide", "waitingFor": "nothing", "settled": true, "timedOut": false, "attempts": 1, "nextAction": nil,
			"verification": map[string]any{"isOriginal": true, "confidence": 0.9, "flags": []any{}}}}},
		{name: "no record yet waits for the fee", meta: meta("pending", ""), verErr: fakeFailure(errmap.SourceAPI, http.StatusNotFound, ""), want: readWant{out: map[string]any{
			"verificationStatus": "pending", "onchainStatus": "none", "waitingFor": "fee", "settled": false, "nextAction": resume}}},
		{name: "verified, not registered", meta: meta("verified", "none"), ver: verdict, want: readWant{out: map[string]any{
			"waitingFor": "registration", "settled": true, "nextAction": resume}}},
		{name: "unknown id", err: fakeFailure(errmap.SourceAPI, http.StatusNotFound, ""), verErr: fakeFailure(errmap.SourceAPI, http.StatusNotFound, ""),
			want: readWant{code: errmap.CodeNotFound, category: "not_found", state: "no", next: "then call mindvault_publish_status with it"}},
		{name: "verification record unreadable", meta: meta("pending", ""), verErr: fakeFailure(errmap.SourceAPI, http.StatusInternalServerError, ""),
			want: readWant{code: errmap.CodeServerError, category: "server", state: "no"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, _ := fakeDeps(t)
			d.API = &readAPI{meta: tc.meta, ver: tc.ver, err: tc.err, verErr: tc.verErr}
			checkRead(t, callTool(t, publishStatus.Define(d), `{"resourceId":"guide"}`), tc.want)
		})
	}
}
