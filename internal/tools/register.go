package tools

import (
	"context"
	"fmt"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/clients/x402"
	"github.com/mindvault/mcp-endpoint/internal/config"
	"github.com/mindvault/mcp-endpoint/internal/confirm"
	"github.com/mindvault/mcp-endpoint/internal/credentials"
	"github.com/mindvault/mcp-endpoint/internal/ledger"
	"github.com/mindvault/mcp-endpoint/requests"
)

// RegisterInput is mindvault_register.
type RegisterInput struct {
	Name          string  `json:"name" validate:"required,max=128" jsonschema_description:"Publisher name shown to buyers."`
	Email         string  `json:"email" validate:"required,max=254,email" jsonschema_description:"Contact email (one publisher per email)."`
	WalletAddress *string `json:"walletAddress,omitempty" validate:"omitnil,gaccount" jsonschema_description:"Payout wallet (default: the profile's wallet)."`
	Profile       *string `json:"profile,omitempty" validate:"omitnil,profile" jsonschema_description:"Profile that stores the API key (default: the configured default profile)."`
	requests.Confirm
}

// ActingProfile implements requests.Acting.
func (r *RegisterInput) ActingProfile() *string { return r.Profile }

// RegisterOutput is the result of mindvault_register.
type RegisterOutput struct {
	PublisherID   string `json:"publisherId"`
	Profile       string `json:"profile"`
	WalletAddress string `json:"walletAddress"`
	APIKeyStored  bool   `json:"apiKeyStored"`
}

var register = Spec[RegisterInput, RegisterOutput]{
	Name:      "mindvault_register",
	Toolset:   config.ToolsetPublishing,
	Title:     "Register as publisher",
	Operation: "Register failed",
	Description: `Registers the profile's wallet as a MindVault publisher and stores the returned API key in
		the credential profile (never shown). Free. Needed once before mindvault_publish. An email
		already registered is a conflict; a profile that already holds an API key is refused
		before anything is sent (ALREADY_REGISTERED), so no key is ever replaced.`,
	Kind: action(errmap.SourceAPI),
	Guide: errmap.Guide{
		Codes: map[string]string{
			errmap.CodeAlreadyRegistered:  "Use the profile as it is (it is a publisher already), or create a new profile with mindvault_setup_wallet and call mindvault_register with that profile.",
			errmap.CodeReadOnlyStore:      "Use an existing profile (mindvault_list_profiles lists them), or ask the operator to set MINDVAULT_CREDENTIALS to a dir: or secretsmanager: store.",
			errmap.CodeCredentialsMissing: "Pass walletAddress, or a profile with a wallet (mindvault_list_profiles shows them; mindvault_setup_wallet creates one), and call mindvault_register again.",
		},
		Categories: map[errmap.Category]string{
			errmap.CategoryAuth:     "Call mindvault_register again with another profile (mindvault_list_profiles lists them), or ask the operator why the MindVault API refused the registration.",
			errmap.CategoryConflict: "Call mindvault_register again with another email, or, if this email is yours, use the profile already registered with it (mindvault_list_profiles shows which profiles are publishers).",
		},
	},
	Run: func(ctx context.Context, c *Call, req *RegisterInput) (*RegisterOutput, error) {
		// The key is shown once: a store that cannot keep it must refuse before asking.
		if c.Store.ReadOnly() {
			return nil, credentials.ReadOnlyStore(c.Store)
		}
		p, err := c.profile(ctx, req.Profile)
		if err != nil {
			return nil, err
		}
		// The API shows a key once: registering again would replace and lose the stored one.
		if p.APIKey != "" {
			return nil, alreadyPublisher(p.Name)
		}
		wallet := deref(req.WalletAddress)
		if wallet == "" {
			if wallet, err = p.Address(); err != nil {
				return nil, credentials.Missing(c.Store, p.Name, "wallet (pass walletAddress or run mindvault_setup_wallet)")
			}
		}
		if ok, err := c.approve(confirm.Request{
			Approval: confirm.Approval{Kind: confirm.Write, Network: string(c.Config.Network), Payer: wallet, Function: "register publisher",
				Args: []string{req.Name, req.Email, p.Name}},
			Title: "Register publisher " + req.Name,
			Message: fmt.Sprintf("Register %s <%s> as a MindVault publisher on %s with payout wallet %s, and store its API key in profile %s?",
				quoted(req.Name), req.Email, c.Config.Network, confirm.Short(wallet), quoted(p.Name)),
		}); !ok {
			return nil, err
		}
		// One registration per profile at a time, across instances: the journal's claim, then the
		// profile as the store holds it now (another instance may have stored a key since the
		// cached read above), so no call replaces a key the API showed only once.
		at, err := claimRegistration(ctx, c, p.Name, wallet)
		if err != nil {
			return nil, err
		}
		defer at.finish(ctx, ledger.Failed, nil) // released: the profile's key is the record
		if now, err := credentials.Fresh(ctx, c.Store, p.Name); err != nil {
			return nil, err
		} else if now.APIKey != "" {
			return nil, alreadyPublisher(p.Name)
		}
		pub, err := c.API.RegisterPublisher(ctx, req.Name, req.Email, wallet)
		if err != nil {
			return nil, err
		}
		c.addSecrets(pub.APIKey)
		// A key stored meanwhile by a call that outlived its claim's lease: keep both.
		if now, err := credentials.Fresh(ctx, c.Store, p.Name); err == nil && now.APIKey != "" {
			return keepBoth(ctx, c.Deps, now, pub.ID, pub.APIKey, wallet)
		}
		p.APIKey = pub.APIKey
		if err := c.Store.Update(ctx, p); err != nil {
			return nil, storeFailed(err, "publisher "+pub.ID+" was registered but its API key could not be stored")
		}
		return &RegisterOutput{PublisherID: pub.ID, Profile: p.Name, WalletAddress: wallet, APIKeyStored: true}, nil
	},
}

