package errmap

import "strings"

// evidence is every classification input after normalisation, computed once per Map call.
type evidence struct {
	f         *Facts
	src       Source
	status    int
	body      body
	codes     []string // Horizon result codes (sanitised)
	contractN int      // vault-registry error number
	tokenN    int      // USDC token error number
	reason    string   // x402 reason (sanitised)
}

// classify returns the code, the category and a short description of what the refinement saw
// (used as detail when neither body nor caller gave one). Order: explicit code and category, then
// transport, then docs/errors.md "Refinements by downstream", then the HTTP status table.
func classify(ev *evidence) (code string, cat Category, desc string) {
	code, desc = derive(ev)
	cat = CodeCategory(code)
	f := ev.f
	if IsCode(f.Code) {
		code = f.Code
		cat = CodeCategory(code)
	}
	if f.Category.Valid() {
		cat = f.Category
		if !IsCode(f.Code) && CodeCategory(code) != cat {
			code = genericCode[cat]
		}
	}
	return code, cat, desc
}

func derive(ev *evidence) (code, desc string) {
	f := ev.f
	if len(f.Issues) > 0 {
		return CodeInvalidArguments, ""
	}
	switch f.Transport {
	case TransportTimeout:
		return CodeTimeout, ""
	case TransportNetwork:
		return CodeNetworkError, ""
	}
	if n := ev.contractN; n > 0 {
		return contractCode(n), ContractErrorName(n, f.ContractNames) + " (Error(Contract, #" + itoa(n) + "))"
	}
	if f.HostError != "" {
		if isMissingValue(f.HostError) {
			return CodeContractMissing, "contract instance missing (Error(Storage, MissingValue))"
		}
		if isArchived(f.HostError) {
			return CodeStateArchived, codePhrase(CodeStateArchived)
		}
	}
	if n := ev.tokenN; n > 0 {
		c := tokenCode(n)
		return c, codePhrase(c) + " (USDC token error #" + itoa(n) + " " + tokenErrorName(n) + ")"
	}
	if len(ev.codes) > 0 {
		desc = "transaction failed (" + strings.Join(ev.codes, ", ") + ")"
		for _, c := range ev.codes {
			if code, ok := resultCodeClass[c]; ok {
				return code, desc
			}
		}
	}
	if ev.reason != "" {
		c := x402ReasonCode(ev.reason)
		return c, codePhrase(c) + " (" + ev.reason + ")"
	}
	// The Go RPC client turns HTTP 429/503/504 into -32603, so a recorded HTTP error status
	// outranks the JSON-RPC code.
	if f.RPCCode != 0 && ev.status < 300 {
		d := "JSON-RPC error " + itoa(f.RPCCode)
		if rpcServerCodes[f.RPCCode] {
			return CodeServerError, d
		}
		return CodeRPCError, d
	}
	if ev.src == SourceAPI || ev.src == SourceX402 {
		switch ev.body.token {
		case "chain_unavailable":
			return CodeChainUnavailable, desc
		case "price_mismatch":
			return CodePriceMismatch, desc
		}
	}
	if f.HostError != "" {
		return CodeHostError, hostErrorName(f.HostError)
	}
	return statusCode(ev.status, ev.src), desc
}

// statusCode is docs/errors.md "HTTP status table".
func statusCode(status int, src Source) string {
	switch {
	case status == 402:
		return CodePaymentRequired
	case status == 400 || status == 422:
		return CodeBadRequest
	case status == 401:
		return CodeUnauthorized
	case status == 403:
		return CodeForbidden
	case status == 404:
		// Horizon is only asked for accounts (and its root), so its 404 is a missing account.
		if src == SourceHorizon {
			return CodeAccountMissing
		}
		return CodeNotFound
	case status == 409:
		return CodeConflict
	case status == 408 || status == 504:
		return CodeTimeout
	case status == 429:
		return CodeRateLimited
	case status >= 500:
		return CodeServerError
	case status >= 400:
		return CodeBadRequest
	}
	return CodeUnknown
}

// retryVerdict is the category's verdict, made stricter when something may already have changed:
// repeating a call whose effect is unknown or already happened can pay or write twice.
func retryVerdict(cat Category, code string, state State) Retry {
	if state != StateNo {
		return RetryNo
	}
	switch code {
	case CodeUnsupportedRequirement, CodeFeesNotSponsored:
		return RetryNo // no action of the caller makes this seller's requirement acceptable
	case CodeUnexpectedTransaction:
		return RetryNo // the service, not the caller, must change what it prepares
	case CodeDeliveryTooLarge:
		return RetryNo // no argument makes the file smaller; only the operator's limit could
	case CodeConfirmationDeclined:
		return RetryNo // the user said no: only the user can change that
	}
	switch cat {
	case CategoryPayment, CategoryAuth, CategoryContract:
		return RetryAfterAction
	case CategoryValidation, CategoryNotFound:
		return RetryAfterCorrection
	case CategoryConflict:
		return RetryNo
	case CategoryRateLimit:
		return RetryAfterWait
	}
	return RetrySafe // network, timeout, server, unknown
}
