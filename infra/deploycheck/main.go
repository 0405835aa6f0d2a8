// Command deploycheck checks a deployed MindVault MCP endpoint the way a client sees it
// (`make deploy-check URL=https://…/mcp TOKEN=…`; docs/deploy.md "7. Check the endpoint"): a
// request without a token is refused, discovery, the tool list and the free tools answer, and a
// purchase dry-runs. It prints ✓ or ✗ per check with a hint under each ✗ and exits 1 when a check
// failed, 2 on a usage error. The bearer token comes from TOKEN, never from a flag, which other
// users of the machine could read in the process list.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/mindvault/mcp-endpoint/errmap"
)

// Revisions this client speaks: the stateless modern one first, the legacy one as a fallback
// for endpoints that predate it.
const (
	modernVersion = "2026-07-28"
	legacyVersion = "2025-11-25"
)

// Options is one run's settings.
type Options struct {
	URL      string // the MCP URL, ending in /mcp (the stack's McpUrl output)
	Token    string // bearer token; "" sends none
	Profile  string // profile the wallet checks use; "" is the endpoint's default profile
	Resource string // resource the dry run buys; "" picks the cheapest one browse lists
	Timeout  time.Duration
}

func main() {
	var o Options
	flag.StringVar(&o.URL, "url", "", "the endpoint's MCP URL, e.g. https://<id>.lambda-url.<region>.on.aws/mcp (the McpUrl output)")
	flag.StringVar(&o.Profile, "profile", "", "profile for the wallet checks and the dry-run buy (default: the endpoint's default profile)")
	flag.StringVar(&o.Resource, "resource", "", "resource id for the dry-run buy (default: the cheapest one mindvault_browse lists)")
	flag.DurationVar(&o.Timeout, "timeout", 100*time.Second, "deadline of each request (the function's timeout is 90 s)")
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), "usage: TOKEN=<bearer token> deploycheck -url https://…/mcp [-profile NAME] [-resource ID]")
		flag.PrintDefaults()
	}
	flag.Parse()
	o.Token = os.Getenv("TOKEN")
	if o.URL == "" || flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}
	if !Run(context.Background(), o, os.Stdout) {
		os.Exit(1)
	}
}

// checker runs the checks in order and remembers whether any failed.
type checker struct {
	o      Options
	out    io.Writer
	client *http.Client
	failed bool
	modern bool // the endpoint speaks 2026-07-28
	nextID int
}

func (c *checker) pass(name, detail string) {
	fmt.Fprintf(c.out, "✓ %s: %s\n", name, detail)
}

func (c *checker) fail(name, detail, hint string) {
	c.failed = true
	fmt.Fprintf(c.out, "✗ %s: %s\n", name, detail)
	if hint != "" {
		fmt.Fprintf(c.out, "    → %s\n", hint)
	}
}

func (c *checker) skip(name, why string) {
	fmt.Fprintf(c.out, "- %s: skipped (%s)\n", name, why)
}

