package errmap

import (
	"strings"

	"github.com/mindvault/mcp-endpoint/internal/redact/lazyre"
)

// The Next line is a function of the code, the failing tool, what changed and the facts
// the tool knew (advise). The category gives the default; a code and the failing tool refine
// it so the advice is right in context. Every sentence keeps four rules, which a table test
// over every (code, tool) pair checks (test/e2e/advice_test.go): it never sends the agent back
// to the tool that just failed unless something changes first (other arguments, a funded
// wallet, a wait); it never tells a buyer to register a resource on chain; it says "no action
// needed" only when the requested state already holds (ALREADY_REGISTERED, ALREADY_OWNER); and
// it names a setting only the operator can change only as "ask the operator to ...". It is
// always one imperative sentence.

// The tools the advice tells apart.
const (
	toolBuy             = "mindvault_buy"
	toolPreview         = "mindvault_preview"
	toolBrowse          = "mindvault_browse"
	toolSearch          = "mindvault_search"
	toolPurchaseHistory = "mindvault_purchase_history"
	toolWalletInfo      = "mindvault_wallet_info"
	toolListProfiles    = "mindvault_list_profiles"
	toolSetupWallet     = "mindvault_setup_wallet"
	toolRegister        = "mindvault_register"
	toolRegisterOnchain = "mindvault_register_onchain"
	toolPublish         = "mindvault_publish"
	toolPublishStatus   = "mindvault_publish_status"
	toolAgentStatus     = "mindvault_agent_status"
	toolRegistryInfo    = "mindvault_registry_info"
	toolRegistryLookup  = "mindvault_registry_lookup"
	toolNetworkProfile  = "mindvault_network_profile"
	toolHealth          = "mindvault_health"
	toolCheck           = "mindvault_check_consistency"
	toolTxStatus        = "mindvault_tx_status"
)

// buyerTools are the tools of someone buying: advice never sends them to publishing or
// registering resources.
var buyerTools = map[string]bool{
	toolBuy: true, toolPreview: true, toolBrowse: true, toolSearch: true, toolPurchaseHistory: true, toolWalletInfo: true,
}

// creatorWrites sign a registry write with the creator's wallet.
var creatorWrites = map[string]bool{
	"mindvault_set_price": true, "mindvault_set_listed": true, "mindvault_set_tags": true,
	"mindvault_update_metadata": true, "mindvault_transfer_ownership": true,
}

// withProfile are the tools that take a profile argument.
var withProfile = map[string]bool{
	toolBuy: true, toolPurchaseHistory: true, toolWalletInfo: true, toolSetupWallet: true, toolRegister: true,
	toolRegisterOnchain: true, toolPublish: true,
	"mindvault_set_price": true, "mindvault_set_listed": true, "mindvault_set_tags": true,
	"mindvault_update_metadata": true, "mindvault_transfer_ownership": true,
}

// MaxPriceUSDC is the vault-registry contract's price ceiling in USDC: 10^18 units of 7 decimals.
const MaxPriceUSDC = "100000000000"

// The fixed sentences of the categories that need no context.
const (
	nextServer   = "Retry shortly; if it persists the service is down."
	nextContract = "Verify the contract ID and network with mindvault_registry_info."
	nextUnknown  = "Retry once; if it persists, report the summary above with the tool name."
)

var envVarRE = lazyre.New(`^[A-Z][A-Z0-9_]{0,63}$`)

// nextInput is what the Next line may mention; every string in it is already sanitised.
type nextInput struct {
	cat        Category
	code       string
	src        Source
	tool       string
	timeoutVar string
	retryAfter *int
	// defaultWait: retryAfter is DefaultRetryAfterSeconds because the service named no wait.
	defaultWait  bool
	allowed      []string
	state        State
	txHash       string
	expiresAt    string
	contractName string // the contract error's name, when a contract refused the call
	creator      string // the resource's creator (a G... address), when the tool knew it
}

