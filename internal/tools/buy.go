package tools

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/clients/horizon"
	"github.com/mindvault/mcp-endpoint/internal/clients/mindvault"
	"github.com/mindvault/mcp-endpoint/internal/clients/soroban"
	"github.com/mindvault/mcp-endpoint/internal/clients/transport"
	"github.com/mindvault/mcp-endpoint/internal/clients/x402"
	"github.com/mindvault/mcp-endpoint/internal/config"
	"github.com/mindvault/mcp-endpoint/internal/confirm"
	"github.com/mindvault/mcp-endpoint/internal/ledger"
	"github.com/mindvault/mcp-endpoint/internal/mcp"
	"github.com/mindvault/mcp-endpoint/requests"
)

// BuyInput is mindvault_buy.
type BuyInput struct {
	ResourceID   string  `json:"resourceId" validate:"required,resourceid" jsonschema_description:"Catalog id of the resource to buy."`
	MaxPriceUSDC *string `json:"maxPriceUsdc,omitempty" validate:"omitnil,usdcpos" jsonschema_description:"Most you agree to pay, in USDC: a string or a number with at most 7 decimals, e.g. 2.5 or \"2.5\" (default: the operator's MINDVAULT_MAX_AUTO_PAY_USDC, 10)."`
	AllowRepeat  bool    `json:"allowRepeat,omitempty" jsonschema_description:"Buy again even though this wallet already bought the resource (refused by default with ALREADY_PURCHASED)."`
	// IdempotencyKey names one purchase: the same key from the same wallet never pays twice.
	IdempotencyKey *string `json:"idempotencyKey,omitempty" validate:"omitnil,idemkey" jsonschema_description:"Names this purchase so it is paid at most once: reuse the same key when you retry the same purchase (after a timeout or an unknown outcome), use a new key for a new purchase. 8-64 of A-Z a-z 0-9 _ -."`
	DryRun         bool    `json:"dryRun,omitempty" jsonschema_description:"Check price, wallet and network and show what would be paid; send nothing."`
	Profile        *string `json:"profile,omitempty" validate:"omitnil,profile" jsonschema_description:"Credential profile that pays (default: the configured default profile)."`
	requests.Confirm
}

// DryRunRequested implements requests.DryRunner.
func (b *BuyInput) DryRunRequested() bool { return b.DryRun }

// ActingProfile implements requests.Acting.
func (r *BuyInput) ActingProfile() *string { return r.Profile }

// Access is what a purchase delivers: a link, a small text inline, or a file's bytes.
type Access struct {
	URL         string `json:"url,omitempty"`
	Content     string `json:"content,omitempty" jsonschema_description:"a text body of at most 64 KiB, also sent as a text content block"`
	ContentType string `json:"contentType,omitempty"`
	Size        int    `json:"size,omitempty" jsonschema_description:"bytes delivered"`
	SHA256      string `json:"sha256,omitempty" jsonschema_description:"hex SHA-256 of the bytes delivered"`
	URI         string `json:"uri,omitempty" jsonschema_description:"the uri of the embedded resource content block that carries the bytes"`
	Delivery    string `json:"delivery" jsonschema:"enum=link,enum=content,enum=inline" jsonschema_description:"link: url; content: the text in content; inline: the bytes in an embedded resource content block (base64 blob)"`
}

// Receipt is the seller's receipt: the API's JSON receipt for a link, X-Payment-* for a file.
type Receipt struct {
	PaymentID string `json:"paymentId"`
	Amount    string `json:"amount"`
	Currency  string `json:"currency"`
	PaidTo    string `json:"paidTo"`
	PaidAt    string `json:"paidAt,omitempty" jsonschema_description:"for a file, the time of the seller's answer (its Date header)"`
}

