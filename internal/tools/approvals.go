package tools

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/stellar/go-stellar-sdk/keypair"
	"github.com/stellar/go-stellar-sdk/xdr"

	"github.com/mindvault/mcp-endpoint/internal/clients/registry"
	"github.com/mindvault/mcp-endpoint/internal/clients/transport"
	"github.com/mindvault/mcp-endpoint/internal/clients/x402"
	"github.com/mindvault/mcp-endpoint/internal/confirm"
	"github.com/mindvault/mcp-endpoint/internal/ledger"
)

// The confirmation points: what each state-changing tool hands Call.approve (confirm.go).

// payment is a USDC payment about to be sent and what it pays for ("" resource: not created yet).
type payment struct {
	quote    x402.Quote
	payer    string
	balance  *big.Int
	resource string
	what     string // e.g. `"Rust guide" (rustguide)`
	aboveCap string // the caller's cap in USDC when the price is above it ("" when not)
	// payeeName is who the payee is, as the listing names it ("" when it names nobody).
	payeeName string
	left      string // what the daily budget leaves after this payment, when one is set
}

// request words a payment for the user, with the full payee address (the user approves
// exactly whom the money goes to).
func (p payment) request(network string) confirm.Request {
	after := new(big.Int).Set(p.balance)
	if p.quote.PayTo != p.payer {
		after.Sub(after, p.quote.Amount)
	}
	amount, payee, capNote, budgetNote := confirm.USDC(p.quote.Amount), p.quote.PayTo, "", ""
	if p.payeeName != "" {
		payee = p.payeeName + " (" + p.quote.PayTo + ")"
	}
	if p.aboveCap != "" {
		capNote = " This is above your cap of " + p.aboveCap + " USDC."
	}
	if p.left != "" {
		budgetNote = " Daily budget left after it: " + p.left + " USDC."
	}
	return confirm.Request{
		Approval: confirm.Approval{Kind: confirm.Payment, Network: p.quote.Network, Payer: p.payer,
			Amount: p.quote.Amount.String(), Asset: p.quote.Asset, Payee: p.quote.PayTo, Resource: p.resource, Before: p.balance.String()},
		Title: "Pay " + amount + " USDC",
		Message: fmt.Sprintf("Pay %s USDC to %s for %s on %s?%s Balance after: %s USDC.%s",
			amount, payee, p.what, network, capNote, confirm.USDC(after), budgetNote),
	}
}

// approvePay asks the user about p (round 1, checking the daily budget without reserving), or
// checks p against the approval (round 2).
func (c *Call) approvePay(ctx context.Context, p payment) (ok bool, err error) {
	if c.confirmation.WillAsk(confirm.Payment) {
		_, left, err := c.checkBudget(ctx, p.payer, p.quote.Amount)
		if err != nil {
			return false, err
		}
		p.left = left
	}
	return c.approve(p.request(string(c.Config.Network)))
}

// approvePayment approves p with the offer's quote q: the operator's lists and pause against
// the payee, the user's approval, then the journal claim and the budget reservation, before
// anything is signed.
func (c *Call) approvePayment(ctx context.Context, p payment, q x402.Quote, a *attempt) (ok bool, err error) {
	p.quote = q
	a.payeeName = p.payeeName
	if err := c.mayPay(ctx, q.PayTo); err != nil {
		return false, err
	}
	if ok, err := c.approvePay(ctx, p); !ok {
		return false, err
	}
	if err := a.claim(ctx, &q, p.resource); err != nil {
		return false, err
	}
	if a.hold, err = c.reserve(ctx, p.payer, a.id, q.Amount); err != nil {
		a.finish(ctx, ledger.Failed, nil)
		return false, err
	}
	return true, nil
}

