package mindvault

import (
	"cmp"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"

	"github.com/mindvault/mcp-endpoint/internal/clients/transport"
)

// Payment is one purchase in a buyer's history, with the API's alternative field names
// (id for paymentId, createdAt for paidAt) already folded in.
type Payment struct {
	PaymentID  string  `json:"paymentId"`
	ResourceID string  `json:"resourceId"`
	Title      string  `json:"title"`
	Amount     Decimal `json:"amount"`
	Currency   string  `json:"currency"`
	TxHash     string  `json:"txHash"`
	PaidAt     string  `json:"paidAt"`
}

// wirePayment is a history row as the API may spell it.
type wirePayment struct {
	Payment
	ID        string `json:"id"`
	CreatedAt string `json:"createdAt"`
}

// Payments reads a buyer's purchase history, newest first. A 404 and an empty list both mean the
// API holds no record, which is not "never bought": the deployed API records only payers it can
// read from the legacy X-PAYMENT header.
func (c *Client) Payments(ctx context.Context, address string) ([]Payment, error) {
	resp, err := c.svc.Do(ctx, transport.Get("/buyers/"+url.PathEscape(address)+"/payments", "GET /buyers/{address}/payments"))
	if err != nil {
		return nil, err
	}
	if resp.Status == http.StatusNotFound {
		return nil, nil
	}
	if !resp.OK() {
		return nil, c.svc.StatusError(resp)
	}
	var rows []json.RawMessage
	if err := transport.DecodeArray(resp.Body, &rows); err != nil {
		var wrapped struct {
			Payments *[]json.RawMessage `json:"payments"`
		}
		if transport.DecodeObject(resp.Body, &wrapped) != nil || wrapped.Payments == nil {
			return nil, c.svc.Malformed(resp, "the purchase history is neither a list of payments nor {payments: [...]}")
		}
		rows = *wrapped.Payments
	}
	out := make([]Payment, 0, len(rows))
	for _, raw := range rows {
		var w wirePayment
		if transport.DecodeObject(raw, &w) != nil {
			return nil, c.svc.Malformed(resp, "a purchase history entry is not a payment object")
		}
		p := w.Payment
		p.PaymentID, p.ResourceID, p.PaidAt = cmp.Or(p.PaymentID, w.ID), strings.TrimSpace(p.ResourceID), cmp.Or(p.PaidAt, w.CreatedAt)
		if p.ResourceID == "" {
			return nil, c.svc.Malformed(resp, "a purchase history entry has no resourceId")
		}
		out = append(out, p)
	}
	return out, nil
}