// BuyOutput is the result of mindvault_buy. Every field states only what this call can prove.
type BuyOutput struct {
	ResourceID       string      `json:"resourceId"`
	Title            string      `json:"title"`
	DryRun           bool        `json:"dryRun"`
	Access           *Access     `json:"access,omitempty"`
	Receipt          *Receipt    `json:"receipt,omitempty" jsonschema_description:"the seller's receipt, only when a payment was sent"`
	TxHash           string      `json:"txHash,omitempty" jsonschema_description:"settlement transaction, only when PAYMENT-RESPONSE confirmed the settlement"`
	Settlement       string      `json:"settlement" jsonschema:"enum=confirmed,enum=unconfirmed,enum=none" jsonschema_description:"confirmed: PAYMENT-RESPONSE proved the settlement (success, transaction hash, this network and payer); unconfirmed: a payment was sent and something delivered, but without that proof; none: no payment was sent"`
	PriceUSDC        string      `json:"priceUsdc" jsonschema_description:"the previewed price"`
	AmountUSDC       string      `json:"amountUsdc" jsonschema_description:"USDC of the payment this call signed and sent (0 when none was sent); settlement says whether it is confirmed"`
	Network          string      `json:"network"`
	Payer            string      `json:"payer"`
	Payee            string      `json:"payee,omitempty" jsonschema_description:"the account paid (or, in a dry run, to be paid): the publisher's wallet the listing names, in full"`
	PayeeName        string      `json:"payeeName,omitempty" jsonschema_description:"the publisher's name, as the listing gives it"`
	ExplorerURL      string      `json:"explorerUrl,omitempty" jsonschema_description:"the confirmed settlement transaction in a block explorer"`
	USDCBalanceAfter string      `json:"usdcBalanceAfter,omitempty" jsonschema_description:"the wallet's USDC balance read from Horizon after the settlement was proven; omitted when the charge is not proven or the read does not show it yet (message or warnings say why)"`
	Warnings         []string    `json:"warnings,omitempty" jsonschema_description:"checks that could not run, e.g. the purchase history read that guards against buying twice"`
	Budget           *BudgetView `json:"budget,omitempty" jsonschema_description:"the wallet's daily budget, when one is set: this payment counted (a dry run: as it stands, the message says what the payment would leave)"`
	Replay           bool        `json:"replay,omitempty" jsonschema_description:"true when this answer repeats the first outcome of the same idempotencyKey, from the journal: nothing was paid now, and a file's bytes are not repeated (access keeps its size and sha256)"`
	// Dry-run facts.
	Endpoint    string `json:"endpoint,omitempty"`
	USDCBalance string `json:"usdcBalance,omitempty" jsonschema_description:"dry run: the wallet's USDC balance now"`
	Message     string `json:"message,omitempty"`

	// blocks are sent after the JSON, which never repeats the bytes (base64 grows them by a third).
	blocks []mcp.Content
}

func (o *BuyOutput) extraContent() []mcp.Content { return o.blocks }

// Settlement values.
const (
	SettlementConfirmed   = "confirmed"
	SettlementUnconfirmed = "unconfirmed"
	SettlementNone        = "none"
)

// Access.Delivery values.
const (
	DeliveryLink    = "link"
	DeliveryContent = "content"
	DeliveryInline  = "inline"
)

// smallText is the largest text body returned inline as text.
const smallText = 64 << 10

