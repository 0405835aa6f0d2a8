package tools

import (
	"cmp"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/stellar/go-stellar-sdk/keypair"
	"github.com/stellar/go-stellar-sdk/xdr"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/clients/horizon"
	"github.com/mindvault/mcp-endpoint/internal/clients/mindvault"
	"github.com/mindvault/mcp-endpoint/internal/clients/soroban"
	"github.com/mindvault/mcp-endpoint/internal/clients/txcheck"
	"github.com/mindvault/mcp-endpoint/internal/config"
	"github.com/mindvault/mcp-endpoint/internal/confirm"
	"github.com/mindvault/mcp-endpoint/internal/redact/lazyre"
	"github.com/mindvault/mcp-endpoint/requests"
)

// RegisterOnchainInput is mindvault_register_onchain.
type RegisterOnchainInput struct {
	ResourceID string  `json:"resourceId" validate:"required,resourceid" jsonschema_description:"A verified resource of yours."`
	Profile    *string `json:"profile,omitempty" validate:"omitnil,profile" jsonschema_description:"Publisher profile (wallet and API key)."`
	requests.Confirm
}

// ActingProfile implements requests.Acting.
func (r *RegisterOnchainInput) ActingProfile() *string { return r.Profile }

// RegisterOnchainOutput is the result of mindvault_register_onchain.
type RegisterOnchainOutput struct {
	ResourceID    string `json:"resourceId"`
	OnchainStatus string `json:"onchainStatus"`
	TxHash        string `json:"txHash,omitempty"`
	ExplorerURL   string `json:"explorerUrl,omitempty"`
}

// registerOnchain is mindvault_register_onchain: the API prepares the transaction, which is
// checked before the wallet signs it (prepareRegistration).
var registerOnchain = Spec[RegisterOnchainInput, RegisterOnchainOutput]{
	Name:      "mindvault_register_onchain",
	Toolset:   config.ToolsetPublishing,
	Title:     "Register on chain",
	Operation: "On-chain registration failed",
	Description: `Registers one of your verified resources in the vault-registry contract: fetches the
		prepared transaction, signs it with the profile's wallet and submits it through the API.
		Needs a wallet and an API key. Already registered is a conflict (no action needed).`,
	Kind: action(errmap.SourceAPI),
	Guide: errmap.Guide{Role: errmap.RoleRegisterOnchain,
		Codes: map[string]string{
			errmap.CodeCredentialsMissing: "Give the profile what it lacks (mindvault_setup_wallet creates a wallet, mindvault_register stores a publisher API key), or pass another profile (mindvault_list_profiles shows them), then call mindvault_register_onchain again.",
			errmap.CodeUnauthorized:       "Pass the profile that holds your publisher's current API key (mindvault_list_profiles shows which profiles are publishers): the MindVault API refused this profile's key; then call mindvault_register_onchain again.",
			errmap.CodeForbidden:          "Pass the profile of the publisher that created this resource (mindvault_publish_status shows its publisher wallet, mindvault_list_profiles each profile's address), then call mindvault_register_onchain again.",
		},
		Categories: map[errmap.Category]string{
			errmap.CategoryAuth:     "Register the profile as a publisher with mindvault_register, or pass a profile that is one (mindvault_list_profiles shows which), then call mindvault_register_onchain again.",
			errmap.CategoryNotFound: "Confirm the id of your resource with mindvault_publish_status, then call mindvault_register_onchain with it.",
			errmap.CategoryConflict: "Check the resource with mindvault_registry_lookup: the service reports it already registered on chain.",
		},
	},
	Run: func(ctx context.Context, c *Call, req *RegisterOnchainInput) (*RegisterOnchainOutput, error) {
		p, kp, err := c.publisher(ctx, req.Profile)
		if err != nil {
			return nil, err
		}
		reg, err := c.prepareRegistration(ctx, p.APIKey, kp, req.ResourceID, "")
		if err != nil {
			return nil, notVerifiedYet(ctx, c.Deps, err, req.ResourceID)
		}
		cfg := c.Config
		if ok, err := c.approve(reg.request(c.Deps,
			fmt.Sprintf("Sign and submit the registration of resource %s on the vault-registry contract %s on %s: %s?",
				req.ResourceID, confirm.Short(cfg.RegistryContract), cfg.Network, reg.shownCall()))); !ok {
			return nil, err
		}
		res, hash, err := c.submitRegistration(ctx, p.APIKey, kp, reg)
		if err != nil {
			return nil, err
		}
		return &RegisterOnchainOutput{ResourceID: req.ResourceID, OnchainStatus: res.OnchainStatus, TxHash: hash,
			ExplorerURL: cfg.ExplorerURL(hash)}, nil
	},
}

