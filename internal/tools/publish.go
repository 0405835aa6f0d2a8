package tools

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"time"

	"github.com/stellar/go-stellar-sdk/keypair"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/clients/horizon"
	"github.com/mindvault/mcp-endpoint/internal/clients/mindvault"
	"github.com/mindvault/mcp-endpoint/internal/clients/soroban"
	"github.com/mindvault/mcp-endpoint/internal/clients/transport"
	"github.com/mindvault/mcp-endpoint/internal/clients/x402"
	"github.com/mindvault/mcp-endpoint/internal/config"
	"github.com/mindvault/mcp-endpoint/internal/confirm"
	"github.com/mindvault/mcp-endpoint/internal/ledger"
)

// NewResourceInput describes a new resource (PublishInput.CrossCheck enforces the shapes).
type NewResourceInput struct {
	Title       *string `json:"title,omitempty" validate:"omitnil,min=1,max=256" jsonschema_description:"Title shown in the catalog. Required unless resourceId is given."`
	Description *string `json:"description,omitempty" validate:"omitnil,min=1,max=2048" jsonschema_description:"What buyers get. Not with resourceId."`
	Price       *string `json:"price,omitempty" validate:"omitnil,usdcpos" jsonschema_description:"Price in USDC, a string or a number above 0 with at most 7 decimals, e.g. 1.5 or \"1.5\". Required unless resourceId is given."`
	ExternalURL *string `json:"externalUrl,omitempty" validate:"omitnil,httpurl" jsonschema_description:"The http(s) link buyers receive after paying. Required unless resourceId is given."`
}

// PublishInput is mindvault_publish: a new resource, or resourceId to resume one.
type PublishInput struct {
	NewResourceInput
	ResourceID     *string `json:"resourceId,omitempty" validate:"omitnil,resourceid" jsonschema_description:"Resume a resource you created whose verification fee was never paid or whose on-chain registration failed: only the missing steps run. Instead of title, description, price and externalUrl."`
	MaxFeeUSDC     *string `json:"maxFeeUsdc,omitempty" validate:"omitnil,usdcpos" jsonschema_description:"Most you agree to pay for verification, in USDC: a string or a number with at most 7 decimals (default: MINDVAULT_MAX_AUTO_PAY_USDC)."`
	IdempotencyKey *string `json:"idempotencyKey,omitempty" validate:"omitnil,idemkey" jsonschema_description:"Names this publication so it creates one resource and pays one fee however often it is sent: reuse the same key when you retry the same publication, use a new key for a new one. 8-64 of A-Z a-z 0-9 _ -."`
	DryRun         bool    `json:"dryRun,omitempty" jsonschema_description:"Check everything the real call needs (API key, wallet, USDC for the current fee, maxFeeUsdc, mainnet confirmation) and show the steps; send nothing."`
	Profile        *string `json:"profile,omitempty" validate:"omitnil,profile" jsonschema_description:"Publisher profile (needs a wallet and an API key from mindvault_register)."`
	ConfirmMainnet bool    `json:"confirmMainnet,omitempty" jsonschema_description:"Must be true on mainnet (real funds), for a dry run too, unless the operator set MINDVAULT_ALLOW_MAINNET."`
}

// MainnetConfirmed implements requests.MainnetConfirmer (a dry run needs it too).
func (p *PublishInput) MainnetConfirmed() bool { return p.ConfirmMainnet }

// DryRunRequested implements requests.DryRunner.
func (p *PublishInput) DryRunRequested() bool { return p.DryRun }

// newResourceFields are the arguments that describe a new resource, in the model's order.
var newResourceFields = []string{"title", "description", "price", "externalUrl"}

// CrossCheck enforces the two shapes: title, price and externalUrl, or resourceId alone.
func (p *PublishInput) CrossCheck() []errmap.Issue {
	given := map[string]bool{"title": p.Title != nil, "description": p.Description != nil, "price": p.Price != nil, "externalUrl": p.ExternalURL != nil}
	var issues []errmap.Issue
	for _, f := range newResourceFields {
		switch {
		case p.ResourceID != nil && given[f]:
			issues = append(issues, errmap.Issue{Path: "/" + f, Rule: "excluded_with", Expected: "absent when resourceId is given",
				Message: "must not be combined with resourceId (a resumed resource keeps what it was created with)"})
		case p.ResourceID == nil && !given[f] && f != "description":
			issues = append(issues, errmap.Issue{Path: "/" + f, Rule: "required_without", Expected: "a value unless resourceId is given",
				Message: "is required unless resourceId is given"})
		}
	}
	return issues
}

