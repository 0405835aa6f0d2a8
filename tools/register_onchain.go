package tools

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/stellar/go-stellar-sdk/txnbuild"

	"github.com/mindvault/mcp-endpoint/clients/txcheck"
	"github.com/mindvault/mcp-endpoint/confirm"
	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/requests"
)

// RegisterOnchainOutput is the result of mindvault_register_onchain.
type RegisterOnchainOutput struct {
	ResourceID    string `json:"resourceId"`
	OnchainStatus string `json:"onchainStatus"`
	TxHash        string `json:"txHash,omitempty"`
	ExplorerURL   string `json:"explorerUrl,omitempty"`
}

// registerOnchain is mindvault_register_onchain. The API prepares the transaction and the
// profile's wallet signs it, so the transaction is decoded and checked first (package
// txcheck): a transaction that does anything but register this id for this wallet, or
// whose fee or validity is unbounded, is UNEXPECTED_TRANSACTION with nothing signed or sent.
var registerOnchain = Spec[requests.RegisterOnchain, RegisterOnchainOutput]{
	Name:      "mindvault_register_onchain",
	Title:     "Register on chain",
	Operation: "On-chain registration failed",
	Description: `Registers one of your verified resources in the vault-registry contract: fetches the
		prepared transaction, signs it with the profile's wallet and submits it through the API.
		Needs a wallet and an API key. Already registered is a conflict (no action needed).`,
	Kind: action(errmap.SourceAPI),
	Run: func(ctx context.Context, d *Deps, req *requests.RegisterOnchain) (*RegisterOnchainOutput, error) {
		ctx, p, kp, err := d.publisher(ctx, req.Profile)
		if err != nil {
			return nil, err
		}
		prep, err := d.API.PrepareRegistration(ctx, p.APIKey, req.ResourceID)
		if err != nil {
			return nil, err
		}
		// Sign only what was asked: one register call of the configured registry for this
		// id with this wallet as creator, authorised for nothing else, with a bounded fee
		// and an end. Anything else is refused before a signature exists.
		if err := txcheck.Check(prep.UnsignedXDR, prep.NetworkPassphrase, txcheck.Policy{
			Passphrase: d.Config.Passphrase,
			Signer:     kp.Address(),
			Contract:   d.Config.RegistryContract,
			Functions:  []string{"register", "register_with_hash"},
			Args:       txcheck.Register(kp.Address(), req.ResourceID),
			MaxFee:     d.Config.MaxTxFeeStroops,
			Now:        time.Now(),
		}); err != nil {
			var r *txcheck.Refusal
			if errors.As(err, &r) {
				return nil, r.Failure(errmap.SourceAPI, "the registration transaction the API prepared")
			}
			return nil, err
		}
		generic, err := txnbuild.TransactionFromXDR(prep.UnsignedXDR)
		if err != nil {
			return nil, d.API.MalformedMeta("the prepared transaction is not valid XDR")
		}
		tx, ok := generic.Transaction()
		if !ok {
			return nil, d.API.MalformedMeta("the prepared transaction is a fee bump")
		}
		if err := confirm.Approve(ctx, confirm.Request{
			Approval: confirm.Approval{Kind: confirm.Write, Network: string(d.Config.Network), Payer: kp.Address(), Resource: req.ResourceID,
				Contract: d.Config.RegistryContract, Function: "register", MaxFee: tx.MaxFee(), Before: strconv.FormatInt(tx.SequenceNumber(), 10)},
			Title: "Register " + req.ResourceID + " on chain",
			Message: fmt.Sprintf("Sign and submit the registration of resource %s on the vault-registry contract %s on %s? Signed by %s; network fee up to %s XLM.",
				req.ResourceID, confirm.Short(d.Config.RegistryContract), d.Config.Network, confirm.Short(kp.Address()), confirm.XLM(tx.MaxFee())),
		}); err != nil {
			return nil, err
		}
		if tx, err = tx.Sign(d.Config.Passphrase, kp); err != nil {
			return nil, fmt.Errorf("sign: %w", err)
		}
		signed, err := tx.Base64()
		if err != nil {
			return nil, err
		}
		hash, err := tx.HashHex(d.Config.Passphrase)
		if err != nil {
			return nil, fmt.Errorf("hash: %w", err)
		}
		reg, err := d.API.Register(ctx, p.APIKey, req.ResourceID, signed)
		if err != nil {
			return nil, withSignedHash(err, hash)
		}
		return &RegisterOnchainOutput{ResourceID: req.ResourceID, OnchainStatus: reg.OnchainStatus, TxHash: reg.TxHash,
			ExplorerURL: d.Config.ExplorerURL(reg.TxHash)}, nil
	},
}

// withSignedHash adds the hash of the transaction the wallet signed to a submission whose
// outcome is unknown: the API may have sent it, and the hash is how the agent finds out.
func withSignedHash(err error, hash string) error {
	if f, ok := errmap.FactsOf(err); ok && f.StateChanged == errmap.StateUnknown {
		return errmap.With(err, func(f *errmap.Facts) {
			f.TxHash = hash
			f.NextAction = errmap.TxStatusAction(hash)
		})
	}
	return err
}
