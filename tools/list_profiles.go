package tools

import (
	"context"
	"fmt"

	"github.com/mindvault/mcp-endpoint/auth"
	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/requests"
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

// ListProfiles is mindvault_list_profiles.
func ListProfiles(d *Deps) *Tool {
	return Define(Spec[requests.ListProfiles, ListProfilesOutput]{
		Name:  "mindvault_list_profiles",
		Title: "List profiles",
		Description: "Lists the credential profiles this caller may use, with each wallet address and whether it is a " +
			"registered publisher; never shows secrets. Free, no network calls beyond the credential store.",
		Operation: "List profiles failed",
		Kind:      introspection(errmap.SourceCredentials),
		Run: func(ctx context.Context, _ *requests.ListProfiles) (*ListProfilesOutput, error) {
			names, err := d.Store.List(ctx)
			if err != nil {
				return nil, err
			}
			out := &ListProfilesOutput{Profiles: []ProfileEntry{}, DefaultProfile: d.Config.DefaultProfile, Store: d.Store.Kind()}
			withheld := false // profiles exist that this caller may not use
			for _, n := range names {
				if !auth.Permits(ctx, n) {
					withheld = true
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
			switch {
			case len(out.Profiles) > 0:
			case withheld:
				out.Message = fmt.Sprintf("The %s store holds profiles, but none is bound to this caller's access; ask the operator to bind one to your token, or create one with mindvault_setup_wallet.", d.Store.Kind())
			default:
				out.Message = fmt.Sprintf("No profiles yet in the %s store; create one with mindvault_setup_wallet.", d.Store.Kind())
			}
			return out, nil
		},
	})
}
