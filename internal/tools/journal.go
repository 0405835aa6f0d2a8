package tools

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"time"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/clients/soroban"
	"github.com/mindvault/mcp-endpoint/internal/clients/x402"
	"github.com/mindvault/mcp-endpoint/internal/ledger"
)

// The journal (docs/once.md "The journal") records every payment intent: read first, claimed
// right before signing, the signed payment recorded before it is sent, then the outcome.

// attempt is one paying call's part in the journal and the budgets.
type attempt struct {
	d         *Call
	j         ledger.Store // the journal, usable: begin checked it
	id        string       // this attempt's own name: it owns its claim and its reservations
	tool      string
	payer     string
	intent    *x402.Intent // nil: a payment without identity (allowRepeat, no key, no approval)
	entry     *ledger.Entry
	fp        string        // the request's fingerprint: the same key with other arguments is a reuse
	prior     *ledger.Entry // the intent's entry, when begin found it settled
	owned     bool          // this attempt claimed the entry
	seen      bool          // begin found an entry: an earlier call carried this intent
	signed    *x402.Signed
	hold      *hold
	payeeName string // as the listing names it, for the receipt
}

// journal is the store of intents, or the configuration failure that stops every payment.
func (d *Deps) journal() (ledger.Store, error) {
	if d.LedgerErr != nil || d.Ledger == nil {
		cause := cmp.Or(d.LedgerErr, errors.New("no ledger is configured"))
		return nil, failure(errmap.Facts{Source: errmap.SourceLedger, Code: errmap.CodeInternalError, Needs: errmap.NeedsOperator,
			Detail: "payments are journaled in the ledger, which is not usable: " + cause.Error() + "; nothing was paid",
			Next:   "Ask the operator to set MINDVAULT_LEDGER=dynamodb:<table> (the deployment's ledger table); reads keep working meanwhile."})
	}
	return d.Ledger, nil
}

// fingerprint is a keyed call's tool and canonical arguments, less dryRun and confirmMainnet.
func fingerprint(tool string, req any) string {
	raw, _ := json.Marshal(req)
	var m map[string]json.RawMessage
	_ = json.Unmarshal(raw, &m)
	delete(m, "dryRun")
	delete(m, "confirmMainnet")
	canon, _ := json.Marshal(m) // map keys marshal sorted
	return ledger.IntentID("fingerprint", tool, string(canon))
}

func intentEntry(in *x402.Intent) string { return ledger.IntentID(in.Kind, in.Parts...) }

// begin reads the intent's entry before anything is asked, reserved or signed: a reused key,
// an intent in progress and an undecided outcome are refused; a settled one is left in a.prior.
func (d *Call) begin(ctx context.Context, tool, payer string, intent *x402.Intent, fp string) (*attempt, error) {
	j, err := d.journal()
	if err != nil {
		return nil, err
	}
	a := &attempt{d: d, j: j, id: "a" + rand.Text(), tool: tool, payer: payer, intent: intent, fp: fp}
	if intent == nil {
		return a, nil
	}
	e, found, err := j.Get(ctx, intentEntry(intent))
	if err != nil {
		return nil, ledgerFailure(err)
	}
	if !found {
		return a, nil
	}
	a.seen = true
	return a, a.judge(ctx, &e)
}

// judge decides a found entry: settled (a.prior), free to pay (nil), or a refusal.
func (a *attempt) judge(ctx context.Context, e *ledger.Entry) error {
	now := time.Now()
	switch {
	case e.Fingerprint != a.fp && (a.intent.Kind == "key" || a.intent.Kind == "publish"):
		// A key names one call: the same key with other arguments is a reuse.
		return keyReused(a.tool)
	case e.State == ledger.Settled:
		a.prior = e
		return nil
	case e.State == ledger.Failed, e.State == ledger.Pending && !e.Live(now):
		return nil
	case e.Live(now):
		return inProgress(e)
	}
	// Unknown, or sent by an owner that is gone: the chain decides before anything new is signed.
	return a.resolve(ctx, e)
}

