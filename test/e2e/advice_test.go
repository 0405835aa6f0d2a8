package e2e_test

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/mindvault/mcp-endpoint/errmap"
	mvtools "github.com/mindvault/mcp-endpoint/internal/tools"
)

// buyerTools are the tools of someone buying: advice never tells them to register a resource
// on chain.
var buyerTools = map[string]bool{
	"mindvault_buy": true, "mindvault_preview": true, "mindvault_browse": true, "mindvault_search": true,
	"mindvault_purchase_history": true, "mindvault_wallet_info": true,
}

// imperatives are the verbs a Next line may start with.
var imperatives = map[string]bool{
	"Add": true, "Ask": true, "Call": true, "Check": true, "Choose": true, "Compare": true, "Confirm": true,
	"Correct": true, "Create": true, "Do": true, "Fund": true, "Give": true, "Pass": true, "Raise": true,
	"Register": true, "Report": true, "Retry": true, "Treat": true, "Use": true, "Verify": true, "Wait": true,
}

var (
	// settingRE is the shape of a setting only the operator can change (MINDVAULT_HTTP_TIMEOUT_MS,
	// VAULT_REGISTRY_CONTRACT_ID).
	settingRE = regexp.MustCompile(`\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b`)
	// registerOnChainRE is advice to register a resource on chain.
	registerOnChainRE = regexp.MustCompile(`(?i)mindvault_register_onchain|\bregister\b[^.;:]*\bon[- ]chain`)
	// sentenceBreakRE is a second sentence inside the line.
	sentenceBreakRE = regexp.MustCompile(`[.!?] [A-Z]`)
)

// toolRE is a tool's patterns for adviceRules, compiled once per tool: the rules run tens of
// thousands of times, and compiling them on every run was most of the advice tests' time.
type toolRE struct {
	name *regexp.Regexp   // the tool's name as a word
	back []*regexp.Regexp // backToTool's
}

var toolREs sync.Map // tool -> *toolRE

func toolPatterns(tool string) *toolRE {
	if re, ok := toolREs.Load(tool); ok {
		return re.(*toolRE)
	}
	re, _ := toolREs.LoadOrStore(tool, &toolRE{name: regexp.MustCompile(regexp.QuoteMeta(tool) + `\b`), back: backToTool(tool)})
	return re.(*toolRE)
}

// backToTool lists how a Next line may name the tool that just failed: only with what changes
// first (other arguments, a correction, a funded wallet, a check of the current state, a wait).
func backToTool(tool string) []*regexp.Regexp {
	q := regexp.QuoteMeta(tool)
	return []*regexp.Regexp{
		regexp.MustCompile(`(?i)\bcall ` + q + ` again (with|after|once|if you still need it)\b`),
		regexp.MustCompile(`(?i)\b(and|then) call ` + q + ` again\b`),
		regexp.MustCompile(`(?i)\bcall ` + q + ` with\b`),
		regexp.MustCompile(`(?i)\bbefore calling ` + q + ` again\b`),
	}
}

// adviceRules checks the rules every Next line keeps, for the failing tool and code.
func adviceRules(code, tool, next string) []string {
	var broken []string
	if next == "" || strings.ContainsAny(next, "\r\n") || !strings.HasSuffix(next, ".") || sentenceBreakRE.MatchString(next) {
		broken = append(broken, "not one sentence on one line")
	}
	if first, _, _ := strings.Cut(next, " "); !imperatives[first] {
		broken = append(broken, "not imperative (starts with "+first+")")
	}
	// Never back to the tool that just failed with nothing changed.
	re := toolPatterns(tool)
	allowed := re.back
	for _, at := range re.name.FindAllStringIndex(next, -1) {
		ok := false
		for _, re := range allowed {
			for _, m := range re.FindAllStringIndex(next, -1) {
				ok = ok || (m[0] <= at[0] && at[1] <= m[1])
			}
		}
		if !ok {
			broken = append(broken, "sends the agent back to "+tool+" with nothing changed")
		}
	}
	if buyerTools[tool] && registerOnChainRE.MatchString(next) {
		broken = append(broken, "tells a buyer to register a resource on chain")
	}
	if strings.Contains(strings.ToLower(next), "no action needed") && code != errmap.CodeAlreadyRegistered && code != errmap.CodeAlreadyOwner {
		broken = append(broken, `says "no action needed" when the requested state does not hold`)
	}
	if settingRE.MatchString(next) && !strings.Contains(strings.ToLower(next), "ask the operator") {
		broken = append(broken, "names an operator setting ("+settingRE.FindString(next)+") without \"ask the operator\"")
	}
	return broken
}

