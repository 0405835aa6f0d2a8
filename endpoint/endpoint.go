// Package endpoint assembles the product: configuration, tools and the protocol layer into
// the one http.Handler that both the Lambda entry point and the local server serve. It exists
// so that tests, benchmarks and the Lambda main build exactly the same thing.
package endpoint

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/mindvault/mcp-endpoint/config"
	"github.com/mindvault/mcp-endpoint/protocol"
	"github.com/mindvault/mcp-endpoint/tools"
)

// Name and Version identify the server in serverInfo.
const (
	Name    = "mindvault-mcp"
	Version = "0.1.0"
)

// Instructions is the short orientation sent with initialize and server/discover.
const Instructions = "MindVault marketplace tools: browse and buy paid knowledge resources, publish your own, pay in USDC " +
	"over x402 on Stellar, and read or update the on-chain vault registry. Call mindvault_network_profile first to " +
	"see the network. Failures are isError results whose second line names the Source and Category and whose third " +
	"line says what to do next."

// ListTTL is how long clients may cache tools/list and server/discover: the list changes
// only with a deployment.
const ListTTL = 5 * time.Minute

// CallTimeout bounds a tool call outside Lambda, matching the deployed function timeout.
const CallTimeout = 90 * time.Second

// New builds the endpoint handler. cfgErr is the result of config.Load: with problems the
// endpoint still starts and answers every request with a -32603 naming the variables.
func New(cfg *config.Config, cfgErr error, logger *slog.Logger) http.Handler {
	srv := &protocol.Server{
		Info:                 protocol.ServerInfo{Name: Name, Title: "MindVault", Version: Version},
		Instructions:         Instructions,
		Tools:                tools.All(cfg),
		MaxBodyBytes:         cfg.MaxBodyBytes,
		AllowedOrigins:       cfg.AllowedOrigins,
		AllowLoopbackOrigins: !cfg.Lambda,
		Unavailable:          cfgErr,
		ListTTL:              ListTTL,
		CallTimeout:          CallTimeout,
		Logger:               logger,
	}
	return srv
}