// Run runs every check against o.URL, writing one line per check to out, and reports whether
// all passed.
func Run(ctx context.Context, o Options, out io.Writer) bool {
	if o.Timeout <= 0 {
		o.Timeout = 100 * time.Second
	}
	c := &checker{o: o, out: out, client: &http.Client{Timeout: o.Timeout,
		// A redirect would carry the token to wherever it points; the endpoint never redirects.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
	u, err := url.Parse(o.URL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		c.fail("url", fmt.Sprintf("%q is not an http(s) URL", o.URL), "pass the stack's McpUrl output: aws cloudformation describe-stacks --stack-name <stack> --query \"Stacks[0].Outputs[?OutputKey=='McpUrl'].OutputValue\" --output text")
		return false
	}
	if !strings.HasSuffix(u.Path, "/mcp") {
		c.fail("url", "the path is "+quotePath(u.Path)+", not /mcp", "the endpoint is POST <FunctionUrl>mcp: use the McpUrl output, which ends in /mcp")
		return false
	}
	if u.Scheme == "http" && !isLoopback(u.Hostname()) {
		c.fail("url", "plain http to "+u.Hostname(), "a Function URL is https; over http the token would travel in clear")
		return false
	}
	if !c.auth(ctx) || !c.discover(ctx) {
		return false
	}
	tools, ok := c.toolsList(ctx)
	if !ok {
		return false
	}
	c.networkProfile(ctx, tools)
	c.walletInfo(ctx, tools)
	c.health(ctx, tools)
	id := c.browse(ctx, tools)
	c.dryRunBuy(ctx, tools, id)
	if c.failed {
		fmt.Fprintln(out, "some checks failed: see the hints above (docs/deploy.md \"When a check fails\")")
	} else {
		fmt.Fprintln(out, "all checks passed")
	}
	return !c.failed
}

// auth checks that a request without a token is refused (when a token is given), so the
// endpoint is not open to anyone who learns its URL.
func (c *checker) auth(ctx context.Context) bool {
	const name = "auth"
	if c.o.Token == "" {
		c.skip(name, "no TOKEN given: the checks run unauthenticated")
		return true
	}
	r, err := c.post(ctx, "", c.discoverBody(), "server/discover", "")
	if err != nil {
		c.fail(name, err.Error(), reachHint(err))
		return false
	}
	switch r.status {
	case http.StatusUnauthorized:
		c.pass(name, "a request without a token is refused (401, "+orNone(r.header.Get("WWW-Authenticate"))+")")
	case http.StatusOK, http.StatusBadRequest, http.StatusNotFound:
		c.fail(name, fmt.Sprintf("a request without a token was answered (HTTP %d): anyone who finds the URL can use its wallets", r.status),
			"deploy with AuthMode=tokens (the default) or oauth; MINDVAULT_AUTH=none is for local runs only")
	default:
		c.fail(name, "a request without a token got "+r.summary(), statusHint(r))
		return false
	}
	return true
}

func (c *checker) discoverBody() map[string]any {
	return c.request("server/discover", map[string]any{"_meta": modernMeta()})
}

// discover asks server/discover on the modern revision, falling back to a legacy initialize
// when the endpoint does not serve it.
func (c *checker) discover(ctx context.Context) bool {
	r, err := c.post(ctx, c.o.Token, c.discoverBody(), "server/discover", "")
	if err != nil {
		c.fail("discover", err.Error(), reachHint(err))
		return false
	}
	if !c.authorised("discover", r) {
		return false
	}
	var res struct {
		SupportedVersions []string `json:"supportedVersions"`
		Meta              struct {
			Server struct {
				Name    string `json:"name"`
				Version string `json:"version"`
			} `json:"io.modelcontextprotocol/serverInfo"`
		} `json:"_meta"`
	}
	if r.rpcErr == nil && r.decode(&res) == nil && slices.Contains(res.SupportedVersions, modernVersion) {
		c.modern = true
		c.pass("discover", fmt.Sprintf("%s %s, revisions %s", res.Meta.Server.Name, res.Meta.Server.Version, strings.Join(res.SupportedVersions, ", ")))
		return true
	}
	if r.rpcErr != nil && r.rpcErr.Code == -32603 {
		c.fail("discover", "the endpoint reports a configuration problem: "+r.rpcErr.Message, configHint)
		return false
	}
	// No modern revision: the legacy handshake.
	init := c.request("initialize", map[string]any{"protocolVersion": legacyVersion, "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "mindvault-deploycheck", "version": "1"}})
	r, err = c.post(ctx, c.o.Token, init, "initialize", "")
	if err != nil {
		c.fail("discover", err.Error(), reachHint(err))
		return false
	}
	if !c.authorised("discover", r) {
		return false
	}
	var ir struct {
		ProtocolVersion string `json:"protocolVersion"`
		ServerInfo      struct {
			Name    string `json:"name"`
			Version string `json:"version"`
		} `json:"serverInfo"`
	}
	if r.rpcErr != nil || r.decode(&ir) != nil || ir.ProtocolVersion == "" {
		c.fail("discover", "neither server/discover nor initialize was answered: "+r.summary(), statusHint(r))
		return false
	}
	c.pass("discover", fmt.Sprintf("no server/discover; initialize answered %s %s on %s", ir.ServerInfo.Name, ir.ServerInfo.Version, ir.ProtocolVersion))
	return true
}

// authorised reports a 401/403 or a transport-level refusal as the failure of check name.
func (c *checker) authorised(name string, r *reply) bool {
	switch {
	case r.status == http.StatusUnauthorized && c.o.Token == "":
		c.fail(name, "401: the endpoint requires a bearer token", "pass one: make deploy-check URL=… TOKEN=<token> (docs/deploy.md step 1 makes it)")
	case r.status == http.StatusUnauthorized:
		c.fail(name, "401: the token was refused", "its SHA-256 must be in the token secret: compare `printf %s \"$TOKEN\" | sha256sum` with "+
			"`aws secretsmanager get-secret-value --secret-id mindvault/access-tokens --query SecretString --output text`; "+
			"a changed secret is read by new instances only (redeploy, or wait for the warm ones to retire); in oauth mode pass an access token of the issuer")
	case r.status == http.StatusForbidden:
		c.fail(name, "403: "+r.summary(), "an Origin header is refused unless listed in AllowedOrigins; in oauth mode the token lacks a scope (WWW-Authenticate names it)")
	case r.status >= 500 || (r.rpcErr == nil && r.result == nil):
		c.fail(name, r.summary(), statusHint(r))
	default:
		return true
	}
	return false
}

// toolsList lists the tools and returns their names.
func (c *checker) toolsList(ctx context.Context) (map[string]bool, bool) {
	var list struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	r, ok := c.rpc(ctx, "tools/list", "tools/list", "", nil)
	if !ok {
		return nil, false
	}
	if r.rpcErr != nil {
		c.fail("tools/list", rpcSummary(r.rpcErr), rpcHint(r.rpcErr))
		return nil, false
	}
	if err := r.decode(&list); err != nil || len(list.Tools) == 0 {
		c.fail("tools/list", "no tools in the answer", "MINDVAULT_TOOLSETS or MINDVAULT_READ_ONLY may leave nothing enabled; check the Toolsets and ReadOnly parameters")
		return nil, false
	}
	names := map[string]bool{}
	for _, t := range list.Tools {
		names[t.Name] = true
	}
	c.pass("tools/list", fmt.Sprintf("%d tools", len(names)))
	return names, true
}

// callResult is a decoded tools/call result.
type callResult struct {
	IsError    bool            `json:"isError"`
	Structured json.RawMessage `json:"structuredContent"`
	Content    []struct {
		Text string `json:"text"`
	} `json:"content"`
	Meta struct {
		Diag *struct {
			Code     string `json:"code"`
			Category string `json:"category"`
			Next     string `json:"next"`
		} `json:"io.mindvault/error"`
	} `json:"_meta"`
}

// call runs a tool; it reports transport and protocol failures itself and returns ok=false
// then. A tool error is returned for the caller to explain.
func (c *checker) call(ctx context.Context, check, tool string, args map[string]any) (*callResult, bool) {
	r, ok := c.rpc(ctx, check, "tools/call", tool, map[string]any{"name": tool, "arguments": args})
	if !ok {
		return nil, false
	}
	if r.rpcErr != nil {
		c.fail(check, rpcSummary(r.rpcErr), rpcHint(r.rpcErr))
		return nil, false
	}
	var res callResult
	if err := r.decode(&res); err != nil {
		c.fail(check, "the result is not a tool result: "+err.Error(), "")
		return nil, false
	}
	return &res, true
}

// tryTool calls tool for check when the endpoint offers it, and reports a skip, a failed call
// or a tool error itself; ok is true only for a successful result.
func (c *checker) tryTool(ctx context.Context, tools map[string]bool, check, tool string, args map[string]any) (*callResult, bool) {
	if !tools[tool] {
		c.skip(check, tool+" is not enabled here")
		return nil, false
	}
	res, ok := c.call(ctx, check, tool, args)
	if !ok {
		return nil, false
	}
	if res.IsError {
		c.toolFailed(check, res)
		return nil, false
	}
	return res, true
}

// toolFailed reports a tool error with its code and the endpoint's own next step, plus the
// operator's hint for the codes a fresh deployment meets.
func (c *checker) toolFailed(check string, res *callResult) {
	line := "tool error"
	if len(res.Content) > 0 {
		line = firstLine(res.Content[0].Text)
	}
	code, next := "", ""
	if d := res.Meta.Diag; d != nil {
		code, next = d.Code, d.Next
		line += " [" + d.Code + "]"
	}
	hint := codeHints[code]
	if hint == "" {
		hint = next
	}
	c.fail(check, line, hint)
}

// codeHints are the operator's next step for the failures a new deployment meets.
var codeHints = map[string]string{
	errmap.CodeCredentialsMissing:  "the profile has no wallet: call mindvault_setup_wallet with this profile (docs/deploy.md step 6), or create its secret <CredentialPrefix><profile> holding {\"secretKey\": \"S…\"}",
	errmap.CodeProfileNotAllowed:   "the token is not bound to this profile: pass -profile with one it is bound to (PROFILE= for make), or bind it in the token secret, <sha256>:<profile>[|<profile>…] (docs/deploy.md step 1); the default profile is the DefaultProfile parameter",
	errmap.CodeReadOnlyStore:       "the credential store is read-only (env): deploy with the template, whose store is secretsmanager:<CredentialPrefix>",
	errmap.CodeAccountMissing:      "the wallet's account does not exist on this network yet: fund it (docs/deploy.md step 6), or create the wallet with mindvault_setup_wallet",
	errmap.CodeTrustlineMissing:    "the wallet has no USDC trustline: add one (docs/deploy.md step 6), or use a wallet made by mindvault_setup_wallet, which has one",
	errmap.CodeInsufficientUSDC:    "the wallet holds less USDC than the price: get test USDC from https://faucet.circle.com (Stellar testnet) for the address mindvault_wallet_info shows (docs/deploy.md step 6)",
	errmap.CodeInsufficientBalance: "the wallet lacks XLM: on testnet fund it with friendbot (docs/deploy.md step 6)",
	errmap.CodeBudgetExceeded:      "today's budget is spent: raise BudgetUsdc / BudgetCallerUsdc, or wait for the reset at UTC midnight",
	errmap.CodePriceAboveCap:       "the cheapest resource costs more than MaxAutoPayUsdc: raise it, or pick one with -resource",
	errmap.CodeAlreadyPurchased:    "this wallet bought the resource already; the dry run passes allowRepeat, so this is unexpected: pick another with -resource",
	errmap.CodeMainnetNotConfirmed: "a dry-run buy needs no confirmMainnet; an endpoint that asks for it predates that rule",
	errmap.CodeSpendingPaused:      "spending is paused for the whole deployment: make spending-resume with MINDVAULT_LEDGER=dynamodb:<the stack's LedgerTable> (docs/deploy.md \"Pausing all spending\")",
	errmap.CodePayeeNotAllowed:     "the resource's publisher is outside the PayeesAllowed / PayeesDenied parameters: pick another resource with -resource, or change them",
	errmap.CodeResourceDenied:      "the resource is in the ResourcesDenied parameter: pick another with -resource",
}

func (c *checker) networkProfile(ctx context.Context, tools map[string]bool) {
	const name, tool = "network profile", "mindvault_network_profile"
	res, ok := c.tryTool(ctx, tools, name, tool, map[string]any{})
	if !ok {
		return
	}
	var p struct {
		Network         string   `json:"network"`
		CredentialStore string   `json:"credentialStore"`
		DefaultProfile  string   `json:"defaultProfile"`
		MaxAutoPay      string   `json:"maxAutoPayUsdc"`
		Budget          string   `json:"budgetUsdc"`
		Ledger          string   `json:"ledger"`
		Warnings        []string `json:"warnings"`
	}
	_ = json.Unmarshal(res.Structured, &p)
	detail := fmt.Sprintf("network %s, store %s, default profile %s, spend cap %s USDC", p.Network, p.CredentialStore, p.DefaultProfile, p.MaxAutoPay)
	if p.Budget != "" {
		detail += ", budget " + p.Budget + " USDC/day on " + p.Ledger
	}
	if len(p.Warnings) > 0 {
		detail += "; warnings: " + strings.Join(p.Warnings, "; ")
	}
	c.pass(name, detail)
}

func (c *checker) profileArgs() map[string]any {
	if c.o.Profile == "" {
		return map[string]any{}
	}
	return map[string]any{"profile": c.o.Profile}
}

func (c *checker) walletInfo(ctx context.Context, tools map[string]bool) {
	const name, tool = "wallet", "mindvault_wallet_info"
	res, ok := c.tryTool(ctx, tools, name, tool, c.profileArgs())
	if !ok {
		return
	}
	var w struct {
		Profile string `json:"profile"`
		Address string `json:"address"`
		USDC    struct {
			Balance string `json:"balance"`
			Status  string `json:"status"`
		} `json:"usdc"`
	}
	_ = json.Unmarshal(res.Structured, &w)
	detail := fmt.Sprintf("profile %s, %s, USDC %s (%s)", w.Profile, w.Address, orNone(w.USDC.Balance), w.USDC.Status)
	switch w.USDC.Status {
	case "missing":
		c.fail(name, detail, "the account does not exist on this network: fund "+w.Address+" with friendbot, add the USDC trustline (docs/deploy.md step 6)")
		return
	case "no_trustline":
		c.fail(name, detail, "add the USDC trustline to "+w.Address+" (docs/deploy.md step 6)")
		return
	case "zero":
		c.fail(name, detail, "fund "+w.Address+" with test USDC: https://faucet.circle.com, network Stellar testnet (docs/deploy.md step 6)")
		return
	}
	c.pass(name, detail)
}

func (c *checker) health(ctx context.Context, tools map[string]bool) {
	const name, tool = "health", "mindvault_health"
	res, ok := c.tryTool(ctx, tools, name, tool, map[string]any{})
	if !ok {
		return
	}
	var h struct {
		Healthy bool `json:"healthy"`
		Checks  []struct {
			Name   string `json:"name"`
			OK     bool   `json:"ok"`
			Detail string `json:"detail"`
		} `json:"checks"`
	}
	_ = json.Unmarshal(res.Structured, &h)
	var bad []string
	for _, ch := range h.Checks {
		if !ch.OK {
			bad = append(bad, ch.Name+": "+firstLine(ch.Detail))
		}
	}
	if !h.Healthy {
		c.fail(name, "unhealthy: "+strings.Join(bad, "; "), "a Configuration failure names the variable to fix; a downstream failure is usually transient (the testnet services sleep when idle): run the check again in a minute")
		return
	}
	c.pass(name, fmt.Sprintf("%d checks passed", len(h.Checks)))
}

// browse lists the cheapest resources and returns the id the dry run buys.
func (c *checker) browse(ctx context.Context, tools map[string]bool) string {
	const name, tool = "browse", "mindvault_browse"
	res, ok := c.tryTool(ctx, tools, name, tool, map[string]any{"sort": "price_asc", "limit": 5})
	if !ok {
		return c.o.Resource
	}
	var cat struct {
		Resources []struct {
			ID    string `json:"id"`
			Price string `json:"price"`
		} `json:"resources"`
	}
	_ = json.Unmarshal(res.Structured, &cat)
	if len(cat.Resources) == 0 {
		c.pass(name, "the catalog is empty")
		return c.o.Resource
	}
	c.pass(name, fmt.Sprintf("%d resources, the cheapest %s at %s USDC", len(cat.Resources), cat.Resources[0].ID, cat.Resources[0].Price))
	if c.o.Resource != "" {
		return c.o.Resource
	}
	return cat.Resources[0].ID
}

// dryRunBuy runs mindvault_buy with dryRun: price, wallet, balance, budget and network are
// checked as for a real purchase, and nothing is signed or sent.
func (c *checker) dryRunBuy(ctx context.Context, tools map[string]bool, id string) {
	const name, tool = "dry-run buy", "mindvault_buy"
	switch {
	case !tools[tool]:
		c.skip(name, tool+" is not enabled here (Toolsets without payments, or ReadOnly)")
		return
	case id == "":
		c.skip(name, "no resource to try: the catalog is empty; pass -resource ID")
		return
	}
	args := c.profileArgs()
	args["resourceId"] = id
	args["dryRun"] = true
	// A dry run is about this deployment's wallet, not about having bought the resource before.
	args["allowRepeat"] = true
	res, ok := c.call(ctx, name, tool, args)
	if !ok {
		return
	}
	if res.IsError {
		c.toolFailed(name, res)
		return
	}
	var b struct {
		DryRun  bool   `json:"dryRun"`
		Price   string `json:"priceUsdc"`
		Payer   string `json:"payer"`
		Balance string `json:"usdcBalance"`
		Network string `json:"network"`
	}
	_ = json.Unmarshal(res.Structured, &b)
	if !b.DryRun {
		c.fail(name, "the answer is not a dry run", "this endpoint ignored dryRun: do not repeat the check, and look at the wallet's history with mindvault_purchase_history")
		return
	}
	c.pass(name, fmt.Sprintf("would pay %s USDC for %s from %s on %s (balance %s); nothing was sent", b.Price, id, b.Payer, b.Network, b.Balance))
}

// request is a JSON-RPC request object with the next id.
func (c *checker) request(method string, params map[string]any) map[string]any {
	c.nextID++
	m := map[string]any{"jsonrpc": "2.0", "id": c.nextID, "method": method}
	if params != nil {
		m["params"] = params
	}
	return m
}

func modernMeta() map[string]any {
	return map[string]any{"io.modelcontextprotocol/protocolVersion": modernVersion, "io.modelcontextprotocol/clientCapabilities": map[string]any{}}
}

// rpc sends method on the era discover found, with the token; ok=false when the failure was
// reported (transport, auth, HTTP).
func (c *checker) rpc(ctx context.Context, check, method, name string, params map[string]any) (*reply, bool) {
	if params == nil {
		params = map[string]any{}
	}
	if c.modern {
		params["_meta"] = modernMeta()
	}
	r, err := c.post(ctx, c.o.Token, c.request(method, params), method, name)
	if err != nil {
		c.fail(check, err.Error(), reachHint(err))
		return nil, false
	}
	return r, c.authorised(check, r)
}

// reply is one HTTP answer, decoded as far as it is JSON-RPC.
type reply struct {
	status int
	header http.Header
	body   []byte
	result json.RawMessage
	rpcErr *rpcError
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    struct {
		Code string `json:"code"`
	} `json:"data"`
}

func (r *reply) decode(v any) error {
	if r.result == nil {
		return errors.New("no result")
	}
	return json.Unmarshal(r.result, v)
}

func (r *reply) summary() string {
	if r.rpcErr != nil {
		return fmt.Sprintf("HTTP %d, %s", r.status, rpcSummary(r.rpcErr))
	}
	body := strings.TrimSpace(string(r.body))
	if len(body) > 200 {
		body = body[:200] + "…"
	}
	return fmt.Sprintf("HTTP %d %s", r.status, orNone(body))
}

// post sends one request with the headers of its era: on the modern revision the version,
// Mcp-Method and (for a tools/call) Mcp-Name repeat the body, as the revision requires; a
// legacy request other than initialize names its version in MCP-Protocol-Version.
func (c *checker) post(ctx context.Context, token string, msg map[string]any, method, name string) (*reply, error) {
	body, err := json.Marshal(msg)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.o.URL, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("User-Agent", "mindvault-deploycheck/1")
	params, _ := msg["params"].(map[string]any)
	if _, modern := params["_meta"]; modern {
		req.Header.Set("MCP-Protocol-Version", modernVersion)
		req.Header.Set("Mcp-Method", method)
		if name != "" {
			req.Header.Set("Mcp-Name", name)
		}
	} else if method != "initialize" {
		req.Header.Set("MCP-Protocol-Version", legacyVersion)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := c.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if err != nil {
		return nil, err
	}
	r := &reply{status: resp.StatusCode, header: resp.Header, body: raw}
	var env struct {
		JSONRPC string          `json:"jsonrpc"`
		Result  json.RawMessage `json:"result"`
		Error   *rpcError       `json:"error"`
	}
	if json.Unmarshal(raw, &env) == nil && env.JSONRPC == "2.0" {
		r.result, r.rpcErr = env.Result, env.Error
	}
	return r, nil
}

const configHint = "the message names the variables: fix the stack's parameters (or the secrets they name) and deploy again; the function logs the same once at start (aws logs tail /aws/lambda/<stack>-mcp)"

func rpcSummary(e *rpcError) string {
	return fmt.Sprintf("JSON-RPC %d: %s", e.Code, firstLine(e.Message))
}

func rpcHint(e *rpcError) string {
	switch {
	case e.Code == -32603:
		return configHint
	case e.Code == -32602 && strings.Contains(strings.ToLower(e.Message), "disabled"):
		return "the tool is disabled here by MINDVAULT_TOOLSETS or MINDVAULT_READ_ONLY (the Toolsets and ReadOnly parameters)"
	case e.Code == -32022 || e.Code == -32020:
		return "the endpoint does not accept this revision's headers: a proxy in front of it may drop MCP-Protocol-Version, Mcp-Method or Mcp-Name"
	}
	return ""
}

func statusHint(r *reply) string {
	switch {
	case r.status == http.StatusNotFound:
		return "nothing serves MCP at this URL: use the McpUrl output (the Function URL followed by mcp)"
	case r.status == http.StatusServiceUnavailable:
		return "in oauth mode the issuer's signing keys could not be fetched yet: check OAuthIssuer and that its discovery document is reachable; else retry in a minute"
	case r.status == http.StatusBadGateway || r.status >= 500:
		return "the function failed or timed out: aws logs tail /aws/lambda/<stack>-mcp --since 10m"
	case r.status == http.StatusUnsupportedMediaType || r.status == http.StatusMethodNotAllowed:
		return "something between this machine and the function rewrote the request; call the Function URL directly"
	}
	return ""
}

func reachHint(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) && ue.Timeout() {
		return "no answer in time: the function may be cold and waiting on a downstream; run again, and check its logs (aws logs tail /aws/lambda/<stack>-mcp)"
	}
	return "the URL cannot be reached: check it (the McpUrl output) and this machine's network"
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func quotePath(p string) string {
	if p == "" {
		return `"/"`
	}
	return fmt.Sprintf("%q", p)
}

func isLoopback(host string) bool {
	return host == "localhost" || host == "::1" || strings.HasPrefix(host, "127.")
}
