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
// reserves the `sponsor` account carries (CAP-33), with a USDC trustline from USDCIssuer at
// balance 0. A body {"publicKey": "G..."} names the account to create, whose key the caller
// generated and holds: the answer is {publicKey} (the service never sees a secret; an
// account that exists already is a 400). Without it the service generates the key pair
// itself and answers {publicKey, secretKey}, as the deployed MindVault service does.

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
	var body struct {
		PublicKey *string `json:"publicKey"`
	}
	raw, _ := io.ReadAll(io.LimitReader(r.Body, 1<<16))
	if len(raw) > 0 && json.Unmarshal(raw, &body) != nil {
		apiError(w, http.StatusBadRequest, "Invalid request")
		return
	}
	if body.PublicKey != nil {
		addr := *body.PublicKey
		if !strkey.IsValidEd25519PublicKey(addr) {
			apiError(w, http.StatusBadRequest, "Invalid public key")
			return
		}
		if !s.createSponsored(addr, nil) {
			apiError(w, http.StatusBadRequest, "Account already exists")
			return
		}
		writeJSON(w, http.StatusOK, map[string]string{"publicKey": addr})
		return
	}
	kp, err := keypair.Random()
	if err != nil {
		apiError(w, http.StatusInternalServerError, "Failed to create account")
		return
	}
	s.createSponsored(kp.Address(), kp)
	writeJSON(w, http.StatusOK, map[string]string{"publicKey": kp.Address(), "secretKey": kp.Seed()})
}

// createSponsored adds the account to the ledger in the current ledger: 0 XLM, two sponsored
// base reserves for the account and one for the trustline. kp is nil when only the caller
// holds the key. It reports false, changing nothing, when the account exists.
func (s *Sandbox) createSponsored(addr string, kp *keypair.Full) bool {
	defer s.lockChain()()
	w := s.world
	if w.byAddr[addr] != nil {
		return false
	}
	latest := s.LatestLedger()
	sp := w.byName["sponsor"]
	acc := &chainAccount{Account: Account{Address: addr}, kp: kp,
		created: latest, seq: int64(latest) << 32, lastModified: latest, sponsor: sp.Address, numSponsored: 3,
		lines: []trustLine{{code: "USDC", issuer: w.usdcIssuer, sponsor: sp.Address, lastModified: latest}}}
	if kp != nil {
		acc.Secret = kp.Seed()
	}
	w.byAddr[acc.Address] = acc
	w.sponsored++
	sp.numSponsoring += 3
	sp.lastModified = max(sp.lastModified, latest)
	return true
}

// SponsoredAccounts is how many accounts the sponsored-account service has created, so a
// test can tell an orphaned account from a refused request.
func (s *Sandbox) SponsoredAccounts() int {
	defer s.lockChain()()
	return s.world.sponsored
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
