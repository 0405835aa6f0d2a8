package errmap

import (
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"
)

func TestContractNumbers(t *testing.T) {
	names := []string{"", "AlreadyRegistered", "NotFound", "InvalidPrice", "MetadataTooLong", "InvalidTag",
		"Unauthorized", "PendingAdminNotSet", "PendingAdminAlreadySet", "SameAdmin", "TermsHashTooLong",
		"InvalidResourceId", "InvalidMetadataPointer", "EmptyMetadata", "AlreadyOwner", "NoPendingTransfer",
		"ReservedId", "PriceExceedsMax", "AdminNotSet", "NotVerifier", "InvalidVerificationTransition",
		"AlreadyFrozen", "MetadataFrozen", "DuplicateInRepair"}
	wantCode := func(n int) string {
		switch n {
		case 1:
			return CodeAlreadyRegistered
		case 2:
			return CodeNotFound
		case 6:
			return CodeContractUnauthorized
		case 14:
			return CodeAlreadyOwner
		case 3, 4, 5, 11, 12, 13, 16, 17:
			return CodeContractInvalidInput
		}
		return CodeContractError
	}
	wantCat := map[string]Category{
		CodeAlreadyRegistered: CategoryConflict, CodeAlreadyOwner: CategoryConflict, CodeNotFound: CategoryNotFound,
		CodeContractUnauthorized: CategoryAuth, CodeContractInvalidInput: CategoryValidation, CodeContractError: CategoryContract,
	}
	for n := 1; n <= 23; n++ {
		for _, via := range []string{"field", "host error"} {
			t.Run(fmt.Sprintf("%d/%s", n, via), func(t *testing.T) {
				f := Facts{Source: SourceRegistry, Operation: "Set price failed", Tool: "mindvault_set_price"}
				if via == "field" {
					f.ContractError = n
				} else {
					f.Source = SourceRPC
					f.HostError = fmt.Sprintf("HostError: Error(Contract, #%d)\n\nEvent log (newest first):\n   0: [Diagnostic Event] contract:%s, topics:[error, Error(Contract, #%d)], data:[\"set_price\", \"secret-arg-value\"]", n, testContract, n)
				}
				got := mapT(t, f)
				d := got.Diagnostic
				if d.Code != wantCode(n) || d.Category != string(wantCat[wantCode(n)]) {
					t.Errorf("#%d: %s/%s", n, d.Code, d.Category)
				}
				if d.Upstream["contractError"] != n || d.Upstream["contractErrorName"] != names[n] {
					t.Errorf("#%d upstream %v", n, d.Upstream)
				}
				if want := names[n] + " (Error(Contract, #" + fmt.Sprint(n) + "))"; d.Detail != want {
					t.Errorf("detail %q, want %q", d.Detail, want)
				}
				if strings.Contains(got.Text, "secret-arg-value") || strings.Contains(jsonOf(t, d), "secret-arg-value") {
					t.Error("simulation event log leaked")
				}
			})
		}
	}
	extra := map[int]string{24: "ResourceNotMutable", 99: "Ninety9", 2: "Renamed", 30: "bad name!", 31: testSeed}
	for _, c := range []struct {
		n     int
		names map[int]string
		want  string
	}{
		{24, nil, "Unknown"}, {99, nil, "Unknown"}, {24, extra, "ResourceNotMutable"}, {99, extra, "Ninety9"},
		{2, extra, "NotFound"}, {30, extra, "Unknown"}, {31, extra, "Unknown"}, {1 << 20, extra, "Unknown"},
	} {
		t.Run(fmt.Sprintf("%d/%s", c.n, c.want), func(t *testing.T) {
			d := mapT(t, Facts{Source: SourceRegistry, ContractError: c.n, ContractNames: c.names}).Diagnostic
			if d.Upstream["contractErrorName"] != c.want || d.Upstream["contractError"] != c.n {
				t.Errorf("upstream %v, want name %s", d.Upstream, c.want)
			}
			if c.n > 2 && (d.Code != CodeContractError || d.Category != string(CategoryContract)) {
				t.Errorf("%s/%s", d.Code, d.Category)
			}
			if !strings.Contains(d.Detail, fmt.Sprintf("#%d", c.n)) {
				t.Errorf("detail %q lacks the number", d.Detail)
			}
		})
	}
	if ContractErrorName(0, nil) != "Unknown" || ContractErrorName(-3, nil) != "Unknown" {
		t.Error("non-positive numbers must be Unknown")
	}
	if d := mapT(t, Facts{Source: SourceRegistry, ContractError: -5, Status: 500}).Diagnostic; d.Upstream["contractError"] != nil || d.Code != CodeServerError {
		t.Errorf("negative contract number used: %+v", d)
	}
}