// payWith performs req, which may ask for the payment p (p.quote: the previewed amount and
// the only payee) up to cap: the offer, its approval, the signature, its record in the journal
// and the paid request, sent once. Nothing is signed before the approval, nothing sent that
// the journal does not hold. A nil Outcome with a nil error: the call stops to ask the user.
func (c *Call) payWith(ctx context.Context, req transport.Request, kp *keypair.Full, cap *big.Int, p payment, a *attempt) (*x402.Outcome, error) {
	o, err := c.X402.Offer(ctx, req, x402.Policy{Network: c.Config.X402Network, Asset: c.Config.USDCContractID, Cap: cap,
		Previewed: p.quote.Amount, PayTo: p.quote.PayTo, Intent: a.intent})
	if err != nil {
		return nil, err
	}
	if o.Free() {
		return &x402.Outcome{Response: o.Response}, nil
	}
	if ok, err := c.approvePayment(ctx, p, o.Quote, a); !ok {
		return nil, err
	}
	signed, err := c.X402.Sign(ctx, o, kp)
	if err != nil {
		return nil, err
	}
	if err := a.record(ctx, signed); err != nil {
		return nil, err
	}
	return c.X402.Send(ctx, o, signed)
}

// view is the wallet's budget after the attempt's payment, nil without a budget.
func (a *attempt) view() *BudgetView {
	if a.hold == nil {
		return nil
	}
	return a.hold.View
}

// approveWrite is a registry.InvokeApproved hook for a creator write of resource id.
func (c *Call) approveWrite(signer, id string, args []xdr.ScVal) func(context.Context, registry.Plan) error {
	return func(ctx context.Context, plan registry.Plan) error {
		shown := scShown(args, true)
		value := strings.Join(shown, ", ")
		cfg := c.Config
		ok, err := c.approve(confirm.Request{
			Approval: confirm.Approval{Kind: confirm.Write, Network: string(cfg.Network), Payer: signer, Resource: id,
				Contract: cfg.RegistryContract, Function: plan.Function, Args: shown, MaxFee: plan.Fee, Before: strconv.FormatInt(plan.Sequence, 10)},
			Title: "Send " + plan.Function,
			Message: fmt.Sprintf("Call %s on the vault-registry contract %s on %s: resource %s, new value %s? Signed by %s; network fee up to %s XLM.",
				plan.Function, confirm.Short(cfg.RegistryContract), cfg.Network, id, value, confirm.Short(signer), confirm.XLM(plan.Fee)),
		})
		if !ok && err == nil {
			return errAsking
		}
		return err
	}
}

// errAsking stops a client's approval hook when the call stops to ask the user.
var errAsking = errors.New("the call stops to ask the user")

// scShow shows a write argument as the user knows it (an i128 is a USDC price). cut shortens
// long strings, the user's own; an approval of a call someone else prepared binds them in full,
// where two values that differ only after the cut must not look the same.
func scShow(v xdr.ScVal, cut bool) string {
	switch v.Type {
	case xdr.ScValTypeScvI128:
		p := v.MustI128()
		n := new(big.Int).Lsh(big.NewInt(int64(p.Hi)), 64)
		n.Add(n, new(big.Int).SetUint64(uint64(p.Lo)))
		return confirm.USDC(n) + " USDC"
	case xdr.ScValTypeScvString:
		if cut {
			return quoted(string(v.MustStr()))
		}
		return fmt.Sprintf("%q", string(v.MustStr()))
	case xdr.ScValTypeScvBool:
		return fmt.Sprint(v.MustB())
	case xdr.ScValTypeScvVoid:
		return "none"
	case xdr.ScValTypeScvAddress:
		if a, err := v.MustAddress().String(); err == nil {
			return a
		}
	case xdr.ScValTypeScvVec:
		var items []xdr.ScVal
		if vec := v.MustVec(); vec != nil {
			items = *vec
		}
		return "[" + strings.Join(scShown(items, cut), ", ") + "]"
	}
	return v.Type.String()
}

func scShown(args []xdr.ScVal, cut bool) []string {
	shown := make([]string, len(args))
	for i, a := range args {
		shown[i] = scShow(a, cut)
	}
	return shown
}

// quoted shows a value from a caller or a downstream in quotes, cut to a readable length.
func quoted(s string) string {
	const max = 80
	if utf8.RuneCountInString(s) > max {
		r := []rune(s)
		s = string(r[:max]) + "…"
	}
	return fmt.Sprintf("%q", s)
}
