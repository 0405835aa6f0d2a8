package ledger

import (
	"context"
	"sync"
	"time"
)

// Memory is a Ledger in this process's memory, behind one mutex: for local runs and tests.
type Memory struct {
	mu   sync.Mutex
	days map[period]*memDay
}

type memDay struct {
	reserved int64
	intents  map[string]int64
}

// NewMemory returns an empty Memory ledger.
func NewMemory() *Memory { return &Memory{days: map[period]*memDay{}} }

var _ Ledger = (*Memory)(nil)

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
		d = &memDay{intents: map[string]int64{}}
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
	p, err := intentPeriod(key, day, intent)
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
	for p := range m.days {
		if p.expiresAt().Before(start) {
			delete(m.days, p)
		}
	}
}