func TestHostErrors(t *testing.T) {
	cases := []struct {
		name, host string
		src        Source
		code       string
		detail     string
	}{
		{"missing contract", "HostError: Error(Storage, MissingValue)\nEvent log ...", SourceRegistry, CodeContractMissing, "contract instance missing (Error(Storage, MissingValue))"},
		{"missing contract via rpc", "Error(Storage,MissingValue)", SourceRPC, CodeContractMissing, "contract instance missing (Error(Storage, MissingValue))"},
		{"archived", "simulation returned restorePreamble: entries archived", SourceRPC, CodeStateArchived, "contract state archived"},
		{"budget", "HostError: Error(Budget, ExceededLimit) data:[\"x\"]", SourceRegistry, CodeHostError, "Error(Budget, ExceededLimit)"},
		{"auth host", "HostError: Error(Auth, InvalidAction)", SourceRegistry, CodeHostError, "Error(Auth, InvalidAction)"},
		{"opaque", "something odd happened", SourceRegistry, CodeHostError, "contract call aborted by the host"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := mapT(t, Facts{Source: c.src, Operation: "Lookup failed", HostError: c.host}).Diagnostic
			if d.Code != c.code || d.Category != string(CategoryContract) || d.Detail != c.detail {
				t.Errorf("%s/%s %q", d.Code, d.Category, d.Detail)
			}
		})
	}
}

func TestTokenErrors(t *testing.T) {
	cases := []struct {
		n      int
		code   string
		cat    Category
		name   string
		detail string
	}{
		{10, CodeInsufficientUSDC, CategoryPayment, "BalanceError", "insufficient USDC balance (USDC token error #10 BalanceError)"},
		{13, CodeTrustlineMissing, CategoryPayment, "TrustlineMissing", "USDC trustline missing (USDC token error #13 TrustlineMissing)"},
		{6, CodeAccountMissing, CategoryNotFound, "AccountMissing", "Stellar account not found (USDC token error #6 AccountMissing)"},
		{11, CodePaymentRejected, CategoryPayment, "BalanceDeauthorized", "payment rejected (USDC token error #11 BalanceDeauthorized)"},
		{77, CodePaymentRejected, CategoryPayment, "Unknown", "payment rejected (USDC token error #77 Unknown)"},
	}
	for _, c := range cases {
		for _, via := range []string{"field", "host error"} {
			t.Run(fmt.Sprintf("%d/%s", c.n, via), func(t *testing.T) {
				f := Facts{Source: SourceX402, Operation: "Buy failed"}
				if via == "field" {
					f.TokenError = c.n
				} else {
					f.HostError = fmt.Sprintf("HostError: Error(Contract, #%d)", c.n)
					f.X402Reason = "invalid_exact_stellar_payload_simulation_failed"
				}
				d := mapT(t, f).Diagnostic
				if d.Code != c.code || d.Category != string(c.cat) || d.Detail != c.detail {
					t.Errorf("%s/%s %q", d.Code, d.Category, d.Detail)
				}
				if d.Upstream["contractError"] != c.n || d.Upstream["contractErrorName"] != c.name {
					t.Errorf("upstream %v", d.Upstream)
				}
				if via == "host error" && d.Upstream["x402Reason"] != "invalid_exact_stellar_payload_simulation_failed" {
					t.Errorf("reason lost: %v", d.Upstream)
				}
			})
		}
	}
}