// buy is mindvault_buy.
var buy = Spec[BuyInput, BuyOutput]{
	Name:      "mindvault_buy",
	Toolset:   config.ToolsetPayments,
	Title:     "Buy a resource",
	Operation: "Buy failed",
	Description: `Pays a resource's price in USDC over x402 on Stellar and delivers it: the access link, a
		small text inline, or the file's bytes as an embedded resource (sha256 in access); with the
		receipt and, when the seller proves the settlement, its transaction hash (settlement says
		which) and usdcBalanceAfter. Costs the listed price (network fees are sponsored). Refuses
		before paying when this wallet already bought the resource (allowRepeat: true buys again),
		the price is above maxPriceUsdc or rises above the previewed price, the wallet lacks USDC,
		or the file is too large to deliver. Use dryRun first; call mindvault_preview for the price
		and mindvault_wallet_info for funds.`,
	Kind: paying(errmap.SourceX402),
	Guide: errmap.Guide{Role: errmap.RoleBuy,
		Codes: map[string]string{
			errmap.CodePriceAboveCap:          "Raise maxPriceUsdc to at least the price and call mindvault_buy again, or choose a cheaper resource.",
			errmap.CodeUnsupportedRequirement: "Choose another resource: this seller asks for a payment this endpoint cannot make (Stellar exact scheme, configured network, USDC), and nothing was paid.",
			errmap.CodeFeesNotSponsored:       "Choose another resource: this seller does not sponsor network fees, which this endpoint requires, and nothing was paid.",
			errmap.CodeAlreadyPurchased:       "Use your earlier purchase (mindvault_purchase_history lists it), or call mindvault_buy again with allowRepeat: true to pay for it again.",
		},
	},
	// A dry run signs and sends nothing: it needs no mainnet confirmation.
	DryRun: DryRunExempt,
	Run: func(ctx context.Context, c *Call, req *BuyInput) (_ *BuyOutput, err error) {
		defer func() { err = checkPurchaseAction(err, req) }()
		kp, err := c.wallet(ctx, req.Profile)
		if err != nil {
			return nil, err
		}
		var (
			meta                   *mindvault.Meta
			acct                   *horizon.Account
			found                  bool
			history                []mindvault.Payment
			receipts               []ledger.Receipt
			mErr, aErr, hErr, rErr error
		)
		reads := []func(){
			func() { meta, mErr = c.API.Meta(ctx, req.ResourceID) },
			func() { acct, found, aErr = c.Horizon.Account(ctx, kp.Address()) },
		}
		if !req.AllowRepeat {
			// The repeat-purchase guard, read with the preview (never fatal), and the journal's
			// receipts: the API may not keep the payer (x402 v2 payers are unknown).
			reads = append(reads, func() { history, hErr = c.API.Payments(ctx, kp.Address()) },
				func() { receipts, rErr = c.receipts(ctx, kp.Address()) })
		}
		parallel(reads...)
		if err := cmp.Or(mErr, aErr); err != nil {
			return nil, err
		}
		price, err := soroban.Units(string(meta.Price))
		if err != nil {
			return nil, c.API.MalformedMeta("the price is not a USDC amount")
		}
		capUnits := c.capOf(req.MaxPriceUSDC)
		out := &BuyOutput{ResourceID: meta.ID, Title: meta.Title, DryRun: req.DryRun, PriceUSDC: soroban.Decimal(price),
			AmountUSDC: soroban.Decimal(new(big.Int)), Settlement: SettlementNone, Network: string(c.Config.Network), Payer: kp.Address(),
			Payee: meta.PublisherWallet, PayeeName: meta.PublisherName}
		if hErr != nil {
			out.Warnings = append(out.Warnings, "The purchase history could not be read ("+c.summary("%s, %s", hErr, "Purchase history unreadable")+
				"), so a repeat purchase was not ruled out; check mindvault_purchase_history.")
		}
		if rErr != nil {
			return nil, rErr // the journal is the guard that must hold: fail closed
		}
		// What the purchase pays for, by the strongest identity the call has: one purchase per
		// wallet without allowRepeat, else the call's own.
		intent := c.callIntent("key", kp.Address(), "mindvault_buy", req.IdempotencyKey)
		if !req.AllowRepeat {
			intent = &x402.Intent{Kind: "buy", Parts: []string{kp.Address(), c.Config.X402Network, meta.ID}}
		}
		at, err := c.begin(ctx, "mindvault_buy", kp.Address(), intent, fingerprint("mindvault_buy", req))
		if err != nil {
			return nil, err
		}
		if at.prior != nil {
			return answerSettled(req, meta, at.prior)
		}
		if r := lastReceipt(receipts, meta.ID, req.ResourceID); r != nil {
			return nil, alreadyPurchasedReceipt(req, meta, r)
		}
		if earlier := lastPurchase(history, meta.ID, req.ResourceID); earlier != nil {
			return nil, alreadyPurchased(req, meta, earlier, "")
		}
		// The operator's lists and pause, before anything is claimed, asked or signed, after
		// the answers that pay nothing; the paid request checks the 402's payee again.
		if err := c.mayPay(ctx, meta.PublisherWallet, meta.ID, req.ResourceID); err != nil {
			return nil, err
		}
		if meta.PublisherWallet == kp.Address() {
			out.Warnings = append(out.Warnings, "This wallet published "+meta.ID+": the payment goes from "+kp.Address()+
				" to itself, so it buys nothing the publisher does not already have; use another profile to buy as a customer.")
		}
		aboveCap := ""
		if price.Cmp(capUnits) > 0 {
			// A price above the cap is the user's to accept, never the agent's: asked when the
			// client can ask, refused otherwise, with no next step that would pay more.
			switch approved, ok := c.confirmation.ApprovedAmount(); {
			case ok && approved.Cmp(price) >= 0:
				capUnits = approved
			case !ok && c.confirmation.WillAsk(confirm.Payment) && !req.DryRun:
				aboveCap = confirm.USDC(capUnits)
				capUnits = price
			default:
				need := confirm.USDC(price)
				capName := "maxPriceUsdc " + soroban.Decimal(capUnits)
				if req.MaxPriceUSDC == nil { // the caller set no cap: name the one that applied
					capName = "the endpoint's cap of " + soroban.Decimal(capUnits) + " USDC (MINDVAULT_MAX_AUTO_PAY_USDC; this call passed no maxPriceUsdc)"
				}
				return nil, errmap.WithNextAction(refusal(errmap.CodePriceAboveCap, fmt.Sprintf("the price %s USDC is above %s", soroban.Decimal(price), capName),
					fmt.Sprintf("Nothing was paid: ask the user whether to pay %s USDC for %s; only if the user agrees, call mindvault_buy with maxPriceUsdc %s, or choose a cheaper resource.", need, meta.ID, need)),
					&errmap.NextAction{Tool: "mindvault_preview", Arguments: map[string]any{"resourceId": meta.ID}})
			}
		}
		if err := tooLargeBeforePaying(meta, c.Config.MaxInlineBytes); err != nil {
			return nil, err
		}
		balance, err := c.usdcFor(acct, found, price)
		if c.askToFund(err) {
			return nil, nil
		}
		if err != nil {
			// The wallet is what to look at next, with the caller's own profile.
			return nil, errmap.WithNextAction(err, &errmap.NextAction{Tool: "mindvault_wallet_info", Arguments: profileArgs(req.Profile)})
		}
		if req.DryRun {
			left := ""
			if out.Budget, left, err = c.checkBudget(ctx, kp.Address(), price); err != nil {
				return nil, err
			}
			if left != "" {
				out.Message = " The daily budget would have " + left + " USDC left after it."
			}
			out.USDCBalance = soroban.Decimal(balance)
			out.Endpoint = c.Config.MindVaultURL + "/resources/" + url.PathEscape(meta.ID)
			out.Message = fmt.Sprintf("Dry run: would pay %s USDC from %s on %s (x402 network %s) to %s; nothing was sent.",
				soroban.Decimal(price), kp.Address(), c.Config.Network, c.Config.X402Network, meta.PublisherWallet) + out.Message
			return out, nil
		}
		res, err := c.payWith(ctx, transport.Request{Method: http.MethodGet, Path: "/resources/" + url.PathEscape(meta.ID), Route: "GET /resources/{id} (paid)"}, kp, capUnits,
			// Pay only whom the listing names: the publisher's wallet from /meta.
			payment{quote: x402.Quote{Amount: price, PayTo: meta.PublisherWallet}, payer: kp.Address(), balance: balance, resource: meta.ID,
				what: quoted(meta.Title) + " (" + meta.ID + ")", aboveCap: aboveCap, payeeName: meta.PublisherName}, at)
		if res == nil && err == nil {
			return nil, nil // the call asks the user first
		}
		if err != nil {
			return c.settledElsewhere(ctx, at, req, meta, at.failed(ctx, err, meta.ID))
		}
		out.Budget = at.view() // nil when the seller asked for no payment
		if !res.Response.OK() {
			return nil, notOnchain(c.X402.Service().StatusError(res.Response), meta)
		}
		got, svc, limit := delivered(res.Response, meta), c.X402.Service(), c.Config.MaxInlineBytes
		var failure error
		switch {
		case got.access == nil && !res.Paid:
			failure = svc.Malformed(res.Response, "the seller answered without asking for payment and delivered nothing ("+got.missing+"); nothing was paid")
		case got.access == nil:
			failure = undelivered(svc, res, meta.ID, got.missing)
		case !got.inline(meta.ID, limit):
			failure = tooLargeAfterAnswer(svc, res, meta, got, limit)
		}
		if failure != nil {
			return nil, at.failed(ctx, failure, meta.ID) // an unpaid answer's failure passes as it is
		}
		out.Access, out.blocks = got.access, got.blocks
		if !res.Paid { // the seller answered without asking for a payment
			out.USDCBalanceAfter = soroban.Decimal(balance)
			out.Message = "The seller delivered without asking for a payment; nothing was paid."
			return out, nil
		}
		out.Receipt, out.AmountUSDC, out.Settlement = got.receipt, soroban.Decimal(res.Amount), SettlementUnconfirmed
		if res.Confirmed {
			out.Settlement, out.TxHash = SettlementConfirmed, res.Settlement.Transaction
			out.ExplorerURL = c.Config.ExplorerURL(out.TxHash)
		}
		defer func() {
			out.Warnings = append(out.Warnings, at.settled(ctx, buyReceipt(at, out), out.replayable())...)
		}()
		if !res.Confirmed {
			out.Message = fmt.Sprintf("Delivered, but the seller sent no proof of settlement (PAYMENT-RESPONSE): a payment of %s USDC was sent "+
				"and may have settled, so usdcBalanceAfter is not shown. Check the wallet with mindvault_wallet_info before buying %s again.", out.AmountUSDC, meta.ID)
			return out, nil
		}
		if after, note := c.balanceAfter(ctx, kp.Address(), balance, res); note != "" {
			out.Warnings = append(out.Warnings, note)
		} else {
			out.USDCBalanceAfter = soroban.Decimal(after)
		}
		return out, nil
	},
}

