// Package credentials holds the wallet secrets and publisher API keys of named profiles in a store
// the operator controls (env, dir:<path> or secretsmanager:<prefix>;
// docs/operations.md "Credential stores"), because the function itself keeps nothing between
// invocations. Creating a profile is an exclusive claim (Store.Create), and a failure never carries
// a secret: only the profile's name and the store's kind.
package credentials

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"github.com/stellar/go-stellar-sdk/keypair"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/redact"
	"github.com/mindvault/mcp-endpoint/internal/redact/lazyre"
)

// Profile is one named identity.
type Profile struct {
	Name      string `json:"-"`
	SecretKey string `json:"secretKey,omitempty"`
	APIKey    string `json:"apiKey,omitempty"`
}

// Address derives the wallet's public G-address from its secret seed.
func (p Profile) Address() (string, error) {
	if p.SecretKey == "" {
		return "", fmt.Errorf("profile %q has no wallet", p.Name)
	}
	kp, err := keypair.ParseFull(p.SecretKey)
	if err != nil {
		return "", fmt.Errorf("profile %q holds an invalid wallet secret", p.Name)
	}
	return kp.Address(), nil
}

// Format prints the profile with its secrets as [REDACTED] for every verb, and LogValue logs it
// so; its JSON, what the stores write, keeps the values (no answer encodes a Profile).
func (p Profile) Format(f fmt.State, _ rune) {
	fmt.Fprintf(f, "{Name:%s SecretKey:%s APIKey:%s}", p.Name, redact.NewSecret(p.SecretKey), redact.NewSecret(p.APIKey))
}

// LogValue logs the profile's name and whether it holds each secret.
func (p Profile) LogValue() slog.Value {
	return slog.GroupValue(slog.String("name", p.Name), slog.Bool("wallet", p.SecretKey != ""), slog.Bool("apiKey", p.APIKey != ""))
}

// encode is the profile as the stores keep it; a Profile is strings only, so it always encodes.
func (p Profile) encode() []byte {
	b, _ := json.Marshal(p)
	return b
}

// Secrets lists the profile's secret values, for exact redaction.
func (p Profile) Secrets() []string {
	return slices.DeleteFunc([]string{p.SecretKey, p.APIKey}, func(s string) bool { return s == "" })
}

// Store is a credential store.
type Store interface {
	// Kind is "env", "dir" or "secretsmanager" (never a path or prefix).
	Kind() string
	// Get loads a profile; a missing one is a CREDENTIALS_MISSING failure.
	Get(ctx context.Context, name string) (Profile, error)
	// List returns the profile names, sorted.
	List(ctx context.Context) ([]string, error)
	// Create stores a new profile; an existing name is PROFILE_EXISTS. It is exclusive in
	// every writable store, so it is a claim: a caller that must do something irreversible for
	// a new profile (mindvault_setup_wallet creating an account) creates the profile first,
	// with its secret, and only the winner goes on.
	Create(ctx context.Context, p Profile) error
	// Update replaces an existing profile.
	Update(ctx context.Context, p Profile) error
	// ReadOnly reports a store that cannot create or update profiles.
	ReadOnly() bool
}

// Fresh reads a profile as the store holds it now, past any cache of this process: for a
// decision another instance's write may have changed (a publisher key stored meanwhile).
func Fresh(ctx context.Context, s Store, name string) (Profile, error) {
	if f, ok := s.(interface {
		fresh(context.Context, string) (Profile, error)
	}); ok {
		return f.fresh(ctx, name)
	}
	return s.Get(ctx, name)
}

var profileName = lazyre.New(`^[A-Za-z0-9._-]{1,64}$`)

// ValidName reports a profile name that is safe as a file name and a secret name, by the rule
// argument validation applies: a letter or digit among its characters ("." and ".." are never a profile).
func ValidName(name string) bool {
	return profileName.MatchString(name) && strings.Trim(name, "._-") != ""
}

// Discarder is a store that can withdraw a profile it created, and only that one: the way back
// from a claim whose remote step was refused. Secrets Manager has none (DeleteSecret is not
// conditional and a deleted name stays reserved), so there a refused claim stays and the tool says so.
type Discarder interface {
	// Discard removes profile p.Name if it still holds exactly p (nothing updated it since it
	// was created) and reports whether it did; a profile that changed is left in place.
	Discard(ctx context.Context, p Profile) (bool, error)
}