// resolve asks the chain about a sent payment with no recorded outcome: consumed is settled,
// expired without a settlement event is failed, open is still unknown (refused).
func (a *attempt) resolve(ctx context.Context, e *ledger.Entry) error {
	if e.Payment.Envelope == "" {
		return undecided(e, "the journal holds no signed payment to ask the chain about")
	}
	verdict, err := a.d.chain(ctx, e.Payment.Envelope, e.Payment.ExpirationLedger)
	if err != nil {
		return undecided(e, "Stellar RPC could not be asked ("+a.d.summary("%s, %s", err, "Chain check failed")+")")
	}
	prev := e.Attempt
	next := *e
	next.Attempt = a.id
	settled, hash := verdict == x402.Consumed, ""
	switch verdict {
	case x402.Consumed:
	case x402.Expired:
		// The nonce entry went with the signature: the transfer events decide instead.
		if hash, settled, err = a.d.settledEvent(ctx, e); err != nil {
			return errmap.With(undecided(e, "its signature expired, and Stellar RPC could not show whether it settled ("+a.d.summary("%s, %s", err, "Chain history unreadable")+")"), func(f *errmap.Facts) {
				f.Needs, f.RetryAfter = errmap.NeedsOperator, nil
				f.Next = "Do not pay again for this intent: check the wallet's USDC history for a payment of " +
					soroban.Decimal(big.NewInt(e.Payment.Amount)) + " USDC to " + e.Payment.Payee + "; ask the operator if it is not there."
			})
		}
	default:
		return undecided(e, "its payment was sent, has not settled, and can still settle until "+e.Payment.ExpiresAt.UTC().Format(time.RFC3339))
	}
	next.State = ledger.Failed // expired, and the whole window is in the history without it
	if settled {
		next.State, next.Keep = ledger.Settled, a.d.receiptKeep()
		if next.Receipt == nil {
			next.Receipt = a.receipt(e.Payment, "chain")
		}
		if verdict == x402.Expired {
			next.Receipt.TxHash = hash
		}
	}
	// What the chain decided is recorded even if the caller stops waiting meanwhile.
	ctx = context.WithoutCancel(ctx)
	if err := a.j.Save(ctx, next, prev, time.Now()); err != nil {
		if errors.Is(err, ledger.ErrNotOwner) {
			return inProgress(e) // another call decided it at the same moment: look again later
		}
		return ledgerFailure(err)
	}
	if next.State == ledger.Settled {
		_ = a.j.AddReceipt(ctx, *next.Receipt, a.d.receiptKeep())
		a.prior = &next
	}
	return nil
}

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

// settledEvent finds an expired payment's transfer that no other receipt of the wallet names.
func (d *Deps) settledEvent(ctx context.Context, e *ledger.Entry) (hash string, settled bool, err error) {
	c, ok := d.X402.(interface {
		Settled(context.Context, string, string, string, int64, uint32, uint32) ([]string, error)
	})
	if !ok {
		return "", false, errors.New("this payer cannot read the chain's history")
	}
	p := e.Payment
	hashes, err := c.Settled(ctx, p.Asset, p.Payer, p.Payee, p.Amount, p.SignedLedger, p.ExpirationLedger)
	if err != nil || len(hashes) == 0 {
		return "", false, err
	}
	taken := map[string]bool{}
	if rs, err := d.receipts(ctx, p.Payer); err == nil {
		for _, r := range rs {
			if r.ID != e.ID && r.TxHash != "" {
				taken[r.TxHash] = true
			}
		}
	}
	for _, h := range hashes {
		if !taken[h] {
			return h, true, nil
		}
	}
	return "", false, nil
}

// chain is the x402 signer's view of the chain, when the payer is the real client.
func (d *Deps) chain(ctx context.Context, envelope string, expiration uint32) (x402.Verdict, error) {
	c, ok := d.X402.(interface {
		Chain(context.Context, string, uint32) (x402.Verdict, error)
	})
	if !ok {
		return 0, errors.New("this payer cannot ask the chain")
	}
	return c.Chain(ctx, envelope, expiration)
}

