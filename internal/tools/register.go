package tools

import (
	"context"
	"fmt"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/config"
	"github.com/mindvault/mcp-endpoint/internal/confirm"
	"github.com/mindvault/mcp-endpoint/internal/credentials"
	"github.com/mindvault/mcp-endpoint/requests"
)

// RegisterOutput is the result of mindvault_register.
type RegisterOutput struct {
	PublisherID   string `json:"publisherId"`
	Profile       string `json:"profile"`
	WalletAddress string `json:"walletAddress"`
	APIKeyStored  bool   `json:"apiKeyStored"`
}

// register is mindvault_register.
var register = serve(Spec[requests.Register, RegisterOutput]{
	Name:      "mindvault_register",
	Toolset:   config.ToolsetPublishing,
	Title:     "Register as publisher",
	Operation: "Register failed",
	Description: `Registers the profile's wallet as a MindVault publisher and stores the returned API key in
		the credential profile (never shown). Free. Needed once before mindvault_publish. An email
		already registered is a conflict.`,
	Kind: action(errmap.SourceAPI),
	Guide: errmap.Guide{
		Codes: map[string]string{
			errmap.CodeReadOnlyStore:      "Use an existing profile (mindvault_list_profiles lists them), or ask the operator to set MINDVAULT_CREDENTIALS to a dir: or secretsmanager: store.",
			errmap.CodeCredentialsMissing: "Pass walletAddress, or a profile with a wallet (mindvault_list_profiles shows them; mindvault_setup_wallet creates one), and call mindvault_register again.",
		},
		Categories: map[errmap.Category]string{
			errmap.CategoryAuth:     "Call mindvault_register again with another profile (mindvault_list_profiles lists them), or ask the operator why the MindVault API refused the registration.",
			errmap.CategoryConflict: "Call mindvault_register again with another email, or, if this email is yours, use the profile already registered with it (mindvault_list_profiles shows which profiles are publishers).",
		},
	},
	Run: func(ctx context.Context, d *Deps, req *requests.Register) (*RegisterOutput, error) {
		// The key is shown once: a store that cannot keep it must refuse before asking.
		if d.Store.ReadOnly() {
			return nil, credentials.ReadOnlyStore(d.Store)
		}
		ctx, p, err := d.profile(ctx, req.Profile)
		if err != nil {
			return nil, err
		}
		wallet := deref(req.WalletAddress)
		if wallet == "" {
			if wallet, err = p.Address(); err != nil {
				return nil, credentials.Missing(d.Store, p.Name, "wallet (pass walletAddress or run mindvault_setup_wallet)")
			}
		}
		if err := confirm.Approve(ctx, confirm.Request{
			Approval: confirm.Approval{Kind: confirm.Write, Network: string(d.Config.Network), Payer: wallet, Function: "register publisher",
				Args: []string{req.Name, req.Email, p.Name}},
			Title: "Register publisher " + req.Name,
			Message: fmt.Sprintf("Register %s <%s> as a MindVault publisher on %s with payout wallet %s, and store its API key in profile %s?",
				quoted(req.Name), req.Email, d.Config.Network, confirm.Short(wallet), quoted(p.Name)),
		}); err != nil {
			return nil, err
		}
		pub, err := d.API.RegisterPublisher(ctx, req.Name, req.Email, wallet)
		if err != nil {
			return nil, err
		}
		ctx = WithSecrets(ctx, pub.APIKey)
		p.APIKey = pub.APIKey
		if err := d.Store.Update(ctx, p); err != nil {
			if _, ok := errmap.FactsOf(err); ok {
				err = errmap.With(err, func(f *errmap.Facts) {
					f.StateChanged = errmap.StateYes
					f.Detail = "publisher " + pub.ID + " was registered but its API key could not be stored; " + f.Detail
				})
			}
			return nil, err
		}
		return &RegisterOutput{PublisherID: pub.ID, Profile: p.Name, WalletAddress: wallet, APIKeyStored: true}, nil
	},
})
