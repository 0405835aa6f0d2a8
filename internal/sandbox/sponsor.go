package sandbox

import (
	"encoding/json"
	"io"
	"net/http"
	"strconv"

	"github.com/stellar/go-stellar-sdk/keypair"
	"github.com/stellar/go-stellar-sdk/strkey"
)

// The sponsored-account service (docs/sandbox.md "What runs"): POST /create makes a fresh account whose
// reserves the `sponsor` account carries (CAP-33), with a USDC trustline from USDCIssuer. A body
// {"publicKey": "G..."} names the account to create, whose key the caller generated and holds:
// the answer is {publicKey} (the service never sees a secret; an account that exists already is
// a 400). Without it the service generates the key pair itself and answers {publicKey,
// secretKey}, as the deployed MindVault service does. Like a testnet faucet, the sandbox service
// also credits the new wallet with test USDC (FaucetUSDC by default), so a new profile can buy at
// once; the answer says how much under "funding". GET /health reports the service's state
// without creating anything.

// FaucetUSDC is what the sandbox sponsored-account service credits a new wallet with, in
// 7-decimal units, unless SetFaucet changed it.
const FaucetUSDC = 100 * stroops

func (s *Sandbox) sponsorService() *service {
	return &service{s: s, name: ServiceSponsor, keys: httpKey, serve: s.sponsorServe, fault: s.sponsorFault}
}

// SetFaucet sets the test USDC (7-decimal units) the sponsored-account service credits each new
// wallet with; 0 creates wallets with an empty USDC trustline.
func (s *Sandbox) SetFaucet(units int64) {
	defer s.lockChain()()
	s.world.faucet = max(units, 0)
}

func (s *Sandbox) sponsorServe(w http.ResponseWriter, r *http.Request) {
	var allow string
	switch r.URL.Path {
	case "/create":
		allow = http.MethodPost
	case "/health":
		allow = http.MethodGet
	default:
		apiError(w, http.StatusNotFound, "Not found")
		return
	}
	if r.Method != allow {
		w.Header().Set("Allow", allow)
		apiError(w, http.StatusMethodNotAllowed, "Method not allowed")
		return
	}
	if r.URL.Path == "/health" {
		writeJSON(w, http.StatusOK, s.sponsorHealth())
		return
	}
	s.sponsorCreate(w, r, nil)
}

// sponsorCreate is POST /create. A custody fault (ownkey, cosigner) makes it create an
// account whose key the caller does not hold alone.
func (s *Sandbox) sponsorCreate(w http.ResponseWriter, r *http.Request, f *Fault) {
	ownKey := f != nil && f.Kind == KindOwnKey
	var cosigner string
	if f != nil && f.Kind == KindCosigner {
		co, err := keypair.Random()
		if err != nil {
			apiError(w, http.StatusInternalServerError, "Failed to create account")
			return
		}
		cosigner = co.Address()
	}
	var body struct {
		PublicKey *string `json:"publicKey"`
	}
	raw, _ := io.ReadAll(io.LimitReader(r.Body, 1<<16))
	if len(raw) > 0 && json.Unmarshal(raw, &body) != nil {
		apiError(w, http.StatusBadRequest, "Invalid request")
		return
	}
	if body.PublicKey != nil && !ownKey {
		addr := *body.PublicKey
		if !strkey.IsValidEd25519PublicKey(addr) {
			apiError(w, http.StatusBadRequest, "Invalid public key")
			return
		}
		created, funded := s.createSponsored(addr, nil, cosigner)
		if !created {
			apiError(w, http.StatusBadRequest, "Account already exists")
			return
		}
		writeJSON(w, http.StatusOK, s.sponsorAnswer(map[string]any{"publicKey": addr}, funded))
		return
	}
	kp, err := keypair.Random()
	if err != nil {
		apiError(w, http.StatusInternalServerError, "Failed to create account")
		return
	}
	_, funded := s.createSponsored(kp.Address(), kp, cosigner)
	writeJSON(w, http.StatusOK, s.sponsorAnswer(map[string]any{"publicKey": kp.Address(), "secretKey": kp.Seed()}, funded))
}

