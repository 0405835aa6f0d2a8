// Package config parses the endpoint's environment once per process into one typed value. It
// collects every problem by variable name, so an operator fixes a bad deployment in one pass, and
// still returns the configuration: the endpoint keeps serving and answers each request with a
// JSON-RPC -32603 naming the variables, instead of crash-looping the Lambda.
package config

import (
	"cmp"
	"fmt"
	"log/slog"
	"math"
	"math/big"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mindvault/mcp-endpoint/internal/netaddr"
	"github.com/mindvault/mcp-endpoint/internal/redact/lazyre"
)

// Config is the whole runtime configuration of one process. A field is the variable named
// beside it (or read in Load), as docs/operations.md "Configuration" documents it.
type Config struct {
	Network          Network
	Preset           Preset // the unmodified preset of Network, to report overrides
	X402Network      string
	Passphrase       string
	MindVaultURL     string
	HorizonURL       string
	RPCURL           string
	SponsorURL       string
	RegistryContract string
	USDCContractID   string
	USDCIssuer       string
	ExplorerTxURL    string

	AllowMainnet    bool
	MaxAutoPayUSDC  string // decimal string, 7 places at most
	MaxTxFeeStroops int64  // MINDVAULT_MAX_TX_FEE_STROOPS: a higher fee is refused unsigned
	MaxInlineBytes  int    // MINDVAULT_MAX_INLINE_BYTES: a file known larger is refused before paying

	BudgetUSDC       string        // MINDVAULT_BUDGET_USDC, per wallet and UTC day; "" is none
	BudgetCallerUSDC string        // MINDVAULT_BUDGET_CALLER_USDC, per caller across wallets; "" is none
	Ledger           string        // MINDVAULT_LEDGER: "memory" or "dynamodb:<table>"
	LedgerEndpoint   string        // MINDVAULT_LEDGER_ENDPOINT, a DynamoDB-compatible URL for tests
	LedgerTimeout    time.Duration // MINDVAULT_LEDGER_TIMEOUT_MS
	ReceiptDays      int           // MINDVAULT_RECEIPT_DAYS
	// No tool argument widens the operator's lists.
	PayeesAllowed   []string      // MINDVAULT_PAYEES_ALLOWED; empty allows every payee
	PayeesDenied    []string      // MINDVAULT_PAYEES_DENIED
	ResourcesDenied []string      // MINDVAULT_RESOURCES_DENIED
	PauseFile       string        // MINDVAULT_PAUSE_FILE, the spending switch with the memory ledger
	PauseCache      time.Duration // MINDVAULT_PAUSE_CACHE_MS

	HTTPTimeout    time.Duration
	HorizonTimeout time.Duration
	RPCTimeout     time.Duration
	PaymentTimeout time.Duration
	WriteWait      time.Duration // MINDVAULT_WRITE_WAIT_MS, for a sent write's confirmation
	WritePoll      time.Duration // MINDVAULT_WRITE_POLL_MS

	RetryAttempts  int
	RetryBaseDelay time.Duration
	RetryMaxDelay  time.Duration

	Credentials    string
	DefaultProfile string

	Auth                 string // "none", "tokens" or "oauth"
	AccessTokens         string // raw list; parsed by the auth layer
	AccessTokensSecret   string
	ResourceURL          string
	AuthorizationServers []string

	// OAuth resource-server mode (Auth "oauth"); read only in that mode.
	OAuthIssuer        string // exact issuer identifier, trailing slash kept
	OAuthAudience      string // MINDVAULT_OAUTH_AUDIENCE, else ResourceURL
	OAuthProfilesClaim string
	OAuthScopePrefix   string

	Toolsets   []string // MINDVAULT_TOOLSETS, in Toolsets order; nil serves every toolset
	ReadOnly   bool     // MINDVAULT_READ_ONLY
	FundingURL string   // MINDVAULT_FUNDING_URL, a template FundingLink fills in; "" is none

	AllowedOrigins []string
	MaxBodyBytes   int64
	Addr           string
	LogLevel       slog.Level
	Lambda         bool // the process runs under the Lambda runtime API
}

