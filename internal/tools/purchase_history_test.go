package tools

import (
	"net/http"
	"strings"
	"testing"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/clients/mindvault"
)

// TestPurchaseHistory: the API's records are listed newest first, filtered and limited, no
// record is a success with a message, and an API failure with no journal receipt is mapped.
func TestPurchaseHistory(t *testing.T) {
	pay := func(id, at string) mindvault.Payment {
		return mindvault.Payment{PaymentID: "p-" + id + at[9:10], ResourceID: id, Amount: "2", PaidAt: at}
	}
	history := []mindvault.Payment{pay("guide", "2026-01-01T00:00:00Z"), pay("book", "2026-01-03T00:00:00Z"), pay("guide", "2026-01-02T00:00:00Z")}
	row := func(id, at string) map[string]any {
		p := pay(id, at)
		return map[string]any{"resourceId": id, "amount": "2", "paidAt": at, "paymentId": p.PaymentID, "source": "api"}
	}
	for _, tc := range []struct {
		name     string
		args     string
		payments []mindvault.Payment
		err      error
		says     string // in the message; ADDR stands for the wallet's address
		want     readWant
	}{
		{name: "newest first, limited", args: `{"limit":2}`, payments: history, want: readWant{out: map[string]any{
			"count": 2, "total": 3, "profile": "default", "network": "testnet",
			"purchases": []any{row("book", "2026-01-03T00:00:00Z"), row("guide", "2026-01-02T00:00:00Z")},
			"message":   "Showing the newest 2 of 3 purchases; raise limit (up to 100) to see more."}}},
		{name: "one resource", args: `{"resourceId":"guide"}`, payments: history, want: readWant{out: map[string]any{
			"count": 2, "total": 2, "message": nil,
			"purchases": []any{row("guide", "2026-01-02T00:00:00Z"), row("guide", "2026-01-01T00:00:00Z")}}}},
		{name: "no record", args: `{"resourceId":"book"}`, says: "Neither this endpoint's journal nor the MindVault API holds a record of a purchase of book by ADDR on testnet.", want: readWant{out: map[string]any{"count": 0, "total": 0, "purchases": []any{}}}},
		{name: "API down, no receipt", args: `{}`, err: fakeFailure(errmap.SourceAPI, http.StatusServiceUnavailable, ""),
			want: readWant{code: errmap.CodeServerError, category: "server", state: "no"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, kp := fakeDeps(t)
			d.API = &readAPI{payments: tc.payments, err: tc.err}
			out := checkRead(t, callTool(t, purchaseHistory.Define(d), tc.args), tc.want)
			if out != nil && out["address"] != kp.Address() {
				t.Fatalf("address %v, want the profile's %s", out["address"], kp.Address())
			}
			if msg, _ := out["message"].(string); !strings.Contains(msg, strings.ReplaceAll(tc.says, "ADDR", kp.Address())) {
				t.Fatalf("message %q lacks %q", msg, tc.says)
			}
		})
	}
}
