package horizon

import (
	"cmp"
	"net/http"
	"strings"

	"github.com/mindvault/mcp-endpoint/errmap"
)

// ReadError reads a Horizon error answer for errmap: a problem document gives its title and result
// codes as the detail, the codes go to upstream and the first one ResultCode knows decides the
// code. A 404 is a missing account: Horizon is only asked for accounts.
func ReadError(f errmap.Facts) errmap.Facts {
	if f.Status == http.StatusNotFound {
		f.Code = errmap.CodeAccountMissing
	}
	o, ok := errmap.ReadBody(f.Body).Value.(errmap.JSONObject)
	if !ok {
		return f
	}
	var codes []string
	if ex, ok := o.Get("extras").(errmap.JSONObject); ok {
		if rc, ok := ex.Get("result_codes").(errmap.JSONObject); ok {
			codes = flattenResultCodes(rc)
		}
	}
	if len(codes) > 0 {
		f.Upstream.ResultCodes = codes
		if code := ResultCode(codes); code != "" {
			f.Code = code
		}
	}
	if o.String("error") == "" && o.String("message") == "" && o.String("type") != "" && o.String("title") != "" {
		f.UpstreamDetail = o.String("title")
		if len(codes) > 0 {
			f.UpstreamDetail += " (" + strings.Join(codes, ", ") + ")"
		}
	}
	return f
}

// flattenResultCodes lists a problem's result codes: the transaction's, a fee bump's inner
// transaction's, then each operation's.
func flattenResultCodes(rc errmap.JSONObject) []string {
	ops, _ := rc.Get("operations").([]any)
	var out []string
	for _, v := range append([]any{rc.Get("transaction"), rc.Get("inner_transaction")}, ops...) {
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
	}
	return errmap.CodeTokens(out)
}

// resultCodeClass maps the transaction result codes the taxonomy refines (and their obvious
// siblings) to failure codes. Stellar RPC reports a rejected submission with the same names.
var resultCodeClass = map[string]string{
	"op_underfunded":          errmap.CodeInsufficientBalance,
	"tx_insufficient_balance": errmap.CodeInsufficientBalance,
	"op_no_trust":             errmap.CodeTrustlineMissing,
	"op_src_no_trust":         errmap.CodeTrustlineMissing,
	"tx_bad_auth":             errmap.CodeTxBadAuth,
	"op_bad_auth":             errmap.CodeTxBadAuth,
	"tx_bad_seq":              errmap.CodeTxBadSequence,
	"tx_too_late":             errmap.CodeTxExpired,
	"tx_no_source_account":    errmap.CodeAccountMissing,
	"entry_archived":          errmap.CodeStateArchived,
}

// ResultCode returns the failure code of the first result code it recognises, or "" when none
// is (the HTTP status then decides).
func ResultCode(codes []string) string {
	for _, c := range codes {
		if code, ok := resultCodeClass[c]; ok {
			return code
		}
	}
	return ""
}

// ResultCodesFacts are the facts of a transaction refused with result codes and no body: the
// codes, the code they decide, and "transaction failed (codes)" as what was seen.
func ResultCodesFacts(f errmap.Facts, codes []string) errmap.Facts {
	codes = errmap.CodeTokens(codes)
	if len(codes) == 0 {
		return f
	}
	f.Upstream.ResultCodes = codes
	if code := ResultCode(codes); code != "" {
		f.Code = code
	}
	f.UpstreamDetail = cmp.Or(f.UpstreamDetail, "transaction failed ("+strings.Join(codes, ", ")+")")
	return f
}
