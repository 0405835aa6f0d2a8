package sandbox

import (
	"net/http"
	"strconv"

	"github.com/stellar/go-stellar-sdk/keypair"
)

// The sponsored-account service (docs/sandbox.md "What runs"): POST /create makes a fresh account whose
// reserves the `sponsor` account carries (CAP-33), with a USDC trustline from USDCIssuer at
// balance 0, and answers its key pair.

func (s *Sandbox) sponsorService() *service {
	return &service{s: s, name: ServiceSponsor, keys: httpKey, serve: s.sponsorServe, fault: s.sponsorFault}
}

func (s *Sandbox) sponsorServe(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/create" {
		apiError(w, http.StatusNotFound, "Not found")
		return
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		apiError(w, http.StatusMethodNotAllowed, "Method not allowed")
		return
	}
	kp, err := keypair.Random()
	if err != nil {
		apiError(w, http.StatusInternalServerError, "Failed to create account")
		return
	}
	s.createSponsored(kp)
	writeJSON(w, http.StatusOK, map[string]string{"publicKey": kp.Address(), "secretKey": kp.Seed()})
}

// createSponsored adds the account to the ledger in the current ledger: 0 XLM, two sponsored
// base reserves for the account and one for the trustline.
func (s *Sandbox) createSponsored(kp *keypair.Full) {
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