// balanceAfter reads the payer's USDC once the settlement is proven (concurrent payments
// make a subtraction wrong); a read that fails or does not show the payment yet gives a note.
func (d *Deps) balanceAfter(ctx context.Context, payer string, before *big.Int, res *x402.Outcome) (*big.Int, string) {
	acct, found, err := d.Horizon.Account(ctx, payer)
	if err != nil || !found {
		return nil, "usdcBalanceAfter is not shown: the wallet could not be read after the payment; check mindvault_wallet_info."
	}
	now := big.NewInt(walletState(acct, true, d.Config.USDCIssuer).USDC.units)
	selfPaid := res.Requirement != nil && res.Requirement.PayTo == payer
	if !selfPaid && now.Cmp(new(big.Int).Sub(before, res.Amount)) > 0 {
		return nil, "usdcBalanceAfter is not shown: Horizon did not yet show this payment when the wallet was read; check mindvault_wallet_info."
	}
	return now, ""
}

// callIntent names a call by its idempotency key (as kind), else by the approval it acts on;
// nil is a new call on purpose.
func (c *Call) callIntent(kind, payer, tool string, key *string) *x402.Intent {
	switch {
	case key != nil:
		return &x402.Intent{Kind: kind, Parts: []string{payer, tool, *key}}
	case c.confirmation.ApprovalNonce() != "":
		return &x402.Intent{Kind: "approval", Parts: []string{payer, c.confirmation.ApprovalNonce()}}
	}
	return nil
}

