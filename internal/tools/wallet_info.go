package tools

import (
	"context"
	"fmt"
	"math/big"

	"github.com/stellar/go-stellar-sdk/amount"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/clients/horizon"
	"github.com/mindvault/mcp-endpoint/internal/clients/soroban"
	"github.com/mindvault/mcp-endpoint/internal/config"
)

// WalletInfoInput is mindvault_wallet_info.
type WalletInfoInput struct {
	Profile *string `json:"profile,omitempty" validate:"omitnil,profile" jsonschema_description:"Credential profile (default: the configured default profile)."`
}

// XLMBalance is the native balance split into what the reserve locks and what is free.
type XLMBalance struct {
	Balance   string `json:"balance"`
	Reserved  string `json:"reserved" jsonschema_description:"minimum balance: (2 + subentries + sponsoring - sponsored) x 0.5 XLM"`
	Available string `json:"available"`
}

// USDCBalance is the USDC trustline state, matched by code and issuer.
type USDCBalance struct {
	Balance string `json:"balance"`
	Issuer  string `json:"issuer"`
	Status  string `json:"status" jsonschema:"enum=missing,enum=no_trustline,enum=zero,enum=funded"`
	units   int64  // Balance in 7-decimal units, for the payment checks
}

// WalletInfoOutput is the result of mindvault_wallet_info.
type WalletInfoOutput struct {
	ProfileWallet
	XLM                 XLMBalance  `json:"xlm"`
	USDC                USDCBalance `json:"usdc"`
	PublisherRegistered bool        `json:"publisherRegistered"`
	Note                string      `json:"note,omitempty"`
	Budget              *BudgetView `json:"budget,omitempty" jsonschema_description:"the wallet's daily budget, when one is set"`
}

// baseReserve is the network's base reserve in stroops (0.5 XLM).
const baseReserve = 5_000_000

var walletInfo = Spec[WalletInfoInput, WalletInfoOutput]{
	Name:      "mindvault_wallet_info",
	Toolset:   config.ToolsetWallet,
	Title:     "Wallet info",
	Operation: "Wallet info failed",
	Description: `Shows a profile's Stellar address, XLM balance (reserved and available) and USDC balance and
		status (missing account, no trustline, zero, funded), and whether the profile is a
		registered publisher. Free; never shows secrets. Call it before mindvault_buy or when a
		payment fails.`,
	Kind: lookup(errmap.SourceHorizon),
	// The wallet is the one the advice would point to: fund it and retry.
	Guide: errmap.Guide{Role: errmap.RoleWallet,
		Codes: map[string]string{
			errmap.CodeInsufficientUSDC:    "Fund the wallet with USDC, then retry.",
			errmap.CodeTrustlineMissing:    "Add a USDC trustline to the wallet, then retry.",
			errmap.CodeInsufficientBalance: "Fund the wallet with XLM for network fees, then retry.",
		},
		Categories: map[errmap.Category]string{errmap.CategoryPayment: "Fund the wallet with USDC, then retry."},
	},
	Run: func(ctx context.Context, c *Call, req *WalletInfoInput) (*WalletInfoOutput, error) {
		p, addr, err := c.address(ctx, req.Profile)
		if err != nil {
			return nil, err
		}
		acct, found, err := c.Horizon.Account(ctx, addr)
		if err != nil {
			return nil, err
		}
		out := walletState(acct, found, c.Config.USDCIssuer)
		out.ProfileWallet = c.profileWallet(p.Name, addr)
		out.PublisherRegistered = p.APIKey != ""
		if out.Budget, err = c.budgetRead(ctx, addr); err != nil {
			return nil, err
		}
		return out, nil
	},
}

// walletState classifies an account: USDC counts only with the configured issuer, and the
// reserve follows the protocol's minimum-balance rule, sponsorship included.
func walletState(acct *horizon.Account, found bool, issuer string) *WalletInfoOutput {
	out := &WalletInfoOutput{
		XLM:  XLMBalance{Balance: "0.0000000", Reserved: "0.0000000", Available: "0.0000000"},
		USDC: USDCBalance{Balance: "0.0000000", Issuer: issuer, Status: "missing"},
	}
	if !found {
		out.Note = "The account does not exist on this network yet. Create a sponsored wallet with mindvault_setup_wallet, or fund the address with XLM and add a USDC trustline."
		return out
	}
	var native int64
	out.USDC.Status = "no_trustline"
	for _, b := range acct.Balances {
		switch {
		case b.Asset.Type == "native":
			native, _ = amount.ParseInt64(b.Balance)
			out.XLM.Balance = amount.StringFromInt64(native)
		case b.Asset.Code == "USDC" && b.Asset.Issuer == issuer:
			out.USDC.units, _ = amount.ParseInt64(b.Balance)
			out.USDC.Balance = amount.StringFromInt64(out.USDC.units)
			out.USDC.Status = "funded"
			if out.USDC.units == 0 {
				out.USDC.Status = "zero"
			}
		}
	}
	entries := int64(2) + int64(acct.SubentryCount) + int64(acct.NumSponsoring) - int64(acct.NumSponsored)
	reserved := max(0, entries) * baseReserve
	out.XLM.Reserved = amount.StringFromInt64(reserved)
	out.XLM.Available = amount.StringFromInt64(max(0, native-reserved))
	switch out.USDC.Status {
	case "no_trustline":
		out.Note = fmt.Sprintf("No USDC trustline for issuer %s: add one before buying (a USDC line from another issuer does not count).", issuer)
	case "zero":
		out.Note = "The USDC balance is zero: fund the wallet with USDC before buying or publishing."
	}
	return out
}

// usdcFor checks the payer's account, trustline and USDC balance before anything is signed.
func (d *Deps) usdcFor(acct *horizon.Account, found bool, price *big.Int) (*big.Int, error) {
	if !found {
		return nil, refusal(errmap.CodeAccountMissing, "the paying wallet's account does not exist on this network",
			"Create a sponsored wallet with mindvault_setup_wallet, or fund this address and add a USDC trustline.")
	}
	state := walletState(acct, true, d.Config.USDCIssuer)
	if state.USDC.Status == "no_trustline" {
		return nil, refusal(errmap.CodeTrustlineMissing, "the paying wallet has no USDC trustline for issuer "+d.Config.USDCIssuer, "")
	}
	bal := big.NewInt(state.USDC.units)
	if bal.Cmp(price) < 0 {
		short := new(big.Int).Sub(price, bal)
		err := refusal(errmap.CodeInsufficientUSDC, fmt.Sprintf("the wallet holds %s USDC, %s short of the price %s",
			soroban.Decimal(bal), soroban.Decimal(short), soroban.Decimal(price)), "")
		link := d.Config.FundingLink(acct.AccountID)
		return nil, &unfunded{error: errmap.With(err, func(f *errmap.Facts) { f.Advice.FundingURL = link }), address: acct.AccountID, link: link}
	}
	return bal, nil
}

// unfunded is a wallet short of USDC before anything was signed, and what a funding question names.
type unfunded struct {
	error
	address, link string
}

func (u *unfunded) Unwrap() error { return u.error }
