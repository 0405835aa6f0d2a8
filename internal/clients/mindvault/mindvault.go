// Package mindvault is the client of the MindVault API: its public read routes (catalog, meta,
// verification, agent status, a buyer's payments) and its publisher routes (registration, resource
// creation, on-chain registration); paid requests go through package x402. Every failure is an
// *errmap.Error from package transport, and a 2xx body of the wrong shape is MALFORMED_RESPONSE
// rather than a zero value passed on as truth.
package mindvault

import (
	"bytes"
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/big"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/clients/transport"
)

// Client calls one MindVault API deployment.
type Client struct{ svc *transport.Service }

// New returns a client over svc (source api), which reads the API's error answers with ReadError.
func New(svc *transport.Service) *Client {
	svc.ReadError = ReadError
	return &Client{svc: svc}
}

// Decimal is a price as the API sends it: a decimal string, tolerated as a JSON number.
type Decimal string

// UnmarshalJSON accepts "1.50" and 1.5 and rejects anything else.
func (d *Decimal) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		*d = Decimal(s)
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return fmt.Errorf("price must be a decimal string or number")
	}
	*d = Decimal(n.String())
	return nil
}

// Listing is what a catalog row and a resource's metadata both say about the resource.
type Listing struct {
	ID                 string  `json:"id"`
	Title              string  `json:"title"`
	Description        string  `json:"description"`
	Price              Decimal `json:"price"`
	ResourceType       string  `json:"resourceType"`
	MimeType           string  `json:"mimeType"`
	VerificationStatus string  `json:"verificationStatus"`
	PublisherName      string  `json:"publisherName"`
	CreatedAt          string  `json:"createdAt"`
	AccessURL          string  `json:"accessUrl"`
	Listed             *bool   `json:"listed,omitempty"`
}

// Resource is one catalog row.
type Resource struct {
	Listing
	WalletAddress string   `json:"walletAddress"`
	Tags          []string `json:"tags,omitempty"`
}

// CatalogQuery holds the server-supported catalog filters; empty fields are not sent.
type CatalogQuery struct {
	Search, MinPrice, MaxPrice, VerificationStatus, ResourceType, Owner, Sort string
	Limit, Offset                                                             int
}

// Page is one catalog page with its pagination and cache headers.
type Page struct {
	Resources  []Resource
	Total      *int
	NextOffset *int
	// Cache facts for the freshness notice.
	Age, Date, CacheControl string
}

// Catalog lists the public catalog (GET /resources).
func (c *Client) Catalog(ctx context.Context, q CatalogQuery) (*Page, error) {
	v := url.Values{}
	for k, s := range map[string]string{
		"search": q.Search, "minPrice": q.MinPrice, "maxPrice": q.MaxPrice,
		"verificationStatus": q.VerificationStatus, "resourceType": q.ResourceType,
		"owner": q.Owner, "sort": q.Sort,
	} {
		if s != "" {
			v.Set(k, s)
		}
	}
	if q.Limit > 0 {
		v.Set("limit", strconv.Itoa(q.Limit))
	}
	if q.Offset > 0 {
		v.Set("offset", strconv.Itoa(q.Offset))
	}
	path := "/resources"
	if len(v) > 0 {
		path += "?" + v.Encode()
	}
	resp, err := c.svc.Fetch(ctx, transport.Get(path, "GET /resources"))
	if err != nil {
		return nil, err
	}
	var rows []Resource
	if err := transport.DecodeArray(resp.Body, &rows); err != nil {
		return nil, c.svc.Malformed(resp, "the catalog is not an array of resources")
	}
	if slices.ContainsFunc(rows, func(r Resource) bool { return r.ID == "" }) {
		return nil, c.svc.Malformed(resp, "a catalog row has no id")
	}
	return &Page{
		Resources:    rows,
		Total:        intHeader(resp.Header, "X-Total-Count"),
		NextOffset:   intHeader(resp.Header, "X-Next-Offset"),
		Age:          resp.Header.Get("Age"),
		Date:         resp.Header.Get("Date"),
		CacheControl: resp.Header.Get("Cache-Control"),
	}, nil
}

// Meta is GET /resources/{id}/meta.
type Meta struct {
	Listing
	PublisherWallet string `json:"publisherWallet"`
	OnchainStatus   string `json:"onchainStatus"`
	OnchainTxHash   string `json:"onchainTxHash"`
	ContentHash     string `json:"contentHash"`
	// ExternalURL is the link a buyer receives, when the deployment shows it (most do not).
	ExternalURL string `json:"externalUrl,omitempty"`
	// Size and FileSize are the file's length in bytes when the API announces it (either name).
	Size     Bytes `json:"size"`
	FileSize Bytes `json:"fileSize"`
}

