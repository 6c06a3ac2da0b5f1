// Package coretest holds the test doubles of core's ports.
package coretest

import (
	"cmp"
	"context"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
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

// Others returns the events published other than the changes of the
// feed (core.ChangesCommitted), in order.
func (r *Events) Others() []core.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []core.Event
	for _, e := range r.events {
		if _, ok := e.(core.ChangesCommitted); !ok {
			out = append(out, e)
		}
	}
	return out
}

// Live returns the core.Live events published, in order, leaving the
// others out.
func (r *Events) Live() []core.Live {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []core.Live
	for _, e := range r.events {
		if l, ok := e.(core.Live); ok {
			out = append(out, l)
		}
	}
	return out
}

// Changes returns the changes of the core.ChangesCommitted events
// published (those of writes to the memory stores), in order, as
// "reader kind id op".
func (r *Events) Changes() []string {
	return r.committed(func(c core.Change) string { return c.UserID + " " + c.Kind + " " + c.ID + " " + string(c.Op) })
}

// Through returns the changes of the core.ChangesCommitted events
// published as "reader kind via" (via: the partnership the reader reads
// the record through, "-" for their own), sorted.
func (r *Events) Through() []string {
	out := r.committed(func(c core.Change) string { return c.UserID + " " + c.Kind + " " + cmp.Or(c.Via, "-") })
	slices.Sort(out)
	return out
}

// committed is each change of the core.ChangesCommitted events published,
// in order, as show writes it.
func (r *Events) committed(show func(core.Change) string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, e := range r.events {
		if cc, ok := e.(core.ChangesCommitted); ok {
			for _, c := range cc.Changes {
				out = append(out, show(c))
			}
		}
	}
	return out
}

// WantLive fails unless the core.Live events published since the last
// WantLive (or Reset) are exactly want, in order (records compared
// deeply); then it forgets them, and keeps the other events.
func (r *Events) WantLive(t testing.TB, want ...core.Live) {
	t.Helper()
	r.mu.Lock()
	var got []core.Live
	kept := r.events[:0:0]
	for _, e := range r.events {
		if l, ok := e.(core.Live); ok {
			got = append(got, l)
		} else {
			kept = append(kept, e)
		}
	}
	r.events = kept
	r.mu.Unlock()
	if len(got) == 0 && len(want) == 0 {
		return
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("live events:\n got  %+v\n want %+v", got, want)
	}
}

// Reset forgets what was published so far.
func (r *Events) Reset() {
	r.mu.Lock()
	r.events = nil
	r.mu.Unlock()
}

// Activities records the partner-activity notifications modules send
// through their NotifyActivity ports, as "user<-from:kind".
type Activities struct {
	mu  sync.Mutex
	got []string
}

func (a *Activities) NotifyActivity(_ context.Context, userID, fromUserID, kind string) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.got = append(a.got, userID+"<-"+fromUserID+":"+kind)
	return nil
}

// Take returns what was sent since the last Take, in order.
func (a *Activities) Take() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := a.got
	a.got = nil
	return out
}

// WantErr fails unless err is a core.Error of kind and code.
func WantErr(t testing.TB, err error, kind core.Kind, code string) {
	t.Helper()
	if e := core.As(err); err == nil || e.Kind != kind || e.Code != code {
		t.Fatalf("want %v/%s, got %v", kind, code, err)
	}
}

// WantErrMessage is WantErr that also checks the message shown to users,
// unless msg is empty (table rows that pin no message).
func WantErrMessage(t testing.TB, err error, kind core.Kind, code, msg string) {
	t.Helper()
	if e := core.As(err); err == nil || e.Kind != kind || e.Code != code || (msg != "" && e.Message != msg) {
		t.Fatalf("want %v/%s %q, got %v", kind, code, msg, err)
	}
}

// Couples fakes the partner ports of the modules (PartnerOf and
// PartnershipOf): current partnerships, both members symmetric.
type Couples struct {
	mu sync.Mutex
	m  map[string]membership
}

type membership struct{ partnership, partner string }

func NewCouples() *Couples { return &Couples{m: map[string]membership{}} }

// Pair makes a and b partners in partnership "p-a-b".
func (c *Couples) Pair(a, b string) { c.PairAs("p-"+a+"-"+b, a, b) }

// PairAs makes a and b partners in the named partnership.
func (c *Couples) PairAs(partnership, a, b string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m[a], c.m[b] = membership{partnership, b}, membership{partnership, a}
}

func (c *Couples) Unpair(a, b string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.m, a)
	delete(c.m, b)
}

func (c *Couples) PartnerOf(_ context.Context, userID string) (string, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	m, ok := c.m[userID]
	return m.partner, ok, nil
}

func (c *Couples) PartnershipOf(_ context.Context, userID string) (string, string, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	m, ok := c.m[userID]
	return m.partnership, m.partner, ok, nil
}

// Zones fakes the users' timezone port: UTC when unset; a user marked
// unknown is 404 user_not_found.
type Zones struct {
	mu      sync.Mutex
	m       map[string]*time.Location
	locales map[string]string
	unknown map[string]bool
}

func NewZones() *Zones {
	return &Zones{m: map[string]*time.Location{}, locales: map[string]string{}, unknown: map[string]bool{}}
}

// SetLocale gives userID a profile locale ("en" when unset).
func (z *Zones) SetLocale(userID, locale string) {
	z.mu.Lock()
	defer z.mu.Unlock()
	z.locales[userID] = locale
}

// Locale is the user's locale, "en" when unset.
func (z *Zones) Locale(_ context.Context, userID string) (string, error) {
	z.mu.Lock()
	defer z.mu.Unlock()
	if z.unknown[userID] {
		return "", core.NotFound("user_not_found", "accounts.userNotFound", "user not found")
	}
	if l, ok := z.locales[userID]; ok {
		return l, nil
	}
	return "en", nil
}

func (z *Zones) Set(userID string, loc *time.Location) {
	z.mu.Lock()
	defer z.mu.Unlock()
	z.m[userID] = loc
}

// Unknown makes userID an account that does not exist.
func (z *Zones) Unknown(userID string) {
	z.mu.Lock()
	defer z.mu.Unlock()
	z.unknown[userID] = true
}

func (z *Zones) Location(_ context.Context, userID string) (*time.Location, error) {
	z.mu.Lock()
	defer z.mu.Unlock()
	if z.unknown[userID] {
		return nil, core.NotFound("user_not_found", "accounts.userNotFound", "user not found")
	}
	if loc, ok := z.m[userID]; ok {
		return loc, nil
	}
	return time.UTC, nil
}
