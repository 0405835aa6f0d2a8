// Package local boots the endpoint on a developer's machine, for cmd/mindvault-local (`make run`),
// the integration tests and the benchmarks, and owns the offline sandbox network: with
// STELLAR_NETWORK=sandbox, Boot starts the simulators of package sandbox first and points the
// endpoint at them. Only local builds import it, so the Lambda binary links no simulator and knows
// no sandbox network; Env gives that binary the environment that reaches running simulators.
package local

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/mindvault/mcp-endpoint/internal/config"
	"github.com/mindvault/mcp-endpoint/internal/credentials"
	"github.com/mindvault/mcp-endpoint/internal/credentials/awsshared"
	"github.com/mindvault/mcp-endpoint/internal/sandbox"
	"github.com/mindvault/mcp-endpoint/internal/server"
)

// Network is the STELLAR_NETWORK name of the offline sandbox.
const Network config.Network = "sandbox"

// DemoProfile is the funded profile the sandbox seeds, its default profile.
const DemoProfile = "demo"

// Booted is an endpoint booted locally, with the simulators started for it.
type Booted struct {
	*server.Booted
	// Sandbox is set on the sandbox network.
	Sandbox  *sandbox.Sandbox
	storeDir string // the temporary profile folder created for the sandbox, if any
}

// Close stops the simulators and removes the temporary profile folder.
func (b *Booted) Close() {
	if b.Sandbox != nil {
		b.Sandbox.Close()
	}
	if b.storeDir != "" {
		os.RemoveAll(b.storeDir)
	}
}

// Boot boots the endpoint as a local server does (not under Lambda), starting the sandbox
// first when STELLAR_NETWORK=sandbox. Secrets Manager is reached with the shared-config loader
// (~/.aws). refuses is for cmd/mindvault-local, which refuses to serve a configuration with a
// problem (Booted.Err, then not logged): a developer is told at once, in one line.
func Boot(getenv func(string) string, logw io.Writer, refuses bool) *Booted {
	// Started or not, the sandbox is a network of this build: a mistyped STELLAR_NETWORK is
	// told the values valid here, the sandbox among them.
	extra := server.Local{AWSConfig: awsshared.Load, Refuses: refuses, Networks: []config.LocalNetwork{{Name: Network}}}
	if Network != config.Network(strings.ToLower(strings.TrimSpace(getenv("STELLAR_NETWORK")))) {
		return &Booted{Booted: server.BootWith(withDefaultStore(getenv), false, logw, extra)}
	}
	b := &Booted{}
	env := map[string]string{}
	apply, err := millis(ApplyDelayVar, getenv(ApplyDelayVar), 60000)
	var syncDelay time.Duration
	if err == nil {
		syncDelay, err = millis(CatalogSyncVar, getenv(CatalogSyncVar), 600000)
	}
	var sb *sandbox.Sandbox
	if err == nil {
		if sb, err = sandbox.Start(sandbox.Options{Faults: getenv("MINDVAULT_SANDBOX_FAULTS"), ApplyDelay: apply, CatalogSync: syncDelay}); err != nil {
			err = fmt.Errorf("MINDVAULT_SANDBOX_FAULTS or sandbox start: %w", err)
		}
	}
	if err != nil {
		extra.Err = err
	} else {
		b.Sandbox = sb
		extra.Networks[0].Preset = Preset(sb)
		extra.Profiles = []credentials.Profile{{Name: DemoProfile, SecretKey: sb.Demo.Secret, APIKey: sb.DemoAPIKey}}
	}
	if strings.TrimSpace(getenv("MINDVAULT_DEFAULT_PROFILE")) == "" {
		env["MINDVAULT_DEFAULT_PROFILE"] = DemoProfile
	}
	if strings.TrimSpace(getenv("MINDVAULT_CREDENTIALS")) == "" {
		dir, err := os.MkdirTemp("", "mindvault-profiles-")
		if err != nil {
			extra.Err = errors.Join(extra.Err, fmt.Errorf("sandbox profile folder: %w", err))
		} else {
			b.storeDir = dir
			env["MINDVAULT_CREDENTIALS"] = "dir:" + dir
		}
	}
	b.Booted = server.BootWith(overlay(getenv, env), false, logw, extra)
	return b
}