// KnownSize is the file's announced length in bytes, if any.
func (m *Meta) KnownSize() (int64, bool) {
	if m.Size.Known {
		return m.Size.N, true
	}
	return m.FileSize.N, m.FileSize.Known
}

// Bytes is an announced byte count. A value that is not a non-negative whole number (as a
// JSON number or a numeric string) reads as unknown rather than failing the whole answer:
// the size only lets a purchase be refused early, and the delivery checks it again.
type Bytes struct {
	N     int64
	Known bool
}

// UnmarshalJSON accepts 1234 and "1234"; anything else is unknown.
func (b *Bytes) UnmarshalJSON(raw []byte) error {
	*b = Bytes{}
	raw = bytes.Trim(bytes.TrimSpace(raw), `"`)
	if n, err := strconv.ParseInt(string(raw), 10, 64); err == nil && n >= 0 {
		*b = Bytes{N: n, Known: true}
	}
	return nil
}

// Meta reads one resource's public metadata; a missing resource is an HTTP 404 failure.
func (c *Client) Meta(ctx context.Context, id string) (*Meta, error) {
	return transport.Object(ctx, c.svc, transport.Get("/resources/"+url.PathEscape(id)+"/meta", "GET /resources/{id}/meta"),
		func(m *Meta) bool { return m.ID != "" }, "resource metadata is not an object with an id")
}

// VerificationResult is the AI verification outcome of a resource.
type VerificationResult struct {
	IsOriginal bool     `json:"isOriginal"`
	Confidence float64  `json:"confidence"`
	Flags      []string `json:"flags"`
	CheckedAt  string   `json:"checkedAt"`
}

// Verification is GET /resources/{id}/verification.
type Verification struct {
	ResourceID   string              `json:"resourceId"`
	Title        string              `json:"title"`
	Status       string              `json:"status"`
	Listed       *bool               `json:"listed"`
	PublishedAt  string              `json:"publishedAt"`
	Verification *VerificationResult `json:"verification"`
}

// Verification reads a resource's verification record.
func (c *Client) Verification(ctx context.Context, id string) (*Verification, error) {
	req := transport.Get("/resources/"+url.PathEscape(id)+"/verification", "GET /resources/{id}/verification")
	return transport.Object[Verification](ctx, c.svc, req, nil, "the verification record is not an object")
}

// AgentStatus is GET /agent/status.
type AgentStatus struct {
	Agent struct {
		Name                 string  `json:"name"`
		WalletAddress        string  `json:"walletAddress"`
		Network              string  `json:"network"`
		Endpoint             string  `json:"endpoint"`
		PricePerVerification Decimal `json:"pricePerVerification"`
		Currency             string  `json:"currency"`
		Status               string  `json:"status"`
	} `json:"agent"`
	Stats struct {
		TotalVerifications Number  `json:"totalVerifications"`
		Verified           Number  `json:"verified"`
		Rejected           Number  `json:"rejected"`
		TotalEarned        Decimal `json:"totalEarned"`
		// AvgConfidence is a string with two decimals on the real server ("0.93").
		AvgConfidence Number `json:"avgConfidence"`
	} `json:"stats"`
}

// AgentStatus reads the verification agent's fee and stats. Only the fee and its payee decide
// anything (a publish pays them), so only they can fail the answer; the statistics are read
// leniently and an unreadable one is unknown.
func (c *Client) AgentStatus(ctx context.Context) (*AgentStatus, error) {
	return transport.Object(ctx, c.svc, transport.Get("/agent/status", "GET /agent/status"),
		func(a *AgentStatus) bool { return a.Agent.PricePerVerification != "" && a.Agent.WalletAddress != "" },
		"agent status has no agent.pricePerVerification or agent.walletAddress (the fee and its payee)")
}

// Number is a statistic the API sends as a JSON number or as a numeric string ("0.93");
// anything else, null included, reads as unknown rather than failing the answer.
type Number struct {
	V     float64
	Known bool
}

// UnmarshalJSON accepts 0.93 and "0.93"; anything else is unknown.
func (n *Number) UnmarshalJSON(raw []byte) error {
	*n = Number{}
	raw = bytes.Trim(bytes.TrimSpace(raw), `"`)
	if v, err := strconv.ParseFloat(strings.TrimSpace(string(raw)), 64); err == nil && !math.IsNaN(v) && !math.IsInf(v, 0) {
		*n = Number{V: v, Known: true}
	}
	return nil
}

// Int is the number as a whole count (0 when unknown).
func (n Number) Int() int { return int(n.V) }

