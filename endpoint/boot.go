package endpoint

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/mindvault/mcp-endpoint/auth"
	"github.com/mindvault/mcp-endpoint/config"
	"github.com/mindvault/mcp-endpoint/confirm"
	"github.com/mindvault/mcp-endpoint/credentials"
	"github.com/mindvault/mcp-endpoint/redact"
	"github.com/mindvault/mcp-endpoint/sandbox"
	"github.com/mindvault/mcp-endpoint/tools"
)

// Booted is a running endpoint and what was started for it.
type Booted struct {
	Handler http.Handler
	Config  *config.Config
	Deps    *tools.Deps
	Logger  *slog.Logger
	// Sandbox is set on the sandbox network.
	Sandbox *sandbox.Sandbox
	// StoreDir is the temporary profile folder created for the sandbox, if any.
	StoreDir string
	// Err is the startup problem every request will report (nil when healthy).
	Err error
}

// Close stops what Boot started.
func (b *Booted) Close() {
	if b.Sandbox != nil {
		b.Sandbox.Close()
	}
	if b.StoreDir != "" {
		os.RemoveAll(b.StoreDir)
	}
}

// Boot reads the environment once and assembles the endpoint: configuration, the sandbox
// simulators when STELLAR_NETWORK=sandbox, the credential store, clients and tools. A
// startup problem does not stop it: the handler then answers every authenticated request
// with -32603 naming the problem (a Lambda that crash-loops tells the operator nothing).
// Inbound auth always runs first; when its own configuration is what is broken, every
// request is refused.
func Boot(getenv func(string) string, lambda bool, logw io.Writer) *Booted {
	var errs []error
	// The environment's secrets are known before anything can log or answer, whichever
	// credential store is configured (MINDVAULT_CONFIRM_KEY signs the human confirmation's
	// requestState; it is a secret as soon as it is set, even when it does not parse).
	var envSecrets []string
	for _, v := range []string{"MINDVAULT_AGENT_SECRET", "MINDVAULT_API_KEY", "MINDVAULT_CONFIRM_KEY"} {
		envSecrets = append(envSecrets, getenv(v), strings.TrimSpace(getenv(v)))
	}
	if err := redact.Register(envSecrets...); err != nil {
		errs = append(errs, fmt.Errorf("MINDVAULT_AGENT_SECRET, MINDVAULT_API_KEY or MINDVAULT_CONFIRM_KEY: %w", err))
	}
	cfg, cfgErr := config.Load(getenv, lambda)
	logger := NewLogger(lambda, cfg.LogLevel, logw, nil)
	b := &Booted{Config: cfg, Logger: logger}
	if cfgErr != nil {
		errs = append(errs, cfgErr)
	}

	if cfg.Network == config.Sandbox {
		sb, err := sandbox.Start(sandbox.Options{Faults: cfg.SandboxFaults})
		if err != nil {
			errs = append(errs, fmt.Errorf("MINDVAULT_SANDBOX_FAULTS or sandbox start: %w", err))
		} else {
			b.Sandbox = sb
			cfg.ApplySandbox(config.Preset{
				X402Network: "stellar:testnet", Passphrase: sb.Passphrase,
				MindVaultURL: sb.APIURL, HorizonURL: sb.HorizonURL, RPCURL: sb.RPCURL, SponsorURL: sb.SponsorURL,
				USDCContractID: sb.USDCContractID, USDCIssuer: sb.USDCIssuer, RegistryContract: sb.RegistryContract,
			})
		}
	}

	store, storeDir, err := openStore(cfg, getenv, b.Sandbox)
	if err != nil {
		errs = append(errs, err)
		store = credentials.NewEnv(func(string) string { return "" }, cfg.DefaultProfile)
	}
	b.StoreDir = storeDir
	tokens, tokenErr := loadTokens(cfg)
	if tokenErr != nil {
		errs = append(errs, tokenErr)
	}
	b.Deps = Deps(cfg, store)
	keeper, confirmErr := confirm.Load(context.Background(), getenv, lambda)
	if confirmErr != nil {
		errs = append(errs, confirmErr)
	}
	if keeper.Note != "" {
		logger.Warn(keeper.Note) // once: Boot runs once per process
	}
	b.Deps.Confirm = keeper
	b.Err = errors.Join(errs...)
	if b.Err != nil {
		logger.Error("startup problem, reported to every authenticated request: " + b.Err.Error())
	}
	b.Handler = NewHandler(b.Deps, Inbound{Tokens: tokens, Err: authProblem(cfgErr, tokenErr)}, b.Err, logger)
	return b
}

