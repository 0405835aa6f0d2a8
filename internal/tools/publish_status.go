package tools

import (
	"cmp"
	"context"
	"net/http"
	"time"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/clients/mindvault"
	"github.com/mindvault/mcp-endpoint/internal/clients/transport"
	"github.com/mindvault/mcp-endpoint/internal/config"
)

// PublishStatusInput is mindvault_publish_status.
type PublishStatusInput struct {
	ResourceID  string `json:"resourceId" validate:"required,resourceid" jsonschema_description:"Id returned by mindvault_publish."`
	WaitSeconds int    `json:"waitSeconds,omitempty" validate:"min=0,max=60" jsonschema:"default=0" jsonschema_description:"Poll every 2 s for up to this many seconds until verification settles (0 = answer at once)."`
}

// Verification is the AI verification outcome of a resource.
type Verification struct {
	IsOriginal bool     `json:"isOriginal"`
	Confidence float64  `json:"confidence"`
	Flags      []string `json:"flags"`
}

// PublishStatusOutput is the result of mindvault_publish_status.
type PublishStatusOutput struct {
	ResourceID         string        `json:"resourceId"`
	VerificationStatus string        `json:"verificationStatus"`
	Listed             bool          `json:"listed"`
	OnchainStatus      string        `json:"onchainStatus"`
	OnchainTxHash      string        `json:"onchainTxHash,omitempty"`
	Verification       *Verification `json:"verification,omitempty"`
	WaitingFor         string        `json:"waitingFor" jsonschema:"enum=fee,enum=verification,enum=registration,enum=nothing" jsonschema_description:"fee: created but its verification fee was never paid, so verification has not started (resume with mindvault_publish and resourceId); verification: a verdict is still being recorded; registration: verified, not registered on chain yet; nothing: no step is left"`
	Settled            bool          `json:"settled" jsonschema_description:"verification has a final status (verified, rejected or skipped)"`
	TimedOut           bool          `json:"timedOut" jsonschema_description:"waitSeconds ran out before verification settled"`
	Attempts           int           `json:"attempts"`
	NextAction         *ResumeCall   `json:"nextAction,omitempty" jsonschema_description:"the call that runs the missing steps, when one can"`
	Message            string        `json:"message"`
}

// PollInterval is the pause between publish-status polls.
const PollInterval = 2 * time.Second

// publishStatus is mindvault_publish_status.
var publishStatus = Spec[PublishStatusInput, PublishStatusOutput]{
	Name:      "mindvault_publish_status",
	Toolset:   config.ToolsetPublishing,
	Title:     "Publish status",
	Operation: "Publish status failed",
	Description: `Reports a published resource's verification status, listing and on-chain registration, and
		what it is waiting for: its verification fee (then waiting does not help: resume with
		mindvault_publish and resourceId), verification, or on-chain registration. Free. With
		waitSeconds it polls every 2 s until verification settles or the time is up. Call it after
		mindvault_publish.`,
	Kind: lookup(errmap.SourceAPI),
	Guide: errmap.Guide{
		Categories: map[errmap.Category]string{
			errmap.CategoryNotFound: "Confirm the id of your resource with mindvault_browse or mindvault_search, then call mindvault_publish_status with it.",
		},
	},
	Run: func(ctx context.Context, c *Call, req *PublishStatusInput) (*PublishStatusOutput, error) {
		until := time.Now().Add(time.Duration(req.WaitSeconds) * time.Second)
		if dl, ok := ctx.Deadline(); ok && dl.Add(-transport.Margin-PollInterval).Before(until) {
			until = dl.Add(-transport.Margin - PollInterval)
		}
		for attempt := 1; ; attempt++ {
			out, _, err := readPublishState(ctx, c.Deps, req.ResourceID)
			if err != nil {
				return nil, err
			}
			out.Attempts = attempt
			// A resource waiting for its fee cannot settle by waiting: say so at once.
			done := out.Settled || out.WaitingFor == waitingFee || req.WaitSeconds == 0
			if !done && time.Now().Add(PollInterval).Before(until) {
				select {
				case <-ctx.Done():
				case <-time.After(PollInterval):
					continue
				}
			}
			out.TimedOut = !done
			out.Message = publishMessage(out)
			return out, nil
		}
	},
}