// settledElsewhere answers a failed payment whose intent settled: from the journal's entry, or,
// when another call used the intent's nonce while the journal holds no settlement, from the
// API's history (only without allowRepeat). Either way this call paid nothing. Any other
// failure, cause, passes as it is.
func (c *Call) settledElsewhere(ctx context.Context, at *attempt, req *BuyInput, meta *mindvault.Meta, cause error) (*BuyOutput, error) {
	if e := at.settledBefore(ctx, cause); e != nil {
		return answerSettled(req, meta, e)
	}
	// Only a used nonce says the intent settled elsewhere (the journal's claim means no
	// other call of the intent was sending).
	if at.intent == nil || !isCode(cause, errmap.CodeDuplicatePayment) {
		return nil, cause
	}
	if !req.AllowRepeat {
		if history, err := c.API.Payments(ctx, at.payer); err == nil {
			if earlier := lastPurchase(history, meta.ID, req.ResourceID); earlier != nil {
				return nil, alreadyPurchased(req, meta, earlier, "")
			}
		}
	}
	if c.confirmation.ApprovalNonce() != "" && req.AllowRepeat && req.IdempotencyKey == nil {
		// The approval itself is the intent: it was carried out already.
		cause = approvalUsed("this approval was already carried out: its payment settled in another call; nothing was paid",
			"Check mindvault_purchase_history: the approved purchase is done; ask the user before buying again.")
	}
	return nil, errmap.WithNextAction(cause, historyAction(req))
}

// historyAction is the look that shows a wallet's purchases of the resource.
func historyAction(req *BuyInput) *errmap.NextAction {
	args := profileArgs(req.Profile)
	args["resourceId"] = req.ResourceID
	return &errmap.NextAction{Tool: "mindvault_purchase_history", Arguments: args}
}

// What a purchase leaves in the journal, and how a later call of the same intent is answered
// from it (docs/once.md "The journal").

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
	r := cmp.Or(e.Receipt, &ledger.Receipt{Resource: meta.ID, Amount: e.Payment.Amount, Payee: e.Payment.Payee, PayeeName: e.Payment.PayeeName, Settlement: "chain"})
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

// undelivered is a paid answer with nothing usable.
func undelivered(svc *transport.Service, res *x402.Outcome, id, missing string) error {
	return paidFailure(svc.Malformed(res.Response, "the paid answer delivered nothing ("+missing+")"), res, func(hash string) string {
		return fmt.Sprintf("The payment settled in transaction %s but nothing was delivered: do not buy %s again; "+
			"contact the seller with this transaction hash.", hash, id)
	})
}