// adviceVariants are the situations a (code, tool) pair is checked in: what changed, and the
// facts a client or tool may hand over.
func adviceVariants() []struct {
	name string
	f    errmap.Facts
} {
	const hash = "3389e9f0f1a65f19736cacf544c2e825313e8447f569233bb8db39aa607c8889"
	out := []struct {
		name string
		f    errmap.Facts
	}{
		{"nothing changed", errmap.Facts{}},
		{"changed", errmap.Facts{StateChanged: errmap.StateYes, ExecutionStarted: true}},
		{"unknown", errmap.Facts{StateChanged: errmap.StateUnknown, ExecutionStarted: true}},
		{"unknown with a hash", errmap.Facts{TxHash: hash, ExecutionStarted: true}},
		{"unknown payment", errmap.Facts{PaymentExpiresAt: "2026-03-01T12:00:00Z", ExecutionStarted: true}},
		{"a timeout setting", errmap.Facts{TimeoutVar: "MINDVAULT_HTTP_TIMEOUT_MS"}},
		{"a stated wait", errmap.Facts{Status: 429, RetryAfter: new(int)}},
		{"allowed arguments", errmap.Facts{AllowedArgs: []string{"resourceId", "profile"}}},
		{"the creator", errmap.Facts{Advice: errmap.Advice{Creator: "GBBD47IF6LWK7P7MDEVSCWR7DPUWV3NY3DTQEVFL4NAT4AQH3ZLLFLA5"}}},
	}
	for n := 1; n <= 24; n++ {
		out = append(out, struct {
			name string
			f    errmap.Facts
		}{fmt.Sprintf("contract error %d", n), errmap.Facts{Upstream: errmap.Upstream{ContractError: n, ContractErrorName: contractName(n)}}})
	}
	return out
}

func contractName(n int) string {
	names := []string{"", "AlreadyRegistered", "NotFound", "InvalidPrice", "MetadataTooLong", "InvalidTag",
		"Unauthorized", "PendingAdminNotSet", "PendingAdminAlreadySet", "SameAdmin", "TermsHashTooLong",
		"InvalidResourceId", "InvalidMetadataPointer", "EmptyMetadata", "AlreadyOwner", "NoPendingTransfer",
		"ReservedId", "PriceExceedsMax", "AdminNotSet", "NotVerifier", "InvalidVerificationTransition",
		"AlreadyFrozen", "MetadataFrozen", "DuplicateInRepair"}
	if n < len(names) {
		return names[n]
	}
	return "Unknown"
}

// servedTools lists the tools the endpoint serves, from tools/list.
func servedTools(t *testing.T) []string {
	e := newEnv(t, nil)
	var names []string
	for name := range e.schemas {
		names = append(names, name)
	}
	sort.Strings(names)
	if len(names) < 20 {
		t.Fatalf("tools/list served only %v", names)
	}
	for tool := range buyerTools {
		if e.schemas[tool] == nil {
			t.Fatalf("buyer tool %s is not served", tool)
		}
	}
	return names
}

// TestAdviceFitsEveryCodeAndTool checks the Next line of every (code, tool) pair the product
// can emit, in every situation (and from every source, which the advice may name), against
// the rules of the taxonomy.
func TestAdviceFitsEveryCodeAndTool(t *testing.T) {
	// Long and self-contained: harness_test.go, "Which tests run in parallel".
	t.Parallel()
	tools := servedTools(t)
	checked := 0
	// Many situations give the same line; the rules depend on code, tool and line only.
	type line struct{ code, tool, next string }
	verdicts := map[line][]string{}
	check := func(code, tool string, src errmap.Source, variant string, f errmap.Facts) {
		f.Code, f.Tool, f.Source, f.Operation = code, tool, src, "Op failed"
		f.Guides = mvtools.Guides()
		d := errmap.Map(f).Diagnostic
		checked++
		k := line{code, tool, d.Next}
		broken, seen := verdicts[k]
		if !seen {
			broken = adviceRules(code, tool, d.Next)
			verdicts[k] = broken
		}
		if len(broken) > 0 {
			t.Errorf("%s × %s (%s, %s): %s\n  Next: %s", code, tool, src, variant, strings.Join(broken, "; "), d.Next)
		}
	}
	for _, c := range errmap.Codes() {
		for _, tool := range tools {
			for _, src := range errmap.Sources() {
				check(c.Code, tool, src, "nothing changed", errmap.Facts{})
			}
			for _, v := range adviceVariants() {
				check(c.Code, tool, errmap.SourceAPI, v.name, v.f)
			}
		}
	}
	t.Logf("%d Next lines checked (%d distinct)", checked, len(verdicts))
}