func TestHorizonResultCodes(t *testing.T) {
	problem := func(codes string) []byte {
		return []byte(`{"type":"https://stellar.org/horizon-errors/transaction_failed","title":"Transaction Failed","status":400,` +
			`"detail":"The transaction failed when submitted to the stellar network. See extras.",` +
			`"extras":{"envelope_xdr":"AAAA-envelope-secret","result_xdr":"AAAB","result_codes":` + codes + `}}`)
	}
	cases := []struct {
		name   string
		f      Facts
		code   string
		cat    Category
		retry  Retry
		detail string
		codes  []string
	}{
		{"op_underfunded", Facts{Status: 400, Body: problem(`{"transaction":"tx_failed","operations":["op_success","op_underfunded"]}`)},
			CodeInsufficientBalance, CategoryPayment, RetryAfterAction, "Transaction Failed (tx_failed, op_success, op_underfunded)", []string{"tx_failed", "op_success", "op_underfunded"}},
		{"tx_insufficient_balance", Facts{Status: 400, Body: problem(`{"transaction":"tx_insufficient_balance"}`)},
			CodeInsufficientBalance, CategoryPayment, RetryAfterAction, "Transaction Failed (tx_insufficient_balance)", []string{"tx_insufficient_balance"}},
		{"op_no_trust", Facts{Status: 400, Body: problem(`{"transaction":"tx_failed","operations":["op_no_trust"]}`)},
			CodeTrustlineMissing, CategoryPayment, RetryAfterAction, "Transaction Failed (tx_failed, op_no_trust)", []string{"tx_failed", "op_no_trust"}},
		{"tx_bad_auth", Facts{Status: 400, Body: problem(`{"transaction":"tx_bad_auth"}`)},
			CodeTxBadAuth, CategoryAuth, RetryAfterAction, "Transaction Failed (tx_bad_auth)", []string{"tx_bad_auth"}},
		{"tx_bad_seq", Facts{Status: 400, Body: problem(`{"transaction":"tx_bad_seq"}`)},
			CodeTxBadSequence, CategoryServer, RetrySafe, "Transaction Failed (tx_bad_seq)", []string{"tx_bad_seq"}},
		{"tx_too_late", Facts{Status: 400, Body: problem(`{"transaction":"tx_too_late"}`)},
			CodeTxExpired, CategoryServer, RetrySafe, "Transaction Failed (tx_too_late)", []string{"tx_too_late"}},
		{"tx_no_source_account", Facts{Status: 400, Body: problem(`{"transaction":"tx_no_source_account"}`)},
			CodeAccountMissing, CategoryNotFound, RetryAfterCorrection, "Transaction Failed (tx_no_source_account)", []string{"tx_no_source_account"}},
		{"entry_archived", Facts{Status: 400, Body: problem(`{"transaction":"tx_failed","operations":["entry_archived"]}`)},
			CodeStateArchived, CategoryContract, RetryAfterAction, "Transaction Failed (tx_failed, entry_archived)", []string{"tx_failed", "entry_archived"}},
		{"fee bump inner", Facts{Status: 400, Body: problem(`{"transaction":"tx_fee_bump_inner_failed","inner_transaction":"tx_bad_seq"}`)},
			CodeTxBadSequence, CategoryServer, RetrySafe, "Transaction Failed (tx_fee_bump_inner_failed, tx_bad_seq)", []string{"tx_fee_bump_inner_failed", "tx_bad_seq"}},
		{"unrecognised keeps status", Facts{Status: 400, Body: problem(`{"transaction":"tx_failed","operations":["op_low_reserve"]}`)},
			CodeBadRequest, CategoryValidation, RetryAfterCorrection, "Transaction Failed (tx_failed, op_low_reserve)", []string{"tx_failed", "op_low_reserve"}},
		{"parsed codes, no body", Facts{ResultCodes: []string{"tx_failed", "op_underfunded", "Bad Code!", ""}},
			CodeInsufficientBalance, CategoryPayment, RetryAfterAction, "transaction failed (tx_failed, op_underfunded)", []string{"tx_failed", "op_underfunded"}},
		{"parsed codes win over body", Facts{Status: 400, ResultCodes: []string{"tx_bad_seq"}, Body: problem(`{"transaction":"tx_bad_auth"}`)},
			CodeTxBadSequence, CategoryServer, RetrySafe, "Transaction Failed (tx_bad_auth)", []string{"tx_bad_seq"}},
		{"not found problem", Facts{Status: 404, Body: []byte(`{"type":"https://stellar.org/horizon-errors/not_found","title":"Resource Missing","status":404,"detail":"The resource at the url requested was not found."}`)},
			CodeAccountMissing, CategoryNotFound, RetryAfterCorrection, "Resource Missing", nil},
		{"timeout problem", Facts{Status: 504, Body: []byte(`{"type":"https://stellar.org/horizon-errors/timeout","title":"Timeout","status":504}`)},
			CodeTimeout, CategoryTimeout, RetrySafe, "Timeout", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.f.Source, c.f.Operation = SourceHorizon, "Submit failed"
			got := mapT(t, c.f)
			d := got.Diagnostic
			if d.Code != c.code || d.Category != string(c.cat) || d.Retry != string(c.retry) || d.Detail != c.detail {
				t.Errorf("got %s/%s/%s %q", d.Code, d.Category, d.Retry, d.Detail)
			}
			gotCodes, _ := d.Upstream["resultCodes"].([]string)
			if !reflect.DeepEqual(gotCodes, c.codes) {
				t.Errorf("resultCodes %v, want %v", gotCodes, c.codes)
			}
			if strings.Contains(jsonOf(t, d), "envelope-secret") || strings.Contains(got.Text, "See extras") {
				t.Error("problem body leaked beyond title and codes")
			}
		})
	}
}

