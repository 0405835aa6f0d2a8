package tools

import (
	"errors"
	"slices"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/config"
	"github.com/mindvault/mcp-endpoint/internal/confirm"
	"github.com/mindvault/mcp-endpoint/requests"
)

// Policy is declared, not called: a tool's Spec says which policies its calls are under and
// Define enforces them after validation and before Run, so a refusal sends nothing.
// ConfirmRequired also puts the call under the user's own confirmation (confirm.go), which
// stands in for confirmMainnet.

// Mainnet declares a tool's mainnet confirmation.
type Mainnet int

const (
	// NoMainnetPolicy is the zero value, for read-only tools: they change nothing anywhere.
	NoMainnetPolicy Mainnet = iota
	// ConfirmRequired is for every tool that changes state: on mainnet, unless the operator
	// set MINDVAULT_ALLOW_MAINNET, a call without confirmMainnet: true is refused before Run.
	ConfirmRequired
)

// DryRun declares what a request's dryRun does to the declared mainnet confirmation.
type DryRun int

const (
	// NoDryRun is the zero value: the request has no dryRun.
	NoDryRun DryRun = iota
	// DryRunChecked: a dry run needs the confirmation too: it says the real call would pass.
	DryRunChecked
	// DryRunExempt: a dry run signs and sends nothing, so it needs no confirmation (buy).
	DryRunExempt
)

// checkPolicy refuses a declaration that does not fit the request: a request that takes
// confirmMainnet or dryRun must be under a policy that reads it, and a policy must have what it reads.
func checkPolicy(mainnet Mainnet, dry DryRun, cfg *config.Config, args []string, confirmer, dryRunner bool) error {
	confirms, dryRuns := slices.Contains(args, "confirmMainnet"), slices.Contains(args, "dryRun")
	switch {
	case mainnet == ConfirmRequired && !(confirms && confirmer):
		return errors.New("declares ConfirmRequired, but its request does not take confirmMainnet through requests.MainnetConfirmer")
	case mainnet == ConfirmRequired && cfg == nil:
		return errors.New("declares ConfirmRequired without the Config it reads")
	case mainnet == NoMainnetPolicy && confirms:
		return errors.New("its request takes confirmMainnet, but the tool declares no mainnet policy")
	case dry != NoDryRun && !(dryRuns && dryRunner):
		return errors.New("declares a DryRun policy, but its request does not take dryRun through requests.DryRunner")
	case dry == NoDryRun && dryRuns:
		return errors.New("its request takes dryRun: declare what a dry run does to the mainnet confirmation (DryRun)")
	case dry != NoDryRun && mainnet == NoMainnetPolicy:
		return errors.New("declares a DryRun policy without a mainnet policy for it to apply to")
	}
	return nil
}

// mainnetConfirmation is the ConfirmRequired policy, reading the configuration at call time: it
// refuses a state-changing call on mainnet without confirmation.
func mainnetConfirmation(g *confirm.Confirmation, c *config.Config, dry DryRun, req any) error {
	if dry == DryRunExempt && req.(requests.DryRunner).DryRunRequested() || g.StandsInForMainnet() ||
		c.Network != config.Mainnet || c.AllowMainnet || req.(requests.MainnetConfirmer).MainnetConfirmed() {
		return nil
	}
	return failure(errmap.Facts{Source: errmap.SourceRequest, Code: errmap.CodeMainnetNotConfirmed,
		Detail: "this call changes state on Stellar mainnet (real funds); nothing was sent",
		Next:   "Call again with confirmMainnet: true if you intend to act on mainnet."})
}
