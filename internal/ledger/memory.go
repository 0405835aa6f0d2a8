package ledger

import (
	"context"
	"maps"
	"slices"
	"sync"
	"time"
)

// Memory is a Store in this process's memory, behind one mutex, with its switch in a file
// (FileSwitch; with no Path, memory too): for local runs and tests.
type Memory struct {
	FileSwitch
	mu       sync.Mutex
	days     map[period]*tally
	entries  map[string]memEntry
	receipts map[string][]Receipt
}

// tally is a (key, day) total and its intents by amount, as Memory keeps it and Dynamo reads
// it (intents nil when the item or its map is not there).
type tally struct {
	reserved int64
	intents  map[string]int64
}

type memEntry struct {
	e       Entry
	expires time.Time
}

// NewMemory returns an empty Memory whose switch is in pauseFile (none: memory).
func NewMemory(pauseFile ...string) *Memory {
	m := &Memory{days: map[period]*tally{}, entries: map[string]memEntry{}, receipts: map[string][]Receipt{}}
	if len(pauseFile) > 0 {
		m.Path = pauseFile[0]
	}
	return m
}

// Reserve implements Ledger.
func (m *Memory) Reserve(_ context.Context, key string, day time.Time, intent string, amount, limit int64) (Usage, error) {
	p, err := reservePeriod(key, day, intent, amount, limit)
	if err != nil {
		return Usage{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	d := m.days[p]
	if d == nil {
		m.prune(p.start)
		d = &tally{intents: map[string]int64{}}
		m.days[p] = d
	}
	if _, ok := d.intents[intent]; ok {
		return p.usage(d.reserved), nil
	}
	if amount > limit-d.reserved { // reserved + amount > limit, without overflow (0 <= reserved)
		return p.exceeded(d.reserved, amount, limit)
	}
	d.intents[intent] = amount
	d.reserved += amount
	return p.usage(d.reserved), nil
}

// Release implements Ledger.
func (m *Memory) Release(_ context.Context, key string, day time.Time, intent string) (Usage, error) {
	p, err := newPeriod(key, day, intent)
	if err != nil {
		return Usage{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	d := m.days[p]
	if d == nil {
		return p.usage(0), nil
	}
	if amt, ok := d.intents[intent]; ok {
		delete(d.intents, intent)
		d.reserved -= amt
	}
	return p.usage(d.reserved), nil
}

// Usage implements Ledger.
func (m *Memory) Usage(_ context.Context, key string, day time.Time) (Usage, error) {
	p, err := newPeriod(key, day)
	if err != nil {
		return Usage{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if d := m.days[p]; d != nil {
		return p.usage(d.reserved), nil
	}
	return p.usage(0), nil
}

// prune forgets the days that ended more than two days before start, as the DynamoDB table's
// TTL does, so a long-running process does not keep every day it has seen.
func (m *Memory) prune(start time.Time) {
	maps.DeleteFunc(m.days, func(p period, _ *tally) bool { return p.expiresAt().Before(start) })
}

// Claim implements Journal.
func (m *Memory) Claim(_ context.Context, e Entry, now time.Time) (Entry, bool, error) {
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
func (m *Memory) Save(_ context.Context, e Entry, prev string, now time.Time) error {
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
func (m *Memory) Get(_ context.Context, id string) (Entry, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.live(id, time.Now())
	return e, ok, nil
}

// live is the entry unless it has expired (as the table's TTL would forget it). The caller holds mu.
func (m *Memory) live(id string, now time.Time) (Entry, bool) {
	me, ok := m.entries[id]
	if !ok || now.After(me.expires) {
		delete(m.entries, id)
		return Entry{}, false
	}
	return me.e, true
}

// AddReceipt implements Journal.
func (m *Memory) AddReceipt(_ context.Context, r Receipt, _ time.Duration) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	// The same receipt again replaces the earlier copy.
	rs := slices.DeleteFunc(slices.Clone(m.receipts[r.Payer]), func(old Receipt) bool { return old.ID == r.ID })
	m.receipts[r.Payer] = newestFirst(append(rs, r))
	return nil
}

// Receipts implements Journal.
func (m *Memory) Receipts(_ context.Context, payer string) ([]Receipt, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]Receipt(nil), m.receipts[payer]...), nil
}
