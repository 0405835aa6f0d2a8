package tools

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/clients/mindvault"
	"github.com/mindvault/mcp-endpoint/internal/config"
	"github.com/mindvault/mcp-endpoint/requests"
)

// Purchase is one earlier purchase of the profile's wallet.
type Purchase struct {
	ResourceID string `json:"resourceId"`
	Title      string `json:"title,omitempty"`
	Amount     string `json:"amount,omitempty" jsonschema_description:"the price paid, as the API recorded it"`
	Currency   string `json:"currency,omitempty"`
	TxHash     string `json:"txHash,omitempty" jsonschema_description:"the settlement transaction"`
	PaidAt     string `json:"paidAt,omitempty"`
	PaymentID  string `json:"paymentId,omitempty"`
}

// PurchaseHistoryOutput is the result of mindvault_purchase_history.
type PurchaseHistoryOutput struct {
	ProfileWallet
	Count     int        `json:"count" jsonschema_description:"purchases returned"`
	Total     int        `json:"total" jsonschema_description:"purchases the API holds for this wallet (and resource, when filtered)"`
	Purchases []Purchase `json:"purchases" jsonschema_description:"newest first"`
	Message   string     `json:"message,omitempty"`
}

// purchaseHistory is mindvault_purchase_history.
var purchaseHistory = serve(Spec[requests.PurchaseHistory, PurchaseHistoryOutput]{
	Name:      "mindvault_purchase_history",
	Toolset:   config.ToolsetPayments,
	Title:     "Purchase history",
	Operation: "Purchase history failed",
	Description: `Lists the resources a profile's wallet bought, as the MindVault API recorded them (resource,
		title, amount, settlement transaction, time, payment id), newest first, optionally for one
		resourceId. Free. mindvault_buy refuses to buy a listed resource again unless allowRepeat is
		true. No record is a normal result with count 0 and a message.`,
	Kind:  lookup(errmap.SourceAPI),
	Guide: errmap.Guide{Role: errmap.RoleHistory},
	Run: func(ctx context.Context, d *Deps, req *requests.PurchaseHistory) (*PurchaseHistoryOutput, error) {
		ctx, p, addr, err := d.address(ctx, req.Profile)
		if err != nil {
			return nil, err
		}
		history, err := d.API.Payments(ctx, addr)
		if err != nil {
			return nil, err
		}
		out := &PurchaseHistoryOutput{ProfileWallet: d.profileWallet(p.Name, addr), Purchases: []Purchase{}}
		for _, pay := range newestFirst(history) {
			if req.ResourceID != nil && pay.ResourceID != *req.ResourceID {
				continue
			}
			out.Total++
			if len(out.Purchases) < req.Limit {
				out.Purchases = append(out.Purchases, Purchase{ResourceID: pay.ResourceID, Title: pay.Title, Amount: string(pay.Amount),
					Currency: pay.Currency, TxHash: pay.TxHash, PaidAt: pay.PaidAt, PaymentID: pay.PaymentID})
			}
		}
		out.Count = len(out.Purchases)
		switch {
		case out.Total == 0:
			// Never "you bought nothing": the deployed API does not record every payer.
			what := ""
			if req.ResourceID != nil {
				what = " of " + *req.ResourceID
			}
			out.Message = fmt.Sprintf("The MindVault API holds no record of a purchase%s by %s on %s. It records only the payments it could "+
				"attribute to a buyer, so this does not prove the wallet never paid; check the wallet's USDC history if in doubt.", what, addr, d.Config.Network)
		case out.Total > out.Count:
			out.Message = fmt.Sprintf("Showing the newest %d of %d purchases; raise limit (up to 100) to see more.", out.Count, out.Total)
		}
		return out, nil
	},
})

// newestFirst orders purchases by payment time, newest first; entries whose time does not
// parse keep the API's order after the dated ones.
func newestFirst(ps []mindvault.Payment) []mindvault.Payment {
	out := append([]mindvault.Payment(nil), ps...)
	at := func(p mindvault.Payment) time.Time {
		t, _ := time.Parse(time.RFC3339, p.PaidAt)
		return t
	}
	sort.SliceStable(out, func(i, j int) bool { return at(out[i]).After(at(out[j])) })
	return out
}
