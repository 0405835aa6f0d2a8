package tools

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"time"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/auth"
	"github.com/mindvault/mcp-endpoint/internal/clients/soroban"
	"github.com/mindvault/mcp-endpoint/internal/ledger"
)

// Daily budgets (docs/budgets.md): an attempt reserves the amount in the shared spend ledger
// before signing, for the wallet and the caller; a payment that certainly did not happen
// releases it. A ledger that cannot be read refuses the payment (fail closed).

// BudgetView is a daily budget as results show it.
type BudgetView struct {
	LimitUSDC     string `json:"limitUsdc"`
	SpentUSDC     string `json:"spentUsdc" jsonschema_description:"reserved today: settled payments and payments whose outcome is unknown"`
	RemainingUSDC string `json:"remainingUsdc"`
	ResetsAt      string `json:"resetsAt" jsonschema_description:"the next UTC midnight, when the day's total starts again from zero"`
}

// budget is one limit a payment is held to: the wallet's or the caller's.
type budget struct {
	key     string // the ledger key: wallet:<G…> or caller:<digest>
	limit   int64  // units
	setting string // the variable that sets it, for the operator
	whose   string // "this wallet" or "this caller"
}

// budgeted is the budgets a payment by payer is held to, the wallet's first, and the ledger
// that holds them; no budgets, nothing at all.
func (c *Call) budgeted(ctx context.Context, payer string) ([]budget, ledger.Ledger, error) {
	var out []budget
	if u, err := soroban.Units(c.Config.BudgetUSDC); c.Config.BudgetUSDC != "" && err == nil {
		out = append(out, budget{key: "wallet:" + payer, limit: u.Int64(), setting: "MINDVAULT_BUDGET_USDC", whose: "this wallet"})
	}
	if u, err := soroban.Units(c.Config.BudgetCallerUSDC); c.Config.BudgetCallerUSDC != "" && err == nil {
		// The caller's identity is kept out of the ledger: its digest names the item.
		sum := auth.Digest("mindvault/budget/caller\x00" + c.caller)
		out = append(out, budget{key: "caller:" + hex.EncodeToString(sum[:16]), limit: u.Int64(), setting: "MINDVAULT_BUDGET_CALLER_USDC", whose: "this caller"})
	}
	if len(out) == 0 {
		return nil, nil, nil
	}
	l, err := c.journal()
	return out, l, err
}

// view is a budget's state after a reservation (or a read) as results show it.
func view(b budget, u ledger.Usage) *BudgetView {
	left := max(b.limit-u.Reserved, 0)
	return &BudgetView{LimitUSDC: soroban.Decimal(big.NewInt(b.limit)), SpentUSDC: soroban.Decimal(big.NewInt(u.Reserved)),
		RemainingUSDC: soroban.Decimal(big.NewInt(left)), ResetsAt: u.ResetsAt.UTC().Format(time.RFC3339)}
}

// budgetRead reads the wallet's budget for a result (wallet_info); nil without one.
func (c *Call) budgetRead(ctx context.Context, payer string) (*BudgetView, error) {
	bs, l, err := c.budgeted(ctx, payer)
	if err != nil || len(bs) == 0 {
		return nil, err
	}
	u, err := l.Usage(ctx, bs[0].key, time.Now())
	if err != nil {
		return nil, ledgerFailure(err)
	}
	return view(bs[0], u), nil
}

// checkBudget refuses, without reserving, a payment that would pass a budget's limit today;
// it returns the wallet's budget as it stands and what the payment would leave.
func (c *Call) checkBudget(ctx context.Context, payer string, amount *big.Int) (now *BudgetView, leftAfter string, err error) {
	bs, l, err := c.budgeted(ctx, payer)
	if err != nil || len(bs) == 0 {
		return nil, "", err
	}
	for _, b := range bs {
		u, err := l.Usage(ctx, b.key, time.Now())
		if err != nil {
			return nil, "", ledgerFailure(err)
		}
		if u.Reserved+amount.Int64() > b.limit {
			return nil, "", exceeded(b, u.Reserved, amount.Int64(), u.ResetsAt)
		}
		if now == nil {
			now = view(b, u)
			leftAfter = soroban.Decimal(big.NewInt(max(b.limit-u.Reserved-amount.Int64(), 0)))
		}
	}
	return now, leftAfter, nil
}

// hold is one attempt's reservations; a nil hold holds nothing (no budget).
type hold struct {
	l       ledger.Ledger
	day     time.Time
	attempt string   // the reservations' owner: only this attempt ever releases them
	keys    []string // the budgets' ledger keys held
	// View is the wallet's budget with this payment counted.
	View *BudgetView
}

// reserve holds amount against every budget of payer for this attempt; when one refuses
// (BUDGET_EXCEEDED), the earlier reservations are released.
func (c *Call) reserve(ctx context.Context, payer, attempt string, amount *big.Int) (*hold, error) {
	bs, l, err := c.budgeted(ctx, payer)
	if err != nil || len(bs) == 0 {
		return nil, err
	}
	h := &hold{l: l, day: time.Now(), attempt: attempt}
	for _, b := range bs {
		u, err := l.Reserve(ctx, b.key, h.day, h.attempt, amount.Int64(), b.limit)
		if err != nil {
			h.release(ctx)
			var ex *ledger.ExceededError
			if errors.As(err, &ex) {
				return nil, exceeded(b, ex.Reserved, ex.Amount, ex.ResetsAt)
			}
			return nil, ledgerFailure(err)
		}
		h.keys = append(h.keys, b.key)
		if h.View == nil {
			h.View = view(b, u)
		}
	}
	return h, nil
}

// release gives back what this attempt reserved, best effort (a failure errs towards spending less).
func (h *hold) release(ctx context.Context) {
	if h == nil {
		return
	}
	ctx = context.WithoutCancel(ctx)
	for _, key := range h.keys {
		_, _ = h.l.Release(ctx, key, h.day, h.attempt)
	}
	h.keys = nil
}

// exceeded is the refusal of a payment over a daily budget.
func exceeded(b budget, reserved, amount int64, resets time.Time) error {
	wait := int(time.Until(resets).Seconds()) + 1
	v, spend := view(b, ledger.Usage{Reserved: reserved, ResetsAt: resets}), soroban.Decimal(big.NewInt(amount))
	detail := fmt.Sprintf("the payment of %s USDC is above what is left of %s's daily budget: limit %s, spent %s, remaining %s USDC, resets at %s; nothing was paid",
		spend, b.whose, v.LimitUSDC, v.SpentUSDC, v.RemainingUSDC, v.ResetsAt)
	return failure(errmap.Facts{Source: errmap.SourceLedger, Code: errmap.CodeBudgetExceeded, Detail: detail, RetryAfter: &wait, StateChanged: errmap.StateNo,
		Budget: &errmap.Budget{LimitUSDC: v.LimitUSDC, SpentUSDC: v.SpentUSDC, AmountUSDC: spend, RemainingUSDC: v.RemainingUSDC, ResetsAt: v.ResetsAt},
		Next:   fmt.Sprintf("Wait until %s, when the daily budget resets, before paying again, or ask the operator to raise %s; nothing was paid.", v.ResetsAt, b.setting)})
}

// ledgerFailure refuses a payment when the ledger cannot be read (the budget fails closed).
func ledgerFailure(err error) error {
	return errmap.Wrap(err, errmap.Facts{Source: errmap.SourceLedger, Code: errmap.CodeServerError, ExecutionStarted: false, StateChanged: errmap.StateNo,
		Detail: "the spend ledger could not be reached or read, so the daily budget cannot be checked; nothing was paid"})
}
