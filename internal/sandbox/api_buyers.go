package sandbox

import (
	"net/http"
	"slices"
	"sync"

	"github.com/stellar/go-stellar-sdk/strkey"
)

// purchase is one settled purchase in the API's ledger of payments.
type purchase struct {
	buyer, resourceID, title, amount, txHash, paymentID string
	paidAt                                              string // JavaScript ISO time
	// unattributed: the API stored the payer as "unknown", as the real server does for every
	// x402 v2 payment (it reads only the legacy X-PAYMENT header), so GET
	// /buyers/{address}/payments does not list it; Purchases still counts it by its payer.
	unattributed bool
}

// purchaseLedger is the API's record of settled purchases, in settlement order. Only a
// purchase whose payment settled is recorded: a refused or faulted paid request is not.
type purchaseLedger struct {
	mu   sync.Mutex
	rows []purchase
}

// recordPurchase adds a settled purchase of r by buyer.
func (s *Sandbox) recordPurchase(buyer string, r *resource, paymentID, txHash string) {
	l := &s.world.ledger
	l.mu.Lock()
	defer l.mu.Unlock()
	l.rows = append(l.rows, purchase{buyer: buyer, resourceID: r.id, title: r.title, amount: r.price, txHash: txHash,
		paymentID: paymentID, paidAt: jsTime(s.now()), unattributed: true})
}

// Purchases returns the resource ids a buyer's settled purchases were for, oldest first.
func (s *Sandbox) Purchases(buyer string) []string {
	l := &s.world.ledger
	l.mu.Lock()
	defer l.mu.Unlock()
	var ids []string
	for _, p := range l.rows {
		if p.buyer == buyer {
			ids = append(ids, p.resourceID)
		}
	}
	return ids
}

type paymentRow struct {
	PaymentID  string `json:"paymentId"`
	ResourceID string `json:"resourceId"`
	Title      string `json:"title"`
	Amount     string `json:"amount"`
	Currency   string `json:"currency"`
	TxHash     string `json:"txHash"`
	PaidAt     string `json:"paidAt"`
}

// apiBuyerPayments is GET /buyers/{address}/payments: the buyer's settled purchases the API
// could attribute, newest first (none of the x402 v2 payments, as on the real server); [] for
// a buyer without any, 400 for something that is not an account id.
func (s *Sandbox) apiBuyerPayments(w http.ResponseWriter, _ *http.Request, params []string) {
	if !strkey.IsValidEd25519PublicKey(params[0]) {
		apiError(w, http.StatusBadRequest, "Invalid wallet address")
		return
	}
	l := &s.world.ledger
	l.mu.Lock()
	rows := []paymentRow{}
	for _, p := range slices.Backward(l.rows) {
		if p.buyer == params[0] && !p.unattributed {
			rows = append(rows, paymentRow{p.paymentID, p.resourceID, p.title, p.amount, "USDC", p.txHash, p.paidAt})
		}
	}
	l.mu.Unlock()
	writeJSON(w, http.StatusOK, rows)
}
