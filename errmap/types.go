package errmap

import "net/http"

// Source names the service (or the endpoint's own layer) a failure came from.
type Source string

// The sources of docs/errors.md "Sources", in its order.
const (
	SourceAPI         Source = "api"
	SourceX402        Source = "x402"
	SourceHorizon     Source = "horizon"
	SourceRPC         Source = "rpc"
	SourceRegistry    Source = "registry"
	SourceSponsor     Source = "sponsor"
	SourceCredentials Source = "credentials"
	SourceLedger      Source = "ledger"
	SourceRequest     Source = "request"
)

// sources are the sources in the order of docs/errors.md "Sources", each with the label of
// line 2 and the line-1 operation of a failure that names none.
var sources = []struct {
	src       Source
	label, op string
}{
	{SourceAPI, "MindVault API", "MindVault API request failed"},
	{SourceX402, "x402 payment", "x402 payment failed"},
	{SourceHorizon, "Horizon", "Horizon request failed"},
	{SourceRPC, "Soroban RPC", "Soroban RPC request failed"},
	{SourceRegistry, "vault-registry contract", "Contract call failed"},
	{SourceSponsor, "sponsored-account service", "Sponsored-account request failed"},
	{SourceCredentials, "credential store", "Credential store access failed"},
	{SourceLedger, "spend ledger", ""},
	{SourceRequest, "request validation", "Request failed"},
}

// index is s's position in sources. An empty or unknown source is SourceRequest's, the last: a
// failure nobody attributed to a downstream is the endpoint's own, and the diagnostic must only
// ever name documented sources.
func (s Source) index() int {
	for i, k := range sources {
		if k.src == s {
			return i
		}
	}
	return len(sources) - 1
}

// Label returns the human label used on line 2 of the text; an unknown source gets the request label.
func (s Source) Label() string { return sources[s.index()].label }

// Valid reports whether s is one of Sources().
func (s Source) Valid() bool { return sources[s.index()].src == s }

// Sources returns every source in the order of docs/errors.md "Sources".
func Sources() []Source {
	out := make([]Source, len(sources))
	for i, k := range sources {
		out[i] = k.src
	}
	return out
}

// Category is the coarse, machine-readable class an agent branches on.
type Category string

// The categories of docs/errors.md "Categories", in its order.
const (
	CategoryNetwork    Category = "network"
	CategoryTimeout    Category = "timeout"
	CategoryPayment    Category = "payment"
	CategoryValidation Category = "validation"
	CategoryAuth       Category = "auth"
	CategoryNotFound   Category = "not_found"
	CategoryConflict   Category = "conflict"
	CategoryRateLimit  Category = "rate_limit"
	CategoryServer     Category = "server"
	CategoryContract   Category = "contract"
	CategoryUnknown    Category = "unknown"
)

// categories are the categories in the order of docs/errors.md "Categories", each with its
// generic code (the code an explicit category takes when no refinement produced one of its own)
// and its retry verdict.
var categories = []struct {
	cat     Category
	generic string
	retry   Retry
}{
	{CategoryNetwork, CodeNetworkError, RetrySafe},
	{CategoryTimeout, CodeTimeout, RetrySafe},
	{CategoryPayment, CodePaymentRejected, RetryAfterAction},
	{CategoryValidation, CodeBadRequest, RetryAfterCorrection},
	{CategoryAuth, CodeUnauthorized, RetryAfterAction},
	{CategoryNotFound, CodeNotFound, RetryAfterCorrection},
	{CategoryConflict, CodeConflict, RetryNo},
	{CategoryRateLimit, CodeRateLimited, RetryAfterWait},
	{CategoryServer, CodeServerError, RetrySafe},
	{CategoryContract, CodeContractError, RetryAfterAction},
	{CategoryUnknown, CodeUnknown, RetrySafe},
}

// index is c's position in categories; an undocumented category is CategoryUnknown's, the last.
func (c Category) index() int {
	for i, k := range categories {
		if k.cat == c {
			return i
		}
	}
	return len(categories) - 1
}

// Valid reports whether c is a documented category.
func (c Category) Valid() bool { return categories[c.index()].cat == c }

