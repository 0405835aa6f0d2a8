package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"mime"
	"net/http"
	"net/url"
	"strings"
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

// BuyOutput is the result of mindvault_buy.
type BuyOutput struct {
	ResourceID  string   `json:"resourceId"`
	Title       string   `json:"title"`
	DryRun      bool     `json:"dryRun"`
	Access      *Access  `json:"access,omitempty"`
	Receipt     *Receipt `json:"receipt,omitempty"`
	TxHash      string   `json:"txHash,omitempty" jsonschema_description:"settlement transaction (from PAYMENT-RESPONSE)"`
	AmountUSDC  string   `json:"amountUsdc"`
	Network     string   `json:"network"`
	Payer       string   `json:"payer"`
	ExplorerURL string   `json:"explorerUrl,omitempty"`
	// Dry-run facts.
	Endpoint    string `json:"endpoint,omitempty"`
	USDCBalance string `json:"usdcBalance,omitempty"`
	Message     string `json:"message,omitempty"`
}

// smallText is the largest text body returned inline.
const smallText = 64 << 10

// Buy is mindvault_buy.
func Buy(d *Deps) *Tool {
	return Define(Spec[requests.Buy, BuyOutput]{
		Name:  "mindvault_buy",
		Title: "Buy a resource",
		Description: "Pays a resource's price in USDC over x402 on Stellar and returns its access link or content, the " +
			"receipt and the settlement transaction hash. Costs the listed price (network fees are sponsored). Refuses " +
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
			out := &BuyOutput{ResourceID: meta.ID, Title: meta.Title, DryRun: req.DryRun, AmountUSDC: soroban.Decimal(price),
				Network: string(d.Config.Network), Payer: kp.Address()}
			if price.Cmp(capUnits) > 0 {
				return nil, refusal(errmap.CodePriceAboveCap, fmt.Sprintf("the price %s USDC is above maxPriceUsdc %s", soroban.Decimal(price), soroban.Decimal(capUnits)),
					fmt.Sprintf("Pass maxPriceUsdc of at least %s to buy %s, or choose a cheaper resource.", strings.TrimRight(strings.TrimRight(soroban.Decimal(price), "0"), "."), meta.ID))
			}
			balance, err := d.usdcFor(acct, found, price)
			if err != nil {
				return nil, err
			}
			out.USDCBalance = soroban.Decimal(balance)
			if req.DryRun {
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
			if res.Amount != nil {
				out.AmountUSDC = soroban.Decimal(res.Amount)
			}
			if s := res.Settlement; s != nil {
				out.TxHash = s.Transaction
				out.ExplorerURL = d.Config.ExplorerURL(s.Transaction)
			}
			out.Access, out.Receipt = accessOf(res.Response)
			return out, nil
		},
	})
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

// accessOf reads the paid body: the API's JSON {url, receipt}, or a file.
func accessOf(resp *transport.Response) (*Access, *Receipt) {
	ct := resp.Header.Get("Content-Type")
	mt, _, _ := mime.ParseMediaType(ct)
	if mt == "application/json" {
		var body struct {
			URL     string   `json:"url"`
			Receipt *Receipt `json:"receipt"`
		}
		if json.Unmarshal(resp.Body, &body) == nil {
			return &Access{URL: body.URL}, body.Receipt
		}
	}
	a := &Access{ContentType: ct, Size: len(resp.Body)}
	if (strings.HasPrefix(mt, "text/") || mt == "application/json") && len(resp.Body) <= smallText && utf8.Valid(resp.Body) {
		a.Content = string(resp.Body)
	}
	return a, nil
}