// Ptr is the number, or nil when unknown.
func (n Number) Ptr() *float64 {
	if !n.Known {
		return nil
	}
	v := n.V
	return &v
}

func intHeader(h http.Header, name string) *int {
	n, err := strconv.Atoi(h.Get(name))
	if err != nil {
		return nil
	}
	return &n
}

// MalformedMeta is a meta answer whose fields are unusable (e.g. a price that is not a USDC
// amount).
func (c *Client) MalformedMeta(what string) error {
	return c.svc.Malformed(&transport.Response{Status: http.StatusOK}, what)
}

// Payment is one purchase in a buyer's history, with the API's alternative field names
// (id for paymentId, createdAt for paidAt) already folded in.
type Payment struct {
	PaymentID  string  `json:"paymentId"`
	ResourceID string  `json:"resourceId"`
	Title      string  `json:"title"`
	Amount     Decimal `json:"amount"`
	Currency   string  `json:"currency"`
	TxHash     string  `json:"txHash"`
	PaidAt     string  `json:"paidAt"`
}

// wirePayment is a history row as the API may spell it.
type wirePayment struct {
	Payment
	ID        string `json:"id"`
	CreatedAt string `json:"createdAt"`
}

// Payments reads a buyer's purchase history, newest first. A 404 and an empty list both mean the
// API holds no record, which is not "never bought": the deployed API records only payers it can
// read from the legacy X-PAYMENT header.
func (c *Client) Payments(ctx context.Context, address string) ([]Payment, error) {
	resp, err := c.svc.Do(ctx, transport.Get("/buyers/"+url.PathEscape(address)+"/payments", "GET /buyers/{address}/payments"))
	if err != nil {
		return nil, err
	}
	if resp.Status == http.StatusNotFound {
		return nil, nil
	}
	if !resp.OK() {
		return nil, c.svc.StatusError(resp)
	}
	var rows []json.RawMessage
	if err := transport.DecodeArray(resp.Body, &rows); err != nil {
		var wrapped struct {
			Payments *[]json.RawMessage `json:"payments"`
		}
		if transport.DecodeObject(resp.Body, &wrapped) != nil || wrapped.Payments == nil {
			return nil, c.svc.Malformed(resp, "the purchase history is neither a list of payments nor {payments: [...]}")
		}
		rows = *wrapped.Payments
	}
	out := make([]Payment, 0, len(rows))
	for _, raw := range rows {
		var w wirePayment
		if transport.DecodeObject(raw, &w) != nil {
			return nil, c.svc.Malformed(resp, "a purchase history entry is not a payment object")
		}
		p := w.Payment
		p.PaymentID, p.ResourceID, p.PaidAt = cmp.Or(p.PaymentID, w.ID), strings.TrimSpace(p.ResourceID), cmp.Or(p.PaidAt, w.CreatedAt)
		if p.ResourceID == "" {
			return nil, c.svc.Malformed(resp, "a purchase history entry has no resourceId")
		}
		out = append(out, p)
	}
	return out, nil
}

// post sends a write and decodes its 2xx answer into a T that valid accepts. A failure after
// which the API may have acted (transport.MayHaveActed) leaves the outcome unknown, and so does an
// answer that is not what the route promises: the server accepted the write, but what it did is
// not readable. Any other status, but those in unsettled, means the write did not happen.
func post[T any](ctx context.Context, c *Client, path, route, apiKey string, body any, extra http.Header, valid func(*T) bool, wrong string, unsettled ...int) (*T, int, error) {
	var b []byte
	if body != nil {
		var err error
		if b, err = json.Marshal(body); err != nil {
			return nil, 0, err
		}
	}
	h := http.Header{}
	maps.Copy(h, extra)
	if apiKey != "" {
		h.Set("x-api-key", apiKey)
	}
	resp, err := c.svc.Fetch(ctx, transport.Request{Method: http.MethodPost, Path: path, Body: b, Header: h, Route: route})
	if err != nil {
		if transport.MayHaveActed(err, unsettled...) {
			err = errmap.MarkStateChanged(err, errmap.StateUnknown)
		}
		return nil, 0, err
	}
	v, err := transport.DecodeAnswer(c.svc, resp, valid, wrong)
	if err != nil {
		return nil, 0, errmap.MarkStateChanged(err, errmap.StateUnknown)
	}
	return v, resp.Status, nil
}

// NewResource is the body of POST /resources (a link resource), and the request's
// Idempotency-Key.
type NewResource struct {
	Title       string `json:"title"`
	Description string `json:"description,omitempty"`
	Price       string `json:"price"`
	ExternalURL string `json:"externalUrl"`
	// IdempotencyKey is sent as the Idempotency-Key header, not in the body: derived from the
	// intent, every attempt at one publish, from any call or instance, carries it (docs/once.md
	// "Creations and writes"). A key reused with another request gets the first resource (the
	// real server does not compare bodies), which CreateResource refuses.
	IdempotencyKey string `json:"-"`
}

