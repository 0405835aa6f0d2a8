package confirm

import (
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strings"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/clients/soroban"
)

// Kind is what an approval lets happen.
type Kind string

// The kinds of approval.
const (
	// Payment is USDC leaving the user's wallet over x402.
	Payment Kind = "payment"
	// Write is any other state change: a contract call, a registration, a new wallet.
	Write Kind = "write"
	// Funding approves nothing: the user was sent to a page to add USDC.
	Funding Kind = "funding"
)

// Approval is what the user is asked to approve, as round 2 compares it: the facts that decide
// what would be paid or sent, never its wording. Empty fields are not part of the approval.
type Approval struct {
	Kind    Kind   `json:"kind"`
	Network string `json:"network"`
	// Payer is the wallet that pays or signs.
	Payer string `json:"payer,omitempty"`
	// Payment: the amount in USDC units (7 decimals) as an integer, the asset contract, the payee.
	Amount string `json:"amount,omitempty"`
	Asset  string `json:"asset,omitempty"`
	Payee  string `json:"payee,omitempty"`
	// Resource is the resource paid for or written; "" for one that does not exist yet.
	Resource string `json:"resource,omitempty"`
	// Write: the contract (if any), the function and its arguments as shown, the highest fee in stroops.
	Contract string   `json:"contract,omitempty"`
	Function string   `json:"function,omitempty"`
	Args     []string `json:"args,omitempty"`
	MaxFee   int64    `json:"maxFee,omitempty"`
	// Before is the payer's USDC balance (a payment) or account sequence (a write) when
	// approved: a round 2 replayed after it took effect meets another and is refused.
	Before string `json:"before,omitempty"`
	// Nonce is the requestState's random nonce (not sealed into the approval): this approval's
	// identity, so that a replay cannot act a second time.
	Nonce string `json:"-"`
}

// Request is what a confirmation point hands the call's Confirmation.
type Request struct {
	Approval Approval
	// Title labels the confirm checkbox, e.g. "Pay 1.5 USDC".
	Title string
	// Message is the question: what is paid or called, to whom, on which network, and the cost.
	Message string
	// URL is the page a Funding question sends the user to.
	URL string
}

// Confirmation is one call's confirmation. A nil Confirmation lets every confirmation point
// proceed: the argument guards alone protect the call.
type Confirmation struct {
	mode     Mode
	mainnet  bool
	approved *Approval
}

// Asking is the Confirmation of round 1 under mode; mainnet says whether the call acts on mainnet.
func Asking(mode Mode, mainnet bool) *Confirmation {
	return &Confirmation{mode: mode, mainnet: mainnet}
}

// Approved is the Confirmation of round 2 after the user accepted a.
func Approved(a Approval) *Confirmation { return &Confirmation{approved: &a} }

// StandsInForMainnet reports whether the human confirmation replaces confirmMainnet: round 1
// on mainnet asks under auto and always alike, and in round 2 the user has accepted.
func (g *Confirmation) StandsInForMainnet() bool {
	return g != nil && (g.approved != nil || g.mode == Auto || g.mode == Always)
}

// Approve is called right before the call signs or sends what r describes: ask is true in
// round 1 when the policy asks first; err, in round 2, refuses an r the user did not approve.
func (g *Confirmation) Approve(r Request) (ask bool, err error) {
	if g != nil && g.approved != nil {
		return false, g.approved.admits(r.Approval)
	}
	return g.WillAsk(r.Approval.Kind), nil
}

// WillAsk reports whether this call, in round 1, will ask the user before a k happens.
func (g *Confirmation) WillAsk(k Kind) bool {
	return g != nil && g.approved == nil && (g.mode == Always || (g.mode == Auto && (k == Payment || g.mainnet)))
}

// ApprovedAmount is the USDC units approved for a round 2's payment; ok is false outside one.
func (g *Confirmation) ApprovedAmount() (*big.Int, bool) {
	if g == nil || g.approved == nil || g.approved.Kind != Payment {
		return nil, false
	}
	return new(big.Int).SetString(g.approved.Amount, 10)
}

// ApprovalNonce is the nonce of the approval a round 2 acts on, "" outside one.
func (g *Confirmation) ApprovalNonce() string {
	if g != nil && g.approved != nil {
		return g.approved.Nonce
	}
	return ""
}