// TestAdviceRulesCatchBadAdvice: the rules reject the advice the endpoint used to give.
func TestAdviceRulesCatchBadAdvice(t *testing.T) {
	for _, c := range []struct{ code, tool, next string }{
		{errmap.CodeUnauthorized, "mindvault_register", "Run mindvault_register (or mindvault_setup_wallet), or use the profile that owns this resource."},
		{errmap.CodeConflict, "mindvault_register", "Already in the requested state: no action needed."},
		{errmap.CodeNotFound, "mindvault_preview", "Confirm the id with mindvault_browse or mindvault_search, or register it on-chain with mindvault_register_onchain."},
		{errmap.CodeTimeout, "mindvault_browse", "Retry, or raise MINDVAULT_HTTP_TIMEOUT_MS if the endpoint is slow."},
		{errmap.CodeServerError, "mindvault_health", "Call mindvault_health again."},
		{errmap.CodePaymentRequired, "mindvault_buy", "Payment was required or rejected. Check the wallet with mindvault_wallet_info, fund it with USDC, and retry."},
	} {
		if len(adviceRules(c.code, c.tool, c.next)) == 0 {
			t.Errorf("%s × %s: the rules accept %q", c.code, c.tool, c.next)
		}
	}
}

// TestAdviceInContext pins the advice that used to be wrong for its tool.
func TestAdviceInContext(t *testing.T) {
	const creator = "GBBD47IF6LWK7P7MDEVSCWR7DPUWV3NY3DTQEVFL4NAT4AQH3ZLLFLA5"
	cases := []struct {
		name      string
		f         errmap.Facts
		has, lack []string
	}{
		{"register refused", errmap.Facts{Tool: "mindvault_register", Code: errmap.CodeForbidden},
			nil, []string{"Run mindvault_register", "owns this resource"}},
		{"register with a taken email", errmap.Facts{Tool: "mindvault_register", Source: errmap.SourceAPI, Status: 409},
			[]string{"another email"}, []string{"no action needed"}},
		{"wallet_info with an unknown profile", errmap.Facts{Tool: "mindvault_wallet_info", Code: errmap.CodeCredentialsMissing},
			[]string{"mindvault_list_profiles", "mindvault_setup_wallet"}, []string{"owns this resource", "creator"}},
		{"buy with an unknown profile", errmap.Facts{Tool: "mindvault_buy", Code: errmap.CodeCredentialsMissing},
			[]string{"mindvault_list_profiles"}, []string{"owns this resource", "creator"}},
		{"preview of an unknown id", errmap.Facts{Tool: "mindvault_preview", Source: errmap.SourceAPI, Status: 404},
			[]string{"mindvault_browse"}, []string{"register_onchain", "on-chain"}},
		{"set_price by another wallet", errmap.Facts{Tool: "mindvault_set_price", Code: errmap.CodeContractUnauthorized},
			[]string{"the wallet that registered it", "mindvault_registry_lookup"}, nil},
		{"set_price by another wallet, creator known", errmap.Facts{Tool: "mindvault_set_price", Code: errmap.CodeContractUnauthorized, Advice: errmap.Advice{Creator: creator}},
			[]string{creator, "the wallet that registered it"}, nil},
		{"set_price above the maximum", errmap.Facts{Tool: "mindvault_set_price", Code: errmap.CodeContractInvalidInput,
			Upstream: errmap.Upstream{ContractError: 17, ContractErrorName: "PriceExceedsMax"}},
			[]string{"100000000000 USDC"}, nil},
		{"a read timing out", errmap.Facts{Tool: "mindvault_browse", Transport: errmap.TransportTimeout, TimeoutVar: "MINDVAULT_HTTP_TIMEOUT_MS"},
			[]string{"Retry", "ask the operator to raise MINDVAULT_HTTP_TIMEOUT_MS"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.f.Guides = mvtools.Guides()
			next := errmap.Map(c.f).Diagnostic.Next
			for _, s := range c.has {
				if !strings.Contains(next, s) {
					t.Errorf("Next lacks %q: %s", s, next)
				}
			}
			for _, s := range c.lack {
				if strings.Contains(next, s) {
					t.Errorf("Next has %q: %s", s, next)
				}
			}
		})
	}
}