// CreateResource creates a link resource in one request, never retried, carrying
// r.IdempotencyKey or a fresh random key. A 409 (an earlier request with the key is in progress
// and may still create the resource) leaves the outcome unknown; a 422 (the key was used with
// another request) changed nothing.
func (c *Client) CreateResource(ctx context.Context, apiKey string, r NewResource) (*Meta, error) {
	key := r.IdempotencyKey
	if key == "" {
		b := make([]byte, 16)
		_, _ = rand.Read(b)
		key = hex.EncodeToString(b)
	}
	m, status, err := post(ctx, c, "/resources", "POST /resources", apiKey, r, http.Header{"Idempotency-Key": {key}},
		func(m *Meta) bool { return m.ID != "" }, "the created resource has no id", http.StatusConflict)
	if err != nil {
		return nil, err
	}
	if what := differs(m, r); what != "" { // a reused key: the first request's resource (NewResource)
		detail := fmt.Sprintf("the API answered with resource %s, created earlier with the same Idempotency-Key, whose %s differs from this request's; nothing was created for this request", m.ID, what)
		return nil, &errmap.Error{Err: errors.New(detail), Facts: errmap.Facts{
			Source: errmap.SourceAPI, Status: status, Code: errmap.CodeConflict, Detail: detail, ExecutionStarted: true,
		}}
	}
	return m, nil
}

// differs names the first field of the created resource that is not what r asked for (title,
// price as an amount, link), or ""; the API may normalise an empty description, so it is not compared.
func differs(m *Meta, r NewResource) string {
	switch {
	case m.Title != r.Title:
		return "title"
	case !sameAmount(string(m.Price), r.Price):
		return "price"
	case m.ExternalURL != "" && m.ExternalURL != r.ExternalURL:
		return "externalUrl"
	}
	return ""
}

// sameAmount compares two decimal strings as numbers; unreadable ones compare as text.
func sameAmount(a, b string) bool {
	x, okA := new(big.Rat).SetString(strings.TrimSpace(a))
	y, okB := new(big.Rat).SetString(strings.TrimSpace(b))
	if !okA || !okB {
		return a == b
	}
	return x.Cmp(y) == 0
}

// Publisher is the answer of POST /publishers; APIKey is shown once and must go straight to
// the credential store.
type Publisher struct {
	ID            string `json:"id"`
	Name          string `json:"name"`
	WalletAddress string `json:"walletAddress"`
	APIKey        string `json:"apiKey"`
}

// RegisterPublisher registers a publisher; never retried.
func (c *Client) RegisterPublisher(ctx context.Context, name, email, wallet string) (*Publisher, error) {
	p, _, err := post(ctx, c, "/publishers", "POST /publishers", "", map[string]string{"name": name, "email": email, "walletAddress": wallet}, nil,
		func(p *Publisher) bool { return p.ID != "" && p.APIKey != "" }, "the publisher answer has no id or API key")
	return p, err
}

// Prepared is GET /resources/{id}/register/prepare.
type Prepared struct {
	UnsignedXDR       string `json:"unsignedXdr"`
	NetworkPassphrase string `json:"networkPassphrase"`
}

// PrepareRegistration fetches the unsigned registration transaction.
func (c *Client) PrepareRegistration(ctx context.Context, apiKey, id string) (*Prepared, error) {
	req := transport.Get("/resources/"+url.PathEscape(id)+"/register/prepare", "GET /resources/{id}/register/prepare")
	req.Header = http.Header{"x-api-key": {apiKey}}
	return transport.Object(ctx, c.svc, req, func(p *Prepared) bool { return p.UnsignedXDR != "" }, "no unsigned transaction to sign")
}

// Registration is the answer of POST /resources/{id}/register.
type Registration struct {
	OnchainStatus string `json:"onchainStatus"`
	TxHash        string `json:"txHash"`
}

// Register submits a registration: the signed XDR, or nothing (the server signs).
func (c *Client) Register(ctx context.Context, apiKey, id, signedXDR string) (*Registration, error) {
	var body any
	if signedXDR != "" {
		body = map[string]string{"signedXdr": signedXDR}
	}
	r, _, err := post[Registration](ctx, c, "/resources/"+url.PathEscape(id)+"/register", "POST /resources/{id}/register", apiKey, body, nil, nil, "the registration answer is not an object")
	if err != nil {
		return nil, err
	}
	r.OnchainStatus = cmp.Or(r.OnchainStatus, "registered")
	return r, nil
}