// Problem is one bad or inconsistent variable.
type Problem struct {
	Var    string
	Reason string
}

// Problems is every problem found while loading; it is an error.
type Problems []Problem

func (p Problems) Error() string {
	parts := make([]string, len(p))
	for i, pr := range p {
		parts[i] = pr.Var + ": " + pr.Reason
	}
	return "invalid configuration: " + strings.Join(parts, "; ")
}

// Override is a configured value that differs from the network preset.
type Override struct {
	Var    string `json:"variable"`
	Preset string `json:"preset"`
	Value  string `json:"value"`
}

// Defaults documented in docs/operations.md "Configuration".
const (
	DefaultMaxAutoPayUSDC = "10"
	DefaultMaxBodyBytes   = 1 << 20
	DefaultAddr           = "127.0.0.1:8080"
	DefaultProfile        = "default"
	// DefaultMaxTxFeeStroops is 1 XLM: far above any registration's real fee (100 stroops plus
	// a resource fee of well under 0.1 XLM), far below what a hostile fee could drain.
	DefaultMaxTxFeeStroops = 10000000
	// DefaultMaxInlineBytes is 3 MiB: its base64 (4 MiB) plus the rest of the answer stays
	// inside Lambda's 6 MB buffered response.
	DefaultMaxInlineBytes = 3 << 20
	// MaxInlineBytesLimit is the highest accepted MINDVAULT_MAX_INLINE_BYTES: 4 MiB becomes
	// 5.6 MB of base64, the most that still fits Lambda's 6 MB with room for the rest.
	MaxInlineBytesLimit = 4 << 20
)

var (
	usdcAmount   = lazyre.New(`^\d+(\.\d{1,7})?$`)
	ledgerSpec   = lazyre.New(`^dynamodb:[A-Za-z0-9_.-]{3,255}$`) // MINDVAULT_LEDGER's DynamoDB form
	profileName  = lazyre.New(`^[A-Za-z0-9._-]{1,64}$`)
	hasAlnum     = lazyre.New(`[A-Za-z0-9]`)
	contractID   = lazyre.New(`^C[A-Z2-7]{55}$`)
	accountID    = lazyre.New(`^G[A-Z2-7]{55}$`)
	x402Networks = lazyre.New(`^stellar:[a-z0-9-]+$`)
)

// LocalNetwork is a network a local build brings (the offline sandbox), with its preset.
type LocalNetwork struct {
	Name   Network
	Preset Preset
}