// Retry is the retry verdict carried in the diagnostic.
type Retry string

// The retry verdicts of docs/errors.md "Retry verdicts".
const (
	RetrySafe            Retry = "safe"
	RetryAfterWait       Retry = "after_wait"
	RetryAfterCorrection Retry = "after_correction"
	RetryAfterAction     Retry = "after_action"
	RetryNo              Retry = "no"
)

// State says whether the failed call changed anything.
type State string

// The stateChanged values of docs/errors.md "stateChanged and executionStarted".
const (
	StateNo      State = "no"
	StateYes     State = "yes"
	StateUnknown State = "unknown"
)

// Transport is a failure thrown below HTTP (no response at all).
type Transport int

// Transport kinds; the zero value means the call got a response (or never made one).
const (
	TransportNone Transport = iota
	TransportNetwork
	TransportTimeout
	// TransportCancelled: the caller went away or cancelled the request (its context was
	// cancelled, not past its deadline), so the call was cut short on purpose.
	TransportCancelled
)

// Issue is one argument-validation problem (produced by the validate package).
type Issue struct {
	Path     string `json:"path"`               // JSON pointer into arguments, "" = the arguments object itself
	Rule     string `json:"rule"`               // "required", "unknown", "type", "min", "max", "pattern", "oneof", ...
	Expected string `json:"expected,omitempty"` // expected shape, e.g. "string", "at most 100"; never the rejected value
	Message  string `json:"-"`                  // human phrase without the path, e.g. "is required"
}

// Facts is everything known about one failure, as the client that saw it classified it; zero
// values mean "not known". Each client reads its own service's answers and hands over the code, a
// detail and the value-free Upstream facts; only a body nobody read stays raw in Body.
type Facts struct {
	Source    Source  // which service; empty or unknown is treated as SourceRequest
	Operation string  // line-1 label (the endpoint's own), e.g. "Browse failed", "Buy failed [402]"
	Tool      string  // tool name: the Next line is chosen per code and per tool, as the tool's Guide declares
	Guides    *Guides // every tool's Guide (nil: none, the shared sentences name no tool)

	Status     int         // HTTP status, 0 when none
	Header     http.Header // response headers (Retry-After, X-RateLimit-*, RateLimit-*)
	Body       []byte      // a raw response body no client read; only its generic detail leaves
	Transport  Transport   // thrown transport failure, if any
	TimeoutVar string      // the setting that bounds the call that timed out, set by whoever set the deadline
	RetryAfter *int        // a wait in seconds the downstream stated in its body; the Retry-After header wins

	Code     string   // the code (must be in Codes()): classified by the client, or the caller's own
	Category Category // explicit category, overrides the code's
	Upstream Upstream // value-free facts the client classified, for the diagnostic's upstream

	Detail         string // the endpoint's own detail sentence; it wins over what the downstream said
	UpstreamDetail string // what the downstream said, as its client read it (or a thrown error's text)
	Next           string // explicit Next line (the endpoint's own), overrides every derived one
	Advice         Advice // what the tool knew that the derived Next line may name

	Issues      []Issue  // validation issues, already ordered; bounded to MaxIssues
	AllowedArgs []string // argument names the tool accepts (validation Next line)

	ExecutionStarted bool        // whether the tool's own operation began
	StateChanged     State       // empty = "no" (or "unknown" when TxHash/PaymentExpiresAt is set)
	TxHash           string      // hash of a sent transaction whose outcome the failure reports
	PaymentExpiresAt string      // RFC 3339 expiry of a signed payment sent with unknown outcome
	NextAction       *NextAction // the recovery step as a tool call; dropped unless every part is valid
	LookUpTx         bool        // without NextAction: look TxHash up with the RoleTxStatus tool (MarkPending)
	Needs            Needs       // who must act, when the tool knows better than the code's default
	Budget           *Budget     // a daily budget's figures, for BUDGET_EXCEEDED
	Secrets          []string    // exact secret values of this call, redacted on top of the process-wide registry
}