// DependentRequired is the part of the cross-field rule JSON Schema says as dependentRequired.
func (PublishInput) DependentRequired() map[string][]string {
	return map[string][]string{
		"title":       {"price", "externalUrl"},
		"price":       {"title", "externalUrl"},
		"externalUrl": {"title", "price"},
	}
}

// ActingProfile implements requests.Acting.
func (r *PublishInput) ActingProfile() *string { return r.Profile }

// Step is one step of a multi-step tool and how it went.
type Step struct {
	Name   string `json:"name"`
	Status string `json:"status" jsonschema:"enum=done,enum=skipped,enum=failed,enum=planned"`
	Detail string `json:"detail,omitempty"`
}

// ResumeCall is the tool call that finishes what is left of a publish, every argument known.
type ResumeCall struct {
	Tool      string     `json:"tool"`
	Arguments ResumeArgs `json:"arguments"`
}

// ResumeArgs are a ResumeCall's arguments.
type ResumeArgs struct {
	ResourceID string `json:"resourceId"`
	Profile    string `json:"profile,omitempty"`
}

// PublishOutput is the result of mindvault_publish.
type PublishOutput struct {
	ResourceID         string        `json:"resourceId,omitempty"`
	DryRun             bool          `json:"dryRun"`
	VerificationStatus string        `json:"verificationStatus" jsonschema_description:"planned (this call did not get a verdict yet), or the API's status: verified, rejected, pending, skipped"`
	Verification       *Verification `json:"verification,omitempty"`
	OnchainStatus      string        `json:"onchainStatus"`
	TxHash             string        `json:"txHash,omitempty"`
	PaymentTxHash      string        `json:"paymentTxHash,omitempty" jsonschema_description:"the verification fee's settlement transaction, only when PAYMENT-RESPONSE confirmed it"`
	FeePaidUSDC        string        `json:"feePaidUsdc,omitempty" jsonschema_description:"the verification fee paid, only when its settlement was confirmed"`
	FeeSettlement      string        `json:"feeSettlement" jsonschema:"enum=confirmed,enum=unconfirmed,enum=none" jsonschema_description:"confirmed: PAYMENT-RESPONSE proved the fee's settlement; unconfirmed: the fee was sent and verification answered, without that proof; none: no fee was sent"`
	FeeUSDC            string        `json:"feeUsdc,omitempty" jsonschema_description:"the current verification fee (GET /agent/status), when this call pays it or plans to"`
	USDCBalance        string        `json:"usdcBalance,omitempty" jsonschema_description:"dry run: the wallet's USDC balance now, already checked against the fee"`
	Steps              []Step        `json:"steps" jsonschema_description:"create, verify (pay the fee, get the verdict), register on chain; skipped = already done or not needed"`
	NextAction         *ResumeCall   `json:"nextAction,omitempty" jsonschema_description:"the call that finishes what is left, when a step failed"`
	Message            string        `json:"message"`
	Budget             *BudgetView   `json:"budget,omitempty" jsonschema_description:"the wallet's daily budget after the verification fee, when one is set"`
	Warnings           []string      `json:"warnings,omitempty"`
	Replay             bool          `json:"replay,omitempty" jsonschema_description:"true when this answer repeats the first outcome of the same idempotencyKey, from the journal: nothing was created or paid now"`
}

// feeAlreadyPaid answers a publish whose fee the journal shows paid: nothing is paid again.
func (r *publishRun) feeAlreadyPaid(id string, e *ledger.Entry) *PublishOutput {
	out := r.out
	detail := "the verification fee was already paid by an earlier call"
	if rc := e.Receipt; rc != nil {
		detail += " (" + receiptPhrase(rc) + ")"
		out.PaymentTxHash = rc.TxHash
	}
	out.Steps = append(out.Steps, Step{Name: "verify", Status: "skipped", Detail: detail + "; nothing was paid now"},
		Step{Name: "register", Status: "skipped", Detail: "waits for the verdict of the paid verification"})
	out.FeeSettlement = SettlementNone
	out.NextAction = &ResumeCall{Tool: "mindvault_publish_status", Arguments: ResumeArgs{ResourceID: id}}
	out.Message = "Resource " + id + "'s verification fee was already paid, so nothing was paid now; check mindvault_publish_status " + id +
		" for the verdict, then register it with mindvault_publish and resourceId " + id + " if it is verified."
	return out
}