// TestAdviceOnTheWire: the advice reaches the agent through the real endpoint, downstreams
// included.
func TestAdviceOnTheWire(t *testing.T) {
	e := newEnv(t, nil)
	creator, _ := e.sb.Account("creator")
	otherID := ownedBy(e, creator.Address)
	demoID := ownedBy(e, e.sb.Demo.Address)

	t.Run("preview of an unknown id", func(t *testing.T) {
		e := e.in(t)
		r := e.call("mindvault_preview", `{"resourceId":"nosuchresource"}`)
		e.fails("mindvault_preview", r, failure{category: "not_found", code: "NOT_FOUND", source: "api", status: 404, next: "mindvault_browse"})
		if strings.Contains(r.Content[0].Text, "register_onchain") {
			t.Errorf("a buyer was told to register on chain: %s", r.Content[0].Text)
		}
	})
	for _, tool := range []string{"mindvault_wallet_info", "mindvault_buy"} {
		t.Run(tool+" with an unknown profile", func(t *testing.T) {
			e := e.in(t)
			args := `{"profile":"nosuchprofile"}`
			if tool == "mindvault_buy" {
				args = `{"profile":"nosuchprofile","resourceId":"` + demoID + `"}`
			}
			r := e.call(tool, args)
			e.fails(tool, r, failure{category: "auth", code: "CREDENTIALS_MISSING", source: "credentials", next: "mindvault_list_profiles"})
			if strings.Contains(r.Content[0].Text, "owns this resource") {
				t.Errorf("an unknown profile is not about owning a resource: %s", r.Content[0].Text)
			}
		})
	}
	t.Run("register with a taken email", func(t *testing.T) {
		e := e.in(t)
		addProfile(e, "keyless", "zero", "")
		r := e.call("mindvault_register", `{"name":"Someone","email":"hello@northwind.example","walletAddress":"`+e.sb.Demo.Address+`","profile":"keyless"}`)
		e.fails("mindvault_register", r, failure{category: "conflict", code: "CONFLICT", source: "api", status: 409, next: "another email"})
		if strings.Contains(r.Content[0].Text, "no action needed") {
			t.Errorf("a taken email is not a done registration: %s", r.Content[0].Text)
		}
	})
	t.Run("set_price by a wallet that is not the creator", func(t *testing.T) {
		e := e.in(t)
		r := e.call("mindvault_set_price", `{"resourceId":"`+otherID+`","price":"3.5"}`)
		e.fails("mindvault_set_price", r, failure{category: "auth", code: "CONTRACT_UNAUTHORIZED", source: "registry", next: "the wallet that registered it"})
		// The write read the entry first, so the advice names the creator's address.
		if creator := creatorOf(e, otherID); !strings.Contains(r.Content[0].Text, creator) {
			t.Errorf("the refusal does not name the creator %s: %s", creator, r.Content[0].Text)
		}
	})
	t.Run("set_price above the contract maximum", func(t *testing.T) {
		e := e.in(t)
		// The request model accepts any positive price; the contract's own limit refuses it.
		e.faults("service=rpc,target=simulateTransaction,kind=contracterror,code=17")
		r := e.call("mindvault_set_price", `{"resourceId":"`+demoID+`","price":"3.75"}`)
		e.fails("mindvault_set_price", r, failure{category: "validation", code: "CONTRACT_INVALID_INPUT", source: "registry", next: "at most 100000000000 USDC"})
		if n := e.sb.Count("rpc", "sendTransaction"); n != 0 {
			t.Errorf("the refused price was sent %d times", n)
		}
	})
}

// creatorOf reads a resource's creator straight from the contract through the product.
func creatorOf(e *env, id string) string {
	e.t.Helper()
	out := e.ok("mindvault_registry_lookup", e.call("mindvault_registry_lookup", `{"resourceId":"`+id+`"}`))
	c, _ := out["creator"].(string)
	if c == "" {
		e.t.Fatalf("no creator for %s: %v", id, out)
	}
	return c
}
