package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/stellar/go-stellar-sdk/keypair"

	"github.com/mindvault/mcp-endpoint/clients/mindvault"
	"github.com/mindvault/mcp-endpoint/clients/soroban"
	"github.com/mindvault/mcp-endpoint/clients/transport"
	"github.com/mindvault/mcp-endpoint/clients/x402"
	"github.com/mindvault/mcp-endpoint/credentials"
	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/requests"
)

// Step is one step of a multi-step tool and how it went.
type Step struct {
	Name   string `json:"name"`
	Status string `json:"status" jsonschema:"enum=done,enum=skipped,enum=failed,enum=planned"`
	Detail string `json:"detail,omitempty"`
}

// PublishOutput is the result of mindvault_publish.
type PublishOutput struct {
	ResourceID         string        `json:"resourceId,omitempty"`
	DryRun             bool          `json:"dryRun"`
	VerificationStatus string        `json:"verificationStatus" jsonschema:"enum=planned,enum=verified,enum=rejected"`
	Verification       *Verification `json:"verification,omitempty"`
	OnchainStatus      string        `json:"onchainStatus"`
	TxHash             string        `json:"txHash,omitempty"`
	PaymentTxHash      string        `json:"paymentTxHash,omitempty" jsonschema_description:"the verification fee's settlement transaction, only when PAYMENT-RESPONSE confirmed it"`
	FeePaidUSDC        string        `json:"feePaidUsdc,omitempty" jsonschema_description:"the verification fee paid, only when its settlement was confirmed"`
	FeeSettlement      string        `json:"feeSettlement" jsonschema:"enum=confirmed,enum=unconfirmed,enum=none" jsonschema_description:"confirmed: PAYMENT-RESPONSE proved the fee's settlement; unconfirmed: the fee was sent and verification answered, without that proof; none: no fee was sent"`
	Steps              []Step        `json:"steps"`
	Message            string        `json:"message"`
}