// advise picks the recovery sentence from (code, tool, state, facts): an unknown outcome
// first (a blind retry could pay or write twice), then a partial effect, then the code as
// refined for the tool, then the category as refined for the tool.
func advise(in nextInput) string {
	switch in.state {
	case StateUnknown:
		return unknownStateNext(in)
	case StateYes:
		return "Check the current state before calling " + toolOr(in.tool, "the tool") + " again: the call changed something before it failed (the detail says what)."
	}
	if s := codeNext(in); s != "" {
		return s
	}
	return categoryNext(in)
}

func toolOr(tool, fallback string) string {
	if tool == "" {
		return fallback
	}
	return tool
}

// again is the way back to the failing tool once something has changed: "call <tool> again",
// or "retry" when the tool is not known.
func (in nextInput) again() string {
	if in.tool == "" {
		return "retry"
	}
	return "call " + in.tool + " again"
}

func (in nextInput) is(tools ...string) bool {
	for _, t := range tools {
		if in.tool == t {
			return true
		}
	}
	return false
}

// mention is clause unless it would send the agent to the tool that just failed.
func (in nextInput) mention(tool, clause string) string {
	if in.tool == tool {
		return ""
	}
	return clause
}

func unknownStateNext(in nextInput) string {
	lookup := in.mention(toolTxStatus, " with "+toolTxStatus)
	wallet := in.mention(toolWalletInfo, " with "+toolWalletInfo)
	switch {
	case in.txHash != "" && in.expiresAt != "":
		return "Check transaction " + in.txHash + lookup + ", and do not pay again before " + in.expiresAt + ": the outcome is unknown."
	case in.txHash != "":
		return "Check transaction " + in.txHash + lookup + " before retrying: the outcome is unknown."
	case in.expiresAt != "":
		return "Do not pay again before " + in.expiresAt + ", when the signed payment expires, and then check the wallet" + wallet + ": the payment's outcome is unknown."
	}
	return "Check the current state before calling " + toolOr(in.tool, "the tool") + " again, and do not repeat it blindly: the outcome is unknown."
}

