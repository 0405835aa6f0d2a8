package tools

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/mindvault/mcp-endpoint/errmap"
)

// The operator's controls over spending (docs/security.md "Whom the wallet may pay"): every
// payment passes mayPay before anything is signed, when the listing names the payee and again
// with the payee about to be signed for. No argument reaches them.

// SpendingView is the deployment's spending switch as this instance last read it.
type SpendingView struct {
	Paused     bool   `json:"paused" jsonschema_description:"the operator paused all spending of the deployment: paying tools answer SPENDING_PAUSED"`
	Since      string `json:"since,omitempty" jsonschema_description:"when the switch was last paused or resumed (RFC 3339)"`
	By         string `json:"by,omitempty" jsonschema_description:"who paused or resumed it: an AWS caller ARN or a local user@host"`
	Unreadable string `json:"unreadable,omitempty" jsonschema_description:"why the switch could not be read; payments are refused meanwhile"`
}

// mayPay refuses a payment to payee for resources that the operator's lists forbid, or any
// payment while spending is paused.
func (d *Deps) mayPay(ctx context.Context, payee string, resources ...string) error {
	c := d.Config
	for _, r := range resources {
		if slices.Contains(c.ResourcesDenied, r) {
			return operatorRefusal(errmap.SourceRequest, errmap.CodeResourceDenied, fmt.Sprintf("resource %s is on MINDVAULT_RESOURCES_DENIED; nothing was signed", r))
		}
	}
	switch {
	case slices.Contains(c.PayeesDenied, payee):
		return operatorRefusal(errmap.SourceRequest, errmap.CodePayeeNotAllowed, fmt.Sprintf("the payee %s is on MINDVAULT_PAYEES_DENIED; nothing was signed", payee))
	case len(c.PayeesAllowed) > 0 && !slices.Contains(c.PayeesAllowed, payee):
		return operatorRefusal(errmap.SourceRequest, errmap.CodePayeeNotAllowed, fmt.Sprintf("the payee %s is not on MINDVAULT_PAYEES_ALLOWED; nothing was signed", payee))
	}
	j, err := d.journal()
	if err != nil {
		return err
	}
	p, err := j.State(ctx)
	if err != nil {
		// Fail closed: a pause nobody can read may be in force.
		return errmap.WithDetail(ledgerFailure(err), "the spending switch could not be read from the ledger, so a pause by the operator cannot be ruled out; nothing was paid")
	}
	if p.Paused {
		return operatorRefusal(errmap.SourceLedger, errmap.CodeSpendingPaused, fmt.Sprintf("the operator paused all spending of this deployment at %s (by %s); nothing was signed",
			p.Since.UTC().Format(time.RFC3339), p.By))
	}
	return nil
}

// operatorRefusal is a payment the operator's settings forbid, refused before anything was signed.
func operatorRefusal(src errmap.Source, code, detail string) error {
	return failure(errmap.Facts{Source: src, Code: code, Detail: detail, StateChanged: errmap.StateNo, Needs: errmap.NeedsOperator})
}

// spending reads the switch for a result (health, network_profile).
func (d *Deps) spending(ctx context.Context) *SpendingView {
	j, err := d.journal()
	if err != nil {
		return &SpendingView{Unreadable: "no usable ledger: payments are refused"}
	}
	p, err := j.State(ctx)
	if err != nil {
		return &SpendingView{Unreadable: "the ledger could not be read: payments are refused until it can"}
	}
	v := &SpendingView{Paused: p.Paused, By: p.By}
	if !p.Since.IsZero() {
		v.Since = p.Since.UTC().Format(time.RFC3339)
	}
	return v
}
