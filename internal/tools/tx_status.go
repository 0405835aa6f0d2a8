package tools

import (
	"context"
	"fmt"
	"strings"
	"time"

	rpc "github.com/stellar/go-stellar-sdk/protocols/rpc"
	"github.com/stellar/go-stellar-sdk/xdr"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/config"
)

// TxStatusInput is mindvault_tx_status.
type TxStatusInput struct {
	TxHash string `json:"txHash" validate:"required,txhash" jsonschema_description:"Transaction hash: 64 hex characters, optionally prefixed sha256:."`
}

// TxStatusOutput is the result of mindvault_tx_status.
type TxStatusOutput struct {
	Status           string `json:"status" jsonschema:"enum=SUCCESS,enum=FAILED,enum=NOT_FOUND"`
	Hash             string `json:"hash" jsonschema_description:"the hash looked up: lower-case hex, without a sha256: prefix"`
	Ledger           uint32 `json:"ledger,omitempty"`
	LedgerCloseTime  string `json:"ledgerCloseTime,omitempty" jsonschema_description:"ISO 8601, UTC"`
	ApplicationOrder int32  `json:"applicationOrder,omitempty"`
	FeeBump          bool   `json:"feeBump"`
	ResultCode       string `json:"resultCode,omitempty" jsonschema_description:"transaction result code, e.g. txSUCCESS, txFAILED"`
	ExplorerURL      string `json:"explorerUrl,omitempty"`
	OldestLedger     uint32 `json:"oldestLedger,omitempty"`
	LatestLedger     uint32 `json:"latestLedger,omitempty"`
	Message          string `json:"message,omitempty"`
}

var txStatus = Spec[TxStatusInput, TxStatusOutput]{
	Name:      "mindvault_tx_status",
	Toolset:   config.ToolsetOps,
	Title:     "Transaction status",
	Operation: "Transaction status failed",
	Description: `Looks up a Stellar transaction by hash on the configured Stellar RPC: SUCCESS, FAILED (with
		the result code) or NOT_FOUND (not applied yet, another network, or outside the RPC's
		retention window). Free. Use it after a payment or on-chain write whose outcome is unknown.`,
	Kind:  lookup(errmap.SourceRPC),
	Guide: errmap.Guide{Role: errmap.RoleTxStatus},
	Run: func(ctx context.Context, c *Call, req *TxStatusInput) (*TxStatusOutput, error) {
		tx, err := c.RPC.GetTransaction(ctx, req.TxHash)
		if err != nil {
			return nil, err
		}
		out := &TxStatusOutput{Status: tx.Status, Hash: req.TxHash, FeeBump: tx.FeeBump}
		if tx.Status == rpc.TransactionStatusNotFound {
			out.OldestLedger, out.LatestLedger = tx.OldestLedger, tx.LatestLedger
			out.Message = fmt.Sprintf("Transaction not found on the configured RPC (ledgers %d-%d): it may not be applied yet (retry in a few seconds), belong to another network, or be older than the retention window.", tx.OldestLedger, tx.LatestLedger)
			return out, nil
		}
		out.Ledger, out.ApplicationOrder = tx.Ledger, tx.ApplicationOrder
		if tx.LedgerCloseTime > 0 {
			out.LedgerCloseTime = time.Unix(tx.LedgerCloseTime, 0).UTC().Format(time.RFC3339)
		}
		out.ResultCode = resultCode(tx.ResultXDR)
		out.ExplorerURL = c.Config.ExplorerURL(req.TxHash)
		return out, nil
	},
}

// resultCode decodes a TransactionResult into its protocol code name, e.g. txSUCCESS.
func resultCode(b64 string) string {
	var res xdr.TransactionResult
	if err := xdr.SafeUnmarshalBase64(b64, &res); err != nil {
		return ""
	}
	name := strings.TrimPrefix(res.Result.Code.String(), "TransactionResultCode")
	// TransactionResultCodeTxSuccess → txSUCCESS, matching Horizon's and core's spelling.
	if rest, ok := strings.CutPrefix(name, "Tx"); ok {
		return "tx" + strings.ToUpper(rest)
	}
	return name
}
