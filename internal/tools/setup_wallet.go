package tools

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/stellar/go-stellar-sdk/keypair"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/auth"
	"github.com/mindvault/mcp-endpoint/internal/clients/horizon"
	"github.com/mindvault/mcp-endpoint/internal/config"
	"github.com/mindvault/mcp-endpoint/internal/confirm"
	"github.com/mindvault/mcp-endpoint/internal/credentials"
)

// SetupWalletInput is mindvault_setup_wallet.
type SetupWalletInput struct {
	Profile        string `json:"profile" validate:"required,profile" jsonschema_description:"Name of the new profile that will hold the wallet."`
	ConfirmMainnet bool   `json:"confirmMainnet,omitempty" jsonschema_description:"Must be true on mainnet unless the operator set MINDVAULT_ALLOW_MAINNET."`
}

// MainnetConfirmed implements requests.MainnetConfirmer.
func (s *SetupWalletInput) MainnetConfirmed() bool { return s.ConfirmMainnet }

// ActingProfile implements requests.Acting.
func (r *SetupWalletInput) ActingProfile() *string { return &r.Profile }

// SetupWalletOutput is the result of mindvault_setup_wallet; the secret is never in it.
type SetupWalletOutput struct {
	ProfileWallet
	Created   bool   `json:"created"`
	KeyOrigin string `json:"keyOrigin" jsonschema:"enum=local,enum=sponsor" jsonschema_description:"local: this endpoint generated the wallet's key and the sponsored-account service never saw its secret; sponsor: the service returned the secret key (it generated the key pair itself), so it knows the key too"`
	Warning   string `json:"warning,omitempty" jsonschema_description:"set when keyOrigin is sponsor: the service knows the key and could move the wallet's funds"`
	Note      string `json:"note,omitempty" jsonschema_description:"funding the sponsored-account service reports, e.g. a test network's faucet"`
}

// Key origins of SetupWalletOutput.
const (
	keyLocal   = "local"
	keySponsor = "sponsor"
)