// Publish is mindvault_publish.
func Publish(d *Deps) *Tool {
	return Define(Spec[requests.Publish, PublishOutput]{
		Name:  "mindvault_publish",
		Title: "Publish a resource",
		Description: "Publishes a link resource: creates it in the catalog, pays the AI verification fee in USDC over x402 " +
			"(see mindvault_agent_status; capped by maxFeeUsdc), and registers it on chain when verification approves it. " +
			"Needs a wallet and a publisher API key (mindvault_register). Every step's outcome is reported; a failure after " +
			"creation says what exists and how to resume. Use dryRun first.",
		Operation: "Publish failed",
		Source:    errmap.SourceAPI,
		Hints:     Hints{OpenWorld: true},
		Run: func(ctx context.Context, req *requests.Publish) (*PublishOutput, error) {
			if !req.DryRun {
				if err := MainnetUnconfirmed(d.Config, req.ConfirmMainnet); err != nil {
					return nil, err
				}
			}
			ctx, p, kp, err := d.publisher(ctx, req.Profile)
			if err != nil {
				return nil, err
			}
			capText := d.Config.MaxAutoPayUSDC
			if req.MaxFeeUSDC != nil {
				capText = *req.MaxFeeUSDC
			}
			capUnits, _ := soroban.Units(capText)
			agent, err := d.API.AgentStatus(ctx)
			if err != nil {
				return nil, err
			}
			fee, err := soroban.Units(string(agent.Agent.PricePerVerification))
			if err != nil {
				return nil, d.API.MalformedMeta("the verification fee is not a USDC amount")
			}
			if fee.Cmp(capUnits) > 0 {
				return nil, refusal(errmap.CodePriceAboveCap, fmt.Sprintf("the verification fee %s USDC is above maxFeeUsdc %s", soroban.Decimal(fee), soroban.Decimal(capUnits)),
					"Pass a maxFeeUsdc of at least the fee shown by mindvault_agent_status; nothing was created.")
			}
			out := &PublishOutput{DryRun: req.DryRun, VerificationStatus: "planned", OnchainStatus: "none", FeeSettlement: SettlementNone}
			if req.DryRun {
				out.Steps = []Step{
					{Name: "create", Status: "planned", Detail: "POST " + d.Config.MindVaultURL + "/resources"},
					{Name: "verify", Status: "planned", Detail: fmt.Sprintf("pay %s USDC from %s via x402 on %s", soroban.Decimal(fee), kp.Address(), d.Config.X402Network)},
					{Name: "register", Status: "planned", Detail: "register on chain if verification approves"},
				}
				out.Message = "Dry run: nothing was created or paid."
				return out, nil
			}
			desc := ""
			if req.Description != nil {
				desc = *req.Description
			}
			created, err := d.API.CreateResource(ctx, p.APIKey, mindvaultNewResource(req, desc))
			if err != nil {
				return nil, err
			}
			out.ResourceID = created.ID
			out.Steps = append(out.Steps, Step{Name: "create", Status: "done", Detail: "resource " + created.ID})

			content, _ := json.Marshal(map[string]string{
				"content":    fmt.Sprintf("Title: %s\nDescription: %s\nURL: %s", req.Title, desc, req.ExternalURL),
				"resourceId": created.ID,
			})
			res, err := d.X402.Do(ctx, transport.Request{Method: http.MethodPost, Path: "/verify-content", Body: content, Route: "POST /verify-content (paid)"},
				kp, x402.Policy{Network: d.Config.X402Network, Asset: d.Config.USDCContractID, Cap: capUnits, Previewed: fee})
			if err == nil && !res.Response.OK() {
				err = d.X402.Svc.StatusError(res.Response)
			}
			if err != nil {
				return nil, afterCreation(err, created.ID)
			}
			feeStep := "no fee was asked"
			if res.Paid {
				out.FeeSettlement = SettlementUnconfirmed
				feeStep = "fee " + soroban.Decimal(res.Amount) + " USDC sent; its settlement was not confirmed"
				if res.Confirmed {
					out.FeeSettlement = SettlementConfirmed
					out.FeePaidUSDC, out.PaymentTxHash = soroban.Decimal(res.Amount), res.Settlement.Transaction
					feeStep = "fee " + out.FeePaidUSDC + " USDC"
				}
			}
			v, ok := verificationOf(res.Response.Body)
			if !ok {
				e := d.X402.Svc.Malformed(res.Response, "the verification answer is not an object with isOriginal")
				if res.Paid {
					e.Facts.ExecutionStarted = true
					if res.Confirmed {
						e.Facts.TxHash = res.Settlement.Transaction
					} else {
						e.Facts.PaymentExpiresAt = res.ExpiresAt.UTC().Format(time.RFC3339)
					}
				}
				return nil, afterCreation(e, created.ID)
			}
			out.Verification = v
			out.Steps = append(out.Steps, Step{Name: "verify", Status: "done", Detail: feeStep})
			if !v.IsOriginal {
				out.VerificationStatus = "rejected"
				out.Steps = append(out.Steps, Step{Name: "register", Status: "skipped", Detail: "verification rejected the resource"})
				out.Message = "Verification rejected the resource: it stays unlisted. See verification.flags."
				return out, nil
			}
			out.VerificationStatus = "verified"
			reg, err := d.API.Register(ctx, p.APIKey, created.ID, "")
			if err != nil {
				out.OnchainStatus = "failed"
				out.Steps = append(out.Steps, Step{Name: "register", Status: "failed", Detail: summary(err, "On-chain registration")})
				out.Message = "Published and verified (listed and purchasable); on-chain registration failed: retry with mindvault_register_onchain."
				return out, nil
			}
			out.OnchainStatus, out.TxHash = reg.OnchainStatus, reg.TxHash
			out.Steps = append(out.Steps, Step{Name: "register", Status: "done", Detail: reg.OnchainStatus})
			out.Message = "Published, verified and registered on chain; check it with mindvault_publish_status."
			return out, nil
		},
	})
}

// publisher loads a profile that can publish: a wallet and a publisher API key.
func (d *Deps) publisher(ctx context.Context, profile *string) (context.Context, credentials.Profile, *keypair.Full, error) {
	ctx, p, err := d.profile(ctx, profile)
	if err != nil {
		return ctx, p, nil, err
	}
	if p.APIKey == "" {
		return ctx, p, nil, credentials.Missing(d.Store, p.Name, "publisher API key (run mindvault_register first)")
	}
	ctx, kp, err := d.wallet(ctx, profile)
	return ctx, p, kp, err
}