// overlay is getenv with the variables of env set.
func overlay(getenv func(string) string, env map[string]string) func(string) string {
	return func(k string) string {
		if v, ok := env[k]; ok {
			return v
		}
		return getenv(k)
	}
}

// ApplyDelayVar is the milliseconds the sandbox takes to apply an accepted transaction
// (sandbox.DefaultApplyDelay when unset); tests that write on chain shorten it.
const ApplyDelayVar = "MINDVAULT_SANDBOX_APPLY_MS"

// CatalogSyncVar is the milliseconds the sandbox API's catalog takes to show an on-chain price
// change (sandbox.DefaultCatalogSync, 30 s like the real API's, when unset).
const CatalogSyncVar = "MINDVAULT_SANDBOX_CATALOG_SYNC_MS"

// millis parses the value v of variable name, from 1 to most milliseconds; "" is the sandbox's default.
func millis(name, v string, most int) (time.Duration, error) {
	if v = strings.TrimSpace(v); v == "" {
		return 0, nil
	}
	ms, err := strconv.Atoi(v)
	if err != nil || ms < 1 || ms > most {
		return 0, fmt.Errorf("%s must be a whole number of milliseconds from 1 to %d", name, most)
	}
	return time.Duration(ms) * time.Millisecond, nil
}

// Preset is the sandbox network's preset: the simulators' loopback URLs and contract ids,
// and testnet's passphrase and x402 network, which the sandbox poses as.
func Preset(sb *sandbox.Sandbox) config.Preset {
	return config.Preset{
		X402Network: sb.X402Network, Passphrase: sb.Passphrase,
		MindVaultURL: sb.APIURL, HorizonURL: sb.HorizonURL, RPCURL: sb.RPCURL, SponsorURL: sb.SponsorURL,
		USDCContractID: sb.USDCContractID, USDCIssuer: sb.USDCIssuer, RegistryContract: sb.RegistryContract,
	}
}

// Env is the environment that points the Lambda binary's testnet configuration at running
// simulators (docs/sandbox.md): every address overridden, and the demo profile in the env store.
func Env(sb *sandbox.Sandbox) map[string]string {
	p := Preset(sb)
	return map[string]string{
		"STELLAR_NETWORK":            string(config.Testnet),
		"X402_NETWORK":               p.X402Network,
		"MINDVAULT_URL":              p.MindVaultURL,
		"HORIZON_URL":                p.HorizonURL,
		"SOROBAN_RPC_URL":            p.RPCURL,
		"SPONSORED_ACCOUNT_URL":      p.SponsorURL,
		"VAULT_REGISTRY_CONTRACT_ID": p.RegistryContract,
		"USDC_CONTRACT_ID":           p.USDCContractID,
		"USDC_ISSUER":                p.USDCIssuer,
		"MINDVAULT_CREDENTIALS":      "env",
		"MINDVAULT_DEFAULT_PROFILE":  DemoProfile,
		"MINDVAULT_AGENT_SECRET":     sb.Demo.Secret,
		"MINDVAULT_API_KEY":          sb.DemoAPIKey,
	}
}

// withDefaultStore gives a local run on a public network a writable profile store when none is
// configured (dir: under the user's configuration folder, mindvault/profiles, mode 0700); without a
// home the read-only env store stays.
func withDefaultStore(getenv func(string) string) func(string) string {
	if strings.TrimSpace(getenv("MINDVAULT_CREDENTIALS")) != "" {
		return getenv
	}
	base := getenv("XDG_CONFIG_HOME")
	if base == "" && getenv("HOME") != "" {
		base = filepath.Join(getenv("HOME"), ".config")
	}
	if base == "" || !filepath.IsAbs(base) {
		return getenv
	}
	dir := filepath.Join(base, "mindvault", "profiles")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return getenv
	}
	return overlay(getenv, map[string]string{"MINDVAULT_CREDENTIALS": "dir:" + dir})
}