// What a resource waits for (PublishStatusOutput.WaitingFor).
const (
	waitingFee          = "fee"
	waitingVerification = "verification"
	waitingRegistration = "registration"
	waitingNothing      = "nothing"
)

// readPublishState reads a resource's meta and verification record in parallel and says
// what it waits for: the API records the verdict inside the paid verification call, so a
// pending resource without one waits for its fee.
func readPublishState(ctx context.Context, d *Deps, id string) (*PublishStatusOutput, *mindvault.Meta, error) {
	var (
		meta       *mindvault.Meta
		ver        *mindvault.Verification
		mErr, vErr error
	)
	parallel(
		func() { meta, mErr = d.API.Meta(ctx, id) },
		func() { ver, vErr = d.API.Verification(ctx, id) },
	)
	if mErr != nil {
		return nil, nil, mErr
	}
	// A resource without a verification record yet is still pending, not a failure.
	if vErr != nil && !isStatus(vErr, http.StatusNotFound) {
		return nil, nil, vErr
	}
	st := &PublishStatusOutput{ResourceID: meta.ID, VerificationStatus: meta.VerificationStatus,
		OnchainStatus: cmp.Or(meta.OnchainStatus, "none"), OnchainTxHash: meta.OnchainTxHash}
	if meta.Listed != nil {
		st.Listed = *meta.Listed
	}
	if ver != nil {
		st.VerificationStatus = cmp.Or(ver.Status, st.VerificationStatus)
		if ver.Listed != nil {
			st.Listed = *ver.Listed
		}
		if v := ver.Verification; v != nil {
			st.Verification = &Verification{IsOriginal: v.IsOriginal, Confidence: v.Confidence, Flags: nonNil(v.Flags)}
		}
	}
	v := cmp.Or(st.VerificationStatus, "pending")
	st.VerificationStatus = v
	st.Settled = v == "verified" || v == "rejected" || v == "skipped"
	switch {
	case v == "pending" && st.Verification == nil:
		st.WaitingFor = waitingFee
	case v == "pending":
		st.WaitingFor = waitingVerification
	case v == "verified" && st.OnchainStatus != "registered":
		st.WaitingFor = waitingRegistration
	default:
		st.WaitingFor = waitingNothing
	}
	if st.WaitingFor == waitingFee || st.registerable() {
		st.NextAction = &ResumeCall{Tool: "mindvault_publish", Arguments: ResumeArgs{ResourceID: meta.ID}}
	}
	return st, meta, nil
}

// registerable: verified, not registered, and no registration under way.
func (o *PublishStatusOutput) registerable() bool {
	return o.WaitingFor == waitingRegistration && o.OnchainStatus != "pending"
}

func publishMessage(o *PublishStatusOutput) string {
	id := o.ResourceID
	resume := `mindvault_publish {"resourceId":"` + id + `"}`
	switch {
	case o.WaitingFor == waitingFee:
		return "Waiting for the verification fee, not for verification: resource " + id + " was created but no fee has been paid for it, " +
			"so verification has not started and waiting will not change that. Pay it and finish with " + resume +
			" (add profile when it is not the default; run it with dryRun first to check the wallet). If a fee payment for it " +
			"was sent with an unknown outcome, wait until that payment expires first."
	case o.TimedOut:
		return "Verification has not settled yet; call mindvault_publish_status again with a larger waitSeconds."
	case o.VerificationStatus == "pending":
		return "Verification is pending (a verdict is being recorded); call mindvault_publish_status with waitSeconds (up to 60) to wait for it."
	case o.VerificationStatus == "rejected":
		return "Verification rejected the resource; it is not listed. See verification.flags."
	case o.VerificationStatus == "verified" && o.OnchainStatus == "registered":
		return "Verified, listed and registered on-chain; buyers can find it with mindvault_browse."
	case o.VerificationStatus == "verified" && o.OnchainStatus == "pending":
		return "Verified and listed; its on-chain registration is under way. Check again later with mindvault_publish_status."
	case o.VerificationStatus == "verified":
		return "Verified and listed, but not registered on chain (onchainStatus " + o.OnchainStatus + "); finish with " + resume +
			" (registers only, nothing is paid) or mindvault_register_onchain."
	}
	return "Verification status: " + o.VerificationStatus + "; nothing is left to do."
}
