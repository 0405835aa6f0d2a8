// Package x402 is the paying side of x402 v2 with the Stellar `exact` scheme: it reads a 402's
// PAYMENT-REQUIRED, picks the requirement the endpoint is configured for, refuses before signing
// when it does not fit (scheme, network, asset, fee sponsorship, the caller's cap, the previewed
// price), signs the payment's USDC `transfer` authorisation and decodes PAYMENT-RESPONSE. A paid
// request is sent at most once; an outcome after that which is not a clear answer is stateChanged
// "unknown" with the signed payment's expiry, after which it can no longer settle.
package x402

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"strings"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/clients/soroban"
	"github.com/mindvault/mcp-endpoint/internal/redact/lazyre"
	"github.com/mindvault/mcp-endpoint/validate"
)

// Requirement is one PaymentRequirements entry; Raw is echoed verbatim as `accepted`
// because servers compare it field by field.
type Requirement struct {
	Scheme            string          `json:"scheme"`
	Network           string          `json:"network"`
	Amount            string          `json:"amount"`
	Asset             string          `json:"asset"`
	PayTo             string          `json:"payTo"`
	MaxTimeoutSeconds int             `json:"maxTimeoutSeconds"`
	Extra             map[string]any  `json:"extra,omitempty"`
	Raw               json.RawMessage `json:"-"`
}

// Required is a decoded PAYMENT-REQUIRED (x402 v2).
type Required struct {
	X402Version int               `json:"x402Version"`
	Error       string            `json:"error,omitempty"`
	Resource    json.RawMessage   `json:"resource,omitempty"`
	Accepts     []json.RawMessage `json:"accepts"`
	Extensions  json.RawMessage   `json:"extensions,omitempty"`
}

// Policy is what the caller accepts to pay.
type Policy struct {
	Network   string   // e.g. stellar:testnet
	Asset     string   // the configured USDC contract
	Cap       *big.Int // most units the caller allows (maxPriceUsdc)
	Previewed *big.Int // the price seen before paying, in units; nil when unknown
	// Intent, when set, gives the auth entry its nonce (Intent.Nonce), so however many calls
	// carry the intent the network settles at most one; nil is a new payment on purpose.
	Intent *Intent
	// PayTo, when set, is the only payee allowed (the listing's): PAYEE_MISMATCH otherwise.
	PayTo string
}

// Intent is what a payment is for: a kind and its parts (e.g. "buy", payer, network, resource id).
type Intent struct {
	Kind  string
	Parts []string
}

// Nonce is the first 8 bytes (big-endian) of SHA-256("mindvault-intent-v1" ‖ 0 ‖ kind ‖ 0 ‖
// part ‖ …); a part holding a NUL byte is replaced by its hash, so the join is unambiguous.
func (i *Intent) Nonce() int64 {
	h := sha256.New()
	h.Write([]byte("mindvault-intent-v1"))
	for _, p := range append([]string{i.Kind}, i.Parts...) {
		if strings.IndexByte(p, 0) >= 0 {
			sum := sha256.Sum256([]byte(p))
			p = hex.EncodeToString(sum[:])
		}
		h.Write([]byte{0})
		h.Write([]byte(p))
	}
	return int64(binary.BigEndian.Uint64(h.Sum(nil)[:8]))
}

// MaxTimeoutSeconds is the longest validity a seller may ask for a signed payment, which can
// settle until it expires (x402 sellers ask for 60 to 300 s).
const MaxTimeoutSeconds = 600

// Quote is what a payment about to be sent pays, from the selected requirement.
type Quote struct {
	Amount  *big.Int
	Asset   string
	PayTo   string
	Network string
}

// refuse is a refusal before anything was signed or sent.
func refuse(code, detail string) *errmap.Error {
	return errmap.Wrap(errors.New(detail), errmap.Facts{
		Source: errmap.SourceX402, Code: code, Detail: detail,
	})
}

