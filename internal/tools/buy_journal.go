package tools

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"time"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/clients/mindvault"
	"github.com/mindvault/mcp-endpoint/internal/clients/soroban"
	"github.com/mindvault/mcp-endpoint/internal/ledger"
)

// What a purchase leaves in the journal, and how a later call of the same intent is answered
// from it (docs/once.md "The journal").

// receipts reads the wallet's journal receipts within MINDVAULT_RECEIPT_DAYS.
func (d *Deps) receipts(ctx context.Context, payer string) ([]ledger.Receipt, error) {
	j, err := d.journal()
	if err != nil {
		return nil, err
	}
	rs, err := j.Receipts(ctx, payer)
	if err != nil {
		return nil, ledgerFailure(err)
	}
	since := time.Now().Add(-d.receiptKeep())
	return slices.DeleteFunc(rs, func(r ledger.Receipt) bool { return !r.PaidAt.After(since) }), nil
}

// lastReceipt is the newest purchase receipt of the resource (by catalog id or the id asked for).
func lastReceipt(rs []ledger.Receipt, ids ...string) *ledger.Receipt {
	for i := range rs {
		if rs[i].Tool == "mindvault_buy" && rs[i].Resource != "" && slices.Contains(ids, rs[i].Resource) {
			return &rs[i]
		}
	}
	return nil
}

// asPayment shows a journal receipt as the purchase history's row.
func asPayment(r *ledger.Receipt) *mindvault.Payment {
	return &mindvault.Payment{PaymentID: r.PaymentID, ResourceID: r.Resource, Title: r.Title,
		Amount: mindvault.Decimal(soroban.Decimal(big.NewInt(r.Amount))), Currency: "USDC", TxHash: r.TxHash,
		PaidAt: r.PaidAt.UTC().Format(time.RFC3339)}
}

// alreadyPurchasedReceipt is ALREADY_PURCHASED from the journal's receipt, whose link (when
// the purchase delivered one) is the earlier purchase to use.
func alreadyPurchasedReceipt(req *BuyInput, meta *mindvault.Meta, r *ledger.Receipt) error {
	link := ""
	if r.Delivered != nil {
		link = r.Delivered.URL
	}
	return alreadyPurchased(req, meta, asPayment(r), link)
}

// answerSettled answers a call whose intent already settled, from the journal: ALREADY_PURCHASED,
// a keyed call's first result again, or an approval's CONFIRMATION_STALE.
func answerSettled(req *BuyInput, meta *mindvault.Meta, e *ledger.Entry) (*BuyOutput, error) {
	r := e.Receipt
	if r == nil {
		r = &ledger.Receipt{Resource: meta.ID, Amount: e.Payment.Amount, Payee: e.Payment.Payee, PayeeName: e.Payment.PayeeName, Settlement: "chain"}
	}
	switch e.Payment.Kind {
	case "key":
		var out BuyOutput
		if len(e.Result) > 0 && json.Unmarshal(e.Result, &out) == nil {
			replay := "Replay: this idempotencyKey's purchase already settled; this is its first answer, and nothing was paid now."
			if a := out.Access; a != nil && a.Delivery != DeliveryLink { // a file's bytes are never kept
				replay += fmt.Sprintf(" The file's bytes are not kept (%d bytes, sha256 %s): they came with the first answer.", a.Size, a.SHA256)
			}
			out.Replay, out.Message = true, replay+" "+out.Message
			return &out, nil
		}
		return nil, errmap.WithDetail(alreadyPurchasedReceipt(req, meta, r), "this idempotencyKey's purchase already settled ("+receiptPhrase(r)+"); nothing was paid now")
	case "approval":
		detail := "this approval was already carried out: its payment settled (" + receiptPhrase(r) + "); nothing was paid now"
		return nil, errmap.WithNextAction(approvalUsed(detail,
			"The approved purchase is done: mindvault_purchase_history lists its receipt; ask the user before buying again."), historyAction(req))
	}
	return nil, alreadyPurchasedReceipt(req, meta, r)
}

// receiptPhrase is a receipt in a few words.
func receiptPhrase(r *ledger.Receipt) string {
	parts := []string{soroban.Decimal(big.NewInt(r.Amount)) + " USDC"}
	if r.Payee != "" {
		parts[0] += " to " + cmp.Or(r.PayeeName, "the payee") + " (" + r.Payee + ")"
	}
	if r.TxHash != "" {
		parts = append(parts, "transaction "+r.TxHash)
	}
	if !r.PaidAt.IsZero() {
		parts = append(parts, "paid "+r.PaidAt.UTC().Format(time.RFC3339))
	}
	return strings.Join(parts, ", ")
}

// replayable is the result a replay answers: everything but the delivered bytes.
func (o *BuyOutput) replayable() *BuyOutput {
	c := *o // blocks, unexported, are not journaled
	if c.Access != nil {
		a := *c.Access
		a.Content = ""
		c.Access = &a
	}
	return &c
}

// buyReceipt is the journal's receipt of a delivered purchase.
func buyReceipt(a *attempt, out *BuyOutput) *ledger.Receipt {
	r := a.receiptFor(out.Settlement, out.Title, out.TxHash, out.ResourceID)
	if out.Receipt != nil {
		r.PaymentID = out.Receipt.PaymentID
	}
	if acc := out.Access; acc != nil {
		r.Delivered = &ledger.Delivered{URL: acc.URL, ContentType: acc.ContentType, Size: acc.Size, SHA256: acc.SHA256}
	}
	return r
}
