package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/stellar/go-stellar-sdk/amount"
	hprotocol "github.com/stellar/go-stellar-sdk/protocols/horizon"

	"github.com/mindvault/mcp-endpoint/clients/mindvault"
	"github.com/mindvault/mcp-endpoint/clients/soroban"
	"github.com/mindvault/mcp-endpoint/clients/transport"
	"github.com/mindvault/mcp-endpoint/clients/x402"
	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/requests"
)

// Access is what a purchase returns: a link, or a file's type, size and (small text) content.
type Access struct {
	URL         string `json:"url,omitempty"`
	Content     string `json:"content,omitempty"`
	ContentType string `json:"contentType,omitempty"`
	Size        int    `json:"size,omitempty"`
}

// Receipt is the API's purchase receipt.
type Receipt struct {
	PaymentID string `json:"paymentId"`
	Amount    string `json:"amount"`
	Currency  string `json:"currency"`
	PaidTo    string `json:"paidTo"`
	PaidAt    string `json:"paidAt"`
}

// BuyOutput is the result of mindvault_buy. Every field states only what this call can
// prove: a payment by what was signed and sent, a settlement by a PAYMENT-RESPONSE that
// confirms it, a delivery by the bytes or the link received.
type BuyOutput struct {
	ResourceID  string   `json:"resourceId"`
	Title       string   `json:"title"`
	DryRun      bool     `json:"dryRun"`
	Access      *Access  `json:"access,omitempty"`
	Receipt     *Receipt `json:"receipt,omitempty" jsonschema_description:"the seller's receipt, only when a payment was sent"`
	TxHash      string   `json:"txHash,omitempty" jsonschema_description:"settlement transaction, only when PAYMENT-RESPONSE confirmed the settlement"`
	Settlement  string   `json:"settlement" jsonschema:"enum=confirmed,enum=unconfirmed,enum=none" jsonschema_description:"confirmed: PAYMENT-RESPONSE proved the settlement (success, transaction hash, this network and payer); unconfirmed: a payment was sent and something delivered, but without that proof; none: no payment was sent"`
	PriceUSDC   string   `json:"priceUsdc" jsonschema_description:"the previewed price"`
	AmountUSDC  string   `json:"amountUsdc" jsonschema_description:"USDC of the payment this call signed and sent (0 when none was sent); settlement says whether it is confirmed"`
	Network     string   `json:"network"`
	Payer       string   `json:"payer"`
	ExplorerURL string   `json:"explorerUrl,omitempty" jsonschema_description:"the confirmed settlement transaction in a block explorer"`
	// Dry-run facts.
	Endpoint    string `json:"endpoint,omitempty"`
	USDCBalance string `json:"usdcBalance,omitempty" jsonschema_description:"dry run: the wallet's USDC balance now"`
	Message     string `json:"message,omitempty"`
}

// Settlement values of BuyOutput.
const (
	SettlementConfirmed   = "confirmed"
	SettlementUnconfirmed = "unconfirmed"
	SettlementNone        = "none"
)

// smallText is the largest text body returned inline.
const smallText = 64 << 10