// publish is mindvault_publish.
var publish = Spec[PublishInput, PublishOutput]{
	Name:      "mindvault_publish",
	Toolset:   config.ToolsetPublishing,
	Title:     "Publish a resource",
	Operation: "Publish failed",
	Description: `Publishes a link resource: creates it in the catalog, pays the AI verification fee in USDC
		over x402 (see mindvault_agent_status; capped by maxFeeUsdc), and registers it on chain when
		verification approves it. Needs a wallet with USDC for the fee and a publisher API key
		(mindvault_register); both are checked before anything is created. With resourceId instead
		of title, price and externalUrl it resumes a resource you created whose fee was never paid
		or whose registration failed, running only the missing steps. Every step's outcome is
		reported; a failure after creation says what exists and gives the resume call. Use dryRun
		first.`,
	Kind: paying(errmap.SourceAPI),
	Guide: errmap.Guide{
		Codes: map[string]string{
			errmap.CodePriceAboveCap:      "Raise maxFeeUsdc to at least the verification fee (mindvault_agent_status shows it) and call mindvault_publish again.",
			errmap.CodePriceChanged:       "Check the verification fee with mindvault_agent_status, then call mindvault_publish again.",
			errmap.CodeCredentialsMissing: "Give the profile what it lacks (mindvault_setup_wallet creates a wallet, mindvault_register stores a publisher API key), or pass another profile (mindvault_list_profiles shows them), then call mindvault_publish again.",
		},
		Categories: map[errmap.Category]string{
			errmap.CategoryAuth:     "Register the profile as a publisher with mindvault_register, or pass a profile that is one (mindvault_list_profiles shows which), then call mindvault_publish again.",
			errmap.CategoryNotFound: "Confirm the id of your resource with mindvault_browse or mindvault_search, then call mindvault_publish with it.",
			errmap.CategoryConflict: "Call mindvault_publish again with another title or externalUrl, or resume the resource you already created with its resourceId.",
		},
	},
	// A dry run checks the confirmation too: it passes only when the real call would.
	DryRun: DryRunChecked,
	Run: func(ctx context.Context, c *Call, req *PublishInput) (*PublishOutput, error) {
		p, kp, err := c.publisher(ctx, req.Profile)
		if err != nil {
			return nil, err
		}
		r := &publishRun{c: c, req: req, apiKey: p.APIKey, kp: kp, cap: c.capOf(req.MaxFeeUSDC),
			out: &PublishOutput{DryRun: req.DryRun, VerificationStatus: "planned", OnchainStatus: "none", FeeSettlement: SettlementNone}}
		if req.ResourceID != nil {
			return r.resume(ctx, *req.ResourceID)
		}
		// A keyed or approved publish is one publication (docs/once.md "The journal").
		intent := c.callIntent("publish", kp.Address(), "mindvault_publish", req.IdempotencyKey)
		if intent == nil || req.DryRun {
			return r.create(ctx)
		}
		at, err := c.begin(ctx, "mindvault_publish", kp.Address(), intent, fingerprint("mindvault_publish", req))
		if err != nil {
			return nil, err
		}
		if at.prior != nil {
			return publishedBefore(at.prior)
		}
		r.call = at
		out, err := r.create(ctx)
		if err == nil && out != nil {
			at.finish(ctx, ledger.Settled, out)
		} else if !c.asking() {
			at.finish(ctx, ledger.Failed, nil)
		}
		return out, err
	},
}

// publishRun is one mindvault_publish call.
type publishRun struct {
	c      *Call
	req    *PublishInput
	apiKey string
	kp     *keypair.Full
	cap    *big.Int
	out    *PublishOutput
	// resumed: the resource existed before this call (resourceId), so this call did not create it.
	resumed bool
	// agentWallet and balance are what funds read: the fee's payee and the wallet's USDC.
	agentWallet string
	balance     *big.Int
	// listed is the price the registration must carry (the user's, or the resumed listing's).
	listed string
	// call is a keyed publish's own journal entry, claimed before the resource is created.
	call *attempt
}