// Load reads the configuration through getenv; lambda says whether the process runs under the
// Lambda runtime, which changes defaults. STELLAR_NETWORK may name one of the local networks
// a build brings, whose preset then applies, but never under Lambda: a deployed function must
// not point at a network no operator can see.
func Load(getenv func(string) string, lambda bool, local ...LocalNetwork) (*Config, error) {
	l := loader{getenv: getenv}
	c := &Config{Lambda: lambda}

	c.Network = l.network(local, lambda)
	c.Preset = presets[c.Network]
	if i := slices.IndexFunc(local, func(n LocalNetwork) bool { return n.Name == c.Network }); i >= 0 {
		c.Preset = local[i].Preset
	}
	c.X402Network = l.str("X402_NETWORK", c.Preset.X402Network)
	c.Passphrase = c.Preset.Passphrase
	c.MindVaultURL = l.url("MINDVAULT_URL", c.Preset.MindVaultURL)
	c.HorizonURL = l.url("HORIZON_URL", c.Preset.HorizonURL)
	c.RPCURL = l.url("SOROBAN_RPC_URL", c.Preset.RPCURL)
	c.SponsorURL = l.url("SPONSORED_ACCOUNT_URL", c.Preset.SponsorURL)
	c.RegistryContract = l.match("VAULT_REGISTRY_CONTRACT_ID", c.Preset.RegistryContract, contractID, "a contract id (C followed by 55 base32 characters)")
	c.USDCContractID = l.match("USDC_CONTRACT_ID", c.Preset.USDCContractID, contractID, "a contract id (C followed by 55 base32 characters)")
	c.USDCIssuer = l.match("USDC_ISSUER", c.Preset.USDCIssuer, accountID, "an account id (G followed by 55 base32 characters)")
	c.ExplorerTxURL = c.Preset.ExplorerTxURL
	// A preset's own value needs no check (nor a pattern compiled at every start).
	if c.X402Network != "" && c.X402Network != c.Preset.X402Network && !x402Networks.MatchString(c.X402Network) {
		l.bad("X402_NETWORK", "must look like stellar:testnet or stellar:pubnet")
	}

	c.AllowMainnet = l.boolean("MINDVAULT_ALLOW_MAINNET", false)
	c.MaxAutoPayUSDC = l.usdc("MINDVAULT_MAX_AUTO_PAY_USDC", DefaultMaxAutoPayUSDC, "")

	// A transaction fee is a uint32 in stroops; at least the 100-stroop base fee.
	c.MaxTxFeeStroops = int64(l.integer("MINDVAULT_MAX_TX_FEE_STROOPS", DefaultMaxTxFeeStroops, 100, math.MaxUint32))
	c.MaxInlineBytes = l.integer("MINDVAULT_MAX_INLINE_BYTES", DefaultMaxInlineBytes, 1, MaxInlineBytesLimit)

	c.FundingURL = l.fundingURL()

	c.BudgetUSDC = l.usdc("MINDVAULT_BUDGET_USDC", "", " (unset it for no budget)")
	c.BudgetCallerUSDC = l.usdc("MINDVAULT_BUDGET_CALLER_USDC", "", " (unset it for no budget)")
	c.Ledger = l.str("MINDVAULT_LEDGER", "memory")
	if c.Ledger != "memory" && !ledgerSpec.MatchString(c.Ledger) {
		l.bad("MINDVAULT_LEDGER", "must be memory or dynamodb:<table> (a DynamoDB table name: 3-255 of A-Z a-z 0-9 _ - .)")
	}
	c.LedgerEndpoint = l.url("MINDVAULT_LEDGER_ENDPOINT", "")
	c.LedgerTimeout = l.millis("MINDVAULT_LEDGER_TIMEOUT_MS", 2000, 1)
	c.ReceiptDays = l.integer("MINDVAULT_RECEIPT_DAYS", 90, 1, 3650)
	c.PayeesAllowed = l.accounts("MINDVAULT_PAYEES_ALLOWED")
	c.PayeesDenied = l.accounts("MINDVAULT_PAYEES_DENIED")
	c.ResourcesDenied = l.list("MINDVAULT_RESOURCES_DENIED")
	c.PauseFile = l.str("MINDVAULT_PAUSE_FILE", DefaultPauseFile())
	c.PauseCache = time.Duration(l.integer("MINDVAULT_PAUSE_CACHE_MS", DefaultPauseCacheMs, 0, 60000)) * time.Millisecond

	c.HTTPTimeout = l.millis("MINDVAULT_HTTP_TIMEOUT_MS", 15000, 1)
	c.HorizonTimeout = l.millis("MINDVAULT_HORIZON_TIMEOUT_MS", 15000, 1)
	c.RPCTimeout = l.millis("MINDVAULT_RPC_TIMEOUT_MS", 20000, 1)
	c.PaymentTimeout = l.millis("MINDVAULT_PAYMENT_TIMEOUT_MS", 45000, 1)
	c.WriteWait = l.millis("MINDVAULT_WRITE_WAIT_MS", 20000, 1)
	c.WritePoll = l.millis("MINDVAULT_WRITE_POLL_MS", 1000, 10)
	c.RetryAttempts = l.integer("MINDVAULT_RETRY_ATTEMPTS", 3, 1, 10)
	c.RetryBaseDelay = l.millis("MINDVAULT_RETRY_BASE_DELAY_MS", 250, 0)
	c.RetryMaxDelay = l.millis("MINDVAULT_RETRY_MAX_DELAY_MS", 4000, 0)

	c.Credentials = l.str("MINDVAULT_CREDENTIALS", "env")
	if kind, name, _ := strings.Cut(c.Credentials, ":"); c.Credentials != "env" && (name == "" || kind != "dir" && kind != "secretsmanager") {
		l.bad("MINDVAULT_CREDENTIALS", "must be env, dir:<path> or secretsmanager:<name prefix>")
	}
	c.DefaultProfile = parse(&l, "MINDVAULT_DEFAULT_PROFILE", DefaultProfile, "1-64 characters of A-Z a-z 0-9 . _ - with at least one letter or digit",
		func(s string) (string, bool) { return s, profileName.MatchString(s) && hasAlnum.MatchString(s) })

	// Off Lambda an unset mode is "none"; a mode nobody can read must not fall back to it (the
	// endpoint would run open): tokens it is, and the problem is reported.
	authDefault := "none"
	if _, set := l.raw("MINDVAULT_AUTH"); set || lambda {
		authDefault = "tokens"
	}
	modes := []string{"none", "tokens", "oauth"}
	c.Auth = parse(&l, "MINDVAULT_AUTH", authDefault, "one of "+strings.Join(modes, ", "), func(s string) (string, bool) {
		i := slices.IndexFunc(modes, func(m string) bool { return strings.EqualFold(s, m) })
		return modes[max(i, 0)], i >= 0
	})
	c.AccessTokens = l.str("MINDVAULT_ACCESS_TOKENS", "")
	c.AccessTokensSecret = l.str("MINDVAULT_ACCESS_TOKENS_SECRET", "")
	c.ResourceURL = l.url("MINDVAULT_RESOURCE_URL", "")
	c.AuthorizationServers = l.list("MINDVAULT_AUTHORIZATION_SERVERS")
	if slices.ContainsFunc(c.AuthorizationServers, func(s string) bool { return !httpURL(s) }) {
		l.bad("MINDVAULT_AUTHORIZATION_SERVERS", "every entry must be an absolute http(s) URL")
		c.AuthorizationServers = nil
	}
	if c.Auth == "oauth" {
		c.loadOAuth(&l)
	}
	// A toolset list that does not parse is a problem, never a fallback to every toolset: an
	// operator narrowing the surface never gets all of it.
	if raw, ok := l.raw("MINDVAULT_TOOLSETS"); ok {
		var err error
		if c.Toolsets, err = ParseToolsets(raw); err != nil {
			l.bad("MINDVAULT_TOOLSETS", err.Error())
			c.Toolsets = []string{} // nothing rather than everything; the problem is reported anyway
		}
	}
	c.ReadOnly = l.boolean("MINDVAULT_READ_ONLY", false)
	c.AllowedOrigins = l.list("MINDVAULT_ALLOWED_ORIGINS")
	c.MaxBodyBytes = int64(l.integer("MINDVAULT_MAX_BODY_BYTES", DefaultMaxBodyBytes, 1024, 64<<20))
	c.Addr = l.str("MINDVAULT_ADDR", DefaultAddr)
	c.LogLevel = l.level()

	if c.Network == Mainnet {
		// Mainnet has no public RPC or registry: a silent fallback to testnet values would
		// send real money to the wrong place, so both are required.
		if c.RPCURL == "" {
			l.bad("SOROBAN_RPC_URL", "is required on mainnet (there is no public Stellar RPC preset)")
		}
		if c.RegistryContract == "" {
			l.bad("VAULT_REGISTRY_CONTRACT_ID", "is required on mainnet (there is no mainnet registry preset)")
		}
		if c.X402Network == "stellar:testnet" {
			l.bad("X402_NETWORK", "is stellar:testnet but STELLAR_NETWORK is mainnet")
		}
	}
	if len(l.problems) > 0 {
		return c, l.problems
	}
	return c, nil
}

