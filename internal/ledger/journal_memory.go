package ledger

import (
	"context"
	"sync"
	"time"
)

// MemoryJournal is a Journal in this process's memory: for local runs and tests.
type MemoryJournal struct {
	mu       sync.Mutex
	entries  map[string]memEntry
	receipts map[string][]Receipt
}

type memEntry struct {
	e       Entry
	expires time.Time
}

// NewMemoryJournal returns an empty MemoryJournal.
func NewMemoryJournal() *MemoryJournal {
	return &MemoryJournal{entries: map[string]memEntry{}, receipts: map[string][]Receipt{}}
}

var _ Journal = (*MemoryJournal)(nil)

// Claim implements Journal.
func (m *MemoryJournal) Claim(_ context.Context, e Entry, now time.Time) (Entry, bool, error) {
	if err := checkEntry(e); err != nil {
		return Entry{}, false, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	cur, ok := m.live(e.ID, now)
	if ok && !(cur.Fingerprint == e.Fingerprint && (cur.State == Failed || (cur.State == Pending && !now.Before(cur.LeaseUntil)))) {
		return cur, false, nil
	}
	e.State, e.LeaseUntil, e.Updated = Pending, now.Add(Lease), now
	m.entries[e.ID] = memEntry{e: e, expires: e.expiry(now)}
	return e, true, nil
}

// Save implements Journal.
func (m *MemoryJournal) Save(_ context.Context, e Entry, prev string, now time.Time) error {
	if err := checkEntry(e); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	cur, ok := m.live(e.ID, now)
	if !ok || cur.Attempt != prev {
		return ErrNotOwner
	}
	e.Fingerprint, e.Updated = cur.Fingerprint, now
	m.entries[e.ID] = memEntry{e: e, expires: e.expiry(now)}
	return nil
}

// Get implements Journal.
func (m *MemoryJournal) Get(_ context.Context, id string) (Entry, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.live(id, time.Now())
	return e, ok, nil
}

// live is the entry unless it has expired (as the table's TTL would forget it). The caller holds mu.
func (m *MemoryJournal) live(id string, now time.Time) (Entry, bool) {
	me, ok := m.entries[id]
	if !ok || now.After(me.expires) {
		delete(m.entries, id)
		return Entry{}, false
	}
	return me.e, true
}

// AddReceipt implements Journal.
func (m *MemoryJournal) AddReceipt(_ context.Context, r Receipt, _ time.Duration) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	rs := m.receipts[r.Payer][:0:0]
	for _, old := range m.receipts[r.Payer] {
		if old.ID != r.ID { // the same receipt again replaces the earlier copy
			rs = append(rs, old)
		}
	}
	m.receipts[r.Payer] = newestFirst(append(rs, r), time.Now(), 0)
	return nil
}

// Receipts implements Journal.
func (m *MemoryJournal) Receipts(_ context.Context, payer string) ([]Receipt, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]Receipt(nil), m.receipts[payer]...), nil
}
