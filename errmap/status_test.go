package errmap

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

func TestStatusTable(t *testing.T) {
	cases := []struct {
		status int
		cat    Category
		code   string
		retry  Retry
	}{
		{0, CategoryUnknown, CodeUnknown, RetrySafe},
		{100, CategoryUnknown, CodeUnknown, RetrySafe},
		{101, CategoryUnknown, CodeUnknown, RetrySafe},
		{200, CategoryUnknown, CodeUnknown, RetrySafe},
		{201, CategoryUnknown, CodeUnknown, RetrySafe},
		{204, CategoryUnknown, CodeUnknown, RetrySafe},
		{301, CategoryUnknown, CodeUnknown, RetrySafe},
		{304, CategoryUnknown, CodeUnknown, RetrySafe},
		{399, CategoryUnknown, CodeUnknown, RetrySafe},
		{400, CategoryValidation, CodeBadRequest, RetryAfterCorrection},
		{401, CategoryAuth, CodeUnauthorized, RetryAfterAction},
		{402, CategoryPayment, CodePaymentRequired, RetryAfterAction},
		{403, CategoryAuth, CodeForbidden, RetryAfterAction},
		{404, CategoryNotFound, CodeNotFound, RetryAfterCorrection},
		{405, CategoryValidation, CodeBadRequest, RetryAfterCorrection},
		{408, CategoryTimeout, CodeTimeout, RetrySafe},
		{409, CategoryConflict, CodeConflict, RetryNo},
		{410, CategoryValidation, CodeBadRequest, RetryAfterCorrection},
		{413, CategoryValidation, CodeBadRequest, RetryAfterCorrection},
		{418, CategoryValidation, CodeBadRequest, RetryAfterCorrection},
		{422, CategoryValidation, CodeBadRequest, RetryAfterCorrection},
		{425, CategoryValidation, CodeBadRequest, RetryAfterCorrection},
		{429, CategoryRateLimit, CodeRateLimited, RetryAfterWait},
		{451, CategoryValidation, CodeBadRequest, RetryAfterCorrection},
		{499, CategoryValidation, CodeBadRequest, RetryAfterCorrection},
		{500, CategoryServer, CodeServerError, RetrySafe},
		{501, CategoryServer, CodeServerError, RetrySafe},
		{502, CategoryServer, CodeServerError, RetrySafe},
		{503, CategoryServer, CodeServerError, RetrySafe},
		{504, CategoryTimeout, CodeTimeout, RetrySafe},
		{505, CategoryServer, CodeServerError, RetrySafe},
		{599, CategoryServer, CodeServerError, RetrySafe},
		{600, CategoryServer, CodeServerError, RetrySafe},
		{999, CategoryServer, CodeServerError, RetrySafe},
	}
	for _, src := range Sources() {
		for _, c := range cases {
			t.Run(fmt.Sprintf("%s/%d", src, c.status), func(t *testing.T) {
				got := mapT(t, Facts{Guides: testGuides, Source: src, Operation: "Op failed", Status: c.status})
				d := got.Diagnostic
				code := c.code // the same for every source: a client refines what a status means for its service
				if d.Category != string(c.cat) || d.Code != code || d.Retry != string(c.retry) {
					t.Errorf("got %s/%s/%s, want %s/%s/%s", d.Category, d.Code, d.Retry, c.cat, code, c.retry)
				}
				if d.Status != c.status || d.Source != string(src) {
					t.Errorf("status %d source %s", d.Status, d.Source)
				}
				hasHTTP := strings.Contains(got.Text, " · HTTP ")
				if hasHTTP != (c.status > 0) {
					t.Errorf("HTTP segment present=%v for status %d:\n%s", hasHTTP, c.status, got.Text)
				}
				if c.status > 0 && !strings.HasSuffix(strings.Split(got.Text, "\n")[1], fmt.Sprintf(" · HTTP %d", c.status)) {
					t.Errorf("line 2 lacks the status:\n%s", got.Text)
				}
			})
		}
	}
}

func TestStatusOutOfRangeIsAbsent(t *testing.T) {
	for _, s := range []int{-1, 1, 99, 1000, 1 << 30} {
		got := mapT(t, Facts{Guides: testGuides, Source: SourceAPI, Operation: "Op failed", Status: s})
		if got.Diagnostic.Status != 0 || strings.Contains(got.Text, "HTTP") || got.Diagnostic.Code != CodeUnknown {
			t.Errorf("status %d: %+v\n%s", s, got.Diagnostic, got.Text)
		}
	}
}

