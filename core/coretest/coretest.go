// Package coretest holds the test doubles of core's ports.
package coretest

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"tandem/core"
)

// FixedClock is a settable clock for tests.
type FixedClock struct {
	mu  sync.Mutex
	now time.Time
}

// NewClock starts at t; the zero time means 2025-06-15 12:00 UTC.
func NewClock(t time.Time) *FixedClock {
	if t.IsZero() {
		t = time.Date(2025, 6, 15, 12, 0, 0, 0, time.UTC)
	}
	return &FixedClock{now: t}
}

func (c *FixedClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *FixedClock) Set(t time.Time) {
	c.mu.Lock()
	c.now = t
	c.mu.Unlock()
}

func (c *FixedClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// SeqIDs hands out "id-1", "id-2", ...
type SeqIDs struct{ n atomic.Int64 }

func (s *SeqIDs) New() string { return fmt.Sprintf("id-%d", s.n.Add(1)) }

// Events records published events.
type Events struct {
	mu     sync.Mutex
	events []core.Event
}

func (r *Events) Publish(_ context.Context, e core.Event) {
	r.mu.Lock()
	r.events = append(r.events, e)
	r.mu.Unlock()
}

func (r *Events) All() []core.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]core.Event(nil), r.events...)
}
