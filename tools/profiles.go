package tools

import (
	"context"
	"errors"
	"fmt"

	"github.com/stellar/go-stellar-sdk/keypair"

	"github.com/mindvault/mcp-endpoint/auth"
	"github.com/mindvault/mcp-endpoint/credentials"
	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/requests"
)

// SetupWalletOutput is the result of mindvault_setup_wallet; the secret is never in it.
type SetupWalletOutput struct {
	Profile string `json:"profile"`
	Address string `json:"address"`
	Network string `json:"network"`
	Created bool   `json:"created"`
	Note    string `json:"note,omitempty" jsonschema_description:"funding the sponsored-account service reports, e.g. a test network's faucet"`
}

// SetupWallet is mindvault_setup_wallet.
func SetupWallet(d *Deps) *Tool {
	return Define(Spec[requests.SetupWallet, SetupWalletOutput]{
		Name:  "mindvault_setup_wallet",
		Title: "Set up a wallet",
		Description: "Creates a new Stellar wallet through the sponsored-account service (reserves sponsored, USDC " +
			"trustline added, no XLM needed) and stores its secret in a new credential profile; the secret is never " +
			"shown. Free. An existing profile name is a conflict. Fund it with USDC, then check mindvault_wallet_info.",
		Operation: "Wallet setup failed",
		Source:    errmap.SourceSponsor,
		Hints:     Hints{OpenWorld: true},
		Run: func(ctx context.Context, req *requests.SetupWallet) (*SetupWalletOutput, error) {
			if err := MainnetUnconfirmed(d.Config, req.ConfirmMainnet); err != nil {
				return nil, err
			}
			if !auth.Permits(ctx, req.Profile) {
				return nil, credentials.NotAllowed(req.Profile)
			}
			// Refuse before creating an account nobody could hold.
			if d.Store.ReadOnly() {
				return nil, credentials.ReadOnlyStore(d.Store)
			}
			if _, err := d.Store.Get(ctx, req.Profile); err == nil {
				return nil, credentials.Exists(d.Store, req.Profile)
			} else if !isCode(err, errmap.CodeCredentialsMissing) {
				return nil, err
			}
			w, err := d.Sponsor.Create(ctx)
			if err != nil {
				return nil, err
			}
			ctx = WithSecrets(ctx, w.SecretKey)
			kp, err := keypair.ParseFull(w.SecretKey)
			if err != nil || kp.Address() != w.PublicKey {
				return nil, sponsorBroken("the returned secret does not derive the returned public key; nothing was stored")
			}
			if _, found, err := d.Horizon.Account(ctx, w.PublicKey); err != nil {
				return nil, err
			} else if !found {
				return nil, sponsorBroken("the service answered, but the account " + w.PublicKey + " does not exist on Horizon; nothing was stored")
			}
			if err := d.Store.Create(ctx, credentials.Profile{Name: req.Profile, SecretKey: w.SecretKey}); err != nil {
				return nil, err
			}
			return &SetupWalletOutput{Profile: req.Profile, Address: w.PublicKey, Network: string(d.Config.Network), Created: true, Note: w.Note()}, nil
		},
	})
}

func sponsorBroken(detail string) error {
	return &errmap.Error{Err: errors.New(detail), Facts: errmap.Facts{
		Source: errmap.SourceSponsor, Code: errmap.CodeMalformedResponse, Category: errmap.CategoryServer,
		Detail: detail, ExecutionStarted: true, StateChanged: errmap.StateUnknown,
	}}
}

func isCode(err error, code string) bool {
	var e *errmap.Error
	return errors.As(err, &e) && e.Facts.Code == code
}

// ProfileEntry is one profile the caller may use.
type ProfileEntry struct {
	Name                string `json:"name"`
	Address             string `json:"address,omitempty"`
	PublisherRegistered bool   `json:"publisherRegistered"`
}

// ListProfilesOutput is the result of mindvault_list_profiles.
type ListProfilesOutput struct {
	Profiles       []ProfileEntry `json:"profiles"`
	DefaultProfile string         `json:"defaultProfile"`
	Store          string         `json:"store" jsonschema:"enum=env,enum=dir,enum=secretsmanager"`
	Message        string         `json:"message,omitempty"`
}

// ListProfiles is mindvault_list_profiles.
func ListProfiles(d *Deps) *Tool {
	return Define(Spec[requests.ListProfiles, ListProfilesOutput]{
		Name:  "mindvault_list_profiles",
		Title: "List profiles",
		Description: "Lists the credential profiles this caller may use, with each wallet address and whether it is a " +
			"registered publisher; never shows secrets. Free, no network calls beyond the credential store.",
		Operation: "List profiles failed",
		Source:    errmap.SourceCredentials,
		Hints:     Hints{ReadOnly: true, Idempotent: true},
		Run: func(ctx context.Context, _ *requests.ListProfiles) (*ListProfilesOutput, error) {
			names, err := d.Store.List(ctx)
			if err != nil {
				return nil, err
			}
			out := &ListProfilesOutput{Profiles: []ProfileEntry{}, DefaultProfile: d.Config.DefaultProfile, Store: d.Store.Kind()}
			for _, n := range names {
				if !auth.Permits(ctx, n) {
					continue
				}
				p, err := d.Store.Get(ctx, n)
				if err != nil {
					if isCode(err, errmap.CodeCredentialsMissing) {
						continue // deleted since the listing
					}
					return nil, err
				}
				e := ProfileEntry{Name: n, PublisherRegistered: p.APIKey != ""}
				e.Address, _ = p.Address()
				out.Profiles = append(out.Profiles, e)
			}
			if len(out.Profiles) == 0 {
				out.Message = fmt.Sprintf("No profiles yet in the %s store; create one with mindvault_setup_wallet.", d.Store.Kind())
			}
			return out, nil
		},
	})
}
