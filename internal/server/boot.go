package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/mindvault/mcp-endpoint/internal/auth"
	"github.com/mindvault/mcp-endpoint/internal/config"
	"github.com/mindvault/mcp-endpoint/internal/confirm"
	"github.com/mindvault/mcp-endpoint/internal/credentials"
	"github.com/mindvault/mcp-endpoint/internal/ledger"
	"github.com/mindvault/mcp-endpoint/internal/redact"
	"github.com/mindvault/mcp-endpoint/internal/tools"
)

// Booted is a running endpoint.
type Booted struct {
	Handler http.Handler
	Config  *config.Config
	Deps    *tools.Deps
	Logger  *slog.Logger
	Err     error // the startup problem every request will report (nil when healthy)
}

// Local is what a local build adds to Boot (package local supplies it for the sandbox); the
// Lambda binary boots with none, so nothing of it can be reached there.
type Local struct {
	Networks []config.LocalNetwork // the build's own STELLAR_NETWORK values (config.Load); none under Lambda
	Profiles []credentials.Profile // added to a writable credential store; an existing one is kept
	Err      error                 // a problem met before Boot (a simulator that did not start)
	// AWSConfig loads the AWS configuration of the Secrets Manager clients; nil is
	// credentials.EnvAWSConfig. Local builds pass credentials/awsshared, which the Lambda binary does not link.
	AWSConfig credentials.AWSConfigLoader
	// Refuses: the caller reports Err itself and does not serve (the local server exits on
	// it), so Boot does not log it as a problem every request will report.
	Refuses bool
}

// Boot reads the environment once and assembles the endpoint. A startup problem does not stop
// it: the handler answers every authenticated request with -32603 naming the problem (a Lambda
// that crash-loops tells the operator nothing).
func Boot(getenv func(string) string, lambda bool, logw io.Writer) *Booted {
	return BootWith(getenv, lambda, logw, Local{})
}

// BootWith is Boot for a local build that brings networks, profiles or a problem of its own.
func BootWith(getenv func(string) string, lambda bool, logw io.Writer, local Local) *Booted {
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
	cfg, cfgErr := config.Load(getenv, lambda, local.Networks...)
	logger := NewLogger(lambda, cfg.LogLevel, logw, nil)
	b := &Booted{Config: cfg, Logger: logger}
	store, storeErr := openStore(cfg, getenv, local)
	if storeErr != nil {
		store = credentials.NewEnv(func(string) string { return "" }, cfg.DefaultProfile)
	}
	var tokens []auth.Token
	var tokenErr error
	if cfg.Auth != "oauth" { // oauth mode refuses token settings (a config problem) and reads none
		tokens, tokenErr = loadTokens(cfg, local.AWSConfig)
	}
	b.Deps = Deps(cfg, store)
	keeper, confirmErr := confirm.Load(context.Background(), getenv, lambda, local.AWSConfig)
	if keeper.Note != "" {
		logger.Warn(keeper.Note) // once: Boot runs once per process
	}
	b.Deps.Confirm = keeper
	b.Deps.Ledger, b.Deps.LedgerErr = OpenLedger(cfg, local.AWSConfig)
	b.Err = errors.Join(append(errs, cfgErr, local.Err, storeErr, tokenErr, confirmErr)...) // nil ones are dropped
	if b.Err != nil && !local.Refuses {
		logger.Error("startup problem, reported to every authenticated request: " + b.Err.Error())
	}
	b.Handler = NewHandler(b.Deps, Inbound{Tokens: tokens, Err: authProblem(cfg.Auth, cfgErr, tokenErr)}, b.Err, logger)
	return b
}