// authVariables configure inbound auth; a problem with any of them leaves access control
// unknown.
var authVariables = []string{"MINDVAULT_AUTH", "MINDVAULT_ACCESS_TOKENS", "MINDVAULT_ACCESS_TOKENS_SECRET"}

// authProblem picks, from the startup problems, those of the auth configuration itself.
func authProblem(cfgErr, tokenErr error) error {
	var out config.Problems
	var problems config.Problems
	if errors.As(cfgErr, &problems) {
		for _, p := range problems {
			if slices.Contains(authVariables, p.Var) {
				out = append(out, p)
			}
		}
	}
	switch {
	case len(out) > 0 && tokenErr != nil:
		return errors.Join(out, tokenErr)
	case len(out) > 0:
		return out
	}
	return tokenErr
}

// openStore opens MINDVAULT_CREDENTIALS. On the sandbox it defaults to a fresh temporary
// dir: store and makes sure the funded demo profile is in whichever store is used.
func openStore(cfg *config.Config, getenv func(string) string, sb *sandbox.Sandbox) (credentials.Store, string, error) {
	spec, tmp := cfg.Credentials, ""
	if sb != nil && !cfg.CredentialsExplicit() {
		dir, err := os.MkdirTemp("", "mindvault-profiles-")
		if err != nil {
			return nil, "", fmt.Errorf("sandbox profile folder: %w", err)
		}
		spec, tmp = "dir:"+dir, dir
	}
	store, err := credentials.Open(spec, getenv, cfg.DefaultProfile)
	if err != nil {
		return nil, tmp, fmt.Errorf("MINDVAULT_CREDENTIALS: %w", err)
	}
	if sb != nil && !store.ReadOnly() {
		// The demo wallet is also the seeded "Demo Publisher", so the profile carries its API
		// key: demo can publish and register on chain the resources it creates.
		demo := credentials.Profile{Name: config.SandboxProfile, SecretKey: sb.Demo.Secret, APIKey: sb.DemoAPIKey}
		if err := store.Create(context.Background(), demo); err != nil && !credentials.IsExists(err) {
			return nil, tmp, fmt.Errorf("adding the sandbox demo profile: %w", err)
		}
	}
	return store, tmp, nil
}

// loadTokens reads the accepted bearer-token digests once per process, inline or from a
// Secrets Manager secret (not both: which would win is not obvious to an operator).
func loadTokens(cfg *config.Config) ([]auth.Token, error) {
	switch {
	case cfg.AccessTokens != "" && cfg.AccessTokensSecret != "":
		return nil, errors.New("MINDVAULT_ACCESS_TOKENS and MINDVAULT_ACCESS_TOKENS_SECRET are both set; set one")
	case cfg.AccessTokens != "":
		t, err := auth.ParseTokens(cfg.AccessTokens)
		if err != nil {
			return nil, fmt.Errorf("MINDVAULT_ACCESS_TOKENS: %w", err)
		}
		return t, nil
	case cfg.AccessTokensSecret != "":
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		t, err := auth.LoadTokenSecret(ctx, cfg.AccessTokensSecret)
		if err != nil {
			return nil, fmt.Errorf("MINDVAULT_ACCESS_TOKENS_SECRET: %w", err)
		}
		return t, nil
	}
	return nil, nil
}