// publishedBefore answers a keyed publish whose first call finished, from the journal: its
// first answer again, or, for an approval used again, CONFIRMATION_STALE.
func publishedBefore(e *ledger.Entry) (*PublishOutput, error) {
	var out PublishOutput
	answered := json.Unmarshal(e.Result, &out) == nil
	if e.Payment.Kind == "approval" {
		detail, next := "this approval was already carried out", "The approved publication is done; ask the user before publishing again."
		if out.ResourceID != "" {
			detail += ": it published resource " + out.ResourceID
			if out.PaymentTxHash != "" {
				detail += " and paid its verification fee in transaction " + out.PaymentTxHash
			}
			next = "The approved publication is done: check mindvault_publish_status " + out.ResourceID + "; ask the user before publishing again."
		}
		return nil, approvalUsed(detail+"; nothing was created or paid now", next)
	}
	if !answered {
		return nil, inProgress(e)
	}
	out.Replay = true
	out.Message = "Replay: this idempotencyKey's publish already ran; this is its first answer, and nothing was created or paid now. " + out.Message
	return &out, nil
}

// approvalUsed refuses an approval acted on again: what it approved is done.
func approvalUsed(detail, next string) error {
	return failure(errmap.Facts{Source: errmap.SourceRequest, Code: errmap.CodeConfirmationStale,
		Category: errmap.CategoryPayment, Detail: detail, StateChanged: errmap.StateNo, Next: next})
}

// create publishes a new resource, checking the wallet against the fee first (no resource left behind).
func (r *publishRun) create(ctx context.Context) (*PublishOutput, error) {
	req, out := r.req, r.out
	fee, err := r.funds(ctx, "nothing was created")
	if err != nil || fee == nil {
		return nil, err // fee nil: the call asks the user to fund the wallet
	}
	if req.DryRun {
		out.Steps = append([]Step{{Name: "create", Status: "planned", Detail: "POST " + r.c.Config.MindVaultURL + "/resources"}}, r.plannedFee(fee)...)
		out.Message = "Dry run: the API key, the wallet's USDC for the fee and the fee cap all pass; nothing was created or paid."
		return out, nil
	}
	// The fee is why a user confirms a publish: ask before anything exists, with the fee and
	// payee from the agent's status (the paid request checks them again).
	if ok, err := r.c.approvePay(ctx, r.fee(fee, "")); !ok {
		return nil, err
	}
	if r.call != nil {
		if err := r.call.claim(ctx, nil, ""); err != nil {
			return nil, err
		}
	}
	desc := deref(req.Description)
	created, err := r.c.API.CreateResource(ctx, r.apiKey, mindvault.NewResource{
		Title: deref(req.Title), Description: desc, Price: deref(req.Price), ExternalURL: deref(req.ExternalURL),
		IdempotencyKey: creationKey(r.kp.Address(), r.c.confirmation.ApprovalNonce(), req)})
	if err != nil {
		if isCode(err, errmap.CodeConflict) && !isStatus(err, http.StatusConflict) {
			// A resource created earlier under this key with other content: not this publication.
			return nil, errmap.WithNext(err, "Call mindvault_publish again with another idempotencyKey: this one already named the resource the detail gives (resume that one with its resourceId if you meant it); nothing was created or paid.")
		}
		if isCode(err, errmap.CodeConflict) {
			// Another call of this publication is creating it: a repeat answers that resource.
			err = errmap.WithNext(err, "Wait a few seconds, then send this same call again: another call with the same idempotencyKey or approval is creating this resource, and the repeat answers with that resource; nothing is created or paid twice.")
		}
		return nil, err
	}
	out.ResourceID = created.ID
	r.listed = deref(req.Price)
	out.Steps = append(out.Steps, Step{Name: "create", Status: "done", Detail: "resource " + created.ID})
	content := fmt.Sprintf("Title: %s\nDescription: %s\nURL: %s", deref(req.Title), desc, deref(req.ExternalURL))
	return r.verifyAndRegister(ctx, created.ID, content, fee)
}