func TestSourceLabels(t *testing.T) {
	want := []struct {
		src   Source
		label string
	}{
		{SourceAPI, "MindVault API"},
		{SourceX402, "x402 payment"},
		{SourceHorizon, "Horizon"},
		{SourceRPC, "Soroban RPC"},
		{SourceRegistry, "vault-registry contract"},
		{SourceSponsor, "sponsored-account service"},
		{SourceCredentials, "credential store"},
		{SourceLedger, "spend ledger"},
		{SourceRequest, "request validation"},
	}
	got := Sources()
	if len(got) != len(want) {
		t.Fatalf("Sources() has %d entries, want %d", len(got), len(want))
	}
	for i, w := range want {
		if got[i] != w.src {
			t.Errorf("Sources()[%d] = %s, want %s", i, got[i], w.src)
		}
		if w.src.Label() != w.label {
			t.Errorf("%s.Label() = %q, want %q", w.src, w.src.Label(), w.label)
		}
		f := mapT(t, Facts{Guides: testGuides, Source: w.src, Operation: "X failed", Status: 500})
		if !strings.HasPrefix(strings.Split(f.Text, "\n")[1], "Source: "+w.label+" · Category: server") {
			t.Errorf("line 2 for %s: %s", w.src, f.Text)
		}
	}
	got[0] = "mutated"
	if Sources()[0] != SourceAPI {
		t.Error("Sources() exposes its backing array")
	}
	for _, s := range []Source{"", "soroban", "API"} {
		f := mapT(t, Facts{Guides: testGuides, Source: s, Operation: "X failed", Status: 500})
		if f.Diagnostic.Source != string(SourceRequest) {
			t.Errorf("unknown source %q mapped to %q", s, f.Diagnostic.Source)
		}
	}
}

func TestCategoriesList(t *testing.T) {
	want := []Category{"network", "timeout", "payment", "validation", "auth", "not_found", "conflict", "rate_limit", "server", "contract", "unknown"}
	got := Categories()
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("Categories() = %v, want %v", got, want)
	}
	if Category("bogus").Valid() || Category("").Valid() {
		t.Error("invalid categories accepted")
	}
}