// paidFailure is err after a paid answer: the money left in the transaction PAYMENT-RESPONSE
// proved (settled says what then), else the outcome is unknown until the signature expires.
func paidFailure(err error, res *x402.Outcome, settled func(hash string) string) error {
	if !res.Confirmed {
		return errmap.MarkPaymentPending(err, res.ExpiresAt.UTC().Format(time.RFC3339))
	}
	hash := res.Settlement.Transaction
	return errmap.With(err, func(f *errmap.Facts) {
		f.ExecutionStarted, f.StateChanged, f.TxHash, f.Next = true, errmap.StateYes, hash, settled(hash)
	})
}

// delivery is what a 2xx answer delivered, and the seller's receipt; missing says what was wrong.
type delivery struct {
	access  *Access
	receipt *Receipt
	body    []byte // a file's bytes; nil for a link
	mime    string // the body's media type
	length  int64  // the body's length, Content-Length when that is longer than what was read
	blocks  []mcp.Content
	missing string
}

// delivered reads a 2xx body as what was bought: the API's JSON {url, receipt} (a link), or,
// for a resource that is not a link, the file's bytes of the media type the preview
// announced, with the receipt from the X-Payment-* headers; missing says what was wrong.
func delivered(resp *transport.Response, meta *mindvault.Meta) delivery {
	if len(bytes.TrimSpace(resp.Body)) == 0 {
		return delivery{missing: "empty body"}
	}
	ct := resp.Header.Get("Content-Type")
	mt, _, _ := mime.ParseMediaType(ct)
	isJSON := mt == "application/json" || strings.HasSuffix(mt, "+json")
	if isJSON {
		var body map[string]json.RawMessage
		var link string
		if json.Unmarshal(resp.Body, &body) == nil && json.Unmarshal(body["url"], &link) == nil && httpURL(link) {
			g := delivery{access: &Access{URL: link, Delivery: DeliveryLink}}
			var r Receipt
			if raw, ok := body["receipt"]; ok && json.Unmarshal(raw, &r) == nil && r.PaymentID != "" {
				r.Amount, r.Currency = paymentAmount(r.Amount + " " + cmp.Or(r.Currency, "USDC"))
				g.receipt = &r
			}
			return g
		}
	}
	sold, _, _ := mime.ParseMediaType(meta.MimeType)
	switch {
	case meta.ResourceType == "link":
		return delivery{missing: "no access url in the answer"}
	case sold != "" && mt != sold:
		return delivery{missing: "a " + cmp.Or(mt, "untyped") + " body where " + sold + " was sold"}
	case sold == "" && isJSON:
		return delivery{missing: "a JSON answer without an access url"}
	}
	length := int64(len(resp.Body))
	if cl, err := strconv.ParseInt(resp.Header.Get("Content-Length"), 10, 64); err == nil && cl > length {
		length = cl // the transport stops reading at its bound; the seller said how long it is
	}
	return delivery{access: &Access{ContentType: ct, Size: len(resp.Body)}, receipt: headerReceipt(resp.Header),
		body: resp.Body, mime: mt, length: length}
}

// inline decides how a file travels: a small text as text, else up to limit bytes as a blob.
func (g *delivery) inline(id string, limit int) (ok bool) {
	if g.body == nil {
		return true // a link
	}
	a := g.access
	sum := sha256.Sum256(g.body)
	if textual(g.mime) && g.length <= smallText && utf8.Valid(g.body) {
		a.Content, a.SHA256, a.Delivery = string(g.body), hex.EncodeToString(sum[:]), DeliveryContent
		g.blocks = []mcp.Content{{Type: "text", Text: a.Content}}
		return true
	}
	if g.length > int64(limit) {
		return false
	}
	a.SHA256, a.Delivery = hex.EncodeToString(sum[:]), DeliveryInline
	a.URI = "mindvault://resources/" + url.PathEscape(id)
	g.blocks = []mcp.Content{{Type: "resource", Resource: &mcp.ResourceContents{
		URI: a.URI, MimeType: cmp.Or(g.mime, "application/octet-stream"), Blob: base64.StdEncoding.EncodeToString(g.body),
	}}}
	return true
}

// textual is a media type delivered as text when small: text/* and JSON.
func textual(mt string) bool {
	return strings.HasPrefix(mt, "text/") || mt == "application/json" || strings.HasSuffix(mt, "+json")
}