func TestRPCCodes(t *testing.T) {
	cases := []struct {
		rpc, status int
		code        string
		cat         Category
	}{
		{-32603, 0, CodeServerError, CategoryServer},
		{-32001, 200, CodeServerError, CategoryServer},
		{-32003, 0, CodeServerError, CategoryServer},
		{-32098, 0, CodeServerError, CategoryServer},
		{-32600, 200, CodeRPCError, CategoryContract},
		{-32601, 0, CodeRPCError, CategoryContract},
		{-32602, 0, CodeRPCError, CategoryContract},
		{-32700, 0, CodeRPCError, CategoryContract},
		{-32097, 0, CodeRPCError, CategoryContract},
		{-32096, 0, CodeRPCError, CategoryContract},
		{7, 0, CodeRPCError, CategoryContract},
		// The Go RPC client synthesises -32603 for HTTP errors; the recorded status wins.
		{-32603, 429, CodeRateLimited, CategoryRateLimit},
		{-32603, 503, CodeServerError, CategoryServer},
		{-32603, 504, CodeTimeout, CategoryTimeout},
		{-32601, 404, CodeNotFound, CategoryNotFound},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%d/%d", c.rpc, c.status), func(t *testing.T) {
			got := mapT(t, Facts{Source: SourceRPC, Operation: "Transaction status failed", RPCCode: c.rpc, Status: c.status,
				Body: []byte(`{"jsonrpc":"2.0","id":1,"error":{"code":` + fmt.Sprint(c.rpc) + `,"message":"rpc said no"}}`)})
			d := got.Diagnostic
			if d.Code != c.code || d.Category != string(c.cat) {
				t.Errorf("%s/%s", d.Code, d.Category)
			}
			if d.Upstream["rpcCode"] != c.rpc {
				t.Errorf("upstream %v", d.Upstream)
			}
			if d.JSONRPCCode != 0 {
				t.Errorf("jsonrpcCode %d is reserved for argument validation", d.JSONRPCCode)
			}
			if d.Detail != "rpc said no" {
				t.Errorf("detail %q", d.Detail)
			}
		})
	}
	if d := mapT(t, Facts{Source: SourceRPC, RPCCode: -32601}).Diagnostic; d.Detail != "JSON-RPC error -32601" {
		t.Errorf("detail without body %q", d.Detail)
	}
}

func TestX402Reasons(t *testing.T) {
	cases := []struct {
		reason, code, detail string
		upstream             any
	}{
		{"insufficient_funds", CodeInsufficientUSDC, "insufficient USDC balance (insufficient_funds)", "insufficient_funds"},
		{"payment_required", CodePaymentRequired, "payment required (payment_required)", "payment_required"},
		{"invalid_exact_stellar_payload_simulation_failed", CodePaymentRejected, "payment rejected (invalid_exact_stellar_payload_simulation_failed)", "invalid_exact_stellar_payload_simulation_failed"},
		{"settle_exact_stellar_transaction_failed", CodePaymentRejected, "payment rejected (settle_exact_stellar_transaction_failed)", "settle_exact_stellar_transaction_failed"},
		{"invalid_network", CodePaymentRejected, "payment rejected (invalid_network)", "invalid_network"},
		{"unexpected_settle_error", CodePaymentRejected, "payment rejected (unexpected_settle_error)", "unexpected_settle_error"},
		{"Not A Token <script>", CodePaymentRequired, "payment required", nil},
		{testAPIKey, CodePaymentRequired, "payment required", nil},
	}
	for _, c := range cases {
		t.Run(c.reason, func(t *testing.T) {
			got := mapT(t, Facts{Source: SourceX402, Operation: "Buy failed [402]", Status: 402, Body: []byte(`{}`), X402Reason: c.reason, ExecutionStarted: true})
			d := got.Diagnostic
			if d.Code != c.code || d.Category != string(CategoryPayment) || d.Detail != c.detail {
				t.Errorf("%s/%s %q", d.Code, d.Category, d.Detail)
			}
			if d.Upstream["x402Reason"] != c.upstream {
				t.Errorf("upstream %v", d.Upstream)
			}
			assertAbsent(t, got, testAPIKey)
			assertAbsent(t, got, "<script>")
		})
	}
	// The example of docs/errors.md "The three-line text".
	got := mapT(t, Facts{Source: SourceX402, Operation: "Buy failed [402]", Status: 402, Detail: "payment rejected"})
	want := "Buy failed [402]: payment rejected\nSource: x402 payment · Category: payment · HTTP 402\n" +
		"Next: Payment was required or rejected. Check the wallet with mindvault_wallet_info, fund it with USDC, and retry."
	if got.Text != want {
		t.Errorf("text\n%s\nwant\n%s", got.Text, want)
	}
}