// Buy is mindvault_buy.
func Buy(d *Deps) *Tool {
	return Define(Spec[requests.Buy, BuyOutput]{
		Name:  "mindvault_buy",
		Title: "Buy a resource",
		Description: "Pays a resource's price in USDC over x402 on Stellar and returns its access link or content, the " +
			"receipt and, when the seller proves the settlement, its transaction hash (settlement says which). Costs the listed price (network fees are sponsored). Refuses " +
			"before paying when the price is above maxPriceUsdc, rises above the previewed price, or the wallet lacks " +
			"USDC. Use dryRun first; call mindvault_preview for the price and mindvault_wallet_info for funds.",
		Operation: "Buy failed",
		Source:    errmap.SourceX402,
		Hints:     Hints{OpenWorld: true},
		Run: func(ctx context.Context, req *requests.Buy) (*BuyOutput, error) {
			if !req.DryRun {
				if err := MainnetUnconfirmed(d.Config, req.ConfirmMainnet); err != nil {
					return nil, err
				}
			}
			ctx, kp, err := d.wallet(ctx, req.Profile)
			if err != nil {
				return nil, err
			}
			var (
				meta       *mindvault.Meta
				acct       *hprotocol.Account
				found      bool
				mErr, aErr error
			)
			parallel(
				func() { meta, mErr = d.API.Meta(ctx, req.ResourceID) },
				func() { acct, found, aErr = d.Horizon.Account(ctx, kp.Address()) },
			)
			if mErr != nil {
				return nil, mErr
			}
			if aErr != nil {
				return nil, aErr
			}
			price, err := soroban.Units(string(meta.Price))
			if err != nil {
				return nil, d.API.MalformedMeta("the price is not a USDC amount")
			}
			capText := d.Config.MaxAutoPayUSDC
			if req.MaxPriceUSDC != nil {
				capText = *req.MaxPriceUSDC
			}
			capUnits, _ := soroban.Units(capText)
			zero := soroban.Decimal(new(big.Int))
			out := &BuyOutput{ResourceID: meta.ID, Title: meta.Title, DryRun: req.DryRun, PriceUSDC: soroban.Decimal(price),
				AmountUSDC: zero, Settlement: SettlementNone, Network: string(d.Config.Network), Payer: kp.Address()}
			if price.Cmp(capUnits) > 0 {
				return nil, refusal(errmap.CodePriceAboveCap, fmt.Sprintf("the price %s USDC is above maxPriceUsdc %s", soroban.Decimal(price), soroban.Decimal(capUnits)),
					fmt.Sprintf("Pass maxPriceUsdc of at least %s to buy %s, or choose a cheaper resource.", strings.TrimRight(strings.TrimRight(soroban.Decimal(price), "0"), "."), meta.ID))
			}
			balance, err := d.usdcFor(acct, found, price)
			if err != nil {
				return nil, err
			}
			if req.DryRun {
				out.USDCBalance = soroban.Decimal(balance)
				out.Endpoint = d.Config.MindVaultURL + "/resources/" + url.PathEscape(meta.ID)
				out.Message = fmt.Sprintf("Dry run: would pay %s USDC from %s on %s (x402 network %s) to %s; nothing was sent.",
					soroban.Decimal(price), kp.Address(), d.Config.Network, d.Config.X402Network, meta.PublisherWallet)
				return out, nil
			}
			res, err := d.X402.Do(ctx, transport.Request{Method: http.MethodGet, Path: "/resources/" + url.PathEscape(meta.ID),
				Route: "GET /resources/{id} (paid)"}, kp, x402.Policy{Network: d.Config.X402Network, Asset: d.Config.USDCContractID, Cap: capUnits, Previewed: price})
			if err != nil {
				return nil, err
			}
			if !res.Response.OK() {
				return nil, d.X402.Svc.StatusError(res.Response)
			}
			access, receipt, missing := delivered(res.Response, meta)
			if !res.Paid {
				// The seller answered without asking for a payment: nothing was paid, so
				// there is no receipt or amount to report, only what was delivered.
				if access == nil {
					return nil, d.X402.Svc.Malformed(res.Response, "the seller answered without asking for payment and delivered nothing ("+missing+"); nothing was paid")
				}
				out.Access = access
				out.Message = "The seller delivered without asking for a payment; nothing was paid."
				return out, nil
			}
			out.AmountUSDC = soroban.Decimal(res.Amount)
			out.Settlement = SettlementUnconfirmed
			if res.Confirmed {
				out.Settlement = SettlementConfirmed
				out.TxHash = res.Settlement.Transaction
				out.ExplorerURL = d.Config.ExplorerURL(out.TxHash)
			}
			if access == nil {
				return nil, undelivered(d.X402.Svc, res, meta.ID, missing)
			}
			out.Access, out.Receipt = access, receipt
			if !res.Confirmed {
				out.Message = fmt.Sprintf("Delivered, but the seller sent no proof of settlement (PAYMENT-RESPONSE): a payment of %s USDC was sent "+
					"and may have settled. Check the wallet with mindvault_wallet_info before buying %s again.", out.AmountUSDC, meta.ID)
			}
			return out, nil
		},
	})
}

