package errmap

// The stable codes Map can emit. A code never changes meaning; new meanings get new codes.
const (
	CodeInvalidArguments       = "INVALID_ARGUMENTS"
	CodeInvalidRequest         = "INVALID_REQUEST"
	CodeUnknownName            = "UNKNOWN_NAME"
	CodeInternalError          = "INTERNAL_ERROR"
	CodeMainnetNotConfirmed    = "MAINNET_NOT_CONFIRMED"
	CodeBadRequest             = "BAD_REQUEST"
	CodeContractInvalidInput   = "CONTRACT_INVALID_INPUT"
	CodeUnexpectedTransaction  = "UNEXPECTED_TRANSACTION"
	CodeDeliveryTooLarge       = "DELIVERY_TOO_LARGE"
	CodeConfirmationInvalid    = "CONFIRMATION_INVALID"
	CodeConfirmationDeclined   = "CONFIRMATION_DECLINED"
	CodeConfirmationStale      = "CONFIRMATION_STALE"
	CodeNetworkError           = "NETWORK_ERROR"
	CodeCancelled              = "CANCELLED"
	CodeTimeout                = "TIMEOUT"
	CodePaymentRequired        = "PAYMENT_REQUIRED"
	CodePaymentRejected        = "PAYMENT_REJECTED"
	CodePaymentSimFailed       = "PAYMENT_SIMULATION_FAILED"
	CodeSettlementFailed       = "SETTLEMENT_FAILED"
	CodeInsufficientUSDC       = "INSUFFICIENT_USDC"
	CodeInsufficientBalance    = "INSUFFICIENT_BALANCE"
	CodeTrustlineMissing       = "TRUSTLINE_MISSING"
	CodePriceAboveCap          = "PRICE_ABOVE_CAP"
	CodePriceChanged           = "PRICE_CHANGED"
	CodeUnsupportedRequirement = "UNSUPPORTED_REQUIREMENT"
	CodeFeesNotSponsored       = "FEES_NOT_SPONSORED"
	CodeUnauthorized           = "UNAUTHORIZED"
	CodeForbidden              = "FORBIDDEN"
	CodeContractUnauthorized   = "CONTRACT_UNAUTHORIZED"
	CodeTxBadAuth              = "TX_BAD_AUTH"
	CodeCredentialsMissing     = "CREDENTIALS_MISSING"
	CodeReadOnlyStore          = "READ_ONLY_STORE"
	CodeProfileNotAllowed      = "PROFILE_NOT_ALLOWED"
	CodeNotFound               = "NOT_FOUND"
	CodeAccountMissing         = "ACCOUNT_MISSING"
	CodeConflict               = "CONFLICT"
	CodeAlreadyRegistered      = "ALREADY_REGISTERED"
	CodeAlreadyOwner           = "ALREADY_OWNER"
	CodePriceMismatch          = "PRICE_MISMATCH"
	CodeProfileExists          = "PROFILE_EXISTS"
	CodeAlreadyPurchased       = "ALREADY_PURCHASED"
	CodeDuplicatePayment       = "DUPLICATE_PAYMENT"
	CodeInProgress             = "IN_PROGRESS"
	CodePayeeMismatch          = "PAYEE_MISMATCH"
	CodePayeeNotAllowed        = "PAYEE_NOT_ALLOWED"
	CodeResourceDenied         = "RESOURCE_DENIED"
	CodeSpendingPaused         = "SPENDING_PAUSED"
	CodeIdempotencyKeyReused   = "IDEMPOTENCY_KEY_REUSED"
	CodeBudgetExceeded         = "BUDGET_EXCEEDED"
	CodeRateLimited            = "RATE_LIMITED"
	CodeServerError            = "SERVER_ERROR"
	CodeChainUnavailable       = "CHAIN_UNAVAILABLE"
	CodeMalformedResponse      = "MALFORMED_RESPONSE"
	CodeTxBadSequence          = "TX_BAD_SEQUENCE"
	CodeTxExpired              = "TX_EXPIRED"
	CodeContractError          = "CONTRACT_ERROR"
	CodeContractMissing        = "CONTRACT_MISSING"
	CodeStateArchived          = "STATE_ARCHIVED"
	CodeHostError              = "HOST_ERROR"
	CodeRPCError               = "RPC_ERROR"
	CodeUnknown                = "UNKNOWN"
)

