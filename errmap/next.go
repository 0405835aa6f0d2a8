package errmap

import (
	"cmp"
	"slices"
	"strings"

	"github.com/mindvault/mcp-endpoint/internal/redact/lazyre"
)

// The Next line follows docs/errors.md "The three-line text": one imperative sentence per code and
// failing tool (test/e2e/advice_test.go checks every pair). errmap knows no tool: sentences name
// other tools only by their declared role, and a tool needing other words declares its own (Guide).

// DefaultPriceSyncSeconds is how long the MindVault API takes at most to copy an on-chain
// price change into its catalog: its event listener polls the contract every 30 s.
const DefaultPriceSyncSeconds = 30

// MaxPriceUSDC is the vault-registry contract's price ceiling in USDC: 10^18 units of 7 decimals.
const MaxPriceUSDC = "100000000000"

// The fixed sentences of the categories that need no context.
const (
	nextServer  = "Retry shortly; if it persists the service is down."
	nextUnknown = "Retry once; if it persists, report the summary above with the tool name."
)

var envVarRE = lazyre.New(`^[A-Z][A-Z0-9_]{0,63}$`)

// nextInput is what the Next line may mention; every string in it is already sanitised.
type nextInput struct {
	cat        Category
	code       string
	src        Source
	tool       string
	timeoutVar string
	retryAfter *int // never nil for a rate limit: Map states DefaultRetryAfterSeconds when nothing else does
	// defaultWait: retryAfter is DefaultRetryAfterSeconds because the service named no wait.
	defaultWait  bool
	allowed      []string
	state        State
	txHash       string
	expiresAt    string
	contractName string  // the contract error's name, when a contract refused the call
	creator      string  // the resource's creator (a G... address), when the tool knew it
	fundingURL   string  // where the wallet can get USDC, when the operator configured it
	guide        Guide   // what the failing tool declared
	guides       *Guides // every tool's Guide, for the roles a sentence names
}

// advise picks the recovery sentence: an unknown outcome first (a blind retry could pay or write
// twice), then a partial effect, then the code, then the category, each as the tool declared it,
// else as refined for the tool.
func advise(in nextInput) string {
	switch in.state {
	case StateUnknown:
		return unknownStateNext(in)
	case StateYes:
		return "Check the current state before calling " + cmp.Or(in.tool, "the tool") + " again: the call changed something before it failed (the detail says what)."
	}
	return cmp.Or(in.guide.Codes[in.code], codeNext(in), in.guide.Categories[in.cat], categoryNext(in))
}

// again is the way back to the failing tool once something has changed: "call <tool> again",
// or "retry" when the tool is not known.
func (in nextInput) again() string {
	if in.tool == "" {
		return "retry"
	}
	return "call " + in.tool + " again"
}

// named is the tools that play role, "a or b", or "" when none does or the failing tool is
// one of them: advice never points the agent back at the tool that just failed.
func (in nextInput) named(role Role) string {
	names := in.guides.Players(role)
	if slices.Contains(names, in.tool) {
		return ""
	}
	return strings.Join(names, " or ")
}

// clause is before + the tools of role + after, or "" when named is "".
func (in nextInput) clause(role Role, before, after string) string {
	if n := in.named(role); n != "" {
		return before + n + after
	}
	return ""
}

// parens is the clauses that are not "", joined by "; " and wrapped in " (" and ")".
func parens(clauses ...string) string {
	kept := slices.DeleteFunc(clauses, func(c string) bool { return c == "" })
	if len(kept) == 0 {
		return ""
	}
	return " (" + strings.Join(kept, "; ") + ")"
}

func unknownStateNext(in nextInput) string {
	lookup := in.clause(RoleTxStatus, " with ", "")
	wallet := in.clause(RoleWallet, " with ", "")
	switch {
	case in.txHash != "" && in.expiresAt != "":
		return "Check transaction " + in.txHash + lookup + ", and do not pay again before " + in.expiresAt + ": the outcome is unknown."
	case in.txHash != "":
		return "Check transaction " + in.txHash + lookup + " before retrying: the outcome is unknown."
	case in.expiresAt != "":
		return "Do not pay again before " + in.expiresAt + ", when the signed payment expires, and then check the wallet" + wallet + ": the payment's outcome is unknown."
	}
	return "Check the current state before calling " + cmp.Or(in.tool, "the tool") + " again, and do not repeat it blindly: the outcome is unknown."
}