// TestCategoryNext pins every category's Next line and retry verdict (golden strings).
func TestCategoryNext(t *testing.T) {
	cases := []struct {
		name  string
		f     Facts
		next  string
		retry Retry
	}{
		{"network", Facts{Guides: testGuides, Source: SourceHorizon, Category: CategoryNetwork},
			"Check connectivity to Horizon and retry; reads were already retried automatically.", RetrySafe},
		{"network api", Facts{Guides: testGuides, Source: SourceAPI, Transport: TransportNetwork},
			"Check connectivity to MindVault API and retry; reads were already retried automatically.", RetrySafe},
		// The transport names the setting that bounds each service's calls; Map only repeats it.
		{"timeout api", Facts{Guides: testGuides, Source: SourceAPI, Transport: TransportTimeout, TimeoutVar: "MINDVAULT_HTTP_TIMEOUT_MS"},
			"Retry in a moment; if it keeps timing out, ask the operator to raise MINDVAULT_HTTP_TIMEOUT_MS.", RetrySafe},
		{"timeout horizon", Facts{Guides: testGuides, Source: SourceHorizon, Status: 504, TimeoutVar: "MINDVAULT_HORIZON_TIMEOUT_MS"},
			"Retry in a moment; if it keeps timing out, ask the operator to raise MINDVAULT_HORIZON_TIMEOUT_MS.", RetrySafe},
		{"timeout without a known setting", Facts{Guides: testGuides, Source: SourceCredentials, Transport: TransportTimeout},
			"Retry in a moment; if it keeps timing out, the service is slow or down.", RetrySafe},
		{"timeout bad var ignored", Facts{Guides: testGuides, Source: SourceHorizon, Transport: TransportTimeout, TimeoutVar: "rm -rf /"},
			"Retry in a moment; if it keeps timing out, the service is slow or down.", RetrySafe},
		{"payment", Facts{Guides: testGuides, Source: SourceX402, Status: 402},
			"Check the wallet with mindvault_wallet_info and fund it with USDC, then retry.", RetryAfterAction},
		{"validation with tool", Facts{Guides: testGuides, Source: SourceAPI, Status: 400, Tool: "mindvault_browse"},
			"Correct the invalid arguments and call mindvault_browse again.", RetryAfterCorrection},
		{"validation with allowed", Facts{Guides: testGuides, Source: SourceAPI, Status: 422, Tool: "mindvault_browse", AllowedArgs: []string{"query", "limit", "query", "bad name"}},
			"Correct the invalid arguments and call mindvault_browse again (allowed arguments: query, limit).", RetryAfterCorrection},
		{"validation without tool", Facts{Guides: testGuides, Source: SourceAPI, Status: 400},
			"Correct the invalid arguments and call the tool again.", RetryAfterCorrection},
		{"auth", Facts{Guides: testGuides, Source: SourceAPI, Status: 401},
			"Ask the operator to check this endpoint's access to the MindVault API: it refused the request.", RetryAfterAction},
		{"not_found", Facts{Guides: testGuides, Source: SourceAPI, Status: 404},
			"Confirm the id with mindvault_browse or mindvault_search, then retry with it.", RetryAfterCorrection},
		{"conflict", Facts{Guides: testGuides, Source: SourceAPI, Status: 409},
			"Check the current state before calling the tool again: the service says the request conflicts with it.", RetryNo},
		{"rate_limit known", Facts{Guides: testGuides, Source: SourceAPI, Status: 429, Header: http.Header{"Retry-After": {"7"}}},
			"Wait 7 s, then retry.", RetryAfterWait},
		{"rate_limit unknown", Facts{Guides: testGuides, Source: SourceAPI, Status: 429},
			"Wait 5 s (the service did not say how long), then retry.", RetryAfterWait},
		{"server", Facts{Guides: testGuides, Source: SourceAPI, Status: 502},
			"Retry shortly; if it persists the service is down.", RetrySafe},
		{"contract", Facts{Guides: testGuides, Source: SourceRegistry, Category: CategoryContract},
			"Verify the contract ID and network with mindvault_registry_info.", RetryAfterAction},
		{"unknown", Facts{Guides: testGuides, Source: SourceAPI},
			"Retry once; if it persists, report the summary above with the tool name.", RetrySafe},
		{"unknown with tool", Facts{Guides: testGuides, Source: SourceAPI, Tool: "mindvault_health"},
			"Retry once; if it persists, report the summary above with the tool name.", RetrySafe},
		{"explicit Next wins", Facts{Guides: testGuides, Source: SourceAPI, Status: 500, Next: "Resume with mindvault_publish_status\nresourceId abc."},
			"Resume with mindvault_publish_status resourceId abc.", RetrySafe},
	}
	seen := map[Category]bool{}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := mapT(t, c.f)
			seen[Category(got.Diagnostic.Category)] = true
			if got.Diagnostic.Next != c.next {
				t.Errorf("Next = %q\nwant   %q", got.Diagnostic.Next, c.next)
			}
			if got.Diagnostic.Retry != string(c.retry) {
				t.Errorf("retry = %s, want %s", got.Diagnostic.Retry, c.retry)
			}
		})
	}
	for _, c := range Categories() {
		if !seen[c] {
			t.Errorf("category %s has no golden Next line", c)
		}
	}
}

// TestCodeNext pins the codes whose category sentence would mislead. The sentences a tool
// declares for itself are pinned with its Guide (internal/tools, TestToolAdvice).
func TestCodeNext(t *testing.T) {
	cases := []struct {
		code, tool, next string
		retry            Retry
	}{
		{CodePriceChanged, "mindvault_buy", "Check the new price with mindvault_preview, then call mindvault_buy again.", RetryAfterAction},
		{CodePriceMismatch, "mindvault_buy", "Wait 30 s for the catalog to catch up with the on-chain price, then call mindvault_buy again; if it persists, compare the API and on-chain prices with mindvault_check_consistency.", RetryAfterWait},
		{CodeMainnetNotConfirmed, "mindvault_set_price", "Call mindvault_set_price again with confirmMainnet: true if you intend to change state on mainnet.", RetryAfterCorrection},
		{CodeProfileExists, "mindvault_setup_wallet", "Use the existing profile, or call mindvault_setup_wallet again with another profile name.", RetryNo},
		{CodeProfileNotAllowed, "mindvault_wallet_info", "Use a profile your access token may use (mindvault_list_profiles lists them), or ask the operator to bind this one.", RetryAfterAction},
		{CodeAccountMissing, "mindvault_buy", "Create a funded wallet with mindvault_setup_wallet, or fund the address, then call mindvault_buy again.", RetryAfterCorrection},
		{CodeStateArchived, "mindvault_set_price", "Ask the operator to restore the archived contract state (RestoreFootprint), then call mindvault_set_price again.", RetryAfterAction},
		{CodeUnexpectedTransaction, "mindvault_register_onchain", "Report it to the service's operator and do not sign the transaction elsewhere: the service prepared a transaction that does more than this call asked, and nothing was signed or sent.", RetryNo},
		{CodeCredentialsMissing, "mindvault_buy", "Pass a profile that exists and has a wallet (mindvault_list_profiles lists them; mindvault_setup_wallet creates one), then call mindvault_buy again.", RetryAfterAction},
		{CodeMalformedResponse, "mindvault_preview", nextServer, RetrySafe},
		{CodeContractMissing, "mindvault_registry_info", "Ask the operator to check VAULT_REGISTRY_CONTRACT_ID and STELLAR_NETWORK: no contract exists at that id on this network.", RetryAfterAction},
	}
	for _, c := range cases {
		t.Run(c.code+"/"+c.tool, func(t *testing.T) {
			got := mapT(t, Facts{Guides: testGuides, Source: SourceRequest, Operation: "Op failed", Tool: c.tool, Code: c.code, Detail: "refused"})
			d := got.Diagnostic
			if d.Next != c.next {
				t.Errorf("Next = %q\nwant   %q", d.Next, c.next)
			}
			if d.Retry != string(c.retry) || d.Category != string(CodeCategory(c.code)) {
				t.Errorf("retry %s category %s", d.Retry, d.Category)
			}
		})
	}
}