// CodeDoc documents one code: its fixed category, its meaning in one sentence, and who must act
// when only a person can resolve it.
type CodeDoc struct {
	Code     string   // UPPER_SNAKE code as it appears in the diagnostic
	Category Category // the category Map pairs with the code unless Facts.Category overrides it
	Meaning  string   // one sentence for the public code list
	Needs    Needs    // who must act, unless the state changed or the tool says otherwise
}

// codeInfo adds a short phrase (the detail when nothing better is known), a retry verdict
// stricter than the category's (no when no caller action fixes it, after_wait when time clears
// it), and the Next sentence of a code that needs no context.
type codeInfo struct {
	CodeDoc
	phrase string
	retry  Retry
	next   string
}

// codeTable is the single source of truth: Codes(), the README list and the tests read it.
// Order: by category as in docs/errors.md "Categories", the generic code of each category first.
var codeTable = []codeInfo{
	{CodeDoc{CodeNetworkError, CategoryNetwork, "A transport error (DNS, refused or reset connection, TLS) prevented any response.", ""}, "connection failed", "", ""},
	{CodeDoc{CodeCancelled, CategoryNetwork, "The caller went away or cancelled the request before it finished; logged as such, never reported as a timeout.", ""}, "request cancelled by the caller", "", ""},
	{CodeDoc{CodeTimeout, CategoryTimeout, "The deadline passed before the service answered, or it answered HTTP 408 or 504.", ""}, "request timed out", "", ""},
	{CodeDoc{CodePaymentRequired, CategoryPayment, "The service answered HTTP 402: the resource needs an x402 payment.", NeedsUser}, "payment required", "", ""},
	{CodeDoc{CodePaymentRejected, CategoryPayment, "The payment was refused by the seller or its facilitator; upstream.x402Reason says why when known.", NeedsUser}, "payment rejected", "", ""},
	{CodeDoc{CodePaymentSimFailed, CategoryPayment, "The seller's facilitator simulated the payment and the simulation failed (x402 invalid_exact_stellar_payload_simulation_failed): most often too little USDC or no USDC trustline, else an authorization already used or expired; nothing was paid.", NeedsUser}, "the facilitator's simulation of the payment failed", "", ""},
	{CodeDoc{CodeInsufficientUSDC, CategoryPayment, "The paying wallet holds less USDC than the price (USDC token error #10 or x402 insufficient_funds).", NeedsUser}, "insufficient USDC balance", "", ""},
	{CodeDoc{CodeInsufficientBalance, CategoryPayment, "A classic transaction lacked funds (Horizon op_underfunded or tx_insufficient_balance).", NeedsUser}, "insufficient balance", "", ""},
	{CodeDoc{CodeTrustlineMissing, CategoryPayment, "The account has no USDC trustline (USDC token error #13 or Horizon op_no_trust).", NeedsUser}, "USDC trustline missing", "", ""},
	{CodeDoc{CodePriceAboveCap, CategoryPayment, "The price is above the caller's spend cap; refused before anything was signed.", NeedsUser}, "price above the spend cap", "", ""},
	{CodeDoc{CodePriceChanged, CategoryPayment, "The payment requested is above the previewed price; refused before anything was signed.", NeedsUser}, "price changed since the preview", "", ""},
	{CodeDoc{CodePayeeMismatch, CategoryPayment, "The seller's 402 names another payee than the listing (the resource's publisher wallet, or the verification agent's wallet for a fee), so nothing was signed.", NeedsOperator}, "payee differs from the listing", RetryNo, "Do not pay this seller: its payment request names another payee than the listing; ask the operator to check the seller, and choose another resource meanwhile."},
	{CodeDoc{CodePayeeNotAllowed, CategoryPayment, "The operator's lists forbid paying this account: it is on MINDVAULT_PAYEES_DENIED, or not on a non-empty MINDVAULT_PAYEES_ALLOWED; nothing was signed.", NeedsOperator}, "payee not allowed by the operator", RetryNo, "Do not try to pay this: the operator's lists forbid it and no argument changes them; choose another resource, or ask the operator."},
	{CodeDoc{CodeResourceDenied, CategoryPayment, "The operator forbids buying this resource (MINDVAULT_RESOURCES_DENIED); nothing was signed.", NeedsOperator}, "resource denied by the operator", RetryNo, "Do not try to pay this: the operator's lists forbid it and no argument changes them; choose another resource, or ask the operator."},
	{CodeDoc{CodeSpendingPaused, CategoryPayment, "The operator paused all spending of this deployment (make spending-pause); nothing was signed, reads keep working.", NeedsOperator}, "spending paused by the operator", RetryNo, "Do not pay now: the operator paused all spending of this deployment; reads keep working, and the operator resumes it (make spending-resume)."},
	{CodeDoc{CodeBudgetExceeded, CategoryPayment, "The payment would take the wallet's (or the caller's) spending today above the daily budget (MINDVAULT_BUDGET_USDC); refused before anything was signed, retryAfterSeconds until the budget resets at UTC midnight.", ""}, "daily budget exceeded", RetryAfterWait, "Wait until the daily budget resets (retryAfterSeconds, at UTC midnight) before paying again, or ask the operator to raise MINDVAULT_BUDGET_USDC; nothing was paid."},
	{CodeDoc{CodeConfirmationDeclined, CategoryPayment, "The user declined or cancelled the confirmation asked for on the modern era, so nothing was paid or sent (category validation for a write).", NeedsUser}, "the user declined", RetryNo, ""},
	{CodeDoc{CodeConfirmationStale, CategoryPayment, "What the call would pay or send changed since the user approved it (payee, asset, network, payer, amount below the approved one, or a write's call or fee), so nothing was paid or sent (category validation for a write).", NeedsUser}, "changed since the user approved it", "", ""},
	{CodeDoc{CodeUnsupportedRequirement, CategoryPayment, "No x402 payment option fits this endpoint (Stellar exact scheme, configured network and USDC asset).", NeedsOperator}, "unsupported payment requirement", RetryNo, "Report it to the service's operator: it asks for a payment this endpoint cannot make (Stellar exact scheme, configured network, USDC), and nothing was paid."},
	{CodeDoc{CodeFeesNotSponsored, CategoryPayment, "The seller's x402 requirement does not sponsor network fees, which this endpoint requires.", NeedsOperator}, "payment fees are not sponsored", RetryNo, "Report it to the service's operator: its payment requirement does not sponsor network fees, which this endpoint requires, and nothing was paid."},
	{CodeDoc{CodeInvalidArguments, CategoryValidation, "The tool's arguments violate its request model; issues lists every problem (JSON-RPC -32602).", ""}, "invalid arguments", "", ""},
	{CodeDoc{CodeInvalidRequest, CategoryValidation, "The MCP request broke the wire rules (not JSON, not one JSON-RPC request object, a header that disagrees with the body, an unsupported protocol version, malformed params); JSON-RPC error.message names the rule.", ""}, "invalid MCP request", "", "Correct the request as the error message says and send it again."},
	{CodeDoc{CodeMainnetNotConfirmed, CategoryValidation, "A state-changing tool was called on mainnet without confirmMainnet: true.", NeedsUser}, "mainnet call not confirmed", "", ""},
	{CodeDoc{CodeConfirmationInvalid, CategoryValidation, "The requestState of a repeated call failed verification, expired, or belongs to other arguments, another caller or another network (JSON-RPC -32602 error.data.code); nothing was done.", ""}, "confirmation state not valid for this call", "", ""},
	{CodeDoc{CodeBadRequest, CategoryValidation, "The service rejected the request as invalid (HTTP 400, 422 or another unlisted 4xx).", ""}, "request rejected as invalid", "", ""},
	{CodeDoc{CodeContractInvalidInput, CategoryValidation, "The vault-registry contract rejected an argument (contract errors 3, 4, 5, 11, 12, 13, 16, 17).", ""}, "contract rejected the input", "", ""},
	{CodeDoc{CodeUnexpectedTransaction, CategoryValidation, "A transaction prepared by a service does more than the call asked (network, sequence number, preconditions, memo, operations, contract call or any of its arguments, authorization, fee or time bounds), so nothing was signed or sent.", NeedsOperator}, "transaction refused before signing", RetryNo, "Report it to the service's operator and do not sign the transaction elsewhere: the service prepared a transaction that does more than this call asked, and nothing was signed or sent."},
	{CodeDoc{CodeIdempotencyKeyReused, CategoryValidation, "The idempotencyKey was already used by this wallet for the same tool with other arguments, so nothing was signed or paid; a new call needs a new key.", ""}, "idempotency key reused with other arguments", "", "Use a new idempotencyKey for a new call; reuse a key only to retry the very same call."},
	{CodeDoc{CodeDeliveryTooLarge, CategoryValidation, "The bought file is larger than this endpoint returns inline (MINDVAULT_MAX_INLINE_BYTES); when the preview announces the size it is refused before paying.", NeedsOperator}, "file too large to deliver inline", RetryNo, "Ask the operator to raise MINDVAULT_MAX_INLINE_BYTES, or get the file outside this endpoint."},
	{CodeDoc{CodeUnauthorized, CategoryAuth, "The service answered HTTP 401: credentials are missing or not accepted.", NeedsUser}, "not authenticated", "", ""},
	{CodeDoc{CodeForbidden, CategoryAuth, "The service answered HTTP 403: these credentials may not do this.", NeedsUser}, "not allowed", "", ""},
	{CodeDoc{CodeContractUnauthorized, CategoryAuth, "The vault-registry contract refused the signer (contract error #6 Unauthorized).", NeedsUser}, "signer not authorised by the contract", "", ""},
	{CodeDoc{CodeTxBadAuth, CategoryAuth, "Horizon rejected the transaction's signatures (tx_bad_auth or op_bad_auth).", NeedsUser}, "transaction signatures rejected", "", ""},
	{CodeDoc{CodeCredentialsMissing, CategoryAuth, "The profile has no wallet secret or API key for this operation.", NeedsUser}, "credentials missing", "", ""},
	{CodeDoc{CodeReadOnlyStore, CategoryAuth, "The configured credential store is read-only, so the profile cannot be written.", NeedsOperator}, "credential store is read-only", "", "Use an existing profile, or ask the operator to set MINDVAULT_CREDENTIALS to a dir: or secretsmanager: store."},
	{CodeDoc{CodeProfileNotAllowed, CategoryAuth, "The caller's access token is not bound to the requested profile.", NeedsOperator}, "profile not allowed for this token", "", ""},
	{CodeDoc{CodeNotFound, CategoryNotFound, "The resource does not exist (HTTP 404, or contract error #2 NotFound).", ""}, "not found", "", ""},
	{CodeDoc{CodeUnknownName, CategoryNotFound, "No method, tool or prompt of this endpoint has the name the request used (JSON-RPC -32601, or -32602 for a tool or prompt); error.data.suggestions offers up to three close names.", ""}, "unknown method, tool or prompt", "", "Use a name that tools/list or prompts/list shows; error.data.suggestions offers the closest ones."},
	{CodeDoc{CodeAccountMissing, CategoryNotFound, "The Stellar account does not exist on the network (Horizon 404, tx_no_source_account, USDC token error #6).", NeedsUser}, "Stellar account not found", "", ""},
	{CodeDoc{CodeConflict, CategoryConflict, "The target is already in a conflicting state: the service answered HTTP 409, or its answer shows it (a resource created earlier under the same Idempotency-Key with other content, a resource the paywall cannot sell because it is not on chain).", ""}, "conflict with the current state", "", ""},
	{CodeDoc{CodeAlreadyRegistered, CategoryConflict, "The resource is already registered on the vault-registry contract (contract error #1, or the API's 409 \"already registered on-chain\"); for a publisher registration, the profile already holds a publisher API key, so nothing was sent.", ""}, "already registered", "", ""},
	{CodeDoc{CodeAlreadyOwner, CategoryConflict, "The new owner already owns the resource (contract error #14).", ""}, "already the owner", "", "Treat it as done: that account already owns the resource, so no action needed."},
	{CodeDoc{CodePriceMismatch, CategoryConflict, "The paywall found the API price and the on-chain price disagree (409 price_mismatch): after an on-chain price change the catalog catches up within about 30 s (retryAfterSeconds).", ""}, "API and on-chain prices disagree", RetryAfterWait, ""},
	{CodeDoc{CodeProfileExists, CategoryConflict, "A credential profile with this name already exists.", ""}, "profile already exists", "", ""},
	{CodeDoc{CodeAlreadyPurchased, CategoryConflict, "This wallet already bought the resource, so nothing was paid; the detail carries the earlier receipt and allowRepeat: true buys it again.", ""}, "already purchased by this wallet", "", ""},
	{CodeDoc{CodeDuplicatePayment, CategoryConflict, "A payment for the same intent (the same purchase, approval, idempotency key or verification fee) already settled, so nothing was paid or sent; the purchase history shows it.", ""}, "payment for this intent already made", "", ""},
	{CodeDoc{CodeInProgress, CategoryConflict, "Another call is paying for the same intent right now, or an earlier payment of it has no known outcome yet, so nothing was signed; retryAfterSeconds says when the same call can answer the outcome (the journal, docs/once.md).", ""}, "a payment for this intent is in progress", RetryAfterWait, "Wait retryAfterSeconds, then send this same call again: it answers the other payment's outcome and pays nothing twice."},
	{CodeDoc{CodeRateLimited, CategoryRateLimit, "The service answered HTTP 429; retryAfterSeconds says how long to wait (a stated 5 s when the service named no wait).", ""}, "rate limited", "", ""},
	{CodeDoc{CodeServerError, CategoryServer, "The service failed (HTTP 5xx other than 504, or a Stellar RPC internal error).", ""}, "server error", "", ""},
	{CodeDoc{CodeInternalError, CategoryServer, "The endpoint itself failed (JSON-RPC -32603): a bug, whose correlation id finds the log line, or a configuration problem found at startup, which the message names.", ""}, "internal error", "", ""},
	{CodeDoc{CodeSettlementFailed, CategoryServer, "The seller's facilitator accepted the payment but could not sign or submit its transaction (x402 settle_exact_stellar_* or unexpected_settle_error before a transaction hash), so nothing settled.", ""}, "the facilitator could not submit the payment", "", ""},
	{CodeDoc{CodeChainUnavailable, CategoryServer, "The MindVault paywall could not reach the Stellar network (503 chain_unavailable).", ""}, "chain unavailable", "", ""},
	{CodeDoc{CodeMalformedResponse, CategoryServer, "The service answered success with a body of the wrong shape.", ""}, "malformed response", "", ""},
	{CodeDoc{CodeTxBadSequence, CategoryServer, "The transaction's sequence number was stale (Horizon tx_bad_seq); a rebuilt transaction succeeds.", ""}, "stale transaction sequence", "", "Retry once: a new call rebuilds the transaction with a fresh sequence number."},
	{CodeDoc{CodeTxExpired, CategoryServer, "The transaction reached the network after its time bounds (Horizon tx_too_late).", ""}, "transaction expired", "", "Retry once: the transaction reached the network too late, and a new call signs a fresh one."},
	{CodeDoc{CodeContractError, CategoryContract, "The vault-registry contract rejected the call; upstream.contractError and contractErrorName say how.", NeedsOperator}, "contract rejected the call", "", ""},
	{CodeDoc{CodeContractMissing, CategoryContract, "No contract instance exists at the configured id on this network (Error(Storage, MissingValue)).", NeedsOperator}, "contract instance missing", "", "Ask the operator to check VAULT_REGISTRY_CONTRACT_ID and STELLAR_NETWORK: no contract exists at that id on this network."},
	{CodeDoc{CodeStateArchived, CategoryContract, "The contract state needed is archived and must be restored first (restorePreamble, entry_archived).", NeedsOperator}, "contract state archived", "", ""},
	{CodeDoc{CodeHostError, CategoryContract, "The Soroban host aborted the contract call with a host error named in the detail.", NeedsOperator}, "contract call aborted by the host", "", ""},
	{CodeDoc{CodeRPCError, CategoryContract, "Stellar RPC answered with a JSON-RPC error; upstream.rpcCode holds its code.", NeedsOperator}, "Stellar RPC rejected the request", "", ""},
	{CodeDoc{CodeUnknown, CategoryUnknown, "A failure nothing else classifies.", ""}, "unexpected failure", "", ""},
}