func TestAPIBodies(t *testing.T) {
	cases := []struct {
		name   string
		f      Facts
		code   string
		detail string
	}{
		{"chain_unavailable", Facts{Source: SourceX402, Status: 503, Body: []byte(`{"error":"chain_unavailable","message":"On-chain check unavailable","resourceId":"r1"}`)},
			CodeChainUnavailable, "chain_unavailable: On-chain check unavailable"},
		{"chain_unavailable api", Facts{Source: SourceAPI, Status: 503, Body: []byte(`{"code":"CHAIN_UNAVAILABLE","error":"Chain unavailable"}`)},
			CodeChainUnavailable, "Chain unavailable"},
		{"price_mismatch", Facts{Source: SourceAPI, Status: 409, Body: []byte(`{"error":"price_mismatch","message":"Listed price differs from on-chain price"}`)},
			CodePriceMismatch, "price_mismatch: Listed price differs from on-chain price"},
		{"token ignored on other sources", Facts{Source: SourceHorizon, Status: 409, Body: []byte(`{"error":"price_mismatch"}`)},
			CodeConflict, "price_mismatch"},
		{"already registered", Facts{Source: SourceAPI, Status: 409, Body: []byte(`{"error":"Resource is already registered on-chain","onchainTxHash":"` + testTxHash + `"}`)},
			CodeConflict, "Resource is already registered on-chain"},
		{"zod format", Facts{Source: SourceAPI, Status: 400, Body: []byte(`{"error":{"_errors":[],"title":{"_errors":["Required"]},"price":{"_errors":["Expected number"]}}}`)},
			CodeBadRequest, "title: Required"},
		{"zod form error first", Facts{Source: SourceAPI, Status: 400, Body: []byte(`{"error":{"_errors":["Unrecognized key(s) in object: 'x'"],"title":{"_errors":["Required"]}}}`)},
			CodeBadRequest, "Unrecognized key(s) in object: 'x'"},
		{"zod flatten", Facts{Source: SourceAPI, Status: 422, Body: []byte(`{"error":{"formErrors":[],"fieldErrors":{"email":["Invalid email"]}}}`)},
			CodeBadRequest, "email: Invalid email"},
		{"zod issues", Facts{Source: SourceAPI, Status: 400, Body: []byte(`{"error":{"name":"ZodError","issues":[{"code":"too_small","path":["price",0],"message":"Must be positive"}]}}`)},
			CodeBadRequest, "price.0: Must be positive"},
		{"nested message", Facts{Source: SourceAPI, Status: 500, Body: []byte(`{"error":{"code":"E1","message":"Database down"}}`)},
			CodeServerError, "Database down"},
		{"error before message", Facts{Source: SourceAPI, Status: 500, Body: []byte(`{"message":"second","error":"first","detail":"third"}`)},
			CodeServerError, "first"},
		{"message before detail", Facts{Source: SourceAPI, Status: 500, Body: []byte(`{"reason":"fourth","detail":"third","message":"  "}`)},
			CodeServerError, "third"},
		{"reason", Facts{Source: SourceAPI, Status: 500, Body: []byte(`{"reason":"fourth","title":"fifth"}`)},
			CodeServerError, "fourth"},
		{"title", Facts{Source: SourceAPI, Status: 500, Body: []byte(`{"title":"fifth","other":"x"}`)},
			CodeServerError, "fifth"},
		{"errors array", Facts{Source: SourceAPI, Status: 500, Body: []byte(`{"errors":[{"message":"from array"}]}`)},
			CodeServerError, "from array"},
		{"json string body", Facts{Source: SourceAPI, Status: 500, Body: []byte(`"plain json string"`)},
			CodeServerError, "plain json string"},
		{"json null body", Facts{Source: SourceAPI, Status: 500, Body: []byte(`null`)},
			CodeServerError, "server error"},
		{"empty object 402", Facts{Source: SourceX402, Status: 402, Body: []byte(`{}`)},
			CodePaymentRequired, "payment required"},
		{"no message keys", Facts{Source: SourceAPI, Status: 500, Body: []byte(`{"stack":"at secret.js:1","internal":"x"}`)},
			CodeServerError, "server error"},
		{"detail used when body has none", Facts{Source: SourceAPI, Status: 500, Body: []byte(`{}`), Detail: "caller detail"},
			CodeServerError, "caller detail"},
		{"body beats detail", Facts{Source: SourceAPI, Status: 500, Body: []byte(`{"error":"body wins"}`), Detail: "caller detail"},
			CodeServerError, "body wins"},
		{"html 502", Facts{Source: SourceAPI, Status: 502, Body: []byte("<html><body>Bad gateway " + testSeed + "</body></html>")},
			CodeServerError, "response body is not JSON (status 502)"},
		{"trailing garbage is not JSON", Facts{Source: SourceAPI, Status: 500, Body: []byte(`{"error":"x"} trailing`)},
			CodeServerError, "response body is not JSON (status 500)"},
		{"text no status", Facts{Source: SourceAPI, Body: []byte("oops")},
			CodeUnknown, "response body is not JSON"},
		{"empty 504", Facts{Source: SourceHorizon, Status: 504, Body: nil},
			CodeTimeout, "no response body"},
		{"whitespace 504", Facts{Source: SourceHorizon, Status: 504, Body: []byte(" \r\n\t")},
			CodeTimeout, "no response body"},
		{"bom json", Facts{Source: SourceAPI, Status: 500, Body: []byte("\xef\xbb\xbf{\"error\":\"with bom\"}")},
			CodeServerError, "with bom"},
		{"control chars", Facts{Source: SourceAPI, Status: 500, Body: []byte(`{"error":"line one\nline two\u0000\u202e\ttabbed   spaced"}`)},
			CodeServerError, "line one line two tabbed spaced"},
		{"invalid utf-8", Facts{Source: SourceAPI, Status: 500, Body: []byte("{\"error\":\"bad \xff\xfe byte\"}")},
			CodeServerError, "bad \uFFFD\uFFFD byte"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.f.Operation = "Op failed"
			got := mapT(t, c.f)
			d := got.Diagnostic
			if d.Code != c.code || d.Detail != c.detail {
				t.Errorf("got %s %q, want %s %q", d.Code, d.Detail, c.code, c.detail)
			}
			for _, leak := range []string{"secret.js", testSeed, "onchainTxHash"} {
				if strings.Contains(got.Text, leak) || strings.Contains(jsonOf(t, d), leak) {
					t.Errorf("body content %q leaked", leak)
				}
			}
		})
	}
}