// claim makes this attempt the owner of its intent's entry right before signing q; a keyed
// call that is not itself a payment (a publish) claims it without a quote, for its replays.
func (a *attempt) claim(ctx context.Context, q *x402.Quote, resource string) error {
	if a.intent == nil {
		return nil
	}
	p := ledger.Payment{Kind: a.intent.Kind, Tool: a.tool, Payer: a.payer}
	if q != nil {
		p.Payee, p.Asset, p.Network, p.Resource, p.Amount, p.Nonce = q.PayTo, q.Asset, q.Network, resource, q.Amount.Int64(), a.intent.Nonce()
	}
	e := ledger.Entry{ID: intentEntry(a.intent), Fingerprint: a.fp, Attempt: a.id, Payment: p}
	stored, ok, err := a.j.Claim(ctx, e, time.Now())
	if err != nil {
		return ledgerFailure(err)
	}
	if ok {
		a.entry, a.owned = &stored, true
		return nil
	}
	if err := a.judge(ctx, &stored); err != nil {
		return err
	}
	if a.prior != nil {
		return alreadySettled(a.prior)
	}
	return inProgress(&stored) // freed by the chain just now: the caller's next call pays
}

// settledBefore is the intent's settled entry when err says its payment already settled.
func (a *attempt) settledBefore(ctx context.Context, err error) *ledger.Entry {
	if a.intent == nil || !isCode(err, errmap.CodeDuplicatePayment) {
		return nil
	}
	e, found, err := a.j.Get(ctx, intentEntry(a.intent))
	if err != nil || !found || e.State != ledger.Settled {
		return nil
	}
	return &e
}

// record writes the signed payment into the entry before it is sent: nothing leaves unjournaled.
func (a *attempt) record(ctx context.Context, s *x402.Signed) error {
	a.signed = s
	if !a.owned {
		return nil
	}
	e := *a.entry
	e.State, e.LeaseUntil = ledger.Sending, time.Now().Add(ledger.Lease)
	e.Payment.Payee, e.Payment.PayeeName, e.Payment.Asset, e.Payment.Amount = s.PayTo, a.payeeName, s.Asset, s.Amount.Int64()
	e.Payment.Nonce, e.Payment.SignedLedger, e.Payment.ExpirationLedger = s.Nonce, s.SignedLedger, s.ExpirationLedger
	e.Payment.ExpiresAt, e.Payment.Envelope = s.ExpiresAt, s.Envelope
	if a.hold != nil {
		e.Reservation = &ledger.Reservation{Attempt: a.id, Day: a.hold.day, Keys: a.hold.keys, Amount: s.Amount.Int64()}
	}
	if err := a.j.Save(ctx, e, a.id, time.Now()); err != nil {
		a.signed = nil // not sent: the failure below says nothing left
		if errors.Is(err, ledger.ErrNotOwner) {
			return inProgress(a.entry)
		}
		return ledgerFailure(err)
	}
	a.entry = &e
	return nil
}

// receiptKeep is how long receipts (and settled entries) are kept: MINDVAULT_RECEIPT_DAYS.
func (d *Deps) receiptKeep() time.Duration {
	days := d.Config.ReceiptDays
	if days <= 0 {
		days = ledger.DefaultReceiptDays
	}
	return time.Duration(days) * 24 * time.Hour
}

// receipt is the journal's receipt of a settled payment.
func (a *attempt) receipt(p ledger.Payment, settlement string) *ledger.Receipt {
	id := a.id
	if a.intent != nil {
		id = intentEntry(a.intent)
	} else if p.Nonce != 0 {
		id = "n" + strconv.FormatInt(p.Nonce, 36)
	}
	return &ledger.Receipt{ID: id, Tool: cmp.Or(p.Tool, a.tool), Payer: p.Payer, Payee: p.Payee,
		PayeeName: cmp.Or(p.PayeeName, a.payeeName), Resource: p.Resource, Amount: p.Amount,
		Network: p.Network, Settlement: settlement, PaidAt: time.Now().UTC()}
}

