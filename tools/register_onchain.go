package tools

import (
	"context"
	"fmt"

	"github.com/stellar/go-stellar-sdk/txnbuild"

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

// RegisterOnchain is mindvault_register_onchain.
func RegisterOnchain(d *Deps) *Tool {
	return Define(Spec[requests.RegisterOnchain, RegisterOnchainOutput]{
		Name:  "mindvault_register_onchain",
		Title: "Register on chain",
		Description: "Registers one of your verified resources in the vault-registry contract: fetches the prepared " +
			"transaction, signs it with the profile's wallet and submits it through the API. Needs a wallet and an API " +
			"key. Already registered is a conflict (no action needed).",
		Operation: "On-chain registration failed",
		Source:    errmap.SourceAPI,
		Hints:     Hints{OpenWorld: true},
		Run: func(ctx context.Context, req *requests.RegisterOnchain) (*RegisterOnchainOutput, error) {
			if err := MainnetUnconfirmed(d.Config, req.ConfirmMainnet); err != nil {
				return nil, err
			}
			ctx, p, kp, err := d.publisher(ctx, req.Profile)
			if err != nil {
				return nil, err
			}
			prep, err := d.API.PrepareRegistration(ctx, p.APIKey, req.ResourceID)
			if err != nil {
				return nil, err
			}
			if prep.NetworkPassphrase != "" && prep.NetworkPassphrase != d.Config.Passphrase {
				return nil, d.API.MalformedMeta("the API prepared a transaction for another network; nothing was signed")
			}
			generic, err := txnbuild.TransactionFromXDR(prep.UnsignedXDR)
			if err != nil {
				return nil, d.API.MalformedMeta("the prepared transaction is not valid XDR")
			}
			tx, ok := generic.Transaction()
			if !ok {
				return nil, d.API.MalformedMeta("the prepared transaction is a fee bump")
			}
			if tx, err = tx.Sign(d.Config.Passphrase, kp); err != nil {
				return nil, fmt.Errorf("sign: %w", err)
			}
			signed, err := tx.Base64()
			if err != nil {
				return nil, err
			}
			reg, err := d.API.Register(ctx, p.APIKey, req.ResourceID, signed)
			if err != nil {
				return nil, err
			}
			return &RegisterOnchainOutput{ResourceID: req.ResourceID, OnchainStatus: reg.OnchainStatus, TxHash: reg.TxHash,
				ExplorerURL: d.Config.ExplorerURL(reg.TxHash)}, nil
		},
	})
}