// preparedRegistration is a prepared registration that passed every check.
type preparedRegistration struct {
	id      string
	signer  string // the wallet, source and creator
	checked *txcheck.Checked
	// sequence is the signing account's sequence when checked; the transaction's is the next.
	sequence int64
}

// prepareRegistration fetches the registration the API prepared for id, with the signing
// account and (listed "") the listed price in parallel, and checks the transaction before
// anything is signed (network, registry, source, sequence, time bounds, fee cap, every
// argument): anything else is UNEXPECTED_TRANSACTION.
func (d *Deps) prepareRegistration(ctx context.Context, apiKey string, kp *keypair.Full, id, listed string) (*preparedRegistration, error) {
	var (
		prep             *mindvault.Prepared
		acct             *horizon.Account
		found            bool
		meta             *mindvault.Meta
		pErr, aErr, mErr error
	)
	reads := []func(){
		func() { prep, pErr = d.API.PrepareRegistration(ctx, apiKey, id) },
		func() { acct, found, aErr = d.Horizon.Account(ctx, kp.Address()) },
	}
	if listed == "" {
		reads = append(reads, func() { meta, mErr = d.API.Meta(ctx, id) })
	}
	parallel(reads...)
	if err := cmp.Or(pErr, mErr, aErr); err != nil {
		return nil, err
	}
	if meta != nil {
		listed = string(meta.Price)
	}
	price, err := soroban.Units(listed)
	if err != nil {
		return nil, d.API.MalformedMeta("the resource's listed price is not a USDC amount")
	}
	if !found {
		return nil, failure(errmap.Facts{Source: errmap.SourceHorizon, Code: errmap.CodeAccountMissing, ExecutionStarted: false, StateChanged: errmap.StateNo,
			Detail: "the wallet's account " + kp.Address() + " does not exist on this network, so it cannot sign the registration"})
	}
	checked, err := txcheck.Check(prep.UnsignedXDR, prep.NetworkPassphrase, txcheck.Policy{
		Passphrase: d.Config.Passphrase,
		Signer:     kp.Address(),
		Sequence:   acct.Sequence + 1, // an account at the last sequence overflows to a refusal
		Contract:   d.Config.RegistryContract,
		Functions:  []string{"register", "register_with_hash"},
		Args:       txcheck.Register(kp.Address(), id, price),
		MaxFee:     d.Config.MaxTxFeeStroops,
		Now:        time.Now(),
	})
	if err != nil {
		var r *txcheck.Refusal
		if errors.As(err, &r) {
			return nil, r.Failure(errmap.SourceAPI, "the registration transaction the API prepared")
		}
		return nil, err
	}
	return &preparedRegistration{id: id, signer: kp.Address(), checked: checked, sequence: acct.Sequence}, nil
}

// registrationArgs names the arguments of register and register_with_hash, in order.
var registrationArgs = []string{"creator", "id", "price", "metadata", "tags", "content hash"}

// shownArgs are the call's arguments as the user reads and the approval binds them, in full.
func (r *preparedRegistration) shownArgs() []string { return scShown(r.checked.Args, false) }

// shownCall is the call as the question shows it: register(creator G…, id "…", price 2 USDC, …).
func (r *preparedRegistration) shownCall() string {
	parts := make([]string, len(r.checked.Args))
	for i, s := range r.shownArgs() {
		if i == 0 {
			s = confirm.Short(s)
		}
		parts[i] = registrationArgs[i] + " " + s
	}
	return r.checked.Function + "(" + strings.Join(parts, ", ") + ")"
}

