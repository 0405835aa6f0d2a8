package tools

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	rpc "github.com/stellar/go-stellar-sdk/protocols/rpc"
	"github.com/stellar/go-stellar-sdk/strkey"
	"github.com/stellar/go-stellar-sdk/xdr"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/clients/horizon"
	"github.com/mindvault/mcp-endpoint/internal/clients/mindvault"
	"github.com/mindvault/mcp-endpoint/internal/clients/soroban"
	"github.com/mindvault/mcp-endpoint/internal/config"
)

// HealthCheck is one dependency check.
type HealthCheck struct {
	Name      string `json:"name" jsonschema:"enum=MindVault API,enum=Horizon,enum=Stellar RPC,enum=Registry contract,enum=Sponsored-account service,enum=Configuration"`
	OK        bool   `json:"ok"`
	LatencyMs int64  `json:"latencyMs"`
	Detail    string `json:"detail" jsonschema_description:"what was probed and what it answered, or the mapped one-line failure"`
}

// HealthOutput is the result of mindvault_health.
type HealthOutput struct {
	Healthy bool          `json:"healthy" jsonschema_description:"true only when every check passed"`
	Checks  []HealthCheck `json:"checks"`
	// Spending is the deployment's spending switch: a pause is the operator's, not a failure.
	Spending *SpendingView `json:"spending"`
}

// health is mindvault_health. Each probe is of a route the tools really use: a root document
// or an echoed setting can look fine while the tools fail.
var health = Spec[NoInput, HealthOutput]{
	Name:      "mindvault_health",
	Toolset:   config.ToolsetOps,
	Title:     "Health",
	Operation: "Health check failed",
	Description: `Probes, in parallel, the MindVault API (catalog), Horizon (an account read and the network),
		Stellar RPC (health and network), the vault-registry contract (a registry_info simulation)
		and the sponsored-account service when configured, and checks the configuration's
		consistency; spending says whether the operator paused all spending (since when, by whom).
		healthy is true only when every check passed. Free. An unhealthy dependency is
		reported in checks, never as an error; call it when other tools fail with network, server or
		contract errors.`,
	Kind:  lookup(errmap.SourceRequest),
	Guide: errmap.Guide{NoID: true},
	Run: func(ctx context.Context, c *Call, _ *NoInput) (*HealthOutput, error) {
		type probe struct {
			name string
			fn   func(context.Context) (string, error)
		}
		probes := []probe{{"MindVault API", c.probeAPI}, {"Horizon", c.probeHorizon}, {"Stellar RPC", c.probeRPC}, {"Registry contract", c.probeRegistry}}
		if c.Config.SponsorURL != "" && c.Sponsor != nil {
			probes = append(probes, probe{"Sponsored-account service", c.probeSponsor})
		}
		checks := make([]HealthCheck, len(probes), len(probes)+1)
		fns := make([]func(), len(probes))
		for i, p := range probes {
			fns[i] = func() { checks[i] = c.timed(ctx, p.name, p.fn) }
		}
		parallel(fns...)
		checks = append(checks, configCheck(c.Config, c.LedgerErr))
		out := &HealthOutput{Healthy: true, Checks: checks, Spending: c.spending(ctx)}
		for _, ch := range checks {
			out.Healthy = out.Healthy && ch.OK
		}
		return out, nil
	},
}

// probeAPI reads one catalog row: the route browse and search depend on, shape checked.
func (d *Deps) probeAPI(ctx context.Context) (string, error) {
	if _, err := d.API.Catalog(ctx, mindvault.CatalogQuery{Limit: 1}); err != nil {
		return "", err
	}
	return "GET /resources answered a catalog page", nil
}

// probeHorizon reads an account (missing is healthy) and the root document's network.
func (d *Deps) probeHorizon(ctx context.Context) (string, error) {
	c := d.Config
	account := cmp.Or(c.USDCIssuer, soroban.ZeroAccount) // the issuer exists on every network that has the configured USDC
	var (
		root       *horizon.Root
		found      bool
		rErr, aErr error
	)
	parallel(
		func() { root, rErr = d.Horizon.Root(ctx) },
		func() { _, found, aErr = d.Horizon.Account(ctx, account) },
	)
	if err := cmp.Or(aErr, rErr); err != nil {
		return "", err
	}
	if root.NetworkPassphrase != c.Passphrase {
		return "", problem(fmt.Sprintf("Horizon serves network %q, but this endpoint is configured for %q", root.NetworkPassphrase, c.Passphrase))
	}
	state := "found"
	if !found {
		state = "not found (404, a normal answer)"
	}
	return fmt.Sprintf("GET /accounts/{id} answered (%s); ledger %d on the configured network", state, root.HistoryLatest), nil
}