// ParseRequired decodes a 402's v2 PAYMENT-REQUIRED header (a v1 body is refused).
func ParseRequired(h http.Header, body []byte) (*Required, error) {
	raw := strings.TrimSpace(h.Get("PAYMENT-REQUIRED"))
	if raw == "" {
		var v1 struct {
			X402Version int `json:"x402Version"`
		}
		if json.Unmarshal(body, &v1) == nil && v1.X402Version == 1 {
			return nil, refuse(errmap.CodeUnsupportedRequirement, "the server offers x402 v1 only, which the Stellar exact scheme does not support")
		}
		return nil, refuse(errmap.CodePaymentRequired, "payment required, but the 402 carries no PAYMENT-REQUIRED header")
	}
	dec, err := base64.StdEncoding.DecodeString(raw)
	if err != nil {
		return nil, refuse(errmap.CodeUnsupportedRequirement, "PAYMENT-REQUIRED is not base64")
	}
	var pr Required
	if err := json.Unmarshal(dec, &pr); err != nil || pr.X402Version != 2 {
		return nil, refuse(errmap.CodeUnsupportedRequirement, "PAYMENT-REQUIRED is not an x402 v2 document")
	}
	return &pr, nil
}

// Select picks the `exact` requirement for the configured network and checks it against the
// policy. Every refusal happens here, before anything is signed.
func Select(pr *Required, p Policy) (*Requirement, *big.Int, error) {
	var candidate *Requirement
	for _, raw := range pr.Accepts {
		var r Requirement
		if json.Unmarshal(raw, &r) != nil {
			continue
		}
		r.Raw = raw
		if r.Scheme == "exact" && r.Network == p.Network {
			candidate = &r
			break
		}
	}
	if candidate == nil {
		return nil, nil, refuse(errmap.CodeUnsupportedRequirement, fmt.Sprintf("no exact-scheme payment option for %s", p.Network))
	}
	if candidate.Asset != p.Asset {
		return nil, nil, refuse(errmap.CodeUnsupportedRequirement, "the payment asks for an asset that is not the configured USDC contract")
	}
	if sponsored, _ := candidate.Extra["areFeesSponsored"].(bool); !sponsored {
		return nil, nil, refuse(errmap.CodeFeesNotSponsored, "the server does not sponsor network fees (areFeesSponsored is not true)")
	}
	if !canonicalUnits.MatchString(candidate.Amount) {
		return nil, nil, refuse(errmap.CodeUnsupportedRequirement, "the payment amount is not a positive integer in canonical form")
	}
	amount, _ := new(big.Int).SetString(candidate.Amount, 10)
	if !accountAddress.MatchString(candidate.PayTo) {
		return nil, nil, refuse(errmap.CodeUnsupportedRequirement, "the payee is not a Stellar account (G…) address")
	}
	if p.Cap != nil && amount.Cmp(p.Cap) > 0 {
		return nil, nil, refuse(errmap.CodePriceAboveCap, fmt.Sprintf("the server asks %s USDC, above the cap of %s USDC", decimal(amount), decimal(p.Cap)))
	}
	if p.Previewed != nil && amount.Cmp(p.Previewed) > 0 {
		return nil, nil, refuse(errmap.CodePriceChanged, fmt.Sprintf("the server asks %s USDC, more than the previewed %s USDC", decimal(amount), decimal(p.Previewed)))
	}
	switch {
	case candidate.MaxTimeoutSeconds <= 0:
		candidate.MaxTimeoutSeconds = 300
	case candidate.MaxTimeoutSeconds > MaxTimeoutSeconds:
		return nil, nil, refuse(errmap.CodeUnsupportedRequirement, fmt.Sprintf("the payment would stay valid for %d s, above the %d s this endpoint signs for", candidate.MaxTimeoutSeconds, MaxTimeoutSeconds))
	}
	if p.PayTo != "" && candidate.PayTo != p.PayTo {
		e := refuse(errmap.CodePayeeMismatch, fmt.Sprintf("the seller asks to pay %s, not %s, the payee its listing names; nothing was signed", candidate.PayTo, p.PayTo))
		e.Facts.StateChanged = errmap.StateNo
		return nil, nil, e
	}
	return candidate, amount, nil
}

var (
	// canonicalUnits: the facilitator compares it with the signed amount digit for digit.
	canonicalUnits = lazyre.New(`^[1-9][0-9]{0,37}$`)
	accountAddress = lazyre.New(`^G[A-Z2-7]{55}$`)
)