// Overrides lists the configured values that differ from the network preset.
func (c *Config) Overrides() []Override {
	return slices.DeleteFunc([]Override{
		{"X402_NETWORK", c.Preset.X402Network, c.X402Network},
		{"MINDVAULT_URL", c.Preset.MindVaultURL, c.MindVaultURL},
		{"HORIZON_URL", c.Preset.HorizonURL, c.HorizonURL},
		{"SOROBAN_RPC_URL", c.Preset.RPCURL, c.RPCURL},
		{"SPONSORED_ACCOUNT_URL", c.Preset.SponsorURL, c.SponsorURL},
		{"VAULT_REGISTRY_CONTRACT_ID", c.Preset.RegistryContract, c.RegistryContract},
		{"USDC_CONTRACT_ID", c.Preset.USDCContractID, c.USDCContractID},
		{"USDC_ISSUER", c.Preset.USDCIssuer, c.USDCIssuer},
	}, func(o Override) bool { return o.Value == o.Preset })
}

// ExplorerURL is the block-explorer page of a transaction, or "" when the network has none.
func (c *Config) ExplorerURL(hash string) string {
	if c.ExplorerTxURL == "" || hash == "" {
		return ""
	}
	return c.ExplorerTxURL + hash
}

// DefaultOAuthProfilesClaim is the access-token claim that lists the caller's profiles.
const DefaultOAuthProfilesClaim = "mindvault_profiles"