// request is the registration as the user approves it, binding the prepared call, its fee and
// the sequence it was checked against: anything else in round 2 is CONFIRMATION_STALE.
func (r *preparedRegistration) request(d *Deps, question string) confirm.Request {
	c := d.Config
	return confirm.Request{
		Approval: confirm.Approval{Kind: confirm.Write, Network: string(c.Network), Payer: r.signer, Resource: r.id,
			Contract: c.RegistryContract, Function: r.checked.Function, Args: r.shownArgs(), MaxFee: r.checked.Fee,
			Before: strconv.FormatInt(r.sequence, 10)},
		Title: "Register " + r.id + " on chain",
		Message: fmt.Sprintf("%s Signed by %s; network fee up to %s XLM.", question,
			confirm.Short(r.signer), confirm.XLM(r.checked.Fee)),
	}
}

// submitRegistration signs the checked envelope itself and submits it through the API; the
// hash reported is computed from it, never the API's, so the API cannot substitute another.
func (d *Deps) submitRegistration(ctx context.Context, apiKey string, kp *keypair.Full, r *preparedRegistration) (*mindvault.Registration, string, error) {
	sig, err := kp.SignDecorated(r.checked.Hash[:])
	if err != nil {
		return nil, "", fmt.Errorf("sign: %w", err)
	}
	env := r.checked.Envelope
	v1 := *env.V1
	v1.Signatures = []xdr.DecoratedSignature{sig}
	env.V1 = &v1
	signed, err := xdr.MarshalBase64(env)
	if err != nil {
		return nil, "", fmt.Errorf("encode: %w", err)
	}
	hash := hex.EncodeToString(r.checked.Hash[:])
	res, err := d.API.Register(ctx, apiKey, r.id, signed)
	if err != nil {
		return nil, hash, withSignedHash(err, hash)
	}
	return res, hash, nil
}

// withSignedHash adds the hash of the transaction the wallet signed to a submission whose
// outcome is unknown: the API may have sent it, and the hash is how the agent finds out.
func withSignedHash(err error, hash string) error {
	if f, ok := errmap.FactsOf(err); ok && f.StateChanged == errmap.StateUnknown {
		return errmap.With(err, func(f *errmap.Facts) {
			f.TxHash = hash
			f.LookUpTx = true
		})
	}
	return err
}

// mustBeVerified is the API's 400 for a resource that is not verified.
var mustBeVerified = lazyre.New(`(?i)must be verified`)

// notVerifiedYet says what the API's "must be verified" means: a pending resource waits for
// its verification fee, a rejected one can never be registered.
func notVerifiedYet(ctx context.Context, d *Deps, err error, id string) error {
	f, ok := errmap.FactsOf(err)
	if !ok || f.Status != 400 || !mustBeVerified.MatchString(f.UpstreamDetail+" "+f.Detail) {
		return err
	}
	v, verr := d.API.Verification(ctx, id)
	switch {
	case verr != nil:
		return errmap.WithNext(err, "Check resource "+id+" with mindvault_publish_status: the API registers only verified resources, and a pending one waits for its verification fee (mindvault_publish with resourceId "+id+" pays it).")
	case v.Status == "rejected":
		return errmap.WithNext(err, "Do not retry: verification rejected resource "+id+", so it cannot be registered on chain; publish a corrected resource instead.")
	case v.Status == "verified":
		return errmap.WithNext(err, "Wait a moment, then call mindvault_register_onchain again: resource "+id+" is verified now.")
	}
	return errmap.With(err, func(f *errmap.Facts) {
		f.Code, f.Category = errmap.CodePaymentRequired, errmap.CategoryPayment
		f.Detail = "resource " + id + " is " + v.Status + ": its verification fee is unpaid, and the API registers only verified resources"
		f.Next = "Pay its verification fee first: call mindvault_publish with resourceId " + id + " (it pays the fee and registers the resource on chain once verification approves it)."
	})
}
