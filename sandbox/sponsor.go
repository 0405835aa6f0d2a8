package sandbox

import (
	"net/http"
	"strconv"

	"github.com/stellar/go-stellar-sdk/keypair"
)

// The sponsored-account service (docs/sandbox.md "What runs"): POST /create makes a fresh account whose
// reserves the `sponsor` account carries (CAP-33), with a USDC trustline from USDCIssuer, and
// answers its key pair. Like a testnet faucet, the sandbox service also credits the new wallet
// with test USDC (FaucetUSDC by default), so a new profile can buy at once; the answer says how
// much under "funding". GET /health reports the service's state without creating anything.

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
	kp, err := keypair.Random()
	if err != nil {
		apiError(w, http.StatusInternalServerError, "Failed to create account")
		return
	}
	body := map[string]any{"publicKey": kp.Address(), "secretKey": kp.Seed()}
	if funded := s.createSponsored(kp); funded > 0 {
		body["funding"] = map[string]string{"asset": "USDC", "issuer": s.USDCIssuer, "amount": amount(funded),
			"note": "sandbox faucet: test USDC with no value, credited so the new wallet can buy at once"}
	}
	writeJSON(w, http.StatusOK, body)
}

// sponsorHealth is GET /health: the sponsoring account and what a new wallet receives.
func (s *Sandbox) sponsorHealth() map[string]any {
	defer s.lockChain()()
	sp := s.world.byName["sponsor"]
	return map[string]any{"status": "ok", "sponsor": sp.Address, "numSponsoring": sp.numSponsoring,
		"faucetUsdc": amount(s.world.faucet)}
}

// createSponsored adds the account to the ledger in the current ledger: 0 XLM, two sponsored
// base reserves for the account and one for the trustline, which the faucet then credits. It
// returns the USDC units credited.
func (s *Sandbox) createSponsored(kp *keypair.Full) int64 {
	defer s.lockChain()()
	w := s.world
	latest := s.LatestLedger()
	sp := w.byName["sponsor"]
	acc := &chainAccount{Account: Account{Address: kp.Address(), Secret: kp.Seed()}, kp: kp,
		created: latest, seq: int64(latest) << 32, lastModified: latest, sponsor: sp.Address, numSponsored: 3,
		lines: []trustLine{{code: "USDC", issuer: w.usdcIssuer, sponsor: sp.Address, lastModified: latest}}}
	w.byAddr[acc.Address] = acc
	sp.numSponsoring += 3
	sp.lastModified = max(sp.lastModified, latest)
	if w.faucet > 0 {
		w.moveUSDC(w.usdcIssuer, acc.Address, w.faucet, latest) // the issuer mints
	}
	return w.faucet
}

// sponsorFault renders status and malformed faults with the service's {"error": "..."} body.
func (s *Sandbox) sponsorFault(w http.ResponseWriter, _ *http.Request, f *Fault) {
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