// authVariables configure inbound auth; a problem with any of them leaves access control
// unknown. In oauth mode the resource URL (the default audience) and the authorization
// server list (the metadata clients follow) are part of it.
var (
	authVariables  = []string{"MINDVAULT_AUTH", "MINDVAULT_ACCESS_TOKENS", "MINDVAULT_ACCESS_TOKENS_SECRET"}
	oauthVariables = []string{"MINDVAULT_OAUTH_ISSUER", "MINDVAULT_OAUTH_AUDIENCE", "MINDVAULT_OAUTH_PROFILES_CLAIM",
		"MINDVAULT_OAUTH_SCOPE_PREFIX", "MINDVAULT_RESOURCE_URL", "MINDVAULT_AUTHORIZATION_SERVERS"}
)

// authProblem picks, from the startup problems, those of the auth configuration itself.
func authProblem(mode string, cfgErr, tokenErr error) error {
	var problems config.Problems
	errors.As(cfgErr, &problems) // none: no problem of the configuration
	out := slices.DeleteFunc(slices.Clone(problems), func(p config.Problem) bool {
		return !slices.Contains(authVariables, p.Var) && (mode != "oauth" || !slices.Contains(oauthVariables, p.Var))
	})
	if len(out) == 0 {
		return tokenErr
	}
	return errors.Join(out, tokenErr)
}

// OpenLedger is the ledger store of the budgets and the payment journal (docs/once.md "The
// journal"), every call bounded by MINDVAULT_LEDGER_TIMEOUT_MS. Under Lambda a memory store would
// remember per instance, so it is refused as a configuration problem every paying call reports.
func OpenLedger(cfg *config.Config, loadAWS credentials.AWSConfigLoader) (ledger.Store, error) {
	spec, err := ledger.Parse(cfg.Ledger)
	if err != nil {
		return nil, err
	}
	if spec.Kind == ledger.KindMemory {
		if cfg.Lambda {
			return nil, errors.New("MINDVAULT_LEDGER is memory, which remembers per Lambda instance; set MINDVAULT_LEDGER=dynamodb:<table> (the deployment's ledger table) for payments to be journaled and budgets to hold")
		}
		// The spending switch is a file, so that `mindvault-local spending` reaches this process.
		return &ledger.Bounded{S: ledger.NewMemory(cfg.PauseFile), Timeout: cfg.LedgerTimeout, TTL: cfg.PauseCache}, nil
	}
	awsCfg, err := loadAWS.Load(context.Background())
	if err != nil {
		return nil, fmt.Errorf("the ledger's AWS configuration: %w", err)
	}
	d, err := ledger.NewDynamo(awsCfg, spec.Table, cfg.LedgerEndpoint)
	if err != nil {
		return nil, err
	}
	return &ledger.Bounded{S: d, Timeout: cfg.LedgerTimeout, TTL: cfg.PauseCache}, nil
}

// openStore opens MINDVAULT_CREDENTIALS and adds the local build's profiles to it when it is
// writable.
func openStore(cfg *config.Config, getenv func(string) string, local Local) (credentials.Store, error) {
	store, err := credentials.Open(cfg.Credentials, getenv, cfg.DefaultProfile, local.AWSConfig)
	if err != nil {
		return nil, fmt.Errorf("MINDVAULT_CREDENTIALS: %w", err)
	}
	if store.ReadOnly() {
		return store, nil
	}
	for _, p := range local.Profiles {
		if err := store.Create(context.Background(), p); err != nil && !credentials.IsExists(err) {
			return nil, fmt.Errorf("adding the %s profile: %w", p.Name, err)
		}
	}
	return store, nil
}

// loadTokens reads the accepted bearer-token digests once per process, inline or from a
// Secrets Manager secret (not both: which would win is not obvious to an operator).
func loadTokens(cfg *config.Config, load credentials.AWSConfigLoader) ([]auth.Token, error) {
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
		t, err := auth.LoadTokenSecret(ctx, cfg.AccessTokensSecret, load)
		if err != nil {
			return nil, fmt.Errorf("MINDVAULT_ACCESS_TOKENS_SECRET: %w", err)
		}
		return t, nil
	}
	return nil, nil
}
