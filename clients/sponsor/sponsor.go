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
	// Funding is set when the service says it credited the new account (a test network's
	// faucet); nil means the account starts empty.
	Funding *Funding `json:"funding,omitempty"`
}

// Funding is what the service reports having credited a new account with.
type Funding struct {
	Asset  string `json:"asset"`
	Amount string `json:"amount"`
	Note   string `json:"note,omitempty"`
}

// Note is a one-line statement of the funding for a tool result; "" when there was none.
func (w *Wallet) Note() string {
	if w.Funding == nil || w.Funding.Amount == "" {
		return ""
	}
	n := "The sponsored-account service credited the new wallet with " + w.Funding.Amount + " " + w.Funding.Asset
	if w.Funding.Note != "" {
		n += " (" + w.Funding.Note + ")"
	}
	return n + "."
}

// Create asks the service for a new sponsored account.
func (c *Client) Create(ctx context.Context) (*Wallet, error) {
	resp, err := c.svc.Do(ctx, transport.Request{Method: http.MethodPost, Path: "/create", Body: []byte("{}"), Route: "POST /create"})
	if err != nil {
		return nil, unknown(err)
	}
	if !resp.OK() {
		e := c.svc.StatusError(resp)
		if resp.Status >= 500 {
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