func TestStateRules(t *testing.T) {
	hashUpper := strings.ToUpper(testTxHash)
	cases := []struct {
		name    string
		f       Facts
		state   State
		retry   Retry
		next    string
		txHash  string
		expires string
	}{
		{"timeout read", Facts{Guides: testGuides, Source: SourceAPI, Transport: TransportTimeout, TimeoutVar: "MINDVAULT_HTTP_TIMEOUT_MS", ExecutionStarted: true},
			StateNo, RetrySafe, "Retry in a moment; if it keeps timing out, ask the operator to raise MINDVAULT_HTTP_TIMEOUT_MS.", "", ""},
		{"write timeout with hash", Facts{Guides: testGuides, Source: SourceRPC, Transport: TransportTimeout, ExecutionStarted: true, StateChanged: StateUnknown, TxHash: hashUpper},
			StateUnknown, RetryNo, "Check transaction " + testTxHash + " with mindvault_tx_status before retrying: the outcome is unknown.", testTxHash, ""},
		{"hash implies unknown", Facts{Guides: testGuides, Source: SourceRPC, Transport: TransportTimeout, ExecutionStarted: true, TxHash: "sha256:" + testTxHash},
			StateUnknown, RetryNo, "Check transaction " + testTxHash + " with mindvault_tx_status before retrying: the outcome is unknown.", testTxHash, ""},
		{"payment timeout", Facts{Guides: testGuides, Source: SourceX402, Transport: TransportTimeout, ExecutionStarted: true, StateChanged: StateUnknown, PaymentExpiresAt: "2026-03-01T12:00:00.25+01:00"},
			StateUnknown, RetryNo, "Do not pay again before 2026-03-01T11:00:01Z, when the signed payment expires, and then check the wallet with mindvault_wallet_info: the payment's outcome is unknown.", "", "2026-03-01T11:00:01Z"},
		{"payment with hash", Facts{Guides: testGuides, Source: SourceX402, Transport: TransportNetwork, ExecutionStarted: true, PaymentExpiresAt: "2026-03-01T11:00:00Z", TxHash: testTxHash},
			StateUnknown, RetryNo, "Check transaction " + testTxHash + " with mindvault_tx_status, and do not pay again before 2026-03-01T11:00:00Z: the outcome is unknown.", testTxHash, "2026-03-01T11:00:00Z"},
		{"unknown without pointers", Facts{Guides: testGuides, Source: SourceAPI, Tool: "mindvault_publish", Transport: TransportNetwork, ExecutionStarted: true, StateChanged: StateUnknown},
			StateUnknown, RetryNo, "Check the current state before calling mindvault_publish again, and do not repeat it blindly: the outcome is unknown.", "", ""},
		{"yes blocks retry", Facts{Guides: testGuides, Source: SourceX402, Status: 500, ExecutionStarted: true, StateChanged: StateYes},
			StateYes, RetryNo, "Check the current state before calling the tool again: the call changed something before it failed (the detail says what).", "", ""},
		{"explicit Next wins over unknown", Facts{Guides: testGuides, Source: SourceAPI, Status: 503, StateChanged: StateUnknown, Next: "Call mindvault_publish_status with resourceId r1."},
			StateUnknown, RetryNo, "Call mindvault_publish_status with resourceId r1.", "", ""},
		{"unrecognised state is cautious", Facts{Guides: testGuides, Source: SourceAPI, Status: 500, StateChanged: "maybe"},
			StateUnknown, RetryNo, "Check the current state before calling the tool again, and do not repeat it blindly: the outcome is unknown.", "", ""},
		{"failed tx with known state keeps hash", Facts{Guides: testGuides, Source: SourceRegistry, Code: CodeContractError, StateChanged: StateNo, TxHash: testTxHash},
			StateNo, RetryAfterAction, nextContract, testTxHash, ""},
		{"unparseable expiry kept cleaned", Facts{Guides: testGuides, Source: SourceX402, Transport: TransportTimeout, PaymentExpiresAt: "ledger\n12345"},
			StateUnknown, RetryNo, "Do not pay again before ledger 12345, when the signed payment expires, and then check the wallet with mindvault_wallet_info: the payment's outcome is unknown.", "", "ledger 12345"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := mapT(t, c.f).Diagnostic
			if d.StateChanged != string(c.state) || d.Retry != string(c.retry) {
				t.Errorf("state %s retry %s, want %s %s", d.StateChanged, d.Retry, c.state, c.retry)
			}
			if d.Next != c.next {
				t.Errorf("Next = %q\nwant   %q", d.Next, c.next)
			}
			if d.TxHash != c.txHash || d.PaymentExpiresAt != c.expires {
				t.Errorf("txHash %q expires %q", d.TxHash, d.PaymentExpiresAt)
			}
			if d.ExecutionStarted != c.f.ExecutionStarted {
				t.Errorf("executionStarted %v", d.ExecutionStarted)
			}
		})
	}
}

