package tools

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/clients/mindvault"
	"github.com/mindvault/mcp-endpoint/internal/config"
	"github.com/mindvault/mcp-endpoint/internal/ledger"
)

// PurchaseHistoryInput is mindvault_purchase_history.
type PurchaseHistoryInput struct {
	Profile    *string `json:"profile,omitempty" validate:"omitnil,profile" jsonschema_description:"Credential profile whose wallet's purchases to list (default: the configured default profile)."`
	ResourceID *string `json:"resourceId,omitempty" validate:"omitnil,resourceid" jsonschema_description:"Only purchases of this resource."`
	Limit      int     `json:"limit,omitempty" validate:"min=1,max=100" jsonschema:"default=20" jsonschema_description:"Most purchases to return, newest first, 1-100."`
}

// Purchase is one earlier purchase of the profile's wallet.
type Purchase struct {
	ResourceID string `json:"resourceId"`
	Title      string `json:"title,omitempty"`
	Amount     string `json:"amount,omitempty" jsonschema_description:"the price paid, as the API recorded it"`
	Currency   string `json:"currency,omitempty"`
	TxHash     string `json:"txHash,omitempty" jsonschema_description:"the settlement transaction"`
	PaidAt     string `json:"paidAt,omitempty"`
	PaymentID  string `json:"paymentId,omitempty"`
	Source     string `json:"source" jsonschema:"enum=journal,enum=api" jsonschema_description:"journal: this endpoint's own receipt of a payment it made and saw settle; api: the MindVault API's record"`
	AccessURL  string `json:"accessUrl,omitempty" jsonschema_description:"journal receipts of link purchases: the access link delivered, to use again"`
	Settlement string `json:"settlement,omitempty" jsonschema_description:"journal receipts: confirmed (the seller's proof), chain (the chain shows the nonce used), unconfirmed (delivered without proof)"`
	Payee      string `json:"payee,omitempty" jsonschema_description:"journal receipts: the account paid, in full"`
	PayeeName  string `json:"payeeName,omitempty" jsonschema_description:"journal receipts: who the payee is, as the listing named it"`
	Note       string `json:"note,omitempty"`
}

// PurchaseHistoryOutput is the result of mindvault_purchase_history.
type PurchaseHistoryOutput struct {
	ProfileWallet
	Count     int        `json:"count" jsonschema_description:"purchases returned"`
	Total     int        `json:"total" jsonschema_description:"purchases the journal and the API hold for this wallet (and resource, when filtered); a payment both hold counts once"`
	Purchases []Purchase `json:"purchases" jsonschema_description:"newest first"`
	Message   string     `json:"message,omitempty"`
}

var purchaseHistory = Spec[PurchaseHistoryInput, PurchaseHistoryOutput]{
	Name:      "mindvault_purchase_history",
	Toolset:   config.ToolsetPayments,
	Title:     "Purchase history",
	Operation: "Purchase history failed",
	Description: `Lists the resources a profile's wallet bought, from this endpoint's own payment journal
		(receipts of the payments it made, with the access link of a link purchase) and the MindVault
		API's records, each row naming its source (resource, title, amount, settlement transaction,
		time, payment id), newest first, optionally for one resourceId. Free. mindvault_buy refuses
		to buy a listed resource again unless allowRepeat is true. No record is a normal result with
		count 0 and a message.`,
	Kind:  lookup(errmap.SourceAPI),
	Guide: errmap.Guide{Role: errmap.RoleHistory},
	Run: func(ctx context.Context, c *Call, req *PurchaseHistoryInput) (*PurchaseHistoryOutput, error) {
		p, addr, err := c.address(ctx, req.Profile)
		if err != nil {
			return nil, err
		}
		var (
			history    []mindvault.Payment
			receipts   []ledger.Receipt
			hErr, rErr error
		)
		parallel(func() { history, hErr = c.API.Payments(ctx, addr) }, func() { receipts, rErr = c.receipts(ctx, addr) })
		if hErr != nil && (rErr != nil || len(receipts) == 0) {
			return nil, hErr
		}
		out := &PurchaseHistoryOutput{ProfileWallet: c.profileWallet(p.Name, addr), Purchases: []Purchase{}}
		var rows []Purchase
		seen := map[string]bool{}
		for _, r := range receipts {
			if r.Tool != "mindvault_buy" {
				continue
			}
			row := purchaseOf(asPayment(&r), "journal")
			row.Settlement, row.Note, row.Payee, row.PayeeName = r.Settlement, r.Note, r.Payee, r.PayeeName
			if r.Delivered != nil {
				row.AccessURL = r.Delivered.URL
			}
			rows = append(rows, row)
			seen[r.TxHash] = r.TxHash != ""
		}
		for _, pay := range history {
			if pay.TxHash != "" && seen[pay.TxHash] {
				continue
			}
			rows = append(rows, purchaseOf(&pay, "api"))
		}
		for _, row := range newestFirst(rows, func(p Purchase) string { return p.PaidAt }) {
			if req.ResourceID != nil && row.ResourceID != *req.ResourceID {
				continue
			}
			out.Total++
			if len(out.Purchases) < req.Limit {
				out.Purchases = append(out.Purchases, row)
			}
		}
		if rErr != nil {
			out.Message = "This endpoint's payment journal could not be read (" + c.summary("%s, %s", rErr, "Journal unreadable") + "); only the MindVault API's records are listed. "
		}
		if hErr != nil {
			out.Message = "The MindVault API's records could not be read (" + c.summary("%s, %s", hErr, "Purchase history unreadable") + "); only this endpoint's own receipts are listed. "
		}
		out.Count = len(out.Purchases)
		switch {
		case out.Total == 0:
			// Never "you bought nothing": the deployed API does not record every payer.
			what := ""
			if req.ResourceID != nil {
				what = " of " + *req.ResourceID
			}
			out.Message += fmt.Sprintf("Neither this endpoint's journal nor the MindVault API holds a record of a purchase%s by %s on %s. The API records only "+
				"the payments it could attribute to a buyer and the journal only this endpoint's, so this does not prove the wallet never paid; check the wallet's USDC history if in doubt.", what, addr, c.Config.Network)
		case out.Total > out.Count:
			out.Message += fmt.Sprintf("Showing the newest %d of %d purchases; raise limit (up to 100) to see more.", out.Count, out.Total)
		}
		return out, nil
	},
}

// newestFirst orders purchases by payment time (RFC 3339), newest first; entries whose time
// does not parse keep their order after the dated ones.
func newestFirst[T any](ps []T, paidAt func(T) string) []T {
	out := slices.Clone(ps)
	at := func(p T) time.Time {
		t, _ := time.Parse(time.RFC3339, paidAt(p))
		return t
	}
	sort.SliceStable(out, func(i, j int) bool { return at(out[i]).After(at(out[j])) })
	return out
}

func purchaseOf(p *mindvault.Payment, source string) Purchase {
	return Purchase{ResourceID: p.ResourceID, Title: p.Title, Amount: string(p.Amount), Currency: p.Currency, TxHash: p.TxHash,
		PaidAt: p.PaidAt, PaymentID: p.PaymentID, Source: source}
}
