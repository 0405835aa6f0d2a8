package ledger

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"time"
)

// State is where an intent's payment stands.
type State string

// The states of an entry. Pending and Sending belong to a live owner; a Sending entry whose
// owner is gone is decided by the chain, as an Unknown one is.
const (
	Pending State = "pending" // claimed, nothing signed yet
	Sending State = "sending" // signed and recorded, about to be sent or sent: only the chain can say more
	Settled State = "settled" // the payment settled: Receipt says how
	Failed  State = "failed"  // certainly nothing was paid: the intent may be paid by a new attempt
	Unknown State = "unknown" // sent, outcome not known yet: resolved by the chain before anything new is signed
)

// Lease is how long an owner of a Pending or Sending entry counts as live; a call that finds
// the entry later treats the owner as gone.
const Lease = 2 * time.Minute

// How long entries are kept after their last change: keyed intents a day (as payment APIs keep
// idempotency keys); settled ones and receipts ReceiptDays (MINDVAULT_RECEIPT_DAYS).
const (
	KeepIntent         = 24 * time.Hour
	DefaultReceiptDays = 90
)

// MaxReceipts bounds the receipts kept per wallet (one store item holds them); the oldest go first.
const MaxReceipts = 400

// Entry is one intent's journal entry.
type Entry struct {
	ID          string    `json:"-"` // the intent's identity (IntentID)
	Fingerprint string    `json:"-"` // the request it was first claimed for: same key, other arguments is a reuse
	Attempt     string    `json:"-"` // the attempt that owns it
	LeaseUntil  time.Time `json:"-"` // the owner counts as live until then
	State       State     `json:"-"`
	// Keep is how long after its last change the entry is kept (0: KeepIntent).
	Keep time.Duration `json:"-"`

	Payment     Payment         `json:"payment"`
	Reservation *Reservation    `json:"reservation,omitempty"`
	Receipt     *Receipt        `json:"receipt,omitempty"`
	Resource    string          `json:"resource,omitempty"` // what the intent created (a publish), once known
	Result      json.RawMessage `json:"result,omitempty"`   // the first outcome's result, answered again to a replay
	Updated     time.Time       `json:"updated"`
}

// Live reports whether the entry's owner still counts as working on it at now.
func (e *Entry) Live(now time.Time) bool {
	return (e.State == Pending || e.State == Sending) && now.Before(e.LeaseUntil)
}

// Payment is what an attempt signed (or is about to sign), enough for the chain to decide later.
type Payment struct {
	Kind  string `json:"kind"` // the intent's kind: buy, key, approval, fee, publish
	Tool  string `json:"tool,omitempty"`
	Payer string `json:"payer"`
	Payee string `json:"payee,omitempty"`
	// PayeeName is who the payee is, as the listing names it (the publisher, the verification agent).
	PayeeName string `json:"payeeName,omitempty"`
	Asset     string `json:"asset,omitempty"`
	Network   string `json:"network,omitempty"`
	Resource  string `json:"resourceId,omitempty"`
	Amount    int64  `json:"amount,omitempty"` // 7-decimal units
	Nonce     int64  `json:"nonce,omitempty"`
	// SignedLedger is the latest ledger when the entry was signed; ExpirationLedger the last
	// one in which it can settle; ExpiresAt the endpoint's late estimate of that moment.
	SignedLedger     uint32    `json:"signedLedger,omitempty"`
	ExpirationLedger uint32    `json:"expirationLedger,omitempty"`
	ExpiresAt        time.Time `json:"expiresAt,omitzero"`
	// Envelope is the signed payment's transaction (base64 XDR), which an enforcing simulation
	// re-runs to ask the chain whether its nonce was consumed.
	Envelope string `json:"envelope,omitempty"`
}

// Reservation is the budget reservation an attempt made for the entry's payment.
type Reservation struct {
	Attempt string    `json:"attempt"`
	Day     time.Time `json:"day"`
	Keys    []string  `json:"keys"`
	Amount  int64     `json:"amount"`
}