// codeNext is the sentence of a code whose category sentence would mislead, refined per tool;
// "" falls back to the category.
func codeNext(in nextInput) string {
	switch in.code {
	case CodeCancelled:
		if in.tool == "" {
			return "Retry if you still need it: the request was cancelled before it finished (the caller went away or cancelled it)."
		}
		return "Call " + in.tool + " again if you still need it: the request was cancelled before it finished (the caller went away or cancelled it)."
	case CodeInsufficientUSDC:
		if in.is(toolWalletInfo) {
			return "Fund the wallet with USDC, then retry."
		}
		return "Fund the wallet with USDC (mindvault_wallet_info shows its balance), then " + in.again() + "."
	case CodeTrustlineMissing:
		if in.is(toolWalletInfo) {
			return "Add a USDC trustline to the wallet, then retry."
		}
		return "Add a USDC trustline to the wallet (mindvault_wallet_info shows its state), then " + in.again() + "."
	case CodeInsufficientBalance:
		if in.is(toolWalletInfo) {
			return "Fund the wallet with XLM for network fees, then retry."
		}
		return "Fund the wallet with XLM for network fees (mindvault_wallet_info shows its balances), then " + in.again() + "."
	case CodePriceAboveCap:
		switch {
		case in.is(toolPublish):
			return "Raise maxFeeUsdc to at least the verification fee (mindvault_agent_status shows it) and call " + toolPublish + " again."
		case in.is(toolBuy):
			return "Raise maxPriceUsdc to at least the price and call " + toolBuy + " again, or choose a cheaper resource."
		}
		return "Raise the spend cap to at least the price and " + in.again() + "."
	case CodePriceChanged:
		if in.is(toolPublish) {
			return "Check the verification fee with mindvault_agent_status, then call " + toolPublish + " again."
		}
		if in.is(toolPreview) {
			return "Call " + toolPreview + " again after a moment: the price changed while it was read."
		}
		return "Check the new price with mindvault_preview, then " + in.again() + "."
	case CodePriceMismatch:
		if in.is(toolCheck) {
			return "Call " + toolCheck + " again once the publisher has synced the API and on-chain prices."
		}
		return "Compare the API and on-chain prices with mindvault_check_consistency, then " + in.again() + " once the publisher has synced them."
	case CodeUnsupportedRequirement:
		if in.is(toolBuy) {
			return "Choose another resource: this seller asks for a payment this endpoint cannot make (Stellar exact scheme, configured network, USDC), and nothing was paid."
		}
		return "Report it to the service's operator: it asks for a payment this endpoint cannot make (Stellar exact scheme, configured network, USDC), and nothing was paid."
	case CodeFeesNotSponsored:
		if in.is(toolBuy) {
			return "Choose another resource: this seller does not sponsor network fees, which this endpoint requires, and nothing was paid."
		}
		return "Report it to the service's operator: its payment requirement does not sponsor network fees, which this endpoint requires, and nothing was paid."
	case CodeMainnetNotConfirmed:
		return "Call " + toolOr(in.tool, "the tool") + " again with confirmMainnet: true if you intend to change state on mainnet."
	case CodeContractInvalidInput:
		return contractInputNext(in)
	case CodeUnexpectedTransaction:
		return "Report it to the service's operator and do not sign the transaction elsewhere: the service prepared a transaction that does more than this call asked, and nothing was signed or sent."
	case CodeDeliveryTooLarge:
		return "Ask the operator to raise MINDVAULT_MAX_INLINE_BYTES, or get the file outside this endpoint."
	case CodeInvalidRequest:
		return "Correct the request as the error message says and send it again."
	case CodeCredentialsMissing:
		return credentialsNext(in)
	case CodeReadOnlyStore:
		if in.is(toolSetupWallet, toolRegister) {
			return "Use an existing profile (mindvault_list_profiles lists them), or ask the operator to set MINDVAULT_CREDENTIALS to a dir: or secretsmanager: store."
		}
		return "Use an existing profile, or ask the operator to set MINDVAULT_CREDENTIALS to a dir: or secretsmanager: store."
	case CodeProfileNotAllowed:
		if in.is(toolListProfiles) {
			return "Use a profile your access token may use, or ask the operator to bind this one."
		}
		return "Use a profile your access token may use (mindvault_list_profiles lists them), or ask the operator to bind this one."
	case CodeContractUnauthorized:
		return creatorNext(in)
	case CodeTxBadAuth:
		if in.is(toolListProfiles) {
			return "Use the profile whose wallet signs for this account, then retry."
		}
		return "Pass the profile whose wallet signs for this account (mindvault_list_profiles shows each address), then " + in.again() + "."
	case CodeAccountMissing:
		switch {
		case in.is(toolSetupWallet):
			return "Fund the new account's address with XLM so it exists on the network, then check it with mindvault_wallet_info."
		case in.is(toolWalletInfo):
			return "Create a funded wallet with mindvault_setup_wallet, or fund the address, then call " + toolWalletInfo + " again."
		}
		return "Create a funded wallet with mindvault_setup_wallet, or fund the address, then " + in.again() + "."
	case CodeUnknownName:
		return "Use a name that tools/list or prompts/list shows; error.data.suggestions offers the closest ones."
	case CodeAlreadyRegistered:
		return "Treat it as done: the resource is already registered on chain, so no action needed" + in.mention(toolRegistryLookup, " (mindvault_registry_lookup shows the entry)") + "."
	case CodeAlreadyOwner:
		return "Treat it as done: that account already owns the resource, so no action needed."
	case CodeProfileExists:
		return "Use the existing profile, or call " + toolOr(in.tool, "the tool") + " again with another profile name."
	case CodeAlreadyPurchased:
		if in.is(toolPurchaseHistory) {
			return "Use your earlier purchase, or call mindvault_buy with allowRepeat: true to pay for it again."
		}
		if in.is(toolBuy) {
			return "Use your earlier purchase (mindvault_purchase_history lists it), or call " + toolBuy + " again with allowRepeat: true to pay for it again."
		}
		return "Use your earlier purchase (mindvault_purchase_history lists it), or call mindvault_buy with allowRepeat: true to pay for it again."
	case CodeBudgetExceeded:
		return "Wait until the daily budget resets (retryAfterSeconds, at UTC midnight) before paying again, or ask the operator to raise MINDVAULT_BUDGET_USDC; nothing was paid."
	case CodeDuplicatePayment:
		if in.is(toolPurchaseHistory) {
			return "Do not pay again: the payment for this intent already settled once."
		}
		return "Do not pay again: the payment for this intent already settled once; mindvault_purchase_history shows it."
	case CodeTxBadSequence:
		return "Retry once: a new call rebuilds the transaction with a fresh sequence number."
	case CodeTxExpired:
		return "Retry once: the transaction reached the network too late, and a new call signs a fresh one."
	case CodeContractMissing:
		return "Ask the operator to check VAULT_REGISTRY_CONTRACT_ID and STELLAR_NETWORK: no contract exists at that id on this network."
	case CodeStateArchived:
		return "Ask the operator to restore the archived contract state (RestoreFootprint), then " + in.again() + "."
	}
	return ""
}