var codeIndex = func() map[string]int {
	m := make(map[string]int, len(codeTable))
	for i, c := range codeTable {
		m[c.Code] = i
	}
	return m
}()

// Codes returns every code Map can produce, in a stable order, each documented in one sentence.
func Codes() []CodeDoc {
	out := make([]CodeDoc, len(codeTable))
	for i, c := range codeTable {
		out[i] = c.CodeDoc
	}
	return out
}

// IsCode reports whether code is documented; callers assert it in tests on their explicit codes.
func IsCode(code string) bool {
	_, ok := codeIndex[code]
	return ok
}

// info is code's row, UNKNOWN's for an undocumented code.
func info(code string) codeInfo {
	i, ok := codeIndex[code]
	if !ok {
		i = codeIndex[CodeUnknown]
	}
	return codeTable[i]
}

// CodeCategory returns the category documented for code, or CategoryUnknown when undocumented.
func CodeCategory(code string) Category { return info(code).Category }

// Phrase is the code's short phrase ("request timed out"), the detail of last resort; clients
// build their details from it ("insufficient USDC balance (insufficient_funds)").
func Phrase(code string) string { return info(code).phrase }

// CodeRetry is the retry verdict a code carries when nothing has changed: the category's,
// made stricter for the codes no caller action can fix. The protocol layer uses it for the
// error.data of JSON-RPC errors, so they give the same verdict a tool result would.
func CodeRetry(code string) Retry {
	return retryVerdict(CodeCategory(code), code, StateNo)
}