// claimRegistration makes this call the one registering a publisher for profile, in the
// journal (leased like a payment's claim); another call holding it is IN_PROGRESS.
func claimRegistration(ctx context.Context, c *Call, profile, wallet string) (*attempt, error) {
	at, err := c.begin(ctx, "mindvault_register", wallet, &x402.Intent{Kind: "register", Parts: []string{c.Store.Kind(), profile}}, "register")
	if err == nil {
		err = at.claim(ctx, nil, "")
	}
	if f, ok := errmap.FactsOf(err); ok && f.Code == errmap.CodeInProgress && f.RetryAfter != nil {
		return nil, busy(*f.RetryAfter, "another call is registering a publisher for profile "+quoted(profile)+" right now",
			"it then finds the profile's key and answers ALREADY_REGISTERED, and no key is lost.")
	}
	return at, err
}

// alreadyPublisher refuses to register a profile that already holds a publisher API key.
func alreadyPublisher(profile string) error {
	return failure(errmap.Facts{Source: errmap.SourceCredentials, Code: errmap.CodeAlreadyRegistered, Category: errmap.CategoryConflict,
		Detail: "profile " + quoted(profile) + " already holds a publisher API key; registering again would replace it, and the API shows a key only once, so nothing was sent",
		Next:   "Use profile " + quoted(profile) + " as it is (it is a publisher already), or create a new profile with mindvault_setup_wallet and call mindvault_register with that profile.",
	})
}

// keepBoth stores a new publisher's key beside one a concurrent call stored: neither is lost.
func keepBoth(ctx context.Context, d *Deps, now credentials.Profile, id, key, wallet string) (*RegisterOutput, error) {
	np := credentials.Profile{Name: now.Name + "-" + id, SecretKey: now.SecretKey, APIKey: key}
	if len(np.Name) > 64 || !credentials.ValidName(np.Name) {
		np.Name = "publisher-" + id
	}
	if err := d.Store.Create(ctx, np); err != nil {
		return nil, storeFailed(err, "publisher "+id+" was registered, but profile "+quoted(now.Name)+" gained another key meanwhile and a new profile for this one could not be created")
	}
	return &RegisterOutput{PublisherID: id, Profile: np.Name, WalletAddress: wallet, APIKeyStored: true}, nil
}

// storeFailed is a store failure after the publisher was registered: the state changed, and
// the detail says what exists first.
func storeFailed(err error, what string) error {
	if _, ok := errmap.FactsOf(err); !ok {
		return err
	}
	return errmap.With(err, func(f *errmap.Facts) { f.StateChanged, f.Detail = errmap.StateYes, what+"; "+f.Detail })
}