// settled records a settled payment and its receipt; a failure to record it is a warning (the
// first only), never the call's failure.
func (a *attempt) settled(ctx context.Context, r *ledger.Receipt, result any) (warnings []string) {
	// The money left: its record must not depend on the caller still waiting.
	ctx = context.WithoutCancel(ctx)
	if a.owned {
		e := *a.entry
		e.State, e.Receipt, e.Keep = ledger.Settled, r, a.d.receiptKeep()
		if result != nil {
			e.Result, _ = json.Marshal(result)
		}
		if err := a.j.Save(ctx, e, a.id, time.Now()); err != nil {
			warnings = append(warnings, "The payment settled but the journal could not record it ("+err.Error()+"); a repeat of this call is still refused while its signature is valid.")
		}
		a.entry = &e
	}
	if err := a.j.AddReceipt(ctx, *r, a.d.receiptKeep()); err != nil && warnings == nil {
		warnings = append(warnings, "The payment settled but its receipt could not be added to the wallet's history ("+err.Error()+").")
	}
	return warnings
}

// receiptFor builds the receipt of this attempt's signed payment (for resource, when not "").
func (a *attempt) receiptFor(settlement, title, txHash, resource string) *ledger.Receipt {
	p := ledger.Payment{Tool: a.tool, Payer: a.payer}
	if a.entry != nil {
		p = a.entry.Payment
	}
	if s := a.signed; s != nil {
		p.Payee, p.Amount, p.Nonce = s.PayTo, s.Amount.Int64(), s.Nonce
	}
	p.Network = cmp.Or(p.Network, a.d.Config.X402Network)
	r := a.receipt(p, settlement)
	r.Title, r.TxHash, r.Resource = title, txHash, cmp.Or(resource, r.Resource)
	return r
}

// failed ends the attempt after err: what certainly paid nothing frees its entry and
// reservation; what may have paid is decided by the chain (docs/once.md). It returns err,
// rewritten to what the chain said.
func (a *attempt) failed(ctx context.Context, err error, resource string) error {
	if err == nil {
		return nil
	}
	f, _ := errmap.FactsOf(err)
	ref, refused := x402.Refusal(err)
	if a.signed == nil || !f.ExecutionStarted && f.StateChanged == errmap.StateNo && !refused {
		if isCode(err, errmap.CodeDuplicatePayment) && a.owned {
			// The nonce is consumed though the journal had no settlement: the intent settled.
			a.settled(ctx, a.receipt(a.entry.Payment, "chain"), nil)
			return err
		}
		return a.free(ctx, err)
	}
	if f.StateChanged == errmap.StateYes {
		r := a.receiptFor("confirmed", "", f.TxHash, "")
		r.Note = "the seller did not deliver after the payment settled"
		a.settled(ctx, r, nil)
		return err
	}
	if refused && ref.Verify != "" {
		return a.free(ctx, err) // refused at verification: proven before any settlement
	}
	verdict, cerr := a.d.chain(ctx, a.signed.Envelope, a.signed.ExpirationLedger)
	if cerr == nil && verdict == x402.Consumed {
		r := a.receiptFor("chain", "", "", resource)
		r.Note = "the seller answered without delivering after the payment settled"
		a.settled(ctx, r, nil)
		return sellerRefusedAfterSettling(err, resource, a.signed)
	}
	// Sent and not (yet) consumed: unknown until the signature expires; the reservation stays.
	a.finish(ctx, ledger.Unknown, nil)
	expires := a.signed.ExpiresAt.UTC().Format(time.RFC3339)
	return errmap.With(err, func(f *errmap.Facts) {
		f.ExecutionStarted, f.StateChanged, f.PaymentExpiresAt = true, errmap.StateUnknown, expires
		f.Detail = cmp.Or(f.Detail, errmap.Map(*f).Diagnostic.Detail) +
			"; the payment was sent and the chain shows it not settled yet: it can still settle until " + expires
		if a.hold != nil {
			f.Detail += "; the amount stays counted against today's budget until it is known"
		}
	})
}