// scopeToken is RFC 6749's scope-token alphabet: no space, double quote or backslash (the
// prefix is also written inside a quoted WWW-Authenticate parameter).
var scopeToken = lazyre.New(`^[\x21\x23-\x5B\x5D-\x7E]{1,256}$`)

// loadOAuth reads the OAuth resource-server settings. The issuer is kept exactly as written
// (a trailing slash included): it is compared byte for byte with the tokens' iss claim.
func (c *Config) loadOAuth(l *loader) {
	if _, ok := l.raw("MINDVAULT_OAUTH_ISSUER"); !ok {
		l.bad("MINDVAULT_OAUTH_ISSUER", "is required when MINDVAULT_AUTH=oauth (the authorization server's issuer URL)")
	}
	c.OAuthIssuer = parse(l, "MINDVAULT_OAUTH_ISSUER", "", "an https URL without query or fragment (http only on a loopback host, for tests and local development)",
		func(s string) (string, bool) { return s, netaddr.Issuer(s) })
	c.OAuthAudience = l.str("MINDVAULT_OAUTH_AUDIENCE", c.ResourceURL)
	switch {
	case c.OAuthAudience == "":
		l.bad("MINDVAULT_OAUTH_AUDIENCE", "is required when MINDVAULT_AUTH=oauth, unless MINDVAULT_RESOURCE_URL (its default) is set")
	case len(c.OAuthAudience) > 512 || strings.ContainsAny(c.OAuthAudience, " \t\r\n"):
		l.bad("MINDVAULT_OAUTH_AUDIENCE", "must be one value of at most 512 characters without spaces")
		c.OAuthAudience = ""
	}
	c.OAuthProfilesClaim = parse(l, "MINDVAULT_OAUTH_PROFILES_CLAIM", DefaultOAuthProfilesClaim, "a claim name of at most 128 characters without spaces",
		func(s string) (string, bool) { return s, len(s) <= 128 && !strings.ContainsAny(s, " \t\r\n") })
	c.OAuthScopePrefix = l.match("MINDVAULT_OAUTH_SCOPE_PREFIX", "", scopeToken, "at most 256 printable characters without spaces, quotes or backslashes")
	// The metadata tells clients where to get tokens; in this mode only the issuer's are
	// accepted, so listing another server would send clients for tokens that never work.
	if len(c.AuthorizationServers) > 0 && (len(c.AuthorizationServers) != 1 || c.AuthorizationServers[0] != c.OAuthIssuer) {
		l.bad("MINDVAULT_AUTHORIZATION_SERVERS", "must be unset (or the issuer alone) when MINDVAULT_AUTH=oauth: the metadata lists MINDVAULT_OAUTH_ISSUER")
	}
	for _, v := range []string{"MINDVAULT_ACCESS_TOKENS", "MINDVAULT_ACCESS_TOKENS_SECRET"} {
		if _, set := l.raw(v); set {
			l.bad(v, "must be unset when MINDVAULT_AUTH=oauth, which accepts only the issuer's access tokens")
		}
	}
}