func TestRateLimitAndHeaders(t *testing.T) {
	html := []byte("<html><h1>429 Too Many Requests</h1></html>")
	cases := []struct {
		name     string
		f        Facts
		after    any // *int value or nil
		upstream map[string]any
	}{
		{"html 429 with Retry-After", Facts{Source: SourceHorizon, Status: 429, Body: html, Header: http.Header{"Retry-After": {"12"}}}, 12, nil},
		{"lower-case keys", Facts{Source: SourceHorizon, Status: 429, Header: http.Header{"retry-after": {"3"}, "x-ratelimit-limit": {"3600"}, "x-ratelimit-remaining": {"0"}, "x-ratelimit-reset": {"41"}}},
			3, map[string]any{"limit": 3600, "remaining": 0, "resetSeconds": 41}},
		{"ietf names", Facts{Source: SourceAPI, Status: 429, Header: http.Header{"Ratelimit-Limit": {"20"}, "Ratelimit-Remaining": {"0"}, "Ratelimit-Reset": {"30"}}},
			30, map[string]any{"limit": 20, "remaining": 0, "resetSeconds": 30}},
		{"fraction rounds up", Facts{Source: SourceAPI, Status: 429, Header: http.Header{"Retry-After": {"1.2"}}}, 2, nil},
		// A 429 whose wait cannot be read still says how long: the stated default.
		{"http-date left out", Facts{Source: SourceAPI, Status: 429, Header: http.Header{"Retry-After": {"Wed, 21 Oct 2015 07:28:00 GMT"}}}, "default", nil},
		{"garbage left out", Facts{Source: SourceAPI, Status: 429, Header: http.Header{"Retry-After": {"-5"}, "X-Ratelimit-Limit": {"lots"}}}, "default", nil},
		{"huge left out", Facts{Source: SourceAPI, Status: 429, Header: http.Header{"Retry-After": {"99999999999999"}}}, "default", nil},
		{"bare 429", Facts{Source: SourceAPI, Status: 429, Body: []byte(`{"error":"Too many requests"}`)}, "default", nil},
		{"rpc 429 with an empty body", Facts{Source: SourceRPC, Status: 429}, "default", nil},
		{"a 503 gets no default", Facts{Source: SourceAPI, Status: 503}, nil, nil},
		{"body retryAfterSeconds", Facts{Source: SourceAPI, Status: 429, Body: []byte(`{"error":"Too many requests","code":"RATE_LIMITED","retryAfterSeconds":4}`)}, 4, nil},
		{"header beats body", Facts{Source: SourceAPI, Status: 429, Header: http.Header{"Retry-After": {"9"}}, Body: []byte(`{"retryAfterSeconds":4}`)}, 9, nil},
		{"503 keeps Retry-After", Facts{Source: SourceAPI, Status: 503, Header: http.Header{"Retry-After": {"5"}}, Body: []byte(`{"error":"Request timeout"}`)}, 5, nil},
		{"rate headers on a 404", Facts{Source: SourceHorizon, Status: 404, Header: http.Header{"X-Ratelimit-Remaining": {"17"}}}, nil, map[string]any{"remaining": 17}},
		{"nil header", Facts{Source: SourceHorizon, Status: 429, Header: nil}, "default", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.f.Operation = "Balance failed"
			got := mapT(t, c.f)
			d := got.Diagnostic
			switch want := c.after.(type) {
			case nil:
				if d.RetryAfterSeconds != nil {
					t.Errorf("retryAfterSeconds %d, want none", *d.RetryAfterSeconds)
				}
			case string: // "default"
				if d.RetryAfterSeconds == nil || *d.RetryAfterSeconds != DefaultRetryAfterSeconds {
					t.Errorf("retryAfterSeconds %v, want the default %d", d.RetryAfterSeconds, DefaultRetryAfterSeconds)
				}
				if d.Next != "Wait 5 s (the service did not say how long), then retry." || d.Retry != string(RetryAfterWait) {
					t.Errorf("Next %q retry %s", d.Next, d.Retry)
				}
			case int:
				if d.RetryAfterSeconds == nil || *d.RetryAfterSeconds != want {
					t.Errorf("retryAfterSeconds %v, want %d", d.RetryAfterSeconds, want)
				}
				if d.Category == string(CategoryRateLimit) && d.Next != fmt.Sprintf("Wait %d s, then retry.", want) {
					t.Errorf("Next %q", d.Next)
				}
			}
			if c.upstream != nil && !reflect.DeepEqual(d.Upstream, c.upstream) {
				t.Errorf("upstream %v, want %v", d.Upstream, c.upstream)
			}
			if c.f.Status == 429 && (d.Category != string(CategoryRateLimit) || d.Status != 429) {
				t.Errorf("429 mapped to %s status %d", d.Category, d.Status)
			}
		})
	}
	got := mapT(t, Facts{Source: SourceHorizon, Status: 429, Body: html, Header: http.Header{"Retry-After": {"12"}}})
	if got.Diagnostic.Detail != "response body is not JSON (status 429)" || !strings.HasSuffix(strings.Split(got.Text, "\n")[1], "HTTP 429") {
		t.Errorf("HTML 429:\n%s", got.Text)
	}
}

