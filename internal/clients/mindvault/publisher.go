package mindvault

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/big"
	"net/http"
	"net/url"
	"strings"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/clients/transport"
)

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
	if what := differs(m, r); what != "" {
		// The real server answers a reused Idempotency-Key with the first request's resource
		// (201) whatever the body: that resource is not this request's, and nothing was
		// created for it.
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
