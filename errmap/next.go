package errmap

import (
	"regexp"
	"strings"
)

// The fixed Next sentences (docs/errors.md "Categories"); the ones with a hole are built in categoryNext.
const (
	nextPayment  = "Payment was required or rejected. Check the wallet with mindvault_wallet_info, fund it with USDC, and retry."
	nextAuth     = "Run mindvault_register (or mindvault_setup_wallet), or use the profile that owns this resource."
	nextNotFound = "Confirm the id with mindvault_browse or mindvault_search, or register it on-chain with mindvault_register_onchain."
	nextConflict = "Already in the requested state: no action needed."
	nextServer   = "Retry shortly; if it persists the service is down."
	nextContract = "Verify the contract ID and network with mindvault_registry_info."
	nextUnknown  = "Retry once; if it persists, report the summary above with the tool name."
)

var envVarRE = regexp.MustCompile(`^[A-Z][A-Z0-9_]{0,63}$`)

// nextInput is what the Next line may mention; every string in it is already sanitised.
type nextInput struct {
	cat        Category
	code       string
	src        Source
	tool       string
	timeoutVar string
	retryAfter *int
	// defaultWait: retryAfter is DefaultRetryAfterSeconds because the service named no wait.
	defaultWait bool
	allowed     []string
	state       State
	txHash      string
	expiresAt   string
}

// nextLine picks the recovery sentence: an unknown outcome first (a blind retry could pay or
// write twice), then the codes whose category sentence would mislead, then the category.
func nextLine(in nextInput) string {
	if in.state == StateUnknown {
		return unknownStateNext(in)
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

func unknownStateNext(in nextInput) string {
	switch {
	case in.txHash != "" && in.expiresAt != "":
		return "The outcome is unknown: check transaction " + in.txHash + " with mindvault_tx_status, and do not pay again before " + in.expiresAt + "."
	case in.txHash != "":
		return "The outcome is unknown: check transaction " + in.txHash + " with mindvault_tx_status before retrying."
	case in.expiresAt != "":
		return "The payment's outcome is unknown: do not pay again before " + in.expiresAt + ", when the signed payment expires; then check the wallet with mindvault_wallet_info."
	}
	return "The outcome is unknown: check the current state before calling " + toolOr(in.tool, "the tool") + " again; do not repeat it blindly."
}

func codeNext(in nextInput) string {
	tool := toolOr(in.tool, "the tool")
	switch in.code {
	case CodePriceAboveCap:
		capArg := "maxPriceUsdc"
		if in.tool == "mindvault_publish" {
			capArg = "maxFeeUsdc"
		}
		return "The price is above your spend cap: raise " + capArg + " and call " + tool + " again, or choose a cheaper resource."
	case CodePriceChanged:
		return "The price changed since the preview: check it with mindvault_preview, then call " + tool + " again."
	case CodePriceMismatch:
		return "The API and on-chain prices disagree: compare them with mindvault_check_consistency and retry once the publisher has synced them."
	case CodeUnsupportedRequirement:
		return "Nothing was paid: this seller asks for a payment this endpoint cannot make (Stellar exact scheme, configured network, USDC); choose another resource."
	case CodeFeesNotSponsored:
		return "Nothing was paid: this seller does not sponsor network fees, which this endpoint requires; choose another resource."
	case CodeMainnetNotConfirmed:
		return "This changes state on mainnet: call " + tool + " again with confirmMainnet: true if you intend to."
	case CodeReadOnlyStore:
		return "The configured credential store is read-only: use an existing profile, or set MINDVAULT_CREDENTIALS to a dir: or secretsmanager: store."
	case CodeProfileExists:
		return "A profile with this name already exists: use it, or call " + tool + " again with another profile name."
	case CodeProfileNotAllowed:
		return "Your access token may not use this profile: list yours with mindvault_list_profiles and use one of them."
	case CodeAccountMissing:
		return "The Stellar account does not exist yet: create a funded wallet with mindvault_setup_wallet, or fund the address, then retry."
	case CodeUnexpectedTransaction:
		return "Nothing was signed or sent: the service prepared a transaction that does more than " + tool + " asked; do not sign it elsewhere, and report it to the service's operator."
	case CodeCancelled:
		return "The request was cancelled before it finished (the caller went away or cancelled it); call " + tool + " again if you still need it."
	case CodeStateArchived:
		return "The contract state is archived and must be restored (RestoreFootprint) before use; check the contract with mindvault_registry_info."
	}
	return ""
}

func categoryNext(in nextInput) string {
	switch in.cat {
	case CategoryNetwork:
		return "Check connectivity to " + in.src.Label() + " and retry; reads were already retried automatically."
	case CategoryTimeout:
		// Only whoever set the deadline knows which setting bounds it; without one, say none.
		if in.timeoutVar == "" {
			return "Retry shortly; the service did not answer in time."
		}
		return "Retry, or raise " + in.timeoutVar + " if the endpoint is slow."
	case CategoryPayment:
		return nextPayment
	case CategoryValidation:
		return "Correct the invalid arguments and call " + toolOr(in.tool, "the tool") + " again." + allowedSentence(in)
	case CategoryAuth:
		return nextAuth
	case CategoryNotFound:
		return nextNotFound
	case CategoryConflict:
		return nextConflict
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
		return nextContract
	}
	if in.tool != "" {
		return strings.TrimSuffix(nextUnknown, ".") + " (" + in.tool + ")."
	}
	return nextUnknown
}

// allowedSentence lists the accepted argument names. For INVALID_ARGUMENTS an empty list means
// the tool takes none; for other validation failures an absent list is simply not mentioned.
func allowedSentence(in nextInput) string {
	if len(in.allowed) > 0 {
		return " Allowed arguments: " + strings.Join(in.allowed, ", ") + "."
	}
	if in.code == CodeInvalidArguments {
		return " " + toolOr(in.tool, "The tool") + " takes no arguments."
	}
	return ""
}