// undelivered is a paid answer that carries nothing usable. The money left when the
// settlement is proven (stateChanged yes, with its hash); otherwise whether it left is
// unknown until the signed payment expires.
func undelivered(svc *transport.Service, res *x402.Outcome, id, missing string) error {
	e := svc.Malformed(res.Response, "the paid answer delivered nothing ("+missing+")")
	e.Facts.ExecutionStarted = true
	if res.Confirmed {
		hash := res.Settlement.Transaction
		e.Facts.StateChanged, e.Facts.TxHash = errmap.StateYes, hash
		e.Facts.Next = fmt.Sprintf("The payment settled in transaction %s but nothing was delivered: do not buy %s again; "+
			"contact the seller with this transaction hash.", hash, id)
		return e
	}
	e.Facts.StateChanged = errmap.StateUnknown
	e.Facts.PaymentExpiresAt = res.ExpiresAt.UTC().Format(time.RFC3339)
	return e
}

// usdcFor checks the payer's USDC before anything is signed: account, trustline (by code and
// issuer), and balance against the price.
func (d *Deps) usdcFor(acct *hprotocol.Account, found bool, price *big.Int) (*big.Int, error) {
	if !found {
		return nil, refusal(errmap.CodeAccountMissing, "the paying wallet's account does not exist on this network",
			"Create a sponsored wallet with mindvault_setup_wallet, or fund this address and add a USDC trustline.")
	}
	state := walletState(acct, true, d.Config.USDCIssuer)
	if state.USDC.Status == "no_trustline" {
		return nil, refusal(errmap.CodeTrustlineMissing, "the paying wallet has no USDC trustline for issuer "+d.Config.USDCIssuer, "")
	}
	units, _ := amount.ParseInt64(state.USDC.Balance)
	bal := big.NewInt(units)
	if bal.Cmp(price) < 0 {
		short := new(big.Int).Sub(price, bal)
		return nil, refusal(errmap.CodeInsufficientUSDC, fmt.Sprintf("the wallet holds %s USDC, %s short of the price %s",
			soroban.Decimal(bal), soroban.Decimal(short), soroban.Decimal(price)), "")
	}
	return bal, nil
}

// refusal is a payment refused before anything was signed or sent.
func refusal(code, detail, next string) error {
	return &errmap.Error{Err: errors.New(detail), Facts: errmap.Facts{
		Source: errmap.SourceX402, Code: code, Detail: detail, Next: next, ExecutionStarted: false,
	}}
}

// delivered reads a 2xx body as what was bought: the API's JSON {url, receipt} (a link; any
// resource may be delivered this way), or, for a resource that is not a link, the file's
// bytes — of the media type the preview announced, when it announced one. Anything else
// delivers nothing, and missing says what was wrong.
func delivered(resp *transport.Response, meta *mindvault.Meta) (access *Access, receipt *Receipt, missing string) {
	if len(bytes.TrimSpace(resp.Body)) == 0 {
		return nil, nil, "empty body"
	}
	ct := resp.Header.Get("Content-Type")
	mt, _, _ := mime.ParseMediaType(ct)
	isJSON := mt == "application/json" || strings.HasSuffix(mt, "+json")
	if isJSON {
		var body map[string]json.RawMessage
		var link string
		if json.Unmarshal(resp.Body, &body) == nil && json.Unmarshal(body["url"], &link) == nil && httpURL(link) {
			var r Receipt
			if raw, ok := body["receipt"]; ok && json.Unmarshal(raw, &r) == nil && r.PaymentID != "" {
				receipt = &r
			}
			return &Access{URL: link}, receipt, ""
		}
	}
	sold, _, _ := mime.ParseMediaType(meta.MimeType)
	switch {
	case meta.ResourceType == "link":
		return nil, nil, "no access url in the answer"
	case sold != "" && mt != sold:
		return nil, nil, "a " + firstNonEmpty(mt, "untyped") + " body where " + sold + " was sold"
	case sold == "" && isJSON:
		return nil, nil, "a JSON answer without an access url"
	}
	a := &Access{ContentType: ct, Size: len(resp.Body)}
	if (strings.HasPrefix(mt, "text/") || isJSON) && len(resp.Body) <= smallText && utf8.Valid(resp.Body) {
		a.Content = string(resp.Body)
	}
	return a, nil, ""
}

// httpURL reports an absolute http(s) URL with a host.
func httpURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != ""
}