// setupWallet is mindvault_setup_wallet. The order matters, because only the key makes the
// remote account usable: the key is generated here and claimed in the store (exclusive
// create: one of concurrent calls goes on), then the service creates the account and Horizon
// confirms the stored key alone controls it. Once the service was called the profile is kept;
// only a refusal (4xx but 408), which proves no account exists, withdraws the claim where the
// store can remove exactly what it wrote.
var setupWallet = Spec[SetupWalletInput, SetupWalletOutput]{
	Name:      "mindvault_setup_wallet",
	Toolset:   config.ToolsetWallet,
	Title:     "Set up a wallet",
	Operation: "Wallet setup failed",
	Description: `Creates a new Stellar wallet through the sponsored-account service (reserves sponsored, USDC
		trustline added, no XLM needed) and stores its secret in a new credential profile; the
		secret is never shown. Free. An existing profile name is a conflict. keyOrigin says who
		generated the key (sponsor: the service returned the secret and knows it too, with a
		warning); a new account with any signer besides that key is reported as an error. Fund it
		with USDC, then check mindvault_wallet_info.`,
	Kind: action(errmap.SourceSponsor),
	Guide: errmap.Guide{Role: errmap.RoleNewWallet,
		Codes: map[string]string{
			errmap.CodeReadOnlyStore:      "Use an existing profile (mindvault_list_profiles lists them), or ask the operator to set MINDVAULT_CREDENTIALS to a dir: or secretsmanager: store.",
			errmap.CodeAccountMissing:     "Fund the new account's address with XLM so it exists on the network, then check it with mindvault_wallet_info.",
			errmap.CodeCredentialsMissing: "Call mindvault_setup_wallet again with another profile name (mindvault_list_profiles shows the existing ones).",
		},
		Categories: map[errmap.Category]string{
			errmap.CategoryAuth: "Ask the operator to check this endpoint's access to the sponsored-account service: it refused to create the wallet.",
		},
	},
	Run: func(ctx context.Context, c *Call, req *SetupWalletInput) (*SetupWalletOutput, error) {
		if !auth.Permits(ctx, req.Profile) {
			return nil, credentials.NotAllowed(req.Profile)
		}
		// Refuse before creating a key, let alone an account, nobody could hold.
		if c.Store.ReadOnly() {
			return nil, credentials.ReadOnlyStore(c.Store)
		}
		if ok, err := c.approve(confirm.Request{
			Approval: confirm.Approval{Kind: confirm.Write, Network: string(c.Config.Network), Function: "create sponsored account",
				Args: []string{req.Profile}},
			Title: "Create wallet " + req.Profile,
			Message: fmt.Sprintf("Create a new Stellar wallet on %s through the sponsored-account service and store its key in the new profile %s? It costs you nothing.",
				c.Config.Network, quoted(req.Profile)),
		}); !ok {
			return nil, err
		}
		kp, err := keypair.Random()
		if err != nil {
			return nil, fmt.Errorf("generate a key pair: %w", err)
		}
		c.addSecrets(kp.Seed())
		claim := credentials.Profile{Name: req.Profile, SecretKey: kp.Seed()}
		if err := c.Store.Create(ctx, claim); err != nil {
			return nil, err // PROFILE_EXISTS for the losers of a race: nothing was asked of anyone
		}
		w, err := c.Sponsor.Create(ctx, kp.Address())
		if err != nil {
			return nil, c.claimFailed(ctx, claim, kp.Address(), err)
		}
		address, origin := kp.Address(), keyLocal
		if w.SecretKey != "" {
			// The service returned a secret (Create checked it derives the account): it knows the key.
			origin = keySponsor
		}
		if w.PublicKey != address {
			// The service used a key pair of its own: its secret replaces the unused claimed one.
			if w.SecretKey == "" {
				return nil, walletFailure(errmap.SourceSponsor, errmap.CodeMalformedResponse, fmt.Sprintf("the service created account %s, not the requested %s, and returned no key for it; profile %q holds the requested key, which no account uses", w.PublicKey, address, req.Profile),
					fmt.Sprintf("Report this to the sponsored-account service's operator; account %s cannot be used by this endpoint.", w.PublicKey))
			}
			c.addSecrets(w.SecretKey)
			if err := c.Store.Update(ctx, credentials.Profile{Name: req.Profile, SecretKey: w.SecretKey}); err != nil {
				return nil, afterAccount(err,
					fmt.Sprintf("account %s was created with the service's own key, which could not be stored in profile %q", w.PublicKey, req.Profile),
					fmt.Sprintf("Account %s exists but this endpoint could not store its key; ask the operator to check the %s credential store, and do not run mindvault_setup_wallet for %q again.", w.PublicKey, c.Store.Kind(), req.Profile))
			}
			address = w.PublicKey
		}
		acct, found, err := c.Horizon.Account(ctx, address)
		if err != nil || !found {
			detail := fmt.Sprintf("account %s was created and its key is stored in profile %q, but Horizon could not confirm it", address, req.Profile)
			next := fmt.Sprintf("The wallet exists in profile %q: check it with mindvault_wallet_info in a few seconds, and do not run mindvault_setup_wallet again.", req.Profile)
			if err == nil {
				return nil, walletFailure(errmap.SourceHorizon, errmap.CodeAccountMissing, detail+" (not found yet)", next)
			}
			return nil, afterAccount(err, detail, next)
		}
		// Success means the stored key alone controls the account: another signer, or thresholds
		// above the key's weight, could move the funds or lock the key out.
		if why := controlGap(acct, address); why != "" {
			return nil, walletFailure(errmap.SourceSponsor, errmap.CodeConflict,
				fmt.Sprintf("account %s exists and profile %q holds its key, but the account is not safely controlled by this key alone: %s", address, req.Profile, why),
				fmt.Sprintf("Do not fund or use account %s (profile %q): someone else can sign for it. Report this to the sponsored-account service's operator; once it is fixed, create a wallet under another profile name.", address, req.Profile))
		}
		out := &SetupWalletOutput{ProfileWallet: c.profileWallet(req.Profile, address), Created: true, KeyOrigin: origin, Note: w.Note()}
		if origin == keySponsor {
			out.Warning = "The sponsored-account service generated this wallet's key and returned its secret, so the service knows the key and could move the wallet's funds. Keep only small amounts in it, or create a wallet with a service that lets this endpoint generate the key."
		}
		return out, nil
	},
}