// Needs says who must act before a failed call can succeed when no call an agent can make will
// do: the user or the operator. An agent's loop stops at a diagnostic with needs and asks.
type Needs string

// The people a failure can need.
const (
	NeedsUser     Needs = "user"
	NeedsOperator Needs = "operator"
)

// needsFor is who must act on a failure: the tool's own word (Facts.Needs), else the code's.
// A failure whose state changed needs a look first, which an agent can take itself.
func needsFor(f *Facts, code string, state State) Needs {
	if f.Needs != "" {
		return f.Needs
	}
	if state != StateNo {
		return ""
	}
	return info(code).Needs
}

// classify returns the code and the category: the explicit code and category, then the argument
// issues, a transport failure, the HTTP status table. An explicit category without a code keeps
// the derived code when it belongs to that category, else takes the category's generic code.
func classify(f *Facts, status int) (code string, cat Category) {
	switch {
	case IsCode(f.Code):
		code = f.Code
	case len(f.Issues) > 0:
		code = CodeInvalidArguments
	case transportCodes[f.Transport] != "":
		code = transportCodes[f.Transport]
	default:
		code = statusCode(status)
	}
	cat = CodeCategory(code)
	if f.Category.Valid() {
		cat = f.Category
		if !IsCode(f.Code) && CodeCategory(code) != cat {
			code = categories[cat.index()].generic
		}
	}
	return code, cat
}

var transportCodes = map[Transport]string{TransportNetwork: CodeNetworkError, TransportTimeout: CodeTimeout, TransportCancelled: CodeCancelled}

// statusCode is the HTTP status table of the taxonomy; the same for every source, because
// whatever a status means more precisely for one service its client has already said.
func statusCode(status int) string {
	if code, ok := statusCodes[status]; ok {
		return code
	}
	switch {
	case status >= 500:
		return CodeServerError
	case status >= 400:
		return CodeBadRequest
	}
	return CodeUnknown
}

var statusCodes = map[int]string{
	400: CodeBadRequest, 401: CodeUnauthorized, 402: CodePaymentRequired, 403: CodeForbidden, 404: CodeNotFound,
	408: CodeTimeout, 409: CodeConflict, 422: CodeBadRequest, 429: CodeRateLimited, 504: CodeTimeout,
}

// retryVerdict is the category's verdict, made stricter when something may already have changed:
// repeating a call whose effect is unknown or already happened can pay or write twice.
func retryVerdict(cat Category, code string, state State) Retry {
	if state != StateNo {
		return RetryNo
	}
	if r := info(code).retry; r != "" {
		return r
	}
	return categories[cat.index()].retry
}
