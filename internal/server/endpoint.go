// Package server assembles the product: configuration, credential store, downstream clients, tools,
// auth and the protocol layer, into the one http.Handler that both the Lambda binary and the local
// build serve (ServeOn runs it as a plain HTTP server). It exists so that tests, benchmarks and the
// Lambda main build exactly the same thing.
package server

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/auth"
	"github.com/mindvault/mcp-endpoint/internal/clients/horizon"
	"github.com/mindvault/mcp-endpoint/internal/clients/mindvault"
	"github.com/mindvault/mcp-endpoint/internal/clients/registry"
	"github.com/mindvault/mcp-endpoint/internal/clients/sponsor"
	"github.com/mindvault/mcp-endpoint/internal/clients/stellarrpc"
	"github.com/mindvault/mcp-endpoint/internal/clients/transport"
	"github.com/mindvault/mcp-endpoint/internal/clients/x402"
	"github.com/mindvault/mcp-endpoint/internal/config"
	"github.com/mindvault/mcp-endpoint/internal/credentials"
	"github.com/mindvault/mcp-endpoint/internal/mcp"
	"github.com/mindvault/mcp-endpoint/internal/mcp/prompts"
	"github.com/mindvault/mcp-endpoint/internal/tools"
)

// Name and Version identify the server in serverInfo.
const (
	Name    = "mindvault-mcp"
	Version = "0.1.0"
)

// Instructions is the short orientation sent with initialize and server/discover.
// A surface narrowed by toolsets or read-only gets instructions of its own (surface.go).
const Instructions = "MindVault marketplace tools: browse and buy paid knowledge resources, publish your own, pay in USDC " +
	"over x402 on Stellar, and read or update the on-chain vault registry. Call mindvault_network_profile first to " +
	"see the network. " + failuresLine

// ListTTL is how long clients may cache tools/list, prompts/list and server/discover: the
// lists change only with a deployment.
const ListTTL = 5 * time.Minute

// CallTimeout bounds a tool call outside Lambda, matching the deployed function timeout.
const CallTimeout = 90 * time.Second

// Deps builds the downstream clients of a configuration over one shared HTTP client.
func Deps(cfg *config.Config, store credentials.Store) *tools.Deps {
	httpc := transport.NewHTTPClient()
	retry := transport.Policy{Attempts: cfg.RetryAttempts, BaseDelay: cfg.RetryBaseDelay, MaxDelay: cfg.RetryMaxDelay}
	svc := func(src errmap.Source, base string, timeout time.Duration, timeoutVar string) *transport.Service {
		return &transport.Service{
			Source: src, BaseURL: base, Timeout: timeout, TimeoutVar: timeoutVar,
			Retry: retry, HTTP: httpc, UserAgent: Name + "/" + Version,
		}
	}
	hz := horizon.New(svc(errmap.SourceHorizon, cfg.HorizonURL, cfg.HorizonTimeout, "MINDVAULT_HORIZON_TIMEOUT_MS"))
	rpc := stellarrpc.New(svc(errmap.SourceRPC, cfg.RPCURL, cfg.RPCTimeout, "MINDVAULT_RPC_TIMEOUT_MS"))
	// Paid requests get a connection pool of their own: in the shared one they could pick up
	// an idle connection a parallel read (the preview, the purchase history) left behind, and
	// net/http replays a bodiless GET whose reused connection breaks — a second payment.
	paid := svc(errmap.SourceX402, cfg.MindVaultURL, cfg.PaymentTimeout, "MINDVAULT_PAYMENT_TIMEOUT_MS")
	paid.HTTP = transport.NewHTTPClient()
	paid.ReadError = mindvault.ReadError // the paywall is the MindVault API: its error bodies
	return &tools.Deps{
		Config:  cfg,
		Store:   store,
		API:     mindvault.New(svc(errmap.SourceAPI, cfg.MindVaultURL, cfg.HTTPTimeout, "MINDVAULT_HTTP_TIMEOUT_MS")),
		Horizon: hz,
		RPC:     rpc,
		Registry: &registry.Client{
			RPC: rpc, Contract: cfg.RegistryContract, Passphrase: cfg.Passphrase,
			Sequence: hz.Sequence, WriteWait: cfg.WriteWait, PollInterval: cfg.WritePoll, MaxFee: cfg.MaxTxFeeStroops,
		},
		Sponsor: sponsor.New(svc(errmap.SourceSponsor, cfg.SponsorURL, cfg.HTTPTimeout, "MINDVAULT_HTTP_TIMEOUT_MS")),
		X402: &x402.Client{
			Svc: paid,
			Signer: &x402.Signer{RPC: rpc, Passphrase: cfg.Passphrase, Witness: func(ctx context.Context) (int64, error) {
				root, err := hz.Root(ctx)
				if err != nil {
					return 0, err
				}
				return root.HistoryLatest, nil
			}},
		},
	}
}

