// Package requests holds the argument shapes several tools share and the interfaces through
// which the tool layer reads a request's policy arguments; a struct's tags are the single
// source of truth of each argument (docs/tools.md "Shared argument shapes").
package requests

import (
	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/validate"
)

// Argument groups: arguments several requests share with the same name, rule and
// description, declared once and embedded.

// Confirm is the mainnet confirmation a state-changing request carries; the tool's declared
// mainnet policy reads it through MainnetConfirmer.
type Confirm struct {
	ConfirmMainnet bool `json:"confirmMainnet,omitempty" jsonschema_description:"Must be true on mainnet (real funds) unless the operator set MINDVAULT_ALLOW_MAINNET."`
}

// MainnetConfirmed implements MainnetConfirmer.
func (c *Confirm) MainnetConfirmed() bool { return c.ConfirmMainnet }

// OnchainResource opens every vault-registry write: the resource it changes, whose id must
// be one the contract can hold.
type OnchainResource struct {
	ResourceID string `json:"resourceId" validate:"required,resourceid" jsonschema_description:"On-chain resource id (1-24 lowercase letters and digits)."`
}

// CrossCheck rejects ids that cannot exist on chain (the contract would answer #11) before anything is sent.
func (r *OnchainResource) CrossCheck() []errmap.Issue {
	if validate.OnchainID(r.ResourceID) {
		return nil
	}
	return []errmap.Issue{{Path: "/resourceId", Rule: "onchainid", Expected: "1-24 lowercase letters and digits",
		Message: "must be 1-24 lowercase letters and digits to exist on chain"}}
}

// Resource implements RegistryWrite.
func (r *OnchainResource) Resource() string { return r.ResourceID }

// Creator closes every vault-registry write: the profile whose wallet, the resource's
// creator, signs it, and the mainnet confirmation.
type Creator struct {
	Profile *string `json:"profile,omitempty" validate:"omitnil,profile" jsonschema_description:"Credential profile whose wallet is the resource's creator (default: the configured default profile)."`
	Confirm
}

// ActingProfile implements Acting.
func (c *Creator) ActingProfile() *string { return c.Profile }

// MainnetConfirmer is a request that carries confirmMainnet: the tool that takes it declares
// a mainnet policy, which reads the confirmation here.
type MainnetConfirmer interface{ MainnetConfirmed() bool }

// DryRunner is a request that carries dryRun: the tool that takes it declares what a dry
// run does to its policies.
type DryRunner interface{ DryRunRequested() bool }

// RegistryWrite is what every vault-registry write request names besides its new value: the
// resource and the profile that signs.
type RegistryWrite interface {
	Resource() string
	Acting
}

// Acting is a state-changing request that names the credential profile it acts for; nil is
// the configured default. A confirmation binds that profile without re-encoding the request.
type Acting interface{ ActingProfile() *string }