// headerReceipt is a file purchase's receipt from the X-Payment-* headers and Date.
func headerReceipt(h http.Header) *Receipt {
	id := strings.TrimSpace(h.Get("X-Payment-Id"))
	if id == "" {
		return nil
	}
	amount, currency := paymentAmount(h.Get("X-Payment-Amount"))
	r := &Receipt{PaymentID: id, Amount: amount, Currency: currency,
		PaidTo: strings.TrimSpace(h.Get("X-Payment-Recipient"))}
	if t, err := http.ParseTime(h.Get("Date")); err == nil {
		r.PaidAt = t.UTC().Format(time.RFC3339)
	}
	return r
}

// paymentAmount reads X-Payment-Amount ("0.75 USDC", or "0.75") with 7 decimals, or "unknown".
func paymentAmount(v string) (amount, currency string) {
	f := strings.Fields(v)
	currency = "USDC"
	if len(f) == 2 {
		currency = strings.ToUpper(f[1])
	}
	if len(f) == 0 || len(f) > 2 {
		return "unknown", currency
	}
	return usdc7(strings.TrimPrefix(f[0], "$")), currency
}

// inlineLimitNote says what the operator could change, or that nothing can (Lambda's response size).
func inlineLimitNote(size int64, limit int) string {
	if size > config.MaxInlineBytesLimit {
		return fmt.Sprintf("this endpoint cannot deliver files above %d bytes", config.MaxInlineBytesLimit)
	}
	return fmt.Sprintf("ask the operator to raise MINDVAULT_MAX_INLINE_BYTES (now %d, at most %d)", limit, config.MaxInlineBytesLimit)
}

// tooLargeBeforePaying refuses a file whose announced size cannot be delivered inline.
func tooLargeBeforePaying(meta *mindvault.Meta, limit int) error {
	size, known := meta.KnownSize()
	mt, _, _ := mime.ParseMediaType(meta.MimeType)
	if !known || meta.ResourceType == "link" || textual(mt) && size <= smallText || size <= int64(limit) {
		return nil
	}
	return failure(errmap.Facts{Source: errmap.SourceX402, Code: errmap.CodeDeliveryTooLarge, Category: errmap.CategoryValidation,
		Detail: fmt.Sprintf("the file is %d bytes, above the %d bytes this endpoint delivers inline", size, limit),
		Next:   fmt.Sprintf("Nothing was paid: %s, or buy %s outside this endpoint.", inlineLimitNote(size, limit), meta.ID)})
}

// tooLargeAfterAnswer is a file found larger than the limit once the seller answered.
func tooLargeAfterAnswer(svc *transport.Service, res *x402.Outcome, meta *mindvault.Meta, g delivery, limit int) error {
	detail := fmt.Sprintf("the file is %d bytes, above the %d bytes this endpoint delivers inline", g.length, limit)
	note := inlineLimitNote(g.length, limit)
	tooLarge := func(detail, next string) error {
		return errmap.With(svc.Malformed(res.Response, ""), func(f *errmap.Facts) {
			f.Code, f.Category, f.Detail, f.Next = errmap.CodeDeliveryTooLarge, errmap.CategoryValidation, detail, next
		})
	}
	if !res.Paid {
		return tooLarge(detail+"; nothing was paid", fmt.Sprintf("Nothing was paid: %s, or get %s outside this endpoint.", note, meta.ID))
	}
	seller := cmp.Or(meta.PublisherName, "the publisher")
	if meta.AccessURL != "" {
		seller += ", " + meta.AccessURL
	}
	fetch := "get the file from the seller (" + seller + ")"
	switch {
	case g.receipt != nil:
		detail += fmt.Sprintf("; receipt: payment %s, %s USDC to %s", g.receipt.PaymentID, g.receipt.Amount, g.receipt.PaidTo)
		fetch += " with payment id " + g.receipt.PaymentID
	case res.Confirmed:
		fetch += " with the transaction hash"
	}
	expires := res.ExpiresAt.UTC().Format(time.RFC3339)
	err := tooLarge(detail, fmt.Sprintf("A payment of %s USDC was sent and the seller answered with the file but no proof of settlement, and it was not delivered: "+
		"do not buy %s again before %s; check the wallet with mindvault_wallet_info, then %s.", soroban.Decimal(res.Amount), meta.ID, expires, fetch))
	return paidFailure(err, res, func(hash string) string {
		return fmt.Sprintf("The payment settled in transaction %s but the file was not delivered: do not buy %s again; %s, "+
			"and %s for later purchases.", hash, meta.ID, fetch, note)
	})
}