// Receipt is a settled payment as the wallet's history shows it.
type Receipt struct {
	ID         string    `json:"id"` // the journal entry's id (or the attempt's, for a payment without an intent)
	Tool       string    `json:"tool"`
	Payer      string    `json:"payer"`
	Payee      string    `json:"payee,omitempty"`
	PayeeName  string    `json:"payeeName,omitempty"` // who the payee is: the publisher's name, or the verification agent
	Resource   string    `json:"resourceId,omitempty"`
	Title      string    `json:"title,omitempty"`
	Amount     int64     `json:"amount"`
	Network    string    `json:"network"`
	TxHash     string    `json:"txHash,omitempty"`
	PaymentID  string    `json:"paymentId,omitempty"` // the seller's receipt id, when it sent one
	Settlement string    `json:"settlement"`          // confirmed (the seller's proof), chain (the nonce was consumed), unconfirmed (delivered without proof)
	PaidAt     time.Time `json:"paidAt"`
	// Delivered is what the purchase delivered: a link's URL, a file's name, type, size and sha256.
	Delivered *Delivered `json:"delivered,omitempty"`
	// Note says what went wrong after the payment settled (the seller refused after settling).
	Note string `json:"note,omitempty"`
}

// Delivered is what a purchase delivered; a file's bytes are never kept.
type Delivered struct {
	URL         string `json:"url,omitempty"`
	ContentType string `json:"contentType,omitempty"`
	Size        int    `json:"size,omitempty"`
	SHA256      string `json:"sha256,omitempty"`
}

// Journal is the durable record of intents and receipts.
type Journal interface {
	// Claim makes e.Attempt the owner of entry e.ID: it creates it as Pending when there is
	// none, or takes over one with the same fingerprint that certainly paid nothing (Failed, or
	// Pending with an owner whose lease ran out); otherwise it returns the stored entry and
	// claimed false.
	Claim(ctx context.Context, e Entry, now time.Time) (stored Entry, claimed bool, err error)
	// Save writes e (its state, payment, result...) on condition that the stored entry is
	// owned by prev; e.Attempt becomes the owner. ErrNotOwner when another attempt holds it.
	Save(ctx context.Context, e Entry, prev string, now time.Time) error
	// Get reads an entry.
	Get(ctx context.Context, id string) (Entry, bool, error)
	// AddReceipt adds a settled payment to its payer's receipts, kept keep after it.
	AddReceipt(ctx context.Context, r Receipt, keep time.Duration) error
	// Receipts lists the payer's receipts, newest first.
	Receipts(ctx context.Context, payer string) ([]Receipt, error)
}

// ErrNotOwner is Save's refusal when another attempt owns the entry.
var ErrNotOwner = errors.New("ledger: the journal entry is owned by another attempt")

// IntentID names an intent's entry: a digest of its kind and parts, so no payer address or
// key is a store key.
func IntentID(kind string, parts ...string) string {
	h := sha256.New()
	h.Write([]byte("mindvault-journal-v1"))
	for _, p := range append([]string{kind}, parts...) {
		h.Write([]byte{0})
		h.Write([]byte(p))
	}
	return hex.EncodeToString(h.Sum(nil)[:20])
}

// expiry is when the store may forget an entry last changed at now.
func (e *Entry) expiry(now time.Time) time.Time { return now.Add(cmp.Or(e.Keep, KeepIntent)) }

// newestFirst sorts receipts newest first and drops those past MaxReceipts.
func newestFirst(rs []Receipt) []Receipt {
	sort.SliceStable(rs, func(i, j int) bool { return rs[i].PaidAt.After(rs[j].PaidAt) })
	return rs[:min(len(rs), MaxReceipts)]
}

func checkEntry(e Entry) error {
	switch {
	case e.ID == "":
		return fmt.Errorf("%w: entry without id", ErrInvalid)
	case e.Attempt == "":
		return fmt.Errorf("%w: entry without attempt", ErrInvalid)
	}
	return nil
}