func TestHeaderDeterminism(t *testing.T) {
	var first string
	for i := 0; i < 200; i++ {
		// Several spellings of one header: map order is random, the answer must not be.
		h := http.Header{}
		for _, k := range []string{"retry-after", "RETRY-AFTER", "rEtRy-AfTeR"} {
			h[k] = []string{fmt.Sprint(len(k) + strings.Count(k, "R"))}
		}
		h["x-ratelimit-limit"] = []string{"10"}
		h["X-RATELIMIT-LIMIT"] = []string{"20"}
		got := jsonOf(t, Map(Facts{Source: SourceAPI, Status: 429, Header: h}))
		if i == 0 {
			first = got
		} else if got != first {
			t.Fatalf("run %d differs:\n%s\n%s", i, got, first)
		}
	}
}

func TestTransportWins(t *testing.T) {
	d := mapT(t, Facts{Source: SourceAPI, Operation: "Browse failed", Transport: TransportNetwork, Status: 200, Detail: "read tcp: connection reset by peer"}).Diagnostic
	if d.Code != CodeNetworkError || d.Detail != "read tcp: connection reset by peer" {
		t.Errorf("%+v", d)
	}
	d = mapT(t, Facts{Source: SourceAPI, Operation: "Browse failed", Transport: TransportTimeout}).Diagnostic
	if d.Code != CodeTimeout || d.Detail != "request timed out" {
		t.Errorf("%+v", d)
	}
	d = mapT(t, Facts{Source: SourceAPI, Transport: TransportNetwork}).Diagnostic
	if d.Operation != "MindVault API request failed" || d.Detail != "connection failed" {
		t.Errorf("defaults: %+v", d)
	}
}

func TestExplicitOverrides(t *testing.T) {
	cases := []struct {
		name string
		f    Facts
		code string
		cat  Category
	}{
		{"code decides category", Facts{Source: SourceX402, Code: CodePriceAboveCap, Detail: "price 12 USDC is above maxPriceUsdc 10"}, CodePriceAboveCap, CategoryPayment},
		{"code beats status", Facts{Source: SourceAPI, Status: 200, Code: CodeMalformedResponse}, CodeMalformedResponse, CategoryServer},
		{"code beats refinement", Facts{Source: SourceRegistry, ContractError: 2, Code: CodeContractError}, CodeContractError, CategoryContract},
		{"category keeps matching code", Facts{Source: SourceAPI, Status: 401, Category: CategoryAuth}, CodeUnauthorized, CategoryAuth},
		{"category replaces other code", Facts{Source: SourceAPI, Status: 500, Category: CategoryPayment}, CodePaymentRejected, CategoryPayment},
		{"both explicit", Facts{Source: SourceCredentials, Code: CodeReadOnlyStore, Category: CategoryAuth}, CodeReadOnlyStore, CategoryAuth},
		{"policy refusal", Facts{Source: SourceRequest, Code: CodeMainnetNotConfirmed, Tool: "mindvault_buy"}, CodeMainnetNotConfirmed, CategoryValidation},
		{"profile exists", Facts{Source: SourceCredentials, Code: CodeProfileExists}, CodeProfileExists, CategoryConflict},
		{"profile not allowed", Facts{Source: SourceCredentials, Code: CodeProfileNotAllowed}, CodeProfileNotAllowed, CategoryAuth},
		{"credentials missing", Facts{Source: SourceCredentials, Code: CodeCredentialsMissing}, CodeCredentialsMissing, CategoryAuth},
		{"price changed", Facts{Source: SourceX402, Code: CodePriceChanged}, CodePriceChanged, CategoryPayment},
		{"unsupported", Facts{Source: SourceX402, Code: CodeUnsupportedRequirement}, CodeUnsupportedRequirement, CategoryPayment},
		{"fees", Facts{Source: SourceX402, Code: CodeFeesNotSponsored}, CodeFeesNotSponsored, CategoryPayment},
		{"undocumented code ignored", Facts{Source: SourceAPI, Status: 404, Code: "MADE_UP"}, CodeNotFound, CategoryNotFound},
		{"invalid category ignored", Facts{Source: SourceAPI, Status: 404, Category: "weird"}, CodeNotFound, CategoryNotFound},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := mapT(t, c.f)
			if got.Diagnostic.Code != c.code || got.Diagnostic.Category != string(c.cat) {
				t.Errorf("%s/%s", got.Diagnostic.Code, got.Diagnostic.Category)
			}
			if c.f.Detail == "" && c.f.ContractError == 0 && c.f.Status == 0 && got.Diagnostic.Detail != codePhrase(c.code) {
				t.Errorf("detail %q, want the phrase %q", got.Diagnostic.Detail, codePhrase(c.code))
			}
		})
	}
}