// admits compares what a confirmation point would now pay or send with what the user approved.
func (a *Approval) admits(now Approval) error {
	switch {
	case now.Kind != a.Kind:
		return a.stale(fmt.Sprintf("the call would now make a %s, and a %s was approved", now.Kind, a.Kind))
	case now.Network != a.Network:
		return a.stale(fmt.Sprintf("the network is now %s, and %s was approved", now.Network, a.Network))
	case now.Payer != a.Payer:
		return a.stale(fmt.Sprintf("the paying or signing wallet is now %s, and %s was approved", Short(now.Payer), Short(a.Payer)))
	case now.Resource != "" && a.Resource != "" && now.Resource != a.Resource:
		return a.stale(fmt.Sprintf("the resource is now %s, and %s was approved", now.Resource, a.Resource))
	case now.Before != a.Before && a.Kind == Payment:
		return a.stale("the wallet's USDC balance changed since the approval (this approval may have been used already)")
	case now.Before != a.Before:
		return a.stale("the signing account's sequence changed since the approval (this approval may have been used already)")
	}
	if a.Kind == Payment {
		got, ok1 := new(big.Int).SetString(now.Amount, 10)
		want, ok2 := new(big.Int).SetString(a.Amount, 10)
		switch {
		case now.Asset != a.Asset:
			return a.stale("the payment asks for another asset than the one approved")
		case now.Payee != a.Payee:
			return a.stale(fmt.Sprintf("the payee is now %s, and %s was approved", Short(now.Payee), Short(a.Payee)))
		case !ok1 || !ok2:
			return a.stale("the amount cannot be compared with the approved one")
		case got.Cmp(want) > 0:
			return a.refuse(errmap.CodePriceChanged, fmt.Sprintf("the payment is now %s USDC, more than the %s USDC the user approved", USDC(got), USDC(want)),
				"Call again to ask the user to approve the new amount, or choose something else.")
		case got.Cmp(want) != 0:
			return a.stale(fmt.Sprintf("the payment is now %s USDC, and %s USDC was approved", USDC(got), USDC(want)))
		}
		return nil
	}
	switch {
	case now.Contract != a.Contract || now.Function != a.Function || !slices.Equal(now.Args, a.Args):
		return a.stale(fmt.Sprintf("the call is now %s, and %s was approved", call(now), call(*a)))
	case now.MaxFee > a.MaxFee:
		return a.stale(fmt.Sprintf("the network fee is now up to %s XLM, above the %s XLM approved", XLM(now.MaxFee), XLM(a.MaxFee)))
	}
	return nil
}

func call(a Approval) string {
	return a.Function + "(" + strings.Join(a.Args, ", ") + ")"
}

// stale refuses a call whose payment or write changed since the user approved it.
func (a *Approval) stale(detail string) error {
	return a.refuse(errmap.CodeConfirmationStale, detail, "Call again: the user will be asked to approve what the call would do now.")
}

// Declined is the failure of a call whose confirmation the user declined or cancelled.
func Declined(a Approval, action string) error {
	what := "the payment"
	if units, ok := new(big.Int).SetString(a.Amount, 10); ok && a.Kind == Payment {
		what = "the payment of " + USDC(units) + " USDC"
	}
	if a.Kind == Write {
		what = "the call " + call(a)
	}
	return a.refuse(errmap.CodeConfirmationDeclined, fmt.Sprintf("the user %s %s", action, what), "Do not repeat the call unless the user asks for it.")
}

// refuse is a refusal of what a approves, before anything was paid or sent.
func (a *Approval) refuse(code, detail, next string) error {
	cat, nothing := errmap.CategoryPayment, "nothing was paid"
	if a.Kind != Payment {
		cat = errmap.CategoryValidation
	}
	if a.Kind == Write {
		nothing = "nothing was sent"
	}
	detail += "; " + nothing
	return &errmap.Error{Err: errors.New(detail), Facts: errmap.Facts{
		Source: errmap.SourceRequest, Code: code, Category: cat, Detail: detail, Next: next,
		ExecutionStarted: false, StateChanged: errmap.StateNo,
	}}
}

// USDC formats 7-decimal units without trailing zeros ("1.5").
func USDC(units *big.Int) string {
	return strings.TrimRight(strings.TrimRight(soroban.Decimal(units), "0"), ".")
}

// XLM formats stroops as XLM without trailing zeros.
func XLM(stroops int64) string { return USDC(big.NewInt(stroops)) }

// Short abbreviates a Stellar address for a message: GABC…WXYZ.
func Short(addr string) string {
	if len(addr) <= 12 {
		return addr
	}
	return addr[:4] + "…" + addr[len(addr)-4:]
}