// probeRPC asks for the node's health and its network, whose passphrase must be ours.
func (d *Deps) probeRPC(ctx context.Context) (string, error) {
	var (
		h          *rpc.GetHealthResponse
		n          *rpc.GetNetworkResponse
		hErr, nErr error
	)
	parallel(
		func() { h, hErr = d.RPC.GetHealth(ctx) },
		func() { n, nErr = d.RPC.GetNetwork(ctx) },
	)
	if err := cmp.Or(hErr, nErr); err != nil {
		return "", err
	}
	if h.Status != "healthy" {
		return "", problem(fmt.Sprintf("getHealth reports status %q", h.Status))
	}
	if n.Passphrase != d.Config.Passphrase {
		return "", problem(fmt.Sprintf("Stellar RPC serves network %q, but this endpoint is configured for %q", n.Passphrase, d.Config.Passphrase))
	}
	return fmt.Sprintf("healthy, latest ledger %d, protocol %d, configured network", h.LatestLedger, n.ProtocolVersion), nil
}

// probeRegistry simulates registry_info: a missing contract or another network fails.
func (d *Deps) probeRegistry(ctx context.Context) (string, error) {
	c := d.Config
	if c.RegistryContract == "" {
		return "", problem("VAULT_REGISTRY_CONTRACT_ID is not set")
	}
	info, err := d.Registry.Info(ctx)
	if err != nil {
		return "", err
	}
	if info.NetworkID != "" {
		want := sha256.Sum256([]byte(c.Passphrase))
		if info.NetworkID != hex.EncodeToString(want[:]) {
			return "", problem("the contract reports network id " + info.NetworkID + ", not the configured network's")
		}
	}
	return fmt.Sprintf("registry_info: %s %s (schema %s) at %s", cmp.Or(info.Name, "unnamed"), cmp.Or(info.Version, "?"),
		cmp.Or(info.ResourceSchemaVersion, "?"), c.RegistryContract), nil
}

// probeSponsor asks the sponsored-account service for its health route; it creates nothing.
func (d *Deps) probeSponsor(ctx context.Context) (string, error) {
	status, err := d.Sponsor.Probe(ctx)
	if err != nil {
		return "", err
	}
	if status >= 200 && status < 300 {
		return fmt.Sprintf("GET /health answered HTTP %d", status), nil
	}
	return fmt.Sprintf("reachable: GET /health answered HTTP %d (no health route; account creation was not exercised)", status), nil
}

// configCheck compares the settings with each other and the preset; ledgerErr is a ledger failure.
func configCheck(c *config.Config, ledgerErr error) HealthCheck {
	var problems []string
	if ledgerErr != nil {
		problems = append(problems, "ledger (payments refused): "+ledgerErr.Error())
	}
	if c.Preset.X402Network != "" && c.X402Network != c.Preset.X402Network {
		problems = append(problems, fmt.Sprintf("x402 network %q differs from the %s preset's %q", c.X402Network, c.Network, c.Preset.X402Network))
	}
	if c.Preset.Passphrase != "" && c.Passphrase != c.Preset.Passphrase {
		problems = append(problems, fmt.Sprintf("network passphrase %q differs from the %s preset's", c.Passphrase, c.Network))
	}
	if c.RegistryContract == "" {
		problems = append(problems, "VAULT_REGISTRY_CONTRACT_ID is not set")
	}
	if want, err := usdcContract(c.USDCIssuer, c.Passphrase); err != nil {
		problems = append(problems, "USDC issuer: "+err.Error())
	} else if c.USDCContractID != want {
		problems = append(problems, fmt.Sprintf("USDC contract %q is not the asset contract of USDC:%s on this network (%s)", c.USDCContractID, c.USDCIssuer, want))
	}
	if len(problems) > 0 {
		return HealthCheck{Name: "Configuration", Detail: strings.Join(problems, "; ")}
	}
	return HealthCheck{Name: "Configuration", OK: true,
		Detail: fmt.Sprintf("consistent: %s, x402 %s, USDC %s, registry %s", c.Network, c.X402Network, c.USDCContractID, c.RegistryContract)}
}

// usdcContract derives the Stellar Asset Contract id of USDC:issuer on a network.
func usdcContract(issuer, passphrase string) (string, error) {
	asset, err := xdr.NewCreditAsset("USDC", issuer)
	if err != nil {
		return "", fmt.Errorf("%q is not a Stellar account", issuer)
	}
	id, err := asset.ContractID(passphrase)
	if err != nil {
		return "", err
	}
	return strkey.Encode(strkey.VersionByteContract, id[:])
}

// problem is a probe that answered, but not what the tools need; its text is the check's detail.
type problem string

func (p problem) Error() string { return string(p) }

// timed runs one check; a failure becomes the mapped one-line summary, never an error.
func (c *Call) timed(ctx context.Context, name string, fn func(context.Context) (string, error)) HealthCheck {
	start := time.Now()
	detail, err := fn(ctx)
	hc := HealthCheck{Name: name, OK: err == nil, LatencyMs: time.Since(start).Milliseconds(), Detail: detail}
	var p problem
	switch {
	case errors.As(err, &p):
		hc.Detail = string(p)
	case err != nil:
		hc.Detail = c.summary("%s (%s)", err, name+" failed")
	}
	return hc
}
