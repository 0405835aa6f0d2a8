package errmap

// classify returns the code and the category. Order: the explicit code (which the client
// that read the downstream's answer, or the caller, set) and category, then the argument
// issues, then a transport failure, then the HTTP status table. An explicit category without
// a code keeps the derived code when it belongs to that category, else takes the category's
// generic code.
func classify(f *Facts, status int) (code string, cat Category) {
	code = derive(f, status)
	if IsCode(f.Code) {
		code = f.Code
	}
	cat = CodeCategory(code)
	if f.Category.Valid() {
		cat = f.Category
		if !IsCode(f.Code) && CodeCategory(code) != cat {
			code = genericCode[cat]
		}
	}
	return code, cat
}

func derive(f *Facts, status int) string {
	if len(f.Issues) > 0 {
		return CodeInvalidArguments
	}
	switch f.Transport {
	case TransportTimeout:
		return CodeTimeout
	case TransportNetwork:
		return CodeNetworkError
	case TransportCancelled:
		return CodeCancelled
	}
	return statusCode(status)
}

// statusCode is the HTTP status table of the taxonomy; the same for every source, because
// whatever a status means more precisely for one service its client has already said.
func statusCode(status int) string {
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
	case CodeUnsupportedRequirement, CodeFeesNotSponsored, CodePayeeMismatch:
		return RetryNo // no action of the caller makes this seller's requirement acceptable
	case CodePayeeNotAllowed, CodeResourceDenied, CodeSpendingPaused:
		return RetryNo // the operator's setting; no argument of the caller changes it
	case CodeUnexpectedTransaction:
		return RetryNo // the service, not the caller, must change what it prepares
	case CodeDeliveryTooLarge:
		return RetryNo // no argument makes the file smaller; only the operator's limit could
	case CodeConfirmationDeclined:
		return RetryNo // the user said no: only the user can change that
	case CodeBudgetExceeded:
		return RetryAfterWait // the day's budget resets; no call raises it
	case CodePriceMismatch:
		return RetryAfterWait // the catalog catches up with an on-chain price change by itself
	case CodeInProgress:
		return RetryAfterWait // the other call ends, or the chain decides, within its window
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