// contractInputNext names the argument the contract refused, and the maximum for a price.
func contractInputNext(in nextInput) string {
	tool := toolOr(in.tool, "the tool")
	switch in.contractName {
	case "PriceExceedsMax":
		return "Pass a price of at most " + MaxPriceUSDC + " USDC (the contract's maximum, 10^18 units) and call " + tool + " again."
	case "InvalidPrice":
		return "Pass a price above zero and call " + tool + " again."
	case "":
		return "Correct the argument the contract rejected and call " + tool + " again."
	}
	return "Correct the argument the contract rejected (" + in.contractName + ") and call " + tool + " again."
}

// creatorNext answers a signer the vault registry refused: only the creator, the wallet that
// registered the resource, may change it.
func creatorNext(in nextInput) string {
	then := ", then " + in.again() + "."
	if in.creator != "" {
		return "Pass the profile whose wallet is " + in.creator + ", the resource's creator (the wallet that registered it" +
			in.mention(toolListProfiles, "; mindvault_list_profiles shows each profile's address") + ")" + then
	}
	if in.is(toolRegistryLookup) {
		return "Pass the profile of the resource's creator, the wallet that registered it" + then
	}
	return "Pass the profile of the resource's creator, the wallet that registered it (check it with mindvault_registry_lookup)" + then
}

// credentialsNext answers a profile without the wallet or API key the tool needs.
func credentialsNext(in nextInput) string {
	switch {
	case in.is(toolPublish, toolRegisterOnchain):
		return "Give the profile what it lacks (mindvault_setup_wallet creates a wallet, mindvault_register stores a publisher API key), or pass another profile (mindvault_list_profiles shows them), then " + in.again() + "."
	case in.is(toolRegister):
		return "Pass walletAddress, or a profile with a wallet (mindvault_list_profiles shows them; mindvault_setup_wallet creates one), and call " + toolRegister + " again."
	case in.is(toolSetupWallet):
		return "Call " + toolSetupWallet + " again with another profile name (mindvault_list_profiles shows the existing ones)."
	case in.is(toolListProfiles):
		return "Ask the operator to check the credential store: its profiles could not be read."
	case creatorWrites[in.tool]:
		return "Pass the profile whose wallet created the resource (mindvault_registry_lookup shows its creator, mindvault_list_profiles each profile's address), then " + in.again() + "."
	}
	return "Pass a profile that exists and has a wallet (mindvault_list_profiles lists them; mindvault_setup_wallet creates one), then " + in.again() + "."
}

