// Package sponsor calls the sponsored-account service, which creates a Stellar account with
// sponsored reserves and a USDC trustline. The request names an account whose key the endpoint
// already stored, and creation is never retried, since a second call could create a second account;
// Create says which answers prove nothing was created (docs/tools.md "Wallet and profiles").
package sponsor

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/stellar/go-stellar-sdk/keypair"
	"github.com/stellar/go-stellar-sdk/strkey"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/clients/transport"
)

// Client calls one sponsored-account service.
type Client struct{ svc *transport.Service }

// New returns a client over svc (source sponsor).
func New(svc *transport.Service) *Client { return &Client{svc: svc} }

// Wallet is a created account. SecretKey is set only when the service generated the key
// pair itself; it must go straight to the credential store.
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

// Create asks the service to create the sponsored account publicKey, whose secret the caller
// already holds, so no lost answer can leave an account whose key nobody holds. A service that
// makes its own key pair ({publicKey, secretKey}) is accepted: the Wallet carries that secret,
// which the caller must store instead. A 4xx other than 408 created nothing (stateChanged "no");
// any other failure may have created the account (stateChanged "unknown").
func (c *Client) Create(ctx context.Context, publicKey string) (*Wallet, error) {
	body, _ := json.Marshal(map[string]string{"publicKey": publicKey})
	resp, err := c.svc.Fetch(ctx, transport.Request{Method: http.MethodPost, Path: "/create", Body: body, Route: "POST /create"})
	if err != nil {
		// A 408 may have been acted on; a 5xx or a redirect (never followed: a second POST
		// /create would create a second account) may come after the account was created.
		if transport.MayHaveActed(err, http.StatusRequestTimeout) {
			return nil, errmap.MarkStateChanged(err, errmap.StateUnknown)
		}
		return nil, err
	}
	var w Wallet
	if json.Unmarshal(resp.Body, &w) != nil || !strkey.IsValidEd25519PublicKey(w.PublicKey) {
		// Never echo the body: it may hold a secret.
		return nil, errmap.MarkStateChanged(c.svc.Malformed(resp, "no account id in the answer"), errmap.StateUnknown)
	}
	if w.SecretKey != "" {
		if kp, err := keypair.ParseFull(w.SecretKey); err != nil || kp.Address() != w.PublicKey {
			return nil, errmap.With(c.svc.Malformed(resp, "the returned secret does not derive the returned account id"), func(f *errmap.Facts) {
				f.Secrets = append(f.Secrets, w.SecretKey)
				f.StateChanged = errmap.StateUnknown
			})
		}
	}
	return &w, nil
}

// Probe asks for GET /health, which creates nothing, and returns the status: any answer from the
// application proves it up (a 404 or 405 included); 5xx, 408, 429 and transport failures are errors.
func (c *Client) Probe(ctx context.Context) (int, error) {
	resp, err := c.svc.Do(ctx, transport.Get("/health", "GET /health"))
	if err != nil {
		return 0, err
	}
	if resp.Status >= 500 || resp.Status == http.StatusRequestTimeout || resp.Status == http.StatusTooManyRequests {
		return resp.Status, c.svc.StatusError(resp)
	}
	return resp.Status, nil
}