// controlGap says why the key of address is not the account's only signer with enough weight, or "".
func controlGap(acct *horizon.Account, address string) string {
	master := int32(-1)
	var others []string
	for _, s := range acct.Signers {
		switch {
		case s.Key == address && s.Type == "ed25519_public_key":
			master = s.Weight
		case s.Weight > 0:
			others = append(others, s.Key+" ("+s.Type+", weight "+strconv.Itoa(int(s.Weight))+")")
		}
	}
	t := acct.Thresholds
	switch {
	case len(others) > 0:
		n := len(others)
		if n > 3 {
			others = append(others[:3], fmt.Sprintf("and %d more", n-3))
		}
		return fmt.Sprintf("it has %d other signer(s): %s", n, strings.Join(others, ", "))
	case master < 0:
		return "Horizon lists no signer for the wallet's own key"
	case master == 0 || master < int32(t.LowThreshold) || master < int32(t.MedThreshold) || master < int32(t.HighThreshold):
		return fmt.Sprintf("the wallet's key has weight %d, below the account's thresholds (low %d, medium %d, high %d) or zero",
			master, t.LowThreshold, t.MedThreshold, t.HighThreshold)
	}
	return ""
}

// claimFailed reports a sponsored-account call that failed after the profile was claimed: an
// unknown outcome keeps the profile (it may hold a new account's key); a refusal withdraws it
// where the store can.
func (d *Deps) claimFailed(ctx context.Context, claim credentials.Profile, address string, err error) error {
	f, ok := errmap.FactsOf(err)
	if !ok {
		return err
	}
	if f.StateChanged == errmap.StateUnknown {
		err = errmap.WithDetail(err, fmt.Sprintf("account %s may have been created, and profile %q holds its key (%s)", address, claim.Name, shownDetail(f)))
		return errmap.WithNext(err, fmt.Sprintf("The outcome is unknown: check profile %q with mindvault_wallet_info before creating another wallet; the profile already holds the key.", claim.Name))
	}
	if ds, ok := d.Store.(credentials.Discarder); ok {
		if gone, derr := ds.Discard(ctx, claim); derr == nil && gone {
			return err // refused, and nothing is left behind: the call changed nothing
		}
	}
	err = errmap.MarkStateChanged(err, errmap.StateYes)
	err = errmap.WithDetail(err, fmt.Sprintf("no account was created, but profile %q was kept in the %s credential store holding an unused key (%s)", claim.Name, d.Store.Kind(), shownDetail(f)))
	return errmap.WithNext(err, fmt.Sprintf("Profile %q exists without an account: once the cause is fixed, run mindvault_setup_wallet with another profile name, or ask the operator to delete %q.", claim.Name, claim.Name))
}

// afterAccount reports a failure after the account was created: state changed, profile kept.
func afterAccount(err error, detail, next string) error {
	f, ok := errmap.FactsOf(err)
	if !ok {
		return walletFailure(errmap.SourceSponsor, errmap.CodeUnknown, detail, next)
	}
	// The write (the service call) happened; the failing Horizon read came after it.
	err = errmap.MarkStateChanged(errmap.MarkStarted(err), errmap.StateYes)
	return errmap.WithNext(errmap.WithDetail(err, detail+" ("+shownDetail(f)+")"), next)
}

// shownDetail is the detail the failure would show, redacted and bounded; callers put it last,
// so the bound never cuts the address or the profile name.
func shownDetail(f errmap.Facts) string {
	return errmap.Map(f).Diagnostic.Detail
}

// walletFailure is a failure detected after the service created an account: state changed.
func walletFailure(source errmap.Source, code, detail, next string) error {
	return failure(errmap.Facts{Source: source, Code: code, Detail: detail, Next: next, ExecutionStarted: true, StateChanged: errmap.StateYes})
}