func mindvaultNewResource(req *requests.Publish, desc string) mindvault.NewResource {
	return mindvault.NewResource{Title: req.Title, Description: desc, Price: req.Price, ExternalURL: req.ExternalURL}
}

// verificationOf decodes the paid verification answer; a body without a boolean
// isOriginal proves no verdict, so it is not read as a rejection.
func verificationOf(body []byte) (*Verification, bool) {
	var raw struct {
		IsOriginal *bool    `json:"isOriginal"`
		Confidence float64  `json:"confidence"`
		Flags      []string `json:"flags"`
	}
	if json.Unmarshal(body, &raw) != nil || raw.IsOriginal == nil {
		return nil, false
	}
	return &Verification{IsOriginal: *raw.IsOriginal, Confidence: raw.Confidence, Flags: nonNil(raw.Flags)}, true
}

// afterCreation reports a failure after the resource exists: state changed, the creation
// (the tool's first write) started the operation, and how to go on.
func afterCreation(err error, id string) error {
	var e *errmap.Error
	if !errors.As(err, &e) {
		return err
	}
	e.Facts.ExecutionStarted = true
	if e.Facts.StateChanged != errmap.StateUnknown {
		e.Facts.StateChanged = errmap.StateYes
	}
	e.Facts.Detail = fmt.Sprintf("resource %s was created but verification did not complete (%s)", id, firstNonEmpty(e.Facts.Detail, "payment failed"))
	e.Facts.Body = nil // the detail above says more than the body's error
	e.Facts.Next = fmt.Sprintf("Resource %s exists unverified; do not publish it again. Fix the cause (mindvault_wallet_info for funds), then check mindvault_publish_status %s.", id, id)
	if e.Facts.PaymentExpiresAt != "" {
		e.Facts.Next += " The verification fee may have been paid: do not pay it again before " + e.Facts.PaymentExpiresAt + "."
	}
	return e
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// RegisterOutput is the result of mindvault_register.
type RegisterOutput struct {
	PublisherID   string `json:"publisherId"`
	Profile       string `json:"profile"`
	WalletAddress string `json:"walletAddress"`
	APIKeyStored  bool   `json:"apiKeyStored"`
}

// Register is mindvault_register.
func Register(d *Deps) *Tool {
	return Define(Spec[requests.Register, RegisterOutput]{
		Name:  "mindvault_register",
		Title: "Register as publisher",
		Description: "Registers the profile's wallet as a MindVault publisher and stores the returned API key in the " +
			"credential profile (never shown). Free. Needed once before mindvault_publish. An email already registered " +
			"is a conflict.",
		Operation: "Register failed",
		Source:    errmap.SourceAPI,
		Hints:     Hints{OpenWorld: true},
		Run: func(ctx context.Context, req *requests.Register) (*RegisterOutput, error) {
			if err := MainnetUnconfirmed(d.Config, req.ConfirmMainnet); err != nil {
				return nil, err
			}
			// The key is shown once: a store that cannot keep it must refuse before asking.
			if d.Store.ReadOnly() {
				return nil, credentials.ReadOnlyStore(d.Store)
			}
			ctx, p, err := d.profile(ctx, req.Profile)
			if err != nil {
				return nil, err
			}
			wallet := deref(req.WalletAddress)
			if wallet == "" {
				if wallet, err = p.Address(); err != nil {
					return nil, credentials.Missing(d.Store, p.Name, "wallet (pass walletAddress or run mindvault_setup_wallet)")
				}
			}
			pub, err := d.API.RegisterPublisher(ctx, req.Name, req.Email, wallet)
			if err != nil {
				return nil, err
			}
			ctx = WithSecrets(ctx, pub.APIKey)
			p.APIKey = pub.APIKey
			if err := d.Store.Update(ctx, p); err != nil {
				var e *errmap.Error
				if errors.As(err, &e) {
					e.Facts.StateChanged = errmap.StateYes
					e.Facts.Detail = "publisher " + pub.ID + " was registered but its API key could not be stored; " + e.Facts.Detail
				}
				return nil, err
			}
			return &RegisterOutput{PublisherID: pub.ID, Profile: p.Name, WalletAddress: wallet, APIKeyStored: true}, nil
		},
	})
}
