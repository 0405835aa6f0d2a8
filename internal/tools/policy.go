package tools

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/config"
	"github.com/mindvault/mcp-endpoint/internal/confirm"
	"github.com/mindvault/mcp-endpoint/requests"
)

// Policy is declared, not called: a tool's Spec says which policies its calls are under and
// Define enforces them, the way it enforces validation. A call runs in this order:
//
//  1. the arguments are decoded and validated into the request (package validate);
//  2. the declared mainnet confirmation (Spec.Mainnet, read with Spec.DryRun);
//  3. Spec.Guards, in order;
//  4. Run.
//
// A policy or guard that refuses returns its failure as Run would (through errmap, with the
// tool's operation and source) and Run never starts, so nothing is sent. A Guard sees the
// call's context and the decoded request (its dry run included, through requests.DryRunner)
// after the cheap checks, before anything is read or sent.
//
// ConfirmRequired also puts the call under the user's own confirmation on the modern era
// (confirm.go): Define verifies a repeated call's requestState before step 2, and the user's
// confirmation, asked for or given, stands in for confirmMainnet at step 2. It cannot be a
// Guard, because the user must see what the call would pay or send, which only Run learns.

// Mainnet declares a tool's mainnet confirmation.
type Mainnet int

const (
	// NoMainnetPolicy is the zero value, for read-only tools: they change nothing anywhere.
	NoMainnetPolicy Mainnet = iota
	// ConfirmRequired is for every tool that changes state: on mainnet (real funds), unless
	// the operator set MINDVAULT_ALLOW_MAINNET, a call without confirmMainnet: true is refused
	// with MAINNET_NOT_CONFIRMED before Run. Its request must implement
	// requests.MainnetConfirmer.
	ConfirmRequired
)

// DryRun declares what a request's dryRun does to the declared mainnet confirmation.
type DryRun int

const (
	// NoDryRun is the zero value: the request has no dryRun.
	NoDryRun DryRun = iota
	// DryRunChecked: a dry run needs the confirmation too, because its answer is that the
	// real call would pass every check (publish).
	DryRunChecked
	// DryRunExempt: a dry run signs and sends nothing, so it needs no confirmation (buy).
	DryRunExempt
)

// Guard checks a call after validation and the declared policies, before Run; an error
// refuses the call.
type Guard[Req any] func(ctx context.Context, req *Req) error

// policy is what a tool declared, kept so the registry-wide tests can read it.
type policy struct {
	mainnet Mainnet
	dryRun  DryRun
}

// checkPolicy checks a spec's declared policies against its request: args are the request's
// arguments, confirmer and dryRunner whether it implements requests.MainnetConfirmer and
// requests.DryRunner. A declaration that does not fit the request is an error: a request that
// takes confirmMainnet or dryRun must be under a policy that reads it, and a policy must have
// what it reads. Define then runs the declared policy before the spec's own Guards.
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

// mainnetConfirmation is the ConfirmRequired policy, run before the spec's Guards. It reads the
// configuration at call time, so an operator's or a test's change to it applies to the next
// call. req implements requests.MainnetConfirmer (checkPolicy made sure).
func mainnetConfirmation(g *confirm.Confirmation, c *config.Config, dry DryRun, req any) error {
	if dry == DryRunExempt && req.(requests.DryRunner).DryRunRequested() {
		return nil
	}
	// The user's own confirmation, asked for or given (confirm.go), stands in for the
	// agent's confirmMainnet.
	if g.StandsInForMainnet() {
		return nil
	}
	return mainnetUnconfirmed(c, req.(requests.MainnetConfirmer).MainnetConfirmed())
}

// mainnetUnconfirmed is the refusal of a state-changing call on mainnet without confirmation.
func mainnetUnconfirmed(c *config.Config, confirmed bool) error {
	if c.Network != config.Mainnet || c.AllowMainnet || confirmed {
		return nil
	}
	return &errmap.Error{Err: fmt.Errorf("mainnet not confirmed"), Facts: errmap.Facts{
		Source: errmap.SourceRequest, Code: errmap.CodeMainnetNotConfirmed,
		Detail: "this call changes state on Stellar mainnet (real funds); nothing was sent",
		Next:   "Call again with confirmMainnet: true if you intend to act on mainnet.",
	}}
}