// Open builds the store named by MINDVAULT_CREDENTIALS; a Secrets Manager store reads its AWS
// configuration through load (nil: EnvAWSConfig; local builds pass the SDK's shared-config loader).
func Open(spec string, getenv func(string) string, defaultProfile string, load AWSConfigLoader) (Store, error) {
	switch {
	case spec == "" || spec == "env":
		return NewEnv(getenv, defaultProfile), nil
	case strings.HasPrefix(spec, "dir:"):
		return NewDir(strings.TrimPrefix(spec, "dir:"))
	case strings.HasPrefix(spec, "secretsmanager:"):
		s, err := NewSecretsManager(context.Background(), strings.TrimPrefix(spec, "secretsmanager:"), load)
		if err != nil {
			return nil, err // not a typed nil inside the interface
		}
		return s, nil
	}
	if len(spec) > 64 { // the operator's own value, but it may be long
		spec = spec[:64] + "…"
	}
	return nil, fmt.Errorf("credential store %q is not one this endpoint knows: use env, dir:<folder> (e.g. dir:$HOME/.config/mindvault) or secretsmanager:<name prefix>", spec)
}

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

// fail builds a credential-store failure; next is the Next line only the store can write ("" for none).
func fail(code string, cat errmap.Category, detail, next string) *errmap.Error {
	return &errmap.Error{
		Err:   fmt.Errorf("credentials: %s", detail),
		Facts: errmap.Facts{Source: errmap.SourceCredentials, Code: code, Category: cat, Detail: detail, Next: next},
	}
}

// Missing is the failure of a profile that does not exist or lacks what the tool needs.
func Missing(store Store, name, what string) *errmap.Error {
	return fail("CREDENTIALS_MISSING", errmap.CategoryAuth,
		fmt.Sprintf("profile %q has no %s in the %s credential store", name, what, store.Kind()), "")
}

// NotAllowed is the failure of a caller whose access token is not bound to the profile.
func NotAllowed(name string) *errmap.Error {
	return fail("PROFILE_NOT_ALLOWED", errmap.CategoryAuth, fmt.Sprintf("this access token may not use profile %q", name),
		"Use a profile your access token is bound to (mindvault_list_profiles shows them), or ask the operator to bind this one.")
}

// Exists is the failure of creating a profile that already exists.
func Exists(store Store, name string) *errmap.Error {
	return fail("PROFILE_EXISTS", errmap.CategoryConflict,
		fmt.Sprintf("profile %q already exists in the %s credential store", name, store.Kind()), "")
}

// ReadOnlyStore is the failure of writing to a store that cannot be written.
func ReadOnlyStore(store Store) *errmap.Error {
	return fail("READ_ONLY_STORE", errmap.CategoryAuth,
		fmt.Sprintf("the %s credential store is read-only; configure MINDVAULT_CREDENTIALS=dir:<path> or secretsmanager:<prefix> to create profiles", store.Kind()), "")
}

// StoreFailure is an I/O failure of the store itself.
func StoreFailure(store Store, op string, err error) *errmap.Error {
	detail := fmt.Sprintf("the %s credential store could not %s", store.Kind(), op)
	return &errmap.Error{Err: err, Facts: errmap.Facts{Source: errmap.SourceCredentials, Code: "UNKNOWN", Category: errmap.CategoryUnknown, Detail: detail}}
}

// IsExists reports the failure of creating a profile that already exists.
func IsExists(err error) bool {
	f, ok := errmap.FactsOf(err)
	return ok && f.Code == "PROFILE_EXISTS"
}

// loaded makes a profile's secrets known to package redact before anyone gets the profile; when
// the bounded registry cannot take them the profile is not handed out at all.
func loaded(store Store, p Profile) (Profile, error) {
	if err := redact.Register(p.Secrets()...); err != nil {
		return Profile{}, StoreFailure(store, fmt.Sprintf("load profile %q (its secrets cannot be made redactable)", p.Name), err)
	}
	return p, nil
}