// sponsorAnswer adds the faucet's "funding" to a /create answer when it credited anything.
func (s *Sandbox) sponsorAnswer(body map[string]any, funded int64) map[string]any {
	if funded > 0 {
		body["funding"] = map[string]string{"asset": "USDC", "issuer": s.USDCIssuer, "amount": amount(funded),
			"note": "sandbox faucet: test USDC with no value, credited so the new wallet can buy at once"}
	}
	return body
}

// sponsorHealth is GET /health: the sponsoring account and what a new wallet receives.
func (s *Sandbox) sponsorHealth() map[string]any {
	defer s.lockChain()()
	sp := s.world.byName["sponsor"]
	return map[string]any{"status": "ok", "sponsor": sp.Address, "numSponsoring": sp.numSponsoring,
		"faucetUsdc": amount(s.world.faucet)}
}

// createSponsored adds the account to the ledger in the current ledger: 0 XLM, two sponsored
// base reserves for the account and one for the trustline, which the faucet then credits. kp
// is nil when only the caller holds the key; cosigner, when set, is a second signer of weight
// 1 (the master key's), which the service keeps. It reports false, changing nothing, when the
// account exists, and the USDC units credited.
func (s *Sandbox) createSponsored(addr string, kp *keypair.Full, cosigner string) (bool, int64) {
	defer s.lockChain()()
	w := s.world
	if w.byAddr[addr] != nil {
		return false, 0
	}
	latest := s.LatestLedger()
	sp := w.byName["sponsor"]
	acc := &chainAccount{Account: Account{Address: addr}, kp: kp,
		created: latest, seq: int64(latest) << 32, lastModified: latest, sponsor: sp.Address, numSponsored: 3,
		lines: []trustLine{{code: "USDC", issuer: w.usdcIssuer, sponsor: sp.Address, lastModified: latest}}}
	if kp != nil {
		acc.Secret = kp.Seed()
	}
	if cosigner != "" {
		acc.cosigners = []string{cosigner}
		acc.numSponsored++ // the signer's base reserve, sponsored like the others
		sp.numSponsoring++
	}
	w.byAddr[acc.Address] = acc
	w.sponsored++
	sp.numSponsoring += 3
	sp.lastModified = max(sp.lastModified, latest)
	if w.faucet > 0 {
		w.moveUSDC(w.usdcIssuer, acc.Address, w.faucet, latest) // the issuer mints
	}
	return true, w.faucet
}

// SponsoredAccounts is how many accounts the sponsored-account service has created, so a
// test can tell an orphaned account from a refused request.
func (s *Sandbox) SponsoredAccounts() int {
	defer s.lockChain()()
	return s.world.sponsored
}

// sponsorFault renders status and malformed faults with the service's {"error": "..."} body.
func (s *Sandbox) sponsorFault(w http.ResponseWriter, r *http.Request, f *Fault) {
	if f.Kind == KindOwnKey || f.Kind == KindCosigner {
		s.sponsorCreate(w, r, f)
		return
	}
	if f.Kind == KindMalformed {
		writeJSONRaw(w, http.StatusOK, `{"publicKey":42,"secretKey":null}`)
		return
	}
	msg := http.StatusText(f.Status)
	switch f.Status {
	case http.StatusBadRequest:
		msg = "Invalid request"
	case http.StatusTooManyRequests:
		msg = "Too many requests, please try again later"
	case http.StatusInternalServerError:
		msg = "Failed to create account"
	case http.StatusServiceUnavailable:
		msg = "Sponsor account unavailable"
	}
	if msg == "" {
		msg = "HTTP " + strconv.Itoa(f.Status)
	}
	apiError(w, f.Status, msg)
}