// codeNext is the sentence of a code whose category sentence would mislead, refined by the
// tool's traits; "" falls back to the category.
func codeNext(in nextInput) string {
	if s := info(in.code).next; s != "" {
		return s
	}
	switch in.code {
	case CodeCancelled:
		if in.tool == "" {
			return "Retry if you still need it: the request was cancelled before it finished (the caller went away or cancelled it)."
		}
		return "Call " + in.tool + " again if you still need it: the request was cancelled before it finished (the caller went away or cancelled it)."
	case CodeInsufficientUSDC:
		if in.fundingURL != "" {
			return "Fund the wallet with USDC at " + in.fundingURL + in.clause(RoleWallet, " (", " shows its balance)") + ", then " + in.again() + "."
		}
		return "Fund the wallet with USDC" + in.clause(RoleWallet, " (", " shows its balance)") + ", then " + in.again() + "."
	case CodePaymentSimFailed:
		return "Check the wallet's USDC balance and trustline" + in.clause(RoleWallet, " with ", "") + ", then " + in.again() +
			" once they cover the price (it signs a fresh authorization): the facilitator's simulation of the payment failed, and nothing was paid."
	case CodeSettlementFailed:
		return "Wait a moment, then " + in.again() + ": the seller's facilitator could not submit the payment, so nothing settled."
	case CodeTrustlineMissing:
		return "Add a USDC trustline to the wallet" + in.clause(RoleWallet, " (", " shows its state)") + ", then " + in.again() + "."
	case CodeInsufficientBalance:
		return "Fund the wallet with XLM for network fees" + in.clause(RoleWallet, " (", " shows its balances)") + ", then " + in.again() + "."
	case CodePriceAboveCap:
		return "Raise the spend cap to at least the price and " + in.again() + "."
	case CodePriceChanged:
		return "Check the new price" + in.clause(RolePrice, " with ", "") + ", then " + in.again() + "."
	case CodePriceMismatch:
		wait := DefaultPriceSyncSeconds
		if in.retryAfter != nil {
			wait = *in.retryAfter
		}
		return "Wait " + itoa(wait) + " s for the catalog to catch up with the on-chain price, then " + in.again() +
			"; if it persists, compare the API and on-chain prices" + in.clause(RoleCompare, " with ", "") + "."
	case CodeMainnetNotConfirmed:
		return "Call " + cmp.Or(in.tool, "the tool") + " again with confirmMainnet: true if you intend to change state on mainnet."
	case CodeContractInvalidInput:
		// Name the argument the contract refused, and the maximum for a price.
		switch tool := cmp.Or(in.tool, "the tool"); in.contractName {
		case "PriceExceedsMax":
			return "Pass a price of at most " + MaxPriceUSDC + " USDC (the contract's maximum, 10^18 units) and call " + tool + " again."
		case "InvalidPrice":
			return "Pass a price above zero and call " + tool + " again."
		case "":
			return "Correct the argument the contract rejected and call " + tool + " again."
		default:
			return "Correct the argument the contract rejected (" + in.contractName + ") and call " + tool + " again."
		}
	case CodeCredentialsMissing:
		then := ", then " + in.again() + "."
		if !in.guide.CreatorWrite {
			return "Pass a profile that exists and has a wallet" +
				parens(in.clause(RoleProfiles, "", " lists them"), in.clause(RoleNewWallet, "", " creates one")) + then
		}
		if entry := in.named(RoleEntry); entry != "" {
			return "Pass the profile whose wallet created the resource (" + entry + " shows its creator" +
				in.clause(RoleProfiles, ", ", " each profile's address") + ")" + then
		}
		return "Pass the profile whose wallet created the resource" + in.clause(RoleProfiles, " (", " shows each profile's address)") + then
	case CodeProfileNotAllowed:
		return "Use a profile your access token may use" + in.clause(RoleProfiles, " (", " lists them)") + ", or ask the operator to bind this one."
	case CodeContractUnauthorized:
		return creatorNext(in)
	case CodeTxBadAuth:
		return "Pass the profile whose wallet signs for this account" + in.clause(RoleProfiles, " (", " shows each address)") + ", then " + in.again() + "."
	case CodeAccountMissing:
		return "Create a funded wallet" + in.clause(RoleNewWallet, " with ", "") + ", or fund the address, then " + in.again() + "."
	case CodeAlreadyRegistered:
		return "Treat it as done: the resource is already registered on chain, so no action needed" + in.clause(RoleEntry, " (", " shows the entry)") + "."
	case CodeProfileExists:
		return "Use the existing profile, or call " + cmp.Or(in.tool, "the tool") + " again with another profile name."
	case CodeAlreadyPurchased:
		again := "buy it again with allowRepeat: true."
		if buy := in.named(RoleBuy); buy != "" {
			again = "call " + buy + " with allowRepeat: true to pay for it again."
		}
		return "Use your earlier purchase" + in.clause(RoleHistory, " (", " lists it)") + ", or " + again
	case CodeDuplicatePayment:
		return "Do not pay again: the payment for this intent already settled once" + in.clause(RoleHistory, "; ", " lists its receipt") + "."
	case CodeStateArchived:
		return "Ask the operator to restore the archived contract state (RestoreFootprint), then " + in.again() + "."
	}
	return ""
}

