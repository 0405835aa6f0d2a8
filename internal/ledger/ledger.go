// Package ledger is the endpoint's durable store of money facts, in memory for one process or in
// one DynamoDB table every instance shares: the daily spend totals budgets are checked against
// (docs/budgets.md "The ledger") and the journal of payment intents with each wallet's receipts
// (docs/once.md "The journal"). Reservations and journal writes are idempotent by intent, and a
// store that cannot be reached is ErrUnavailable, on which the caller refuses to pay: the ledger
// fails closed.
package ledger

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mindvault/mcp-endpoint/internal/redact/lazyre"
)

// Ledger is the spend ledger: reservations under intents against a (key, UTC day) total.
type Ledger interface {
	// Reserve adds amount under intent if the intent is new and the total stays <= limit (else *ExceededError, with the total as read); a known intent is a no-op.
	Reserve(ctx context.Context, key string, day time.Time, intent string, amount, limit int64) (Usage, error)
	// Release removes the intent's reservation and subtracts its amount; an intent not there is a no-op.
	Release(ctx context.Context, key string, day time.Time, intent string) (Usage, error)
	// Usage reads the (key, day) total without changing it.
	Usage(ctx context.Context, key string, day time.Time) (Usage, error)
}

// Usage is a (key, day) total and when it starts again from zero.
type Usage struct {
	Reserved int64     // reserved on the day, in 7-decimal USDC units
	ResetsAt time.Time // the next UTC midnight after the day
}

// ErrUnavailable wraps every failure to reach or read the store; the caller must not pay.
var ErrUnavailable = errors.New("ledger: unavailable")

// ErrInvalid wraps the errors for arguments no ledger accepts (empty key, amount <= 0, ...).
var ErrInvalid = errors.New("ledger: invalid argument")

// ExceededError is Reserve's refusal (BUDGET_EXCEEDED): Reserved + Amount would be over Limit.
type ExceededError struct {
	Limit    int64     // the limit asked for
	Reserved int64     // the day's total when the reservation was refused
	Amount   int64     // the amount asked for
	ResetsAt time.Time // when the total starts again from zero
}

// Error implements error.
func (e *ExceededError) Error() string {
	return fmt.Sprintf("ledger: daily limit exceeded: %d reserved + %d asked > limit %d (resets at %s)",
		e.Reserved, e.Amount, e.Limit, e.ResetsAt.Format(time.RFC3339))
}

// period is one (key, UTC day) total's identity.
type period struct {
	key   string
	start time.Time // 00:00 UTC of the day
}

// newPeriod checks a call's key and day, and the intent of a Reserve or a Release.
func newPeriod(key string, day time.Time, intent ...string) (period, error) {
	switch {
	case key == "":
		return period{}, fmt.Errorf("%w: empty key", ErrInvalid)
	case day.IsZero():
		return period{}, fmt.Errorf("%w: zero day", ErrInvalid)
	case slices.Contains(intent, ""):
		return period{}, fmt.Errorf("%w: empty intent", ErrInvalid)
	}
	y, m, d := day.UTC().Date()
	return period{key: key, start: time.Date(y, m, d, 0, 0, 0, 0, time.UTC)}, nil
}

// resetsAt is the next UTC midnight.
func (p period) resetsAt() time.Time { return p.start.AddDate(0, 0, 1) }

// id is the period's DynamoDB partition key, "<key>#<YYYY-MM-DD>".
func (p period) id() string { return p.key + "#" + p.start.Format(time.DateOnly) }

// expiresAt is when the store may forget the period: two days after the day is over.
func (p period) expiresAt() time.Time { return p.resetsAt().AddDate(0, 0, 2) }

func (p period) usage(reserved int64) Usage { return Usage{Reserved: reserved, ResetsAt: p.resetsAt()} }

func (p period) exceeded(reserved, amount, limit int64) (Usage, error) {
	return p.usage(reserved), &ExceededError{Limit: limit, Reserved: reserved, Amount: amount, ResetsAt: p.resetsAt()}
}

// reservePeriod checks Reserve's arguments.
func reservePeriod(key string, day time.Time, intent string, amount, limit int64) (period, error) {
	p, err := newPeriod(key, day, intent)
	switch {
	case err != nil:
		return p, err
	case amount <= 0:
		return p, fmt.Errorf("%w: amount %d is not positive", ErrInvalid, amount)
	case limit < 0:
		return p, fmt.Errorf("%w: limit %d is negative", ErrInvalid, limit)
	}
	return p, nil
}

// Kind names a backend.
type Kind string

// The backends Parse accepts.
const (
	KindMemory   Kind = "memory"   // Memory: one process
	KindDynamoDB Kind = "dynamodb" // Dynamo: a DynamoDB table shared by every instance
)

// Spec is a parsed MINDVAULT_LEDGER value: which backend to build.
type Spec struct {
	Kind  Kind   // KindMemory or KindDynamoDB
	Table string // the DynamoDB table's name (KindDynamoDB only)
}

// String is the spec as Parse reads it.
func (s Spec) String() string {
	if s.Kind == KindDynamoDB {
		return string(KindDynamoDB) + ":" + s.Table
	}
	return string(s.Kind)
}

const acceptedForms = `"memory" or "dynamodb:<table>"`

// tableName is DynamoDB's rule for table names.
var tableName = lazyre.New(`^[A-Za-z0-9_.-]{3,255}$`) // compiled on first use, not at every cold start

// Parse reads a MINDVAULT_LEDGER value: "memory" or "dynamodb:<table>".
func Parse(spec string) (Spec, error) {
	spec = strings.TrimSpace(spec)
	switch {
	case spec == string(KindMemory):
		return Spec{Kind: KindMemory}, nil
	case strings.HasPrefix(spec, string(KindDynamoDB)+":"):
		table := strings.TrimPrefix(spec, string(KindDynamoDB)+":")
		if err := checkTable(table); err != nil {
			return Spec{}, fmt.Errorf("MINDVAULT_LEDGER=%q: %w", spec, err)
		}
		return Spec{Kind: KindDynamoDB, Table: table}, nil
	case spec == string(KindDynamoDB):
		return Spec{}, fmt.Errorf("MINDVAULT_LEDGER=%q names no table: use %s", spec, acceptedForms)
	default:
		return Spec{}, fmt.Errorf("MINDVAULT_LEDGER=%q is not a ledger: use %s", spec, acceptedForms)
	}
}

func checkTable(table string) error {
	if !tableName.MatchString(table) {
		return fmt.Errorf("DynamoDB table name %q must be 3-255 characters from A-Z a-z 0-9 _ . -", table)
	}
	return nil
}