// lastPurchase is the newest earlier purchase of the resource (by any of ids) in a history, or nil.
func lastPurchase(history []mindvault.Payment, ids ...string) *mindvault.Payment {
	for _, p := range newestFirst(history, func(p mindvault.Payment) string { return p.PaidAt }) {
		if p.ResourceID != "" && slices.Contains(ids, p.ResourceID) {
			return &p
		}
	}
	return nil
}

// alreadyPurchased refuses a second purchase of the same resource by the same wallet, with
// the earlier receipt and the exact call that buys it again on purpose (a file's bytes are
// kept nowhere, so getting them again means paying again).
func alreadyPurchased(req *BuyInput, meta *mindvault.Meta, p *mindvault.Payment, link string) error {
	id := meta.ID
	var parts []string
	for _, f := range []struct{ label, v, unit string }{{"payment ", p.PaymentID, ""}, {"", string(p.Amount), " " + cmp.Or(p.Currency, "USDC")},
		{"transaction ", p.TxHash, ""}, {"paid ", p.PaidAt, ""}} {
		if f.v != "" {
			parts = append(parts, f.label+f.v+f.unit)
		}
	}
	detail := "this wallet already bought " + id
	if len(parts) > 0 {
		detail += ": " + strings.Join(parts, ", ")
	}
	again, _ := json.Marshal(repeatArguments(req))
	next := fmt.Sprintf("Nothing was paid: use your earlier purchase (mindvault_purchase_history lists it), or, if the user wants to pay for %s again, "+
		"call mindvault_buy with %s.", id, again)
	if link != "" {
		next = fmt.Sprintf("Nothing was paid: use your earlier purchase, whose access link is %s, or, if the user wants to pay for %s again, "+
			"call mindvault_buy with %s.", link, id, again)
	}
	if meta.ResourceType != "link" {
		next = fmt.Sprintf("Nothing was paid. The file's bytes came with the earlier purchase and are kept nowhere here (the history holds only the receipt): "+
			"getting them again means buying %s again for %s USDC; only if the user wants that, call mindvault_buy with %s.", id, string(meta.Price), again)
	}
	// The next action is a look: paying again is the user's decision, never a step to follow.
	e := errmap.WithNextAction(refusal(errmap.CodeAlreadyPurchased, detail, next), historyAction(req))
	return errmap.With(e, func(f *errmap.Facts) { f.StateChanged = errmap.StateNo })
}

// repeatArguments is the caller's own buy arguments with allowRepeat true.
func repeatArguments(req *BuyInput) map[string]any {
	args := historyAction(req).Arguments
	args["allowRepeat"] = true
	if req.IdempotencyKey != nil {
		args["idempotencyKey"] = *req.IdempotencyKey
	}
	if req.MaxPriceUSDC != nil {
		args["maxPriceUsdc"] = *req.MaxPriceUSDC
	}
	if req.ConfirmMainnet {
		args["confirmMainnet"] = true
	}
	return args
}

func httpURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != ""
}

// checkPurchaseAction gives an unknown payment outcome its recovery call: the purchase history.
func checkPurchaseAction(err error, req *BuyInput) error {
	if f, ok := errmap.FactsOf(err); !ok || f.StateChanged != errmap.StateUnknown || f.NextAction != nil {
		return err
	}
	return errmap.WithNextAction(err, historyAction(req))
}

// capOf is the caller's cap in USDC units, or the operator's MINDVAULT_MAX_AUTO_PAY_USDC.
func (c *Call) capOf(given *string) *big.Int {
	units, _ := soroban.Units(cmp.Or(deref(given), c.Config.MaxAutoPayUSDC))
	return units
}

// profileArgs is the arguments of a profile-only tool call for the caller's own profile choice.
func profileArgs(profile *string) map[string]any {
	args := map[string]any{}
	if profile != nil {
		args["profile"] = *profile
	}
	return args
}

// notOnchain reads the paywall's 503 for a resource not on chain: it cannot sell it until registered.
func notOnchain(err error, meta *mindvault.Meta) error {
	if !isCode(err, errmap.CodeChainUnavailable) || meta.OnchainStatus == "" || meta.OnchainStatus == "registered" {
		return err
	}
	return errmap.With(err, func(f *errmap.Facts) {
		f.Code, f.Category = errmap.CodeConflict, errmap.CategoryConflict
		f.Detail = fmt.Sprintf("resource %s is not registered on chain (onchainStatus %s), so the paywall cannot read its price and cannot sell it; nothing was paid", meta.ID, quoted(meta.OnchainStatus))
		f.Next = "Choose another resource (mindvault_search or mindvault_browse find one): this one cannot be bought until its publisher registers it on chain."
	})
}