// free ends an attempt that certainly paid nothing: its reservation and its entry are freed.
func (a *attempt) free(ctx context.Context, err error) error {
	a.hold.release(ctx)
	a.finish(ctx, ledger.Failed, nil)
	return err
}

// finish writes the owned entry's final state, with a result to answer again when there is one
// (best effort: the chain decides an entry left Sending).
func (a *attempt) finish(ctx context.Context, st ledger.State, result any) {
	if !a.owned {
		return
	}
	e := *a.entry
	e.State, e.LeaseUntil = st, time.Now()
	if result != nil {
		e.Result, _ = json.Marshal(result)
		e.Keep = a.d.receiptKeep()
	}
	if err := a.j.Save(context.WithoutCancel(ctx), e, a.id, time.Now()); err == nil {
		a.entry = &e
	}
}

// sellerRefusedAfterSettling: the chain shows the payment settled, the seller did not deliver.
func sellerRefusedAfterSettling(err error, resource string, s *x402.Signed) error {
	return errmap.With(err, func(f *errmap.Facts) {
		status := "an error"
		if f.Status != 0 {
			status = "HTTP " + strconv.Itoa(f.Status)
		}
		f.ExecutionStarted, f.StateChanged, f.Code, f.Category = true, errmap.StateYes, errmap.CodePaymentRejected, errmap.CategoryPayment
		f.PaymentExpiresAt = ""
		f.Needs = errmap.NeedsOperator
		f.Detail = fmt.Sprintf("the seller answered %s without a settlement proof, but the chain shows the payment of %s USDC settled (its nonce is consumed); nothing was delivered",
			status, soroban.Decimal(s.Amount))
		f.Next = "Do not pay again: the payment settled and mindvault_purchase_history lists its receipt; ask the seller or the operator to deliver " +
			cmp.Or(resource, "what was paid for") + "."
	})
}

// keyReused refuses an idempotencyKey already used with other arguments.
func keyReused(tool string) error {
	return failure(errmap.Facts{Source: errmap.SourceRequest, Code: errmap.CodeIdempotencyKeyReused, StateChanged: errmap.StateNo,
		Detail: "this idempotencyKey was already used by this wallet for a " + tool + " call with other arguments; nothing was paid",
		Next:   "Use a new idempotencyKey for a new " + tool + " call; reuse a key only to retry the very same call."})
}

// inProgress refuses an intent another call is paying right now.
func inProgress(e *ledger.Entry) error {
	return busy(max(int(time.Until(e.LeaseUntil).Seconds())+1, 1), "another call is paying for the same intent right now",
		"it answers the other call's outcome and pays nothing twice.")
}

// undecided refuses to sign for an intent whose earlier payment has no known outcome yet.
func undecided(e *ledger.Entry, why string) error {
	return busy(max(int(time.Until(e.Payment.ExpiresAt).Seconds())+1, 5), "an earlier call's payment for the same intent has no known outcome: "+why,
		"by then the chain can say whether the earlier payment settled, and nothing is paid twice.")
}

// busy refuses a call of an intent for wait seconds; nothing was paid by it.
func busy(wait int, detail, then string) error {
	return failure(errmap.Facts{Source: errmap.SourceLedger, Code: errmap.CodeInProgress, Detail: detail + "; nothing was paid by this call",
		RetryAfter: &wait, StateChanged: errmap.StateNo, Next: fmt.Sprintf("Wait %d seconds, then send this same call again: %s", wait, then)})
}

// alreadySettled is an intent a concurrent call settled between this call's read and claim.
func alreadySettled(e *ledger.Entry) error {
	detail := "a payment for the same intent already settled"
	if r := e.Receipt; r != nil {
		detail += fmt.Sprintf(" (%s USDC", soroban.Decimal(big.NewInt(r.Amount)))
		if r.TxHash != "" {
			detail += ", transaction " + r.TxHash
		}
		detail += ")"
	}
	return errmap.WithDetail(x402.Duplicate(), detail+"; nothing was paid by this call")
}
