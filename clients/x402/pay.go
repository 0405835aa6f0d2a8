package x402

import (
	"context"
	"errors"
	"math/big"
	"net/http"
	"time"

	"github.com/stellar/go-stellar-sdk/keypair"

	"github.com/mindvault/mcp-endpoint/clients/transport"
	"github.com/mindvault/mcp-endpoint/errmap"
)

// Client performs paid requests.
type Client struct {
	Svc    *transport.Service // source x402, timeout MINDVAULT_PAYMENT_TIMEOUT_MS
	Signer *Signer
}

// Outcome is a completed paid (or free) request.
type Outcome struct {
	Response    *transport.Response
	Paid        bool
	Amount      *big.Int
	Requirement *Requirement
	Settlement  *Settlement
	ExpiresAt   time.Time
}

// Do sends req; on a 402 it checks the requirement against policy, signs a payment and sends
// the request once more with PAYMENT-SIGNATURE — exactly once. A non-402 first answer is
// returned as is for the caller to map. The paid request is never retried.
func (c *Client) Do(ctx context.Context, req transport.Request, kp *keypair.Full, policy Policy) (*Outcome, error) {
	req.Read = false
	first, err := c.Svc.Do(ctx, req)
	if err != nil {
		return nil, err // nothing was paid: the default state "no" is right
	}
	if first.Status != http.StatusPaymentRequired {
		return &Outcome{Response: first}, nil
	}
	pr, err := ParseRequired(first.Header, first.Body)
	if err != nil {
		return nil, err
	}
	r, amount, err := Select(pr, policy)
	if err != nil {
		return nil, err
	}
	signed, err := c.Signer.Sign(ctx, kp, pr, r, amount)
	if err != nil {
		return nil, err
	}
	paid := req
	paid.Header = req.Header.Clone()
	if paid.Header == nil {
		paid.Header = http.Header{}
	}
	paid.Header.Set("PAYMENT-SIGNATURE", signed.Header)
	paid.Header.Set("Access-Control-Expose-Headers", "PAYMENT-RESPONSE")
	resp, err := c.Svc.Do(ctx, paid)
	if err != nil {
		if transport.NotSent(err) {
			return nil, err // the signed payment never left this process
		}
		return nil, ambiguous(err, signed.ExpiresAt)
	}
	out := &Outcome{Response: resp, Paid: true, Amount: amount, Requirement: r, ExpiresAt: signed.ExpiresAt}
	out.Settlement, _ = DecodeSettlement(resp.Header)
	switch {
	case resp.OK():
		return out, nil
	case resp.Status == http.StatusPaymentRequired:
		e := c.Svc.StatusError(resp)
		e.Facts.Code = errmap.CodePaymentRejected
		if out.Settlement != nil && out.Settlement.ErrorReason != "" {
			e.Facts.X402Reason = out.Settlement.ErrorReason
			e.Facts.Code = ""
		}
		e.Facts.Detail = "the payment was rejected at settlement; nothing was charged"
		return nil, e
	case resp.Status >= 500 || resp.Status == http.StatusRequestTimeout || transport.IsRedirect(resp.Status):
		// The server may have settled before failing, or before redirecting (a redirect is
		// never followed with the payment attached: that would be a second payment attempt):
		// say so, and when it is safe to pay again.
		e := c.Svc.StatusError(resp)
		return nil, ambiguous(e, signed.ExpiresAt)
	default:
		return nil, c.Svc.StatusError(resp)
	}
}

// ambiguous marks a failure after the payment was sent: the outcome is unknown until the
// signed payment expires.
func ambiguous(err error, expires time.Time) error {
	var e *errmap.Error
	if !errors.As(err, &e) {
		return err
	}
	e.Facts.StateChanged = errmap.StateUnknown
	e.Facts.PaymentExpiresAt = expires.UTC().Format(time.RFC3339)
	e.Facts.ExecutionStarted = true
	return e
}