// resume finishes a resource created earlier, running only the missing steps.
func (r *publishRun) resume(ctx context.Context, id string) (*PublishOutput, error) {
	r.resumed = true
	out := r.out
	st, meta, err := readPublishState(ctx, r.c.Deps, id)
	if err != nil {
		return nil, err
	}
	if err := r.owns(meta); err != nil {
		return nil, err
	}
	out.ResourceID = meta.ID
	r.listed = string(meta.Price)
	out.VerificationStatus, out.OnchainStatus, out.TxHash = st.VerificationStatus, st.OnchainStatus, meta.OnchainTxHash
	out.Verification = st.Verification
	out.Steps = []Step{{Name: "create", Status: "skipped", Detail: "resource " + meta.ID + " exists"}}
	switch st.WaitingFor {
	case waitingFee:
		out.VerificationStatus = "planned"
		fee, err := r.funds(ctx, "nothing was paid")
		if err != nil || fee == nil {
			return nil, r.resumeRefused(err, meta.ID) // fee nil: the call asks the user to fund the wallet
		}
		if r.req.DryRun {
			out.Steps = append(out.Steps, r.plannedFee(fee)...)
			out.Message = "Dry run: resource " + meta.ID + " waits for its verification fee; the wallet can pay it. Nothing was paid."
			return out, nil
		}
		content := fmt.Sprintf("Title: %s\nDescription: %s", meta.Title, meta.Description)
		if meta.ExternalURL != "" {
			content += "\nURL: " + meta.ExternalURL
		}
		return r.verifyAndRegister(ctx, meta.ID, content, fee)
	case waitingRegistration:
		if !st.registerable() {
			break
		}
		out.Steps = append(out.Steps, Step{Name: "verify", Status: "skipped", Detail: "already " + st.VerificationStatus})
		if r.req.DryRun {
			out.Steps = append(out.Steps, Step{Name: "register", Status: "planned", Detail: "POST " + r.c.Config.MindVaultURL + "/resources/" + meta.ID + "/register"})
			out.Message = "Dry run: resource " + meta.ID + " is verified and would be registered on chain; nothing was sent."
			return out, nil
		}
		// The user approves the prepared call itself (registration), once it passed its checks.
		return r.register(ctx, meta.ID, true)
	}
	out.Steps = append(out.Steps,
		Step{Name: "verify", Status: "skipped", Detail: "verification status " + st.VerificationStatus},
		Step{Name: "register", Status: "skipped", Detail: "on-chain status " + st.OnchainStatus})
	out.Message = "Nothing to resume: " + publishMessage(st)
	return out, nil
}

// owns refuses a resource another publisher created: only its publisher may pay for it or register it.
func (r *publishRun) owns(meta *mindvault.Meta) error {
	if meta.PublisherWallet == "" {
		return r.c.API.MalformedMeta("the resource's metadata names no publisher wallet")
	}
	if meta.PublisherWallet == r.kp.Address() {
		return nil
	}
	return failure(errmap.Facts{Source: errmap.SourceAPI, Code: errmap.CodeForbidden,
		Detail: fmt.Sprintf("resource %s was published from wallet %s, not from this profile's wallet %s; nothing was paid", meta.ID, meta.PublisherWallet, r.kp.Address()),
		Next:   "Only its publisher can resume it: call mindvault_publish again with the profile whose wallet published it (mindvault_list_profiles shows each profile's wallet)."})
}

// funds reads the fee and the wallet in parallel and refuses, before anything is created or
// sent, what the payment would be refused for; nothing says what the refusal leaves undone.
// No fee and no error: the call asks the user to fund the wallet.
func (r *publishRun) funds(ctx context.Context, nothing string) (*big.Int, error) {
	var (
		agent      *mindvault.AgentStatus
		acct       *horizon.Account
		found      bool
		aErr, hErr error
	)
	parallel(
		func() { agent, aErr = r.c.API.AgentStatus(ctx) },
		func() { acct, found, hErr = r.c.Horizon.Account(ctx, r.kp.Address()) },
	)
	if aErr != nil {
		return nil, aErr
	}
	fee, err := soroban.Units(string(agent.Agent.PricePerVerification))
	if err != nil {
		return nil, r.c.API.MalformedMeta("the verification fee is not a USDC amount")
	}
	if fee.Cmp(r.cap) > 0 {
		return nil, refusal(errmap.CodePriceAboveCap, fmt.Sprintf("the verification fee %s USDC is above maxFeeUsdc %s", soroban.Decimal(fee), soroban.Decimal(r.cap)),
			"Pass a maxFeeUsdc of at least the fee shown by mindvault_agent_status; "+nothing+".")
	}
	if hErr != nil {
		return nil, hErr
	}
	bal, err := r.c.usdcFor(acct, found, fee)
	if err != nil {
		if isCode(err, errmap.CodeInsufficientUSDC) {
			have := walletState(acct, found, r.c.Config.USDCIssuer).USDC.Balance
			err = errmap.WithDetail(err, fmt.Sprintf("the wallet holds %s USDC, less than the verification fee %s USDC; %s", have, soroban.Decimal(fee), nothing))
		}
		if r.c.askToFund(err) {
			return nil, nil
		}
		return nil, err
	}
	r.out.FeeUSDC = soroban.Decimal(fee)
	r.agentWallet, r.balance = agent.Agent.WalletAddress, bal
	if err := r.c.mayPay(ctx, r.agentWallet); err != nil {
		return nil, err // before anything is created or paid
	}
	if r.req.DryRun {
		r.out.USDCBalance = soroban.Decimal(bal)
	}
	return fee, nil
}

