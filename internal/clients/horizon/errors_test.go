package horizon

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/mindvault/mcp-endpoint/errmap"
)

func TestReadError(t *testing.T) {
	problem := func(codes string) []byte {
		return []byte(`{"type":"https://stellar.org/horizon-errors/transaction_failed","title":"Transaction Failed","status":400,` +
			`"detail":"The transaction failed when submitted to the stellar network. See extras.",` +
			`"extras":{"envelope_xdr":"AAAA-envelope-secret","result_xdr":"AAAB","result_codes":` + codes + `}}`)
	}
	cases := []struct {
		name   string
		status int
		body   []byte
		code   string
		cat    errmap.Category
		retry  errmap.Retry
		detail string
		codes  []string
	}{
		{"op_underfunded", 400, problem(`{"transaction":"tx_failed","operations":["op_success","op_underfunded"]}`),
			errmap.CodeInsufficientBalance, errmap.CategoryPayment, errmap.RetryAfterAction, "Transaction Failed (tx_failed, op_success, op_underfunded)", []string{"tx_failed", "op_success", "op_underfunded"}},
		{"tx_insufficient_balance", 400, problem(`{"transaction":"tx_insufficient_balance"}`),
			errmap.CodeInsufficientBalance, errmap.CategoryPayment, errmap.RetryAfterAction, "Transaction Failed (tx_insufficient_balance)", []string{"tx_insufficient_balance"}},
		{"op_no_trust", 400, problem(`{"transaction":"tx_failed","operations":["op_no_trust"]}`),
			errmap.CodeTrustlineMissing, errmap.CategoryPayment, errmap.RetryAfterAction, "Transaction Failed (tx_failed, op_no_trust)", []string{"tx_failed", "op_no_trust"}},
		{"op_src_no_trust", 400, problem(`{"transaction":"tx_failed","operations":["op_src_no_trust"]}`),
			errmap.CodeTrustlineMissing, errmap.CategoryPayment, errmap.RetryAfterAction, "Transaction Failed (tx_failed, op_src_no_trust)", []string{"tx_failed", "op_src_no_trust"}},
		{"tx_bad_auth", 400, problem(`{"transaction":"tx_bad_auth"}`),
			errmap.CodeTxBadAuth, errmap.CategoryAuth, errmap.RetryAfterAction, "Transaction Failed (tx_bad_auth)", []string{"tx_bad_auth"}},
		{"op_bad_auth", 400, problem(`{"transaction":"tx_failed","operations":["op_bad_auth"]}`),
			errmap.CodeTxBadAuth, errmap.CategoryAuth, errmap.RetryAfterAction, "Transaction Failed (tx_failed, op_bad_auth)", []string{"tx_failed", "op_bad_auth"}},
		{"tx_bad_seq", 400, problem(`{"transaction":"tx_bad_seq"}`),
			errmap.CodeTxBadSequence, errmap.CategoryServer, errmap.RetrySafe, "Transaction Failed (tx_bad_seq)", []string{"tx_bad_seq"}},
		{"tx_too_late", 400, problem(`{"transaction":"tx_too_late"}`),
			errmap.CodeTxExpired, errmap.CategoryServer, errmap.RetrySafe, "Transaction Failed (tx_too_late)", []string{"tx_too_late"}},
		{"tx_no_source_account", 400, problem(`{"transaction":"tx_no_source_account"}`),
			errmap.CodeAccountMissing, errmap.CategoryNotFound, errmap.RetryAfterCorrection, "Transaction Failed (tx_no_source_account)", []string{"tx_no_source_account"}},
		{"entry_archived", 400, problem(`{"transaction":"tx_failed","operations":["entry_archived"]}`),
			errmap.CodeStateArchived, errmap.CategoryContract, errmap.RetryAfterAction, "Transaction Failed (tx_failed, entry_archived)", []string{"tx_failed", "entry_archived"}},
		{"fee bump inner", 400, problem(`{"transaction":"tx_fee_bump_inner_failed","inner_transaction":"tx_bad_seq"}`),
			errmap.CodeTxBadSequence, errmap.CategoryServer, errmap.RetrySafe, "Transaction Failed (tx_fee_bump_inner_failed, tx_bad_seq)", []string{"tx_fee_bump_inner_failed", "tx_bad_seq"}},
		{"unrecognised keeps status", 400, problem(`{"transaction":"tx_failed","operations":["op_low_reserve"]}`),
			errmap.CodeBadRequest, errmap.CategoryValidation, errmap.RetryAfterCorrection, "Transaction Failed (tx_failed, op_low_reserve)", []string{"tx_failed", "op_low_reserve"}},
		{"codes that are not tokens dropped", 400, problem(`{"transaction":"tx_failed","operations":["Bad Code!","op_underfunded"]}`),
			errmap.CodeInsufficientBalance, errmap.CategoryPayment, errmap.RetryAfterAction, "Transaction Failed (tx_failed, op_underfunded)", []string{"tx_failed", "op_underfunded"}},
		// Horizon is only asked for accounts: its 404, a problem or not, is a missing account.
		{"not found problem", 404, []byte(`{"type":"https://stellar.org/horizon-errors/not_found","title":"Resource Missing","status":404,"detail":"The resource at the url requested was not found."}`),
			errmap.CodeAccountMissing, errmap.CategoryNotFound, errmap.RetryAfterCorrection, "Resource Missing", nil},
		{"proxy 404", 404, []byte("<html>not here</html>"),
			errmap.CodeAccountMissing, errmap.CategoryNotFound, errmap.RetryAfterCorrection, "response body is not JSON (status 404)", nil},
		{"timeout problem", 504, []byte(`{"type":"https://stellar.org/horizon-errors/timeout","title":"Timeout","status":504}`),
			errmap.CodeTimeout, errmap.CategoryTimeout, errmap.RetrySafe, "Timeout", nil},
		{"not a problem", 500, []byte(`{"error":"proxy says no"}`),
			errmap.CodeServerError, errmap.CategoryServer, errmap.RetrySafe, "proxy says no", nil},
		{"empty 503", 503, nil,
			errmap.CodeServerError, errmap.CategoryServer, errmap.RetrySafe, "no response body", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := ReadError(errmap.Facts{Source: errmap.SourceHorizon, Operation: "Submit failed", Status: c.status, Body: c.body})
			got := errmap.Map(f)
			d := got.Diagnostic
			if d.Code != c.code || d.Category != string(c.cat) || d.Retry != string(c.retry) || d.Detail != c.detail {
				t.Errorf("got %s/%s/%s %q", d.Code, d.Category, d.Retry, d.Detail)
			}
			gotCodes, _ := d.Upstream["resultCodes"].([]string)
			if !reflect.DeepEqual(gotCodes, c.codes) {
				t.Errorf("resultCodes %v, want %v", gotCodes, c.codes)
			}
			j, _ := json.Marshal(d)
			if strings.Contains(string(j), "envelope-secret") || strings.Contains(got.Text, "See extras") {
				t.Error("problem body leaked beyond title and codes")
			}
		})
	}
}

// TestResultCodesFacts: codes already parsed (a rejected submission) classify alike.
func TestResultCodesFacts(t *testing.T) {
	f := ResultCodesFacts(errmap.Facts{Source: errmap.SourceRPC}, []string{"tx_failed", "op_underfunded", "Bad Code!", ""})
	d := errmap.Map(f).Diagnostic
	if d.Code != errmap.CodeInsufficientBalance || d.Detail != "transaction failed (tx_failed, op_underfunded)" ||
		!reflect.DeepEqual(d.Upstream["resultCodes"], []string{"tx_failed", "op_underfunded"}) {
		t.Errorf("%+v", d)
	}
	if f := ResultCodesFacts(errmap.Facts{Detail: "kept"}, []string{"tx_insufficient_fee"}); f.Code != "" || f.Detail != "kept" {
		t.Errorf("an unrecognised code decides nothing: %+v", f)
	}
	if ResultCode(nil) != "" || ResultCode([]string{"tx_success", "tx_bad_seq", "tx_bad_auth"}) != errmap.CodeTxBadSequence {
		t.Error("the first recognised code decides")
	}
}
