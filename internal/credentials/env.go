package credentials

import (
	"context"
	"strings"
)

// Env is the read-only store of one profile taken from the environment.
type Env struct {
	profile Profile
}

// NewEnv reads MINDVAULT_AGENT_SECRET and MINDVAULT_API_KEY as the profile named name.
func NewEnv(getenv func(string) string, name string) *Env {
	return &Env{profile: Profile{
		Name:      name,
		SecretKey: strings.TrimSpace(getenv("MINDVAULT_AGENT_SECRET")),
		APIKey:    strings.TrimSpace(getenv("MINDVAULT_API_KEY")),
	}}
}

// Kind implements Store.
func (e *Env) Kind() string { return "env" }

// ReadOnly implements Store.
func (e *Env) ReadOnly() bool { return true }

// Get implements Store.
func (e *Env) Get(_ context.Context, name string) (Profile, error) {
	if name != e.profile.Name || (e.profile.SecretKey == "" && e.profile.APIKey == "") {
		return Profile{}, Missing(e, name, "credentials")
	}
	return loaded(e, e.profile)
}

// List implements Store.
func (e *Env) List(context.Context) ([]string, error) {
	if e.profile.SecretKey == "" && e.profile.APIKey == "" {
		return []string{}, nil
	}
	return []string{e.profile.Name}, nil
}

// Create implements Store.
func (e *Env) Create(context.Context, Profile) error { return ReadOnlyStore(e) }

// Update implements Store.
func (e *Env) Update(context.Context, Profile) error { return ReadOnlyStore(e) }
