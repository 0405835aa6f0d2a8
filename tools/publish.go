package tools

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/mindvault/mcp-endpoint/clients/mindvault"
	"github.com/mindvault/mcp-endpoint/clients/transport"
	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/requests"
)

// parallel runs independent downstream calls at once and waits for all of them.
func parallel(fns ...func()) {
	var wg sync.WaitGroup
	for _, fn := range fns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			fn()
		}()
	}
	wg.Wait()
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
	Settled            bool          `json:"settled"`
	TimedOut           bool          `json:"timedOut"`
	Attempts           int           `json:"attempts"`
	Message            string        `json:"message"`
}

// PollInterval is the pause between publish-status polls.
const PollInterval = 2 * time.Second

// PublishStatus is mindvault_publish_status.
func PublishStatus(d *Deps) *Tool {
	return Define(Spec[requests.PublishStatus, PublishStatusOutput]{
		Name:  "mindvault_publish_status",
		Title: "Publish status",
		Description: "Reports a published resource's verification status, listing and on-chain registration. Free. With " +
			"waitSeconds it polls every 2 s until verification settles or the time is up. Call it after mindvault_publish.",
		Operation: "Publish status failed",
		Source:    errmap.SourceAPI,
		Hints:     Hints{ReadOnly: true, Idempotent: true, OpenWorld: true},
		Run: func(ctx context.Context, req *requests.PublishStatus) (*PublishStatusOutput, error) {
			until := time.Now().Add(time.Duration(req.WaitSeconds) * time.Second)
			if dl, ok := ctx.Deadline(); ok && dl.Add(-transport.Margin-PollInterval).Before(until) {
				until = dl.Add(-transport.Margin - PollInterval)
			}
			for attempt := 1; ; attempt++ {
				out, err := publishStatusOnce(ctx, d, req.ResourceID)
				if err != nil {
					return nil, err
				}
				out.Attempts = attempt
				if out.Settled || req.WaitSeconds == 0 || !time.Now().Add(PollInterval).Before(until) {
					out.TimedOut = !out.Settled && req.WaitSeconds > 0
					out.Message = publishMessage(out)
					return out, nil
				}
				select {
				case <-ctx.Done():
					out.TimedOut = true
					out.Message = publishMessage(out)
					return out, nil
				case <-time.After(PollInterval):
				}
			}
		},
	})
}

func publishStatusOnce(ctx context.Context, d *Deps, id string) (*PublishStatusOutput, error) {
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
		return nil, mErr
	}
	// A resource without a verification record yet is still pending, not a failure.
	if vErr != nil && !isStatus(vErr, http.StatusNotFound) {
		return nil, vErr
	}
	out := &PublishStatusOutput{
		ResourceID: id, VerificationStatus: meta.VerificationStatus,
		OnchainStatus: meta.OnchainStatus, OnchainTxHash: meta.OnchainTxHash,
	}
	if meta.Listed != nil {
		out.Listed = *meta.Listed
	}
	if ver != nil {
		if ver.Status != "" {
			out.VerificationStatus = ver.Status
		}
		if ver.Listed != nil {
			out.Listed = *ver.Listed
		}
		if v := ver.Verification; v != nil {
			out.Verification = &Verification{IsOriginal: v.IsOriginal, Confidence: v.Confidence, Flags: nonNil(v.Flags)}
		}
	}
	if out.VerificationStatus == "" {
		out.VerificationStatus = "pending"
	}
	if out.OnchainStatus == "" {
		out.OnchainStatus = "none"
	}
	switch out.VerificationStatus {
	case "verified", "rejected", "skipped":
		out.Settled = true
	}
	return out, nil
}

func publishMessage(o *PublishStatusOutput) string {
	switch {
	case o.TimedOut:
		return "Verification has not settled yet; call mindvault_publish_status again with a larger waitSeconds."
	case o.VerificationStatus == "pending":
		return "Verification is pending; call again with waitSeconds (up to 60) to wait for it."
	case o.VerificationStatus == "rejected":
		return "Verification rejected the resource; it is not listed. See verification.flags."
	case o.VerificationStatus == "verified" && o.OnchainStatus == "registered":
		return "Verified, listed and registered on-chain; buyers can find it with mindvault_browse."
	case o.VerificationStatus == "verified" && o.OnchainStatus == "failed":
		return "Verified and listed, but on-chain registration failed; retry with mindvault_register_onchain."
	case o.VerificationStatus == "verified":
		return "Verified and listed; on-chain registration is " + o.OnchainStatus + ". Check again later or run mindvault_register_onchain."
	}
	return "Verification status: " + o.VerificationStatus + "."
}

// isStatus reports a downstream failure with the given HTTP status.
func isStatus(err error, status int) bool {
	var e *errmap.Error
	return errors.As(err, &e) && e.Facts.Status == status
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// AgentStatusOutput is the result of mindvault_agent_status.
type AgentStatusOutput struct {
	Name                 string  `json:"name"`
	WalletAddress        string  `json:"walletAddress"`
	Network              string  `json:"network"`
	Status               string  `json:"status"`
	PricePerVerification string  `json:"pricePerVerification" jsonschema_description:"verification fee in USDC"`
	Currency             string  `json:"currency"`
	TotalVerifications   int     `json:"totalVerifications"`
	Verified             int     `json:"verified"`
	Rejected             int     `json:"rejected"`
	AvgConfidence        float64 `json:"avgConfidence"`
}

// AgentStatus is mindvault_agent_status.
func AgentStatus(d *Deps) *Tool {
	return Define(Spec[requests.AgentStatus, AgentStatusOutput]{
		Name:  "mindvault_agent_status",
		Title: "Verification agent status",
		Description: "Shows the MindVault verification agent's fee per verification (paid in USDC when publishing), its " +
			"network, status and statistics. Free. Check the fee before mindvault_publish.",
		Operation: "Agent status failed",
		Source:    errmap.SourceAPI,
		Hints:     Hints{ReadOnly: true, Idempotent: true, OpenWorld: true},
		Run: func(ctx context.Context, _ *requests.AgentStatus) (*AgentStatusOutput, error) {
			a, err := d.API.AgentStatus(ctx)
			if err != nil {
				return nil, err
			}
			return &AgentStatusOutput{
				Name: a.Agent.Name, WalletAddress: a.Agent.WalletAddress, Network: a.Agent.Network,
				Status: a.Agent.Status, PricePerVerification: string(a.Agent.PricePerVerification),
				Currency: a.Agent.Currency, TotalVerifications: a.Stats.TotalVerifications,
				Verified: a.Stats.Verified, Rejected: a.Stats.Rejected, AvgConfidence: a.Stats.AvgConfidence,
			}, nil
		},
	})
}