// Payload is the PAYMENT-SIGNATURE document.
type Payload struct {
	X402Version int             `json:"x402Version"`
	Resource    json.RawMessage `json:"resource,omitempty"`
	Accepted    json.RawMessage `json:"accepted"`
	Payload     struct {
		Transaction string `json:"transaction"`
	} `json:"payload"`
	Extensions json.RawMessage `json:"extensions,omitempty"`
}

// Encode is the PAYMENT-SIGNATURE header value: standard base64 of the JSON.
func (p *Payload) Encode() (string, error) {
	b, err := json.Marshal(p)
	if err != nil {
		return "", err
	}
	return base64.StdEncoding.EncodeToString(b), nil
}

// DecodePayload reads a PAYMENT-SIGNATURE header value.
func DecodePayload(v string) (*Payload, error) {
	b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(v))
	if err != nil {
		return nil, err
	}
	var p Payload
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, err
	}
	return &p, nil
}

// Settlement is a decoded PAYMENT-RESPONSE.
type Settlement struct {
	Success      bool   `json:"success"`
	Transaction  string `json:"transaction"`
	Network      string `json:"network"`
	Payer        string `json:"payer"`
	ErrorReason  string `json:"errorReason,omitempty"`
	ErrorMessage string `json:"errorMessage,omitempty"`
}

// maxSettlementHeader bounds the PAYMENT-RESPONSE value looked at; a real one is ~300 bytes.
const maxSettlementHeader = 4096

// DecodeSettlement reads PAYMENT-RESPONSE (or X-PAYMENT-RESPONSE) strictly, because it lets
// a result claim that money moved: one header, bounded base64 of one JSON object without
// duplicate keys or trailing data, typed fields, and a success names a 64-hex hash (returned
// in lower case) and no errorReason.
func DecodeSettlement(h http.Header) (*Settlement, bool) {
	vs := h.Values("PAYMENT-RESPONSE")
	if len(vs) == 0 {
		vs = h.Values("X-PAYMENT-RESPONSE")
	}
	if len(vs) != 1 {
		return nil, false
	}
	v := strings.TrimSpace(vs[0])
	if v == "" || len(v) > maxSettlementHeader {
		return nil, false
	}
	b, err := base64.StdEncoding.Strict().DecodeString(v)
	var fields map[string]json.RawMessage
	// Duplicate keys are refused: two readers could disagree on which wins.
	if err != nil || json.Unmarshal(b, &fields) != nil || fields == nil || validate.DuplicateKeys(b, "", "") != nil {
		return nil, false
	}

	var s Settlement
	success, ok := fields["success"]
	if !ok || json.Unmarshal(success, &s.Success) != nil || bytes.Equal(success, []byte("null")) {
		return nil, false
	}
	for key, dst := range map[string]*string{
		"transaction": &s.Transaction, "network": &s.Network, "payer": &s.Payer,
		"errorReason": &s.ErrorReason, "errorMessage": &s.ErrorMessage,
	} {
		raw, present := fields[key]
		if !present {
			continue
		}
		if len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, dst) != nil {
			return nil, false
		}
	}
	if s.Success {
		if !txHashRE.MatchString(s.Transaction) || s.ErrorReason != "" {
			return nil, false
		}
		s.Transaction = strings.ToLower(s.Transaction)
	}
	return &s, true
}

var txHashRE = lazyre.New(`^[0-9a-fA-F]{64}$`)

// Confirms reports whether s proves that a payment by payer settled on network: success, a
// transaction hash, the network and the payer (when given) matching.
func (s *Settlement) Confirms(network, payer string) bool {
	return s != nil && s.Success && txHashRE.MatchString(s.Transaction) &&
		s.Network == network && (s.Payer == "" || s.Payer == payer)
}

// EncodeSettlement is the PAYMENT-RESPONSE header value (servers, and the sandbox).
func EncodeSettlement(s Settlement) string {
	b, _ := json.Marshal(s)
	return base64.StdEncoding.EncodeToString(b)
}

// decimal formats 7-decimal units for messages, without trailing zeros.
func decimal(units *big.Int) string {
	return strings.TrimRight(strings.TrimRight(soroban.Decimal(units), "0"), ".")
}