// resumeRefused adds the way back to a refusal before paying a resumed resource's fee.
func (r *publishRun) resumeRefused(err error, id string) error {
	f, ok := errmap.FactsOf(err)
	if !ok {
		return err
	}
	funding := ""
	if f.Advice.FundingURL != "" {
		funding = " at " + f.Advice.FundingURL
	}
	fix := map[string]string{
		errmap.CodeInsufficientUSDC: "Fund the wallet with USDC" + funding + " (mindvault_wallet_info shows its balance).",
		errmap.CodeTrustlineMissing: "Add a USDC trustline to the wallet (mindvault_wallet_info shows its state).",
		errmap.CodeAccountMissing:   "Create or fund the wallet's account (mindvault_wallet_info shows its state).",
		errmap.CodePriceAboveCap:    "Pass a maxFeeUsdc of at least the fee shown by mindvault_agent_status.",
	}[f.Code]
	if fix != "" {
		return errmap.WithNext(err, fix+fmt.Sprintf(" Resource %s still waits for its verification fee; then call mindvault_publish with resourceId %s.", id, id))
	}
	return err
}

// plannedFee is a dry run's verify and register steps.
func (r *publishRun) plannedFee(fee *big.Int) []Step {
	return []Step{{Name: "verify", Status: "planned", Detail: fmt.Sprintf("pay %s USDC from %s via x402 on %s (wallet holds %s)",
		soroban.Decimal(fee), r.kp.Address(), r.c.Config.X402Network, r.out.USDCBalance)},
		{Name: "register", Status: "planned", Detail: "register on chain if verification approves"}}
}