// creatorNext answers a signer the vault registry refused: only the creator, the wallet that
// registered the resource, may change it.
func creatorNext(in nextInput) string {
	then := ", then " + in.again() + "."
	if in.creator != "" {
		return "Pass the profile whose wallet is " + in.creator + ", the resource's creator (the wallet that registered it" +
			in.clause(RoleProfiles, "; ", " shows each profile's address") + ")" + then
	}
	return "Pass the profile of the resource's creator, the wallet that registered it" + in.clause(RoleEntry, " (check it with ", ")") + then
}

func categoryNext(in nextInput) string {
	switch in.cat {
	case CategoryNetwork:
		return "Check connectivity to " + in.src.Label() + " and retry; reads were already retried automatically."
	case CategoryTimeout:
		// The agent cannot change a timeout: say what it can do, and whom to ask otherwise.
		if in.timeoutVar == "" {
			return "Retry in a moment; if it keeps timing out, the service is slow or down."
		}
		return "Retry in a moment; if it keeps timing out, ask the operator to raise " + in.timeoutVar + "."
	case CategoryPayment:
		return "Check the wallet" + in.clause(RoleWallet, " with ", "") + " and fund it with USDC, then " + in.again() + "."
	case CategoryValidation:
		// For INVALID_ARGUMENTS an empty list of accepted names means the tool takes none; for
		// other validation failures an absent list is simply not mentioned.
		allowed := ""
		switch {
		case len(in.allowed) > 0:
			allowed = " (allowed arguments: " + strings.Join(in.allowed, ", ") + ")"
		case in.code == CodeInvalidArguments:
			allowed = " (it takes no arguments)"
		}
		return "Correct the invalid arguments and call " + cmp.Or(in.tool, "the tool") + " again" + allowed + "."
	case CategoryAuth: // the service refused the credentials (HTTP 401, 403)
		switch {
		case in.guide.CreatorWrite:
			return creatorNext(in)
		case in.guide.Profile:
			return "Pass a profile your access token may use" + in.clause(RoleProfiles, " (", " lists them)") + ", then " + in.again() + "."
		}
		return "Ask the operator to check this endpoint's access to the " + in.src.Label() + ": it refused the request."
	case CategoryNotFound:
		switch {
		case in.guide.NoID:
			// The tool names no id: the route itself is missing.
			return "Ask the operator to check the service URLs this endpoint uses" + in.clause(RoleServices, " (", " shows them)") + ": the route was not found."
		case in.guide.CreatorWrite:
			return "Confirm the id" + in.clause(RoleEntry, " with ", "") + " (the resource must be registered on chain" +
				in.clause(RoleRegisterOnchain, "; ", " registers your verified one") + "), then call " + in.tool + " with it."
		case in.tool == "":
			return "Confirm the id" + in.clause(RoleFind, " with ", "") + ", then retry with it."
		}
		return "Confirm the id" + in.clause(RoleFind, " with ", "") + ", then call " + in.tool + " with it."
	case CategoryConflict:
		return "Check the current state before calling " + cmp.Or(in.tool, "the tool") + " again: the service says the request conflicts with it."
	case CategoryRateLimit:
		if in.defaultWait {
			return "Wait " + itoa(*in.retryAfter) + " s (the service did not say how long), then retry."
		}
		return "Wait " + itoa(*in.retryAfter) + " s, then retry."
	case CategoryServer:
		return nextServer
	case CategoryContract:
		return "Verify the contract ID and network" + in.clause(RoleContract, " with ", "") + "."
	}
	return nextUnknown
}
