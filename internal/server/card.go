package server

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"sync"

	"github.com/mindvault/mcp-endpoint/internal/auth"
	"github.com/mindvault/mcp-endpoint/internal/config"
	"github.com/mindvault/mcp-endpoint/internal/mcp"
	"github.com/mindvault/mcp-endpoint/internal/netaddr"
	"github.com/mindvault/mcp-endpoint/internal/redact/lazyre"
)

// The MCP Server Card (the server-card extension, SEP-2127; docs/protocol.md "Server card and server.json"):
// a public document that says what the endpoint is and how to connect to it, served by the
// endpoint itself before auth, so that registries and clients can read it without a token.
const (
	// CardPath is the streamable-HTTP URL plus /server-card, the location the extension reserves.
	CardPath = "/mcp/server-card"
	// CardMediaType is the card's media type.
	CardMediaType = "application/mcp-server-card+json"
	// CardSchema is the card's $schema, the extension's v1 URL.
	CardSchema = "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json"
	// RegistryName is the server's name in the MCP Registry (server.json) and in its card.
	RegistryName = "io.github.mindvault/mcp-endpoint"
	// Description is the one line the registry and the card show (at most 100 characters).
	Description = "MindVault marketplace: browse, buy and publish knowledge resources, paying USDC over x402 on Stellar"
	// CardTTL is how long a client or a CDN may keep the card: it changes only with a deployment.
	CardTTL = "public, max-age=3600"
)

// cardTool is what the card says of a served tool: its tools/list entry without the schemas.
type cardTool struct {
	Name        string          `json:"name"`
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description"`
	Annotations json.RawMessage `json:"annotations"`
}

// hostRE is a Host header the card may repeat as the remote's host.
var hostRE = lazyre.New(`^[A-Za-z0-9.-]{1,253}(:[0-9]{1,5})?$`)

// withCard serves the card at CardPath and hands every other request to next. The tools are
// those srv offers, read from the generated definitions on the first card request, never at start.
func withCard(cfg *config.Config, srv *mcp.Server, next http.Handler) http.Handler {
	tools := sync.OnceValue(func() []cardTool {
		probe, _ := http.NewRequest(http.MethodPost, "/mcp", nil)
		var out []cardTool
		for _, raw := range srv.Tools.Definitions() {
			var t cardTool
			if json.Unmarshal(raw, &t) == nil && srv.Offers(probe, t.Name) {
				out = append(out, t)
			}
		}
		return out
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != CardPath {
			next.ServeHTTP(w, r)
			return
		}
		h := w.Header()
		// Public metadata, read-only: any origin may read it (the extension requires CORS).
		h.Set("Access-Control-Allow-Origin", "*")
		h.Set("Access-Control-Allow-Methods", "GET, HEAD")
		h.Set("Access-Control-Allow-Headers", "Content-Type, If-None-Match")
		h.Set("Access-Control-Expose-Headers", "ETag")
		switch r.Method {
		case http.MethodGet, http.MethodHead:
		case http.MethodOptions:
			w.WriteHeader(http.StatusNoContent)
			return
		default:
			h.Set("Allow", "GET, HEAD, OPTIONS")
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		body := cardBody(cfg, tools(), r)
		sum := sha256.Sum256(body)
		etag := `"` + base64.RawURLEncoding.EncodeToString(sum[:18]) + `"`
		h.Set("Cache-Control", CardTTL)
		h.Set("ETag", etag)
		h.Set("Vary", "Host")
		if strings.Contains(r.Header.Get("If-None-Match"), etag) {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		h.Set("Content-Type", CardMediaType)
		h.Set("X-Content-Type-Options", "nosniff")
		w.WriteHeader(http.StatusOK)
		if r.Method == http.MethodGet {
			_, _ = w.Write(body)
		}
	})
}

// cardBody is the card for a request r: the remote is MINDVAULT_RESOURCE_URL when set, else this
// host's /mcp (http only on loopback), else a template. Nothing in it is secret.
func cardBody(cfg *config.Config, tools []cardTool, r *http.Request) []byte {
	remote := map[string]any{"type": "streamable-http", "supportedProtocolVersions": mcp.SupportedVersions}
	switch host := r.Host; {
	case cfg.ResourceURL != "":
		remote["url"] = cfg.ResourceURL
	case hostRE.MatchString(host) && netaddr.LoopbackHTTP("http://"+host):
		remote["url"] = "http://" + host + "/mcp"
	case hostRE.MatchString(host):
		remote["url"] = "https://" + host + "/mcp"
	default:
		remote["url"] = "https://{host}/mcp"
		remote["variables"] = map[string]any{"host": map[string]any{"description": "The deployment's host name (its Lambda Function URL host).", "isRequired": true}}
	}
	authMeta := map[string]any{"mode": cfg.Auth}
	if cfg.Auth != auth.ModeNone {
		remote["headers"] = []any{map[string]any{
			"name": "Authorization", "description": "Bearer access token issued by the deployment's operator (or its OAuth issuer).",
			"isRequired": true, "isSecret": true, "value": "Bearer {token}",
			"variables": map[string]any{"token": map[string]any{"description": "The access token.", "isRequired": true, "isSecret": true}},
		}}
	}
	// Strings, booleans and raw JSON decoded from the generated definitions: it cannot fail.
	b, _ := json.Marshal(map[string]any{
		"$schema": CardSchema, "name": RegistryName, "title": "MindVault", "version": Version, "description": Description,
		"remotes": []any{remote},
		"_meta":   map[string]any{"io.github.mindvault/tools": tools, "io.github.mindvault/auth": authMeta},
	})
	return append(b, '\n')
}