// TestAdviceUsesFacts: what the client or tool knew reaches the Next line, and only in its
// value-free shape.
func TestAdviceUsesFacts(t *testing.T) {
	cases := []struct {
		name string
		f    Facts
		next string
	}{
		{"price above the contract maximum", Facts{Guides: testGuides, Tool: "mindvault_set_price", Code: CodeContractInvalidInput, Upstream: Upstream{ContractError: 17, ContractErrorName: "PriceExceedsMax"}},
			"Pass a price of at most 100000000000 USDC (the contract's maximum, 10^18 units) and call mindvault_set_price again."},
		{"other input error named", Facts{Guides: testGuides, Tool: "mindvault_set_tags", Code: CodeContractInvalidInput, Upstream: Upstream{ContractError: 5, ContractErrorName: "InvalidTag"}},
			"Correct the argument the contract rejected (InvalidTag) and call mindvault_set_tags again."},
		{"creator known", Facts{Guides: testGuides, Tool: "mindvault_set_price", Code: CodeContractUnauthorized, Advice: Advice{Creator: testAccount}},
			"Pass the profile whose wallet is " + testAccount + ", the resource's creator (the wallet that registered it; mindvault_list_profiles shows each profile's address), then call mindvault_set_price again."},
		{"creator unknown", Facts{Guides: testGuides, Tool: "mindvault_set_price", Code: CodeContractUnauthorized},
			"Pass the profile of the resource's creator, the wallet that registered it (check it with mindvault_registry_lookup), then call mindvault_set_price again."},
		{"creator not an account", Facts{Guides: testGuides, Tool: "mindvault_set_price", Code: CodeContractUnauthorized, Advice: Advice{Creator: testSeed}},
			"Pass the profile of the resource's creator, the wallet that registered it (check it with mindvault_registry_lookup), then call mindvault_set_price again."},
		{"funding page known", Facts{Guides: testGuides, Tool: "mindvault_buy", Code: CodeInsufficientUSDC, Advice: Advice{FundingURL: "https://faucet.example.org/?address=" + testAccount}},
			"Fund the wallet with USDC at https://faucet.example.org/?address=" + testAccount + " (mindvault_wallet_info shows its balance), then call mindvault_buy again."},
		{"funding page not a web URL", Facts{Guides: testGuides, Tool: "mindvault_buy", Code: CodeInsufficientUSDC, Advice: Advice{FundingURL: "javascript:alert(1)"}},
			"Fund the wallet with USDC (mindvault_wallet_info shows its balance), then call mindvault_buy again."},
		{"funding page carrying a secret", Facts{Guides: testGuides, Tool: "mindvault_buy", Code: CodeInsufficientUSDC, Advice: Advice{FundingURL: "https://faucet.example.org/?key=" + testSeed}},
			"Fund the wallet with USDC (mindvault_wallet_info shows its balance), then call mindvault_buy again."},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := mapT(t, c.f)
			if got.Diagnostic.Next != c.next {
				t.Errorf("Next = %q\nwant   %q", got.Diagnostic.Next, c.next)
			}
			assertAbsent(t, got, testSeed)
		})
	}
}