type loader struct {
	getenv   func(string) string
	problems Problems
}

func (l *loader) bad(v, reason string) {
	l.problems = append(l.problems, Problem{Var: v, Reason: reason})
}

func (l *loader) raw(v string) (string, bool) {
	s := strings.TrimSpace(l.getenv(v))
	return s, s != ""
}

func (l *loader) str(v, def string) string {
	s, _ := l.raw(v)
	return cmp.Or(s, def)
}

// network reads STELLAR_NETWORK: a public network, or one of the local build's own off Lambda.
func (l *loader) network(local []LocalNetwork, lambda bool) Network {
	s, _ := l.raw("STELLAR_NETWORK")
	n := Network(strings.ToLower(s))
	isLocal := slices.ContainsFunc(local, func(ln LocalNetwork) bool { return ln.Name == n })
	switch {
	case n == "" || n == Testnet:
		return Testnet
	case n == Mainnet || n == "pubnet" || n == "public":
		return Mainnet
	case isLocal && !lambda:
		return n
	case isLocal:
		l.bad("STELLAR_NETWORK", fmt.Sprintf("%q is a network of the local build only; under Lambda it must be testnet or mainnet", n))
	case len(local) == 0 || lambda:
		l.bad("STELLAR_NETWORK", fmt.Sprintf("must be testnet or mainnet (pubnet, public); got %q (the offline sandbox is in the local build only: make run)", bounded(s)))
	default:
		names := []string{"testnet", "mainnet (pubnet, public)"}
		for _, ln := range local {
			names = append(names, string(ln.Name))
		}
		l.bad("STELLAR_NETWORK", fmt.Sprintf("must be one of %s; got %q", strings.Join(names, ", "), bounded(s)))
	}
	return Testnet
}

// parse reads v through conv: unset is def, and a value conv refuses is the problem "must be "+must.
func parse[T any](l *loader, v string, def T, must string, conv func(string) (T, bool)) T {
	s, ok := l.raw(v)
	if !ok {
		return def
	}
	if t, ok := conv(s); ok {
		return t
	}
	l.bad(v, "must be "+must)
	return def
}

func (l *loader) url(v, def string) string {
	return parse(l, v, def, "an absolute http(s) URL", func(s string) (string, bool) { return strings.TrimRight(s, "/"), httpURL(s) })
}

func httpURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

