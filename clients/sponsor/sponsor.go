// Package sponsor calls the sponsored-account service, which creates a Stellar account with
// sponsored reserves and a USDC trustline and returns its key pair. Creation is never
// retried: a second call would create a second account.
package sponsor

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/mindvault/mcp-endpoint/clients/transport"
	"github.com/mindvault/mcp-endpoint/errmap"
)

// Client calls one sponsored-account service.
type Client struct {
	svc *transport.Service
}

// New returns a client over svc (source sponsor).
func New(svc *transport.Service) *Client { return &Client{svc: svc} }

// Wallet is a created account. Secret must go straight to the credential store.
type Wallet struct {
	PublicKey string `json:"publicKey"`
	SecretKey string `json:"secretKey"`
}

// Create asks the service for a new sponsored account.
func (c *Client) Create(ctx context.Context) (*Wallet, error) {
	resp, err := c.svc.Do(ctx, transport.Request{Method: http.MethodPost, Path: "/create", Body: []byte("{}"), Route: "POST /create"})
	if err != nil {
		if transport.NotSent(err) {
			return nil, err // the request never left: no account was created
		}
		return nil, unknown(err)
	}
	if !resp.OK() {
		e := c.svc.StatusError(resp)
		// A 5xx may come after the account was created; a redirect is never followed (a
		// second POST /create would create a second account) and may come after it too.
		if resp.Status >= 500 || transport.IsRedirect(resp.Status) {
			return nil, unknown(e)
		}
		return nil, e
	}
	var w Wallet
	if json.Unmarshal(resp.Body, &w) != nil || w.PublicKey == "" || w.SecretKey == "" {
		// Never echo the body: it may hold a secret.
		e := c.svc.Malformed(resp, "no key pair in the answer")
		e.Facts.StateChanged = errmap.StateUnknown
		return nil, e
	}
	return &w, nil
}

// unknown marks a creation whose outcome is not known: an account may exist that no
// profile holds.
func unknown(err error) error {
	var e *errmap.Error
	if errors.As(err, &e) {
		e.Facts.StateChanged = errmap.StateUnknown
	}
	return err
}