// Upstream is what a client classified from a downstream's answer, value-free (code tokens,
// numbers, names from a table); Map still checks each one's shape.
type Upstream struct {
	ResultCodes       []string // transaction result codes, Horizon's spelling (tx_bad_seq, op_underfunded)
	ContractError     int      // N of Error(Contract, #N): the vault registry's or, for a payment, the USDC token's
	ContractErrorName string   // the name of ContractError in its contract's table ("Unknown" when not in it)
	X402Reason        string   // x402 errorReason / invalidReason
	RPCCode           int      // Stellar RPC JSON-RPC error code
}

// Advice holds what a tool knew that the derived Next line may name. Every part is optional;
// an empty or malformed one is simply not mentioned.
type Advice struct {
	Creator    string // the resource's creator (a G... account), for a signer the vault registry refused
	FundingURL string // where the wallet gets USDC (MINDVAULT_FUNDING_URL filled in), when it holds too little
}

// NextAction is a recovery step an agent can take as is: one tool call whose every argument is
// known (never a guess, never a secret); Map drops it whole unless every part passes its checks.
type NextAction struct {
	Tool      string         `json:"tool"`
	Arguments map[string]any `json:"arguments"` // strings, booleans and whole numbers only
}

// Diagnostic is the machine-readable failure placed in _meta["io.mindvault/error"].
type Diagnostic struct {
	Version           int            `json:"version"`
	Code              string         `json:"code"`
	Category          string         `json:"category"`
	Source            string         `json:"source"`
	Status            int            `json:"status,omitempty"`
	Operation         string         `json:"operation"`
	Detail            string         `json:"detail"`
	Next              string         `json:"next"`
	Retry             string         `json:"retry"`
	RetryAfterSeconds *int           `json:"retryAfterSeconds,omitempty"`
	ExecutionStarted  bool           `json:"executionStarted"`
	StateChanged      string         `json:"stateChanged"`
	Upstream          map[string]any `json:"upstream,omitempty"`
	Issues            []Issue        `json:"issues,omitempty"`
	OmittedIssues     *int           `json:"omittedIssues,omitempty"`
	JSONRPCCode       int            `json:"jsonrpcCode,omitempty"`
	TxHash            string         `json:"txHash,omitempty"`
	PaymentExpiresAt  string         `json:"paymentExpiresAt,omitempty"`
	NextAction        *NextAction    `json:"nextAction,omitempty"`
	Needs             string         `json:"needs,omitempty"`
	Budget            *Budget        `json:"budget,omitempty"`
}

// Budget is a daily budget's figures as BUDGET_EXCEEDED reports them: decimal USDC amounts
// and the RFC 3339 time the day's total resets.
type Budget struct {
	LimitUSDC     string `json:"limitUsdc"`
	SpentUSDC     string `json:"spentUsdc"`
	AmountUSDC    string `json:"amountUsdc"`
	RemainingUSDC string `json:"remainingUsdc"`
	ResetsAt      string `json:"resetsAt"`
}

// Failure is the mapped failure: the three-line text and its diagnostic.
type Failure struct {
	Text       string
	Diagnostic Diagnostic
}

// DiagnosticVersion is the schema version of Diagnostic.
const DiagnosticVersion = 1

// MetaKey is the _meta key under which the diagnostic travels.
const MetaKey = "io.mindvault/error"

// Bounds applied by Map.
const (
	MaxIssues      = 20       // issues kept in the diagnostic
	MaxDetail      = 300      // runes in the detail (and in a validation line 1)
	MaxBodyBytes   = 64 << 10 // bytes of a response body ever looked at
	JSONRPCInvalid = -32602   // JSON-RPC code of argument validation
	maxOperation   = 200      // runes of the operation label
	maxNext        = 600      // runes of an explicit or generated Next sentence
	maxActionArgs  = 8        // arguments of a nextAction
	maxActionValue = 256      // bytes of one nextAction argument value
	// DefaultRetryAfterSeconds is the wait stated for a 429 that names none (no Retry-After,
	// no retryAfterSeconds in the body, no rate-limit reset header).
	DefaultRetryAfterSeconds = 5
)