func (l *loader) list(v string) []string {
	s, _ := l.raw(v)
	var out []string
	for _, part := range strings.Split(s, ",") {
		if p := strings.TrimSpace(part); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// accounts is a list of Stellar account ids (G…); one that is not is a problem naming v.
func (l *loader) accounts(v string) []string {
	out := l.list(v)
	if i := slices.IndexFunc(out, func(a string) bool { return !accountID.MatchString(a) }); i >= 0 {
		l.bad(v, fmt.Sprintf("every entry must be an account id (G followed by 55 base32 characters); %q is not", bounded(out[i])))
		return nil
	}
	return out
}

// DefaultPauseCacheMs is how long an instance trusts the spending switch it read: a pause
// reaches every instance within it.
const DefaultPauseCacheMs = 3000

// DefaultPauseFile is the pause file of a local deployment: under the user's configuration
// folder, next to the profiles ("" when the OS names none).
func DefaultPauseFile() string {
	dir, err := os.UserConfigDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "mindvault", "spending-pause.json")
}

func (l *loader) match(v, def string, re *lazyre.Regexp, what string) string {
	return parse(l, v, def, what, func(s string) (string, bool) { return s, re.MatchString(s) })
}

// usdc reads a USDC amount greater than 0; hint follows the problem of a zero.
func (l *loader) usdc(v, def, hint string) string {
	s := l.match(v, def, usdcAmount, "a decimal USDC amount with at most 7 decimal places")
	if r, ok := new(big.Rat).SetString(s); ok && r.Sign() == 0 {
		l.bad(v, "must be greater than 0"+hint)
	}
	return s
}

func (l *loader) boolean(v string, def bool) bool {
	return parse(l, v, def, "true or false", ParseBool)
}

// ParseBool reads a switch as settings and headers spell it: 1, true, yes or on; 0, false, no or
// off; in any case. ok is false for anything else.
func ParseBool(s string) (v, ok bool) {
	switch strings.ToLower(s) {
	case "1", "true", "yes", "on":
		return true, true
	case "0", "false", "no", "off":
		return false, true
	}
	return false, false
}

func (l *loader) integer(v string, def, lo, hi int) int {
	return parse(l, v, def, fmt.Sprintf("a whole number from %d to %d", lo, hi), func(s string) (int, bool) {
		n, err := strconv.Atoi(s)
		return n, err == nil && n >= lo && n <= hi
	})
}

func (l *loader) millis(v string, def, lo int) time.Duration {
	return time.Duration(l.integer(v, def, lo, 15*60*1000)) * time.Millisecond
}

func (l *loader) level() (lv slog.Level) {
	s := cmp.Or(l.str("LOG_LEVEL", ""), l.str("AWS_LAMBDA_LOG_LEVEL", "info"))
	if err := lv.UnmarshalText([]byte(strings.ToUpper(s))); err != nil {
		l.bad("LOG_LEVEL", "must be debug, info, warn or error")
		return slog.LevelInfo
	}
	return lv
}

// bounded keeps an echoed configuration value short in reports.
func bounded(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// EnvFundingURL is the page that lets a user add USDC to a wallet (a faucet, an exchange, an
// on-ramp): a URL template whose {address} and {network} the endpoint fills in.
const EnvFundingURL = "MINDVAULT_FUNDING_URL"

// fundingURL reads MINDVAULT_FUNDING_URL: https, or http on a loopback host, with no
// placeholder but {address} and {network} and no user info (it is shown to users, and a
// credential in it would be shown too).
func (l *loader) fundingURL() string {
	s, ok := l.raw(EnvFundingURL)
	if !ok {
		return ""
	}
	filled := strings.NewReplacer("{address}", "G", "{network}", "testnet").Replace(s)
	if strings.ContainsAny(filled, "{}") {
		l.bad(EnvFundingURL, "may hold only the placeholders {address} and {network}")
		return ""
	}
	u, err := url.Parse(filled)
	if err != nil || strings.ContainsAny(filled, " \t\r\n") || u.Host == "" || u.User != nil || len(s) > 1024 ||
		(u.Scheme != "https" && !(u.Scheme == "http" && netaddr.LoopbackHost(u.Hostname()))) {
		l.bad(EnvFundingURL, "must be an https URL (http only on a loopback host) of at most 1024 characters, without user info")
		return ""
	}
	return s
}

// FundingLink is the funding page for a wallet address on this network, or "" when none is
// configured. Both values are escaped, so neither can change the URL's shape.
func (c *Config) FundingLink(address string) string {
	if c.FundingURL == "" {
		return ""
	}
	return strings.NewReplacer("{address}", url.QueryEscape(address), "{network}", url.QueryEscape(string(c.Network))).Replace(c.FundingURL)
}