// authNext answers a service that refused the credentials (HTTP 401, 403).
func authNext(in nextInput) string {
	switch {
	case in.is(toolPublish, toolRegisterOnchain):
		return "Register the profile as a publisher with mindvault_register, or pass a profile that is one (mindvault_list_profiles shows which), then " + in.again() + "."
	case in.is(toolRegister):
		return "Call " + toolRegister + " again with another profile (mindvault_list_profiles lists them), or ask the operator why the MindVault API refused the registration."
	case in.is(toolSetupWallet):
		return "Ask the operator to check this endpoint's access to the sponsored-account service: it refused to create the wallet."
	case creatorWrites[in.tool]:
		return creatorNext(in)
	case withProfile[in.tool]:
		return "Pass a profile your access token may use (mindvault_list_profiles lists them), then " + in.again() + "."
	}
	return "Ask the operator to check this endpoint's access to the " + in.src.Label() + ": it refused the request."
}

// notFoundNext answers an id the service does not know.
func notFoundNext(in nextInput) string {
	switch {
	case in.is(toolBrowse, toolSearch, toolAgentStatus, toolHealth, toolNetworkProfile, toolRegistryInfo, toolListProfiles):
		// These name no id: the route itself is missing.
		return "Ask the operator to check the service URLs this endpoint uses" + in.mention(toolNetworkProfile, " (mindvault_network_profile shows them)") + ": the route was not found."
	case creatorWrites[in.tool]:
		return "Confirm the id with mindvault_registry_lookup (the resource must be registered on chain; mindvault_register_onchain registers your verified one), then call " + in.tool + " with it."
	case in.is(toolRegisterOnchain):
		return "Confirm the id of your resource with mindvault_publish_status, then call " + toolRegisterOnchain + " with it."
	case in.is(toolPublish, toolPublishStatus):
		return "Confirm the id of your resource with mindvault_browse or mindvault_search, then call " + in.tool + " with it."
	case in.tool == "":
		return "Confirm the id with mindvault_browse or mindvault_search, then retry with it."
	}
	return "Confirm the id with mindvault_browse or mindvault_search, then call " + in.tool + " with it."
}

// conflictNext answers a service that says the request conflicts with the current state.
func conflictNext(in nextInput) string {
	switch {
	case in.is(toolRegister):
		return "Call " + toolRegister + " again with another email, or, if this email is yours, use the profile already registered with it (mindvault_list_profiles shows which profiles are publishers)."
	case in.is(toolPublish):
		return "Call " + toolPublish + " again with another title or externalUrl, or resume the resource you already created with its resourceId."
	case in.is(toolRegisterOnchain):
		return "Check the resource with mindvault_registry_lookup: the service reports it already registered on chain."
	}
	return "Check the current state before calling " + toolOr(in.tool, "the tool") + " again: the service says the request conflicts with it."
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
		if in.is(toolWalletInfo) {
			return "Fund the wallet with USDC, then retry."
		}
		return "Check the wallet with mindvault_wallet_info and fund it with USDC, then " + in.again() + "."
	case CategoryValidation:
		return "Correct the invalid arguments and call " + toolOr(in.tool, "the tool") + " again" + allowedClause(in) + "."
	case CategoryAuth:
		return authNext(in)
	case CategoryNotFound:
		return notFoundNext(in)
	case CategoryConflict:
		return conflictNext(in)
	case CategoryRateLimit:
		if in.defaultWait {
			return "Wait " + itoa(*in.retryAfter) + " s (the service did not say how long), then retry."
		}
		if in.retryAfter != nil {
			return "Wait " + itoa(*in.retryAfter) + " s, then retry."
		}
		return "Wait " + itoa(DefaultRetryAfterSeconds) + " s, then retry."
	case CategoryServer:
		return nextServer
	case CategoryContract:
		if in.is(toolRegistryInfo) {
			return "Ask the operator to check VAULT_REGISTRY_CONTRACT_ID and STELLAR_NETWORK: the contract did not answer as the vault registry."
		}
		return nextContract
	}
	return nextUnknown
}

// allowedClause lists the accepted argument names. For INVALID_ARGUMENTS an empty list means
// the tool takes none; for other validation failures an absent list is simply not mentioned.
func allowedClause(in nextInput) string {
	if len(in.allowed) > 0 {
		return " (allowed arguments: " + strings.Join(in.allowed, ", ") + ")"
	}
	if in.code == CodeInvalidArguments {
		return " (it takes no arguments)"
	}
	return ""
}
