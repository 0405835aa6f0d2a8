// Package horizon reads classic accounts and the server root from Horizon. It uses package
// transport instead of horizonclient's own HTTP handling because horizonclient loses the status
// of non-JSON error bodies (an HTML 429 from a proxy, an empty 504), which the taxonomy needs.
// It decodes into its own types, the part of Horizon's documents the tools read, with the field
// names of go-stellar-sdk's protocols/horizon: that package links the SDK's logging, routing
// and rendering support (logrus, chi, ...) into the deployed binary for six fields.
package horizon

import (
	"cmp"
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/clients/transport"
)

// Account is the part of a Horizon account the tools read (protocols/horizon.Account's
// fields and JSON names).
type Account struct {
	AccountID     string    `json:"account_id"`
	Sequence      int64     `json:"sequence,string"`
	SubentryCount int32     `json:"subentry_count"`
	Balances      []Balance `json:"balances"`
	NumSponsoring uint32    `json:"num_sponsoring"`
	NumSponsored  uint32    `json:"num_sponsored"`
	// Thresholds and Signers say who controls the account: the weights its signatures need
	// for low, medium and high operations, and every signer with its weight (the master key,
	// the account's own address, included).
	Thresholds AccountThresholds `json:"thresholds"`
	Signers    []Signer          `json:"signers"`
}

// AccountThresholds is an account's signature thresholds (protocols/horizon.AccountThresholds).
type AccountThresholds struct {
	LowThreshold  byte `json:"low_threshold"`
	MedThreshold  byte `json:"med_threshold"`
	HighThreshold byte `json:"high_threshold"`
}

// Signer is one signer of an account (protocols/horizon.Signer): Type is ed25519_public_key,
// sha256_hash, preauth_tx or ed25519_signed_payload, Key its strkey.
type Signer struct {
	Weight  int32  `json:"weight"`
	Key     string `json:"key"`
	Type    string `json:"type"`
	Sponsor string `json:"sponsor,omitempty"`
}

// Balance is one balance line of an Account.
type Balance struct {
	Balance string `json:"balance"`
	Asset
}

// Asset names a balance's asset: Type native, credit_alphanum4 or credit_alphanum12.
type Asset struct {
	Type   string `json:"asset_type"`
	Code   string `json:"asset_code,omitempty"`
	Issuer string `json:"asset_issuer,omitempty"`
}

// Client calls one Horizon server.
type Client struct{ svc *transport.Service }

// New returns a client over svc (source horizon), which reads Horizon's error answers with ReadError.
func New(svc *transport.Service) *Client {
	svc.ReadError = ReadError
	return &Client{svc: svc}
}

// Account reads an account. found is false (with no error) when Horizon answers 404: a
// missing account is an expected state for a new wallet, not a failure.
func (c *Client) Account(ctx context.Context, address string) (acct *Account, found bool, err error) {
	resp, err := c.svc.Do(ctx, transport.Get("/accounts/"+url.PathEscape(address), "GET /accounts/{id}"))
	if err != nil {
		return nil, false, err
	}
	// Horizon's own 404 is a problem document (its type set); a proxy's is a failure.
	var problem struct {
		Type string `json:"type"`
	}
	if resp.Status == http.StatusNotFound && transport.DecodeObject(resp.Body, &problem) == nil && problem.Type != "" {
		return nil, false, nil
	}
	if !resp.OK() {
		return nil, false, c.svc.StatusError(resp)
	}
	a, err := transport.DecodeAnswer(c.svc, resp, func(a *Account) bool { return a.AccountID != "" },
		"the account is not a Horizon account object")
	return a, err == nil, err
}

// Root is the part of Horizon's root document the health check reports.
type Root struct {
	HorizonVersion    string `json:"horizon_version"`
	CoreVersion       string `json:"core_version"`
	NetworkPassphrase string `json:"network_passphrase"`
	HistoryLatest     int64  `json:"history_latest_ledger"`
}

// Root reads GET /.
func (c *Client) Root(ctx context.Context) (*Root, error) {
	return transport.Object(ctx, c.svc, transport.Get("/", "GET /"),
		func(r *Root) bool { return r.NetworkPassphrase != "" }, "the root document has no network_passphrase")
}

// Sequence returns an account's current sequence number; a missing account is
// ACCOUNT_MISSING, since nothing can be signed for it.
func (c *Client) Sequence(ctx context.Context, address string) (int64, error) {
	a, found, err := c.Account(ctx, address)
	if err != nil {
		return 0, err
	}
	if !found {
		return 0, errmap.Wrap(errors.New("account missing"), errmap.Facts{
			Source: errmap.SourceHorizon, Code: errmap.CodeAccountMissing, Status: http.StatusNotFound,
			Detail: "the wallet's account " + address + " does not exist on this network; fund it or create it with mindvault_setup_wallet",
		})
	}
	return a.Sequence, nil
}

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
	var codes []string // the transaction's, a fee bump's inner transaction's, then each operation's
	if ex, ok := o.Get("extras").(errmap.JSONObject); ok {
		if rc, ok := ex.Get("result_codes").(errmap.JSONObject); ok {
			ops, _ := rc.Get("operations").([]any)
			for _, v := range append([]any{rc.Get("transaction"), rc.Get("inner_transaction")}, ops...) {
				if s, ok := v.(string); ok {
					codes = append(codes, s)
				}
			}
		}
	}
	codes = errmap.CodeTokens(codes)
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
