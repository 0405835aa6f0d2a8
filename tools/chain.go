package tools

import (
	"context"
	"fmt"
	"strings"
	"time"

	rpc "github.com/stellar/go-stellar-sdk/protocols/rpc"
	"github.com/stellar/go-stellar-sdk/xdr"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/requests"
)

// TxStatusOutput is the result of mindvault_tx_status.
type TxStatusOutput struct {
	Status           string `json:"status" jsonschema:"enum=SUCCESS,enum=FAILED,enum=NOT_FOUND"`
	Hash             string `json:"hash"`
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

// TxStatus is mindvault_tx_status.
func TxStatus(d *Deps) *Tool {
	return Define(Spec[requests.TxStatus, TxStatusOutput]{
		Name:  "mindvault_tx_status",
		Title: "Transaction status",
		Description: "Looks up a Stellar transaction by hash on the configured Stellar RPC: SUCCESS, FAILED (with the " +
			"result code) or NOT_FOUND (not applied yet, another network, or outside the RPC's retention window). Free. " +
			"Use it after a payment or on-chain write whose outcome is unknown.",
		Operation: "Transaction status failed",
		Source:    errmap.SourceRPC,
		Hints:     Hints{ReadOnly: true, Idempotent: true, OpenWorld: true},
		Run: func(ctx context.Context, req *requests.TxStatus) (*TxStatusOutput, error) {
			tx, err := d.RPC.GetTransaction(ctx, req.TxHash)
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
			out.ExplorerURL = d.Config.ExplorerURL(req.TxHash)
			return out, nil
		},
	})
}

// resultCode decodes a TransactionResult into its protocol code name, e.g. txSUCCESS.
func resultCode(b64 string) string {
	if b64 == "" {
		return ""
	}
	var res xdr.TransactionResult
	if err := xdr.SafeUnmarshalBase64(b64, &res); err != nil {
		return ""
	}
	name := strings.TrimPrefix(res.Result.Code.String(), "TransactionResultCode")
	if name == "" {
		return ""
	}
	// TransactionResultCodeTxSuccess → txSUCCESS, matching Horizon's and core's spelling.
	if rest, ok := strings.CutPrefix(name, "Tx"); ok {
		return "tx" + strings.ToUpper(rest)
	}
	return name
}

// HealthCheck is one dependency check.
type HealthCheck struct {
	Name      string `json:"name"`
	OK        bool   `json:"ok"`
	LatencyMs int64  `json:"latencyMs"`
	Detail    string `json:"detail"`
}

// HealthOutput is the result of mindvault_health.
type HealthOutput struct {
	Healthy bool          `json:"healthy"`
	Checks  []HealthCheck `json:"checks"`
}

// Health is mindvault_health.
func Health(d *Deps) *Tool {
	return Define(Spec[requests.Health, HealthOutput]{
		Name:  "mindvault_health",
		Title: "Health",
		Description: "Checks the MindVault API, Horizon and Stellar RPC in parallel and the configuration's consistency " +
			"(network passphrase, registry id, x402 network). Free. An unhealthy dependency is reported in checks, " +
			"never as an error; call it when other tools fail with network or server errors.",
		Operation: "Health check failed",
		Source:    errmap.SourceRequest,
		Hints:     Hints{ReadOnly: true, Idempotent: true, OpenWorld: true},
		Run: func(ctx context.Context, _ *requests.Health) (*HealthOutput, error) {
			c := d.Config
			var api, hz, rpcHealth, rpcNet HealthCheck
			var horizonPass, rpcPass string
			parallel(
				func() {
					api = timed("MindVault API", func() (string, error) {
						status, err := d.API.Ping(ctx)
						return fmt.Sprintf("reachable (HTTP %d)", status), err
					})
				},
				func() {
					hz = timed("Horizon", func() (string, error) {
						r, err := d.Horizon.Root(ctx)
						if err != nil {
							return "", err
						}
						horizonPass = r.NetworkPassphrase
						return fmt.Sprintf("reachable (ledger %d)", r.HistoryLatest), nil
					})
				},
				func() {
					rpcHealth = timed("Stellar RPC health", func() (string, error) {
						h, err := d.RPC.GetHealth(ctx)
						if err != nil {
							return "", err
						}
						if h.Status != "healthy" {
							return "", fmt.Errorf("status %s", h.Status)
						}
						return fmt.Sprintf("healthy (latest ledger %d)", h.LatestLedger), nil
					})
				},
				func() {
					rpcNet = timed("Stellar RPC network", func() (string, error) {
						n, err := d.RPC.GetNetwork(ctx)
						if err != nil {
							return "", err
						}
						rpcPass = n.Passphrase
						return fmt.Sprintf("protocol %d", n.ProtocolVersion), nil
					})
				},
			)
			checks := []HealthCheck{api, hz, rpcHealth, rpcNet}
			checks = append(checks,
				consistency("Horizon network", horizonPass, c.Passphrase),
				consistency("Stellar RPC network passphrase", rpcPass, c.Passphrase),
				HealthCheck{Name: "Registry contract", OK: c.RegistryContract != "", Detail: orText(c.RegistryContract, "VAULT_REGISTRY_CONTRACT_ID is not set")},
				consistency("x402 network", c.X402Network, c.Preset.X402Network),
			)
			out := &HealthOutput{Healthy: true, Checks: checks}
			for _, ch := range checks {
				out.Healthy = out.Healthy && ch.OK
			}
			return out, nil
		},
	})
}

// timed runs one check; a failure becomes the mapped one-line summary, never an error.
func timed(name string, fn func() (string, error)) HealthCheck {
	start := time.Now()
	detail, err := fn()
	hc := HealthCheck{Name: name, OK: err == nil, LatencyMs: time.Since(start).Milliseconds(), Detail: detail}
	if err != nil {
		hc.Detail = summary(err, name)
	}
	return hc
}

// summary is the first line of a mapped failure plus its category: enough to act on.
func summary(err error, name string) string {
	f := errmap.FromError(err, errmap.Call{Operation: name + " unreachable", Tool: "mindvault_health"})
	line, _, _ := strings.Cut(f.Text, "\n")
	return line + " (" + string(f.Diagnostic.Category) + ")"
}

func consistency(name, got, want string) HealthCheck {
	switch {
	case want == "":
		return HealthCheck{Name: name, OK: true, Detail: "no preset to compare with"}
	case got == "":
		return HealthCheck{Name: name, OK: false, Detail: "could not be read"}
	case got != want:
		return HealthCheck{Name: name, OK: false, Detail: fmt.Sprintf("mismatch: expected %q, got %q", want, got)}
	}
	return HealthCheck{Name: name, OK: true, Detail: "aligned: " + got}
}

func orText(v, fallback string) string {
	if v == "" {
		return fallback
	}
	return v
}