// verifyAndRegister pays the verification fee for id, then registers it when approved.
func (r *publishRun) verifyAndRegister(ctx context.Context, id, content string, fee *big.Int) (*PublishOutput, error) {
	out := r.out
	body, _ := json.Marshal(map[string]string{"content": content, "resourceId": id})
	// One fee per resource, whichever call pays it: the journal holds the fee's intent.
	intent := &x402.Intent{Kind: "fee", Parts: []string{r.kp.Address(), r.c.Config.X402Network, id}}
	at, err := r.c.begin(ctx, "mindvault_publish", r.kp.Address(), intent, "fee")
	if at != nil && at.seen && !r.resumed {
		// An earlier call paid this resource's fee and created it (same Idempotency-Key).
		r.resumed = true
		// A new resource's steps are its create step alone here.
		out.Steps = []Step{{Name: "create", Status: "skipped", Detail: "resource " + id + " already existed: an earlier call with the same idempotencyKey or approval created it"}}
	}
	if err != nil {
		return nil, r.afterCreation(err, id)
	}
	if at.prior != nil {
		return r.feeAlreadyPaid(id, at.prior), nil
	}
	// The fee goes to the verification agent's wallet (GET /agent/status) only.
	res, err := r.c.payWith(ctx, transport.Request{Method: http.MethodPost, Path: "/verify-content", Body: body, Route: "POST /verify-content (paid)"},
		r.kp, r.cap, r.fee(fee, id), at)
	if res == nil && err == nil {
		return nil, nil // the call asks the user first
	}
	if err == nil && !res.Response.OK() {
		err = r.c.X402.Service().StatusError(res.Response)
	}
	err = at.failed(ctx, err, id)
	out.Budget = at.view()
	if err != nil {
		if e := at.settledBefore(ctx, err); e != nil {
			return r.feeAlreadyPaid(id, e), nil
		}
		return nil, r.afterCreation(err, id)
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
		out.Warnings = append(out.Warnings, at.settled(ctx, at.receiptFor(out.FeeSettlement, "verification fee", out.PaymentTxHash, id), nil)...)
	}
	v, ok := verificationOf(res.Response.Body)
	if !ok {
		var e error = r.c.X402.Service().Malformed(res.Response, "the verification answer is not an object with isOriginal")
		if res.Paid {
			e = errmap.With(e, func(f *errmap.Facts) {
				f.ExecutionStarted = true
				if res.Confirmed {
					f.TxHash = res.Settlement.Transaction
				} else {
					f.PaymentExpiresAt = res.ExpiresAt.UTC().Format(time.RFC3339)
				}
			})
		}
		return nil, r.afterCreation(e, id)
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
	return r.register(ctx, id, false)
}

// register registers a verified resource on chain as mindvault_register_onchain does; ask
// puts the prepared call before the user first (a resume). Its failure keeps the result a
// success (the resource is listed, and the resume call finishes the job).
func (r *publishRun) register(ctx context.Context, id string, ask bool) (*PublishOutput, error) {
	out := r.out
	prepared, err := r.c.prepareRegistration(ctx, r.apiKey, r.kp, id, r.listed)
	if err == nil && ask {
		// The user approves the registration itself: every argument shown and bound.
		c := r.c.Config
		if ok, err := r.c.approve(prepared.request(r.c.Deps, fmt.Sprintf("Register resource %s, published by %s, on the vault-registry contract %s through the MindVault API on %s: %s?",
			id, confirm.Short(r.kp.Address()), confirm.Short(c.RegistryContract), c.Network, prepared.shownCall()))); !ok {
			return nil, err
		}
	}
	var reg *mindvault.Registration
	var hash string
	if err == nil {
		reg, hash, err = r.c.submitRegistration(ctx, r.apiKey, r.kp, prepared)
	}
	if err != nil {
		out.OnchainStatus = "failed"
		out.Steps = append(out.Steps, Step{Name: "register", Status: "failed", Detail: r.c.summary("%s (%s)", err, "On-chain registration failed")})
		out.NextAction = &ResumeCall{Tool: "mindvault_publish", Arguments: ResumeArgs{ResourceID: id, Profile: deref(r.req.Profile)}}
		out.Message = "Verified (listed and purchasable); on-chain registration failed: finish it with mindvault_publish and resourceId " + id +
			" (it registers only, nothing is paid), or with mindvault_register_onchain."
		return out, nil
	}
	out.OnchainStatus, out.TxHash = reg.OnchainStatus, hash
	out.Steps = append(out.Steps, Step{Name: "register", Status: "done", Detail: reg.OnchainStatus})
	out.Message = "Published, verified and registered on chain; check it with mindvault_publish_status."
	if r.resumed {
		out.Message = "Resumed: the missing steps ran; resource " + id + " is verified and registered on chain."
	}
	return out, nil
}

// verificationOf decodes the verdict; a body without a boolean isOriginal is none, not a rejection.
func verificationOf(body []byte) (*Verification, bool) {
	var raw struct {
		IsOriginal *bool `json:"isOriginal"`
		// Lenient: the verdict is isOriginal, and the fee is already paid.
		Confidence mindvault.Number `json:"confidence"`
		Flags      []string         `json:"flags"`
	}
	if json.Unmarshal(body, &raw) != nil || raw.IsOriginal == nil {
		return nil, false
	}
	return &Verification{IsOriginal: *raw.IsOriginal, Confidence: raw.Confidence.V, Flags: nonNil(raw.Flags)}, true
}

// afterCreation reports a fee step failure once the resource exists, with the call that goes on.
func (r *publishRun) afterCreation(err error, id string) error {
	f, ok := errmap.FactsOf(err)
	if !ok {
		return err
	}
	cause := errmap.Map(f).Diagnostic.Detail
	exists := "exists"
	if !r.resumed {
		// The creation, this call's first write, started the operation and changed state.
		exists = "was created"
		err = errmap.MarkStarted(err)
		if f.StateChanged != errmap.StateUnknown {
			err = errmap.MarkStateChanged(err, errmap.StateYes)
		}
	}
	var fee, next string
	switch {
	case f.TxHash != "" || f.Code == errmap.CodeDuplicatePayment:
		fee = "its verification fee was already paid by another call with the same intent"
		if f.TxHash != "" {
			fee = "its verification fee was paid (transaction " + f.TxHash + ") but no verdict came back"
		}
		next = fmt.Sprintf("Resource %s %s and its fee is paid: do not publish or pay again. Check mindvault_publish_status %s for the verdict.", id, exists, id)
	case f.PaymentExpiresAt != "" && f.StateChanged != errmap.StateNo:
		fee = "its verification fee was sent with an unknown outcome"
		next = fmt.Sprintf("Resource %s %s; do not publish it again, and do not pay its fee again before %s, when the signed payment expires. "+
			"Then check mindvault_publish_status %s; if it still waits for the fee, call mindvault_publish with resourceId %s.", id, exists, f.PaymentExpiresAt, id, id)
	case f.Code == errmap.CodePayeeMismatch:
		fee = "its verification fee was not paid: the verification service asked to pay another account than the verification agent's"
		next = fmt.Sprintf("Resource %s %s unverified; do not publish it again and do not pay this fee: ask the operator to check the verification service, "+
			"then call mindvault_publish with resourceId %s once it asks to pay the agent's wallet.", id, exists, id)
	default:
		fee = "its verification fee was not paid"
		next = fmt.Sprintf("Resource %s %s unverified; do not publish it again. %s, then call mindvault_publish "+
			"with resourceId %s: it pays the fee and registers, nothing else.", id, exists, feeFix(f), id)
	}
	// The detail below carries the body's message (cause), so WithDetail may drop the body.
	err = errmap.WithDetail(err, fmt.Sprintf("resource %s %s; %s; not verified or registered yet (%s)", id, exists, fee, cause))
	// Something exists now: the next step is a look at it (the resume pays, so it stays prose).
	return errmap.WithNextAction(errmap.WithNext(err, next), &errmap.NextAction{Tool: "mindvault_publish_status", Arguments: map[string]any{"resourceId": id}})
}

// feeFix is what to do about an unpaid fee before resuming, by what refused it.
func feeFix(f errmap.Facts) string {
	d := errmap.Map(f).Diagnostic
	switch errmap.Category(d.Category) {
	case errmap.CategoryRateLimit:
		if d.RetryAfterSeconds != nil {
			return fmt.Sprintf("Wait %d s (the verification service is rate limited)", *d.RetryAfterSeconds)
		}
		return "Wait a minute (the verification service is rate limited)"
	case errmap.CategoryPayment:
		return "Fix the payment's cause above (mindvault_wallet_info shows the wallet's funds)"
	case errmap.CategoryServer, errmap.CategoryNetwork, errmap.CategoryTimeout:
		return "Wait a moment (the verification service failed)"
	}
	return "Fix the cause above"
}

// fee is the verification fee as the user approves it (a new resource has no id yet).
func (r *publishRun) fee(amount *big.Int, id string) payment {
	p := payment{quote: x402.Quote{Amount: amount, Asset: r.c.Config.USDCContractID, PayTo: r.agentWallet, Network: r.c.Config.X402Network},
		payer: r.kp.Address(), balance: r.balance, payeeName: "the MindVault verification agent", resource: id, what: "the verification of resource " + id}
	if !r.resumed {
		p.resource, p.what = "", fmt.Sprintf("the verification of %s (a new resource priced %s USDC, created in the catalog first)", quoted(deref(r.req.Title)), deref(r.req.Price))
	}
	return p
}

// creationKey is the Idempotency-Key of a resource creation, derived from the publication's
// idempotencyKey or approval, so every call carrying it gets the API's first resource back;
// "" is a new publication (a fresh random key).
func creationKey(payer, nonce string, req *PublishInput) string {
	kind, name := "key", deref(req.IdempotencyKey)
	if name == "" {
		kind, name = "approval", nonce
	}
	if name == "" {
		return ""
	}
	sum := sha256.Sum256([]byte("mindvault-publish-v1\x00" + payer + "\x00" + kind + "\x00" + name))
	return hex.EncodeToString(sum[:16])
}
