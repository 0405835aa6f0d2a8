package tools

import (
	"context"
	"fmt"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/auth"
	"github.com/mindvault/mcp-endpoint/internal/config"
)

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

var listProfiles = Spec[NoInput, ListProfilesOutput]{
	Name:      "mindvault_list_profiles",
	Toolset:   config.ToolsetWallet,
	Title:     "List profiles",
	Operation: "List profiles failed",
	Description: `Lists the credential profiles this caller may use, with each wallet address and whether it
		is a registered publisher; never shows secrets. Free, no network calls beyond the credential
		store.`,
	Kind: introspection(errmap.SourceCredentials),
	Guide: errmap.Guide{Role: errmap.RoleProfiles, NoID: true,
		Codes: map[string]string{
			errmap.CodeTxBadAuth:          "Use the profile whose wallet signs for this account, then retry.",
			errmap.CodeCredentialsMissing: "Ask the operator to check the credential store: its profiles could not be read.",
		},
	},
	Run: func(ctx context.Context, c *Call, _ *NoInput) (*ListProfilesOutput, error) {
		names, err := c.Store.List(ctx)
		if err != nil {
			return nil, err
		}
		out := &ListProfilesOutput{DefaultProfile: c.Config.DefaultProfile, Store: c.Store.Kind(), Profiles: []ProfileEntry{}}
		withheld := false // the store holds profiles bound to other callers
		for _, n := range names {
			if !auth.Permits(ctx, n) {
				withheld = true
				continue
			}
			p, err := c.Store.Get(ctx, n)
			if isCode(err, errmap.CodeCredentialsMissing) {
				continue // deleted since the listing
			}
			if err != nil {
				return nil, err
			}
			e := ProfileEntry{Name: n, PublisherRegistered: p.APIKey != ""}
			e.Address, _ = p.Address()
			out.Profiles = append(out.Profiles, e)
		}
		switch {
		case len(out.Profiles) > 0:
		case withheld:
			out.Message = fmt.Sprintf("The %s store holds profiles, but none is bound to this caller's access; ask the operator to bind one to your token, or create one with mindvault_setup_wallet.", c.Store.Kind())
		default:
			out.Message = fmt.Sprintf("No profiles yet in the %s store; create one with mindvault_setup_wallet.", c.Store.Kind())
		}
		return out, nil
	},
}