func TestDetailBounds(t *testing.T) {
	long := strings.Repeat("漢字", 400) // multi-byte: a byte cut would break UTF-8
	got := mapT(t, Facts{Source: SourceAPI, Operation: strings.Repeat("Op ", 200), Status: 500, Body: []byte(`{"error":"` + long + `"}`)})
	d := got.Diagnostic
	if n := runes(d.Detail); n != MaxDetail || !strings.HasSuffix(d.Detail, "…") {
		t.Errorf("detail %d runes, ends %q", n, d.Detail[len(d.Detail)-6:])
	}
	if n := runes(d.Operation); n > maxOperation {
		t.Errorf("operation %d runes", n)
	}
	big := make([]byte, 0, MaxBodyBytes+100)
	big = append(big, `{"error":"`...)
	big = append(big, strings.Repeat("a", MaxBodyBytes)...)
	big = append(big, `"}`...)
	if d := mapT(t, Facts{Source: SourceAPI, Status: 500, Body: big}).Diagnostic; d.Detail != "response body is too large to read (status 500)" {
		t.Errorf("huge body: %q", d.Detail)
	}
	deep := strings.Repeat(`{"error":`, 5000) + `"deep"` + strings.Repeat(`}`, 5000)
	if d := mapT(t, Facts{Source: SourceAPI, Status: 500, Body: []byte(deep)}).Diagnostic; d.Code != CodeServerError {
		t.Errorf("deep body: %+v", d)
	}
	deepArr := `{"error":` + strings.Repeat(`[`, 100) + `"x"` + strings.Repeat(`]`, 100) + `}`
	if d := mapT(t, Facts{Source: SourceAPI, Status: 500, Body: []byte(deepArr)}).Diagnostic; d.Detail != "server error" {
		t.Errorf("deep array beyond the bound must be skipped: %q", d.Detail)
	}
	if d := mapT(t, Facts{Source: SourceAPI, Status: 500, Operation: " \n\t "}).Diagnostic; d.Operation != "MindVault API request failed" {
		t.Errorf("blank operation: %q", d.Operation)
	}
}

func TestDiagnosticJSONShape(t *testing.T) {
	d := Validation("mindvault_preview", []Issue{{Path: "/resourceId", Rule: "required", Expected: "string", Message: "is required"}}, []string{"resourceId"}).Diagnostic
	got := jsonOf(t, d)
	want := `{"version":1,"code":"INVALID_ARGUMENTS","category":"validation","source":"request","operation":"Invalid arguments for mindvault_preview (-32602)",` +
		`"detail":"/resourceId is required","next":"Correct the invalid arguments and call mindvault_preview again. Allowed arguments: resourceId.",` +
		`"retry":"after_correction","executionStarted":false,"stateChanged":"no","issues":[{"path":"/resourceId","rule":"required","expected":"string"}],` +
		`"omittedIssues":0,"jsonrpcCode":-32602}`
	if got != want {
		t.Errorf("json\n%s\nwant\n%s", got, want)
	}
	full := Map(Facts{Source: SourceX402, Operation: "Buy failed [402]", Status: 402, X402Reason: "insufficient_funds",
		Header: http.Header{"Retry-After": {"3"}}, ExecutionStarted: true, TxHash: testTxHash, PaymentExpiresAt: "2026-01-01T00:00:00Z", StateChanged: StateUnknown})
	keys := sortedKeys(mustObject(t, jsonOf(t, full.Diagnostic)))
	want2 := []string{"category", "code", "detail", "executionStarted", "next", "operation", "paymentExpiresAt", "retry", "retryAfterSeconds", "source", "stateChanged", "status", "txHash", "upstream", "version"}
	if !reflect.DeepEqual(keys, want2) {
		t.Errorf("keys %v\nwant %v", keys, want2)
	}
}