// Inbound is the inbound-auth setup read at start: the accepted tokens (tokens mode), and Err
// when the auth configuration itself could not be read (then every request is refused).
type Inbound struct {
	Tokens []auth.Token
	Err    error
}

// NewHandler builds the endpoint handler. startErr is a startup problem: the endpoint still
// serves, answering with a -32603 naming it instead of crash-looping. Inbound auth wraps
// everything, the startup problem included, so only an authenticated caller sees the variables
// named; a broken auth configuration (in.Err) refuses everyone: never an open endpoint.
func NewHandler(d *tools.Deps, in Inbound, startErr error, logger *slog.Logger) http.Handler {
	var metrics io.Writer
	if d.Config.Lambda {
		metrics = os.Stdout // EMF: Lambda's log pipeline extracts the metrics
	}
	reg := tools.All(d)
	ps := prompts.New()
	// A tool call needs its tool's scope (auth.ScopeRefusal), read from the registry on the first
	// tool call, which defines the tools.
	scopes := sync.OnceValue(func() map[string]string { return ToolScopes(reg) })
	srv := &mcp.Server{
		Info:                 mcp.ServerInfo{Name: Name, Title: "MindVault", Version: Version},
		Instructions:         Instructions,
		Tools:                reg,
		Prompts:              ps,
		Surface:              surface(d.Config, reg, ps),
		MaxBodyBytes:         d.Config.MaxBodyBytes,
		AllowedOrigins:       d.Config.AllowedOrigins,
		AllowLoopbackOrigins: !d.Config.Lambda,
		Unavailable:          startErr,
		ListTTL:              ListTTL,
		CallTimeout:          CallTimeout,
		Logger:               logger,
		Metrics:              metrics,
		Caller:               auth.Subject,
		Admit:                func(ctx context.Context, tool string) http.HandlerFunc { return auth.ScopeRefusal(ctx, scopes()[tool]) },
	}
	// Auth comes before the protocol layer's observation and HTTP guards (mcp.Handler lists
	// them); the server card is public metadata, served before auth like the OAuth metadata.
	return withCard(d.Config, srv, auth.Middleware(auth.Config{
		Mode: d.Config.Auth, Tokens: in.Tokens, ResourceURL: d.Config.ResourceURL,
		AuthorizationServers: d.Config.AuthorizationServers, MCPPath: "/mcp", Broken: in.Err,
		OAuth: auth.OAuth{
			Issuer: d.Config.OAuthIssuer, Audience: d.Config.OAuthAudience,
			ProfilesClaim: d.Config.OAuthProfilesClaim, ScopePrefix: d.Config.OAuthScopePrefix,
		},
	}, mcp.Handler(srv), logger))
}

// ToolScopes maps every registered tool to the one OAuth scope a call of it needs, as the
// tool's kind declares it (read for lookups, write for actions, spend for payments).
func ToolScopes(reg *tools.Registry) map[string]string {
	out := map[string]string{}
	for _, t := range reg.Tools() {
		out[t.Name()] = t.Scope()
	}
	return out
}
