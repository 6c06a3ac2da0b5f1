package storetest

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"tandem/core"
	"tandem/modules/notifications"
)

func (nt notificationSuite) devicesRegister(t *testing.T) {
	r := nt.newRepo(t)
	d1, err := register(r, nt.dev("d1", "u1", "ExponentPushToken[a]", now), 10)
	must(t, err)
	if d1 != nt.dev("d1", "u1", "ExponentPushToken[a]", now) {
		t.Fatalf("stored %+v", d1)
	}
	_, err = register(r, nt.dev("d2", "u1", "ExponentPushToken[b]", now.Add(time.Minute)), 10)
	must(t, err)
	_, err = register(r, nt.dev("d3", "u1", "ExponentPushToken[A]", now.Add(2*time.Minute)), 10) // tokens are case-sensitive
	must(t, err)
	ds, err := r.Devices(ctx, "u1")
	must(t, err)
	if nt.devIDs(ds) != "d3,d2,d1" {
		t.Fatalf("devices %s", nt.devIDs(ds))
	}

	// the same token from another user: taken from u1 as a new device,
	// never under u1's id
	later := now.Add(time.Hour)
	again := nt.dev("d9", "u2", "ExponentPushToken[a]", later)
	again.Platform, again.Provider = core.PlatformAndroid, "fcm"
	moved, err := register(r, again, 10)
	must(t, err)
	if moved != again {
		t.Fatalf("moved %+v", moved)
	}
	if ds, _ := r.Devices(ctx, "u1"); nt.devIDs(ds) != "d3,d2" {
		t.Fatalf("u1 devices %s", nt.devIDs(ds))
	}
	if ds, _ := r.Devices(ctx, "u2"); len(ds) != 1 || ds[0] != again {
		t.Fatalf("u2 devices %+v", ds)
	}
	wantKind(t, r.RemoveDevice(ctx, "u1", "d1"), core.KindNotFound)
	wantKind(t, r.RemoveDevice(ctx, "u2", "d1"), core.KindNotFound)
	// the new owner registering it again keeps it as it is
	same, err := register(r, nt.dev("d11", "u2", "ExponentPushToken[a]", later.Add(time.Minute)), 10)
	must(t, err)
	if same.ID != "d9" || !same.CreatedAt.Equal(later) || !same.UpdatedAt.Equal(later.Add(time.Minute)) {
		t.Fatalf("re-registered %+v", same)
	}
	// re-registering by the same user refreshes it to the front
	_, err = register(r, nt.dev("d10", "u1", "ExponentPushToken[b]", later), 10)
	must(t, err)
	if ds, _ := r.Devices(ctx, "u1"); nt.devIDs(ds) != "d2,d3" {
		t.Fatalf("refreshed %s", nt.devIDs(ds))
	}
	if ds, _ := r.Devices(ctx, "nobody"); len(ds) != 0 {
		t.Fatalf("nobody %v", ds)
	}
}

func (nt notificationSuite) devicesKeepMostRecent(t *testing.T) {
	r := nt.newRepo(t)
	for i := range 5 {
		_, err := register(r, nt.dev(fmt.Sprintf("d%d", i), "u1", fmt.Sprintf("tok-%d", i), now.Add(time.Duration(i)*time.Minute)), 3)
		must(t, err)
	}
	_, err := register(r, nt.dev("o1", "u2", "tok-other", now), 3)
	must(t, err)
	if ds, _ := r.Devices(ctx, "u1"); nt.devIDs(ds) != "d4,d3,d2" {
		t.Fatalf("kept %s", nt.devIDs(ds))
	}
	// a forgotten token is free: registering it again makes a new device
	d, err := register(r, nt.dev("d5", "u1", "tok-0", now.Add(time.Hour)), 3)
	must(t, err)
	if d.ID != "d5" {
		t.Fatalf("got %+v", d)
	}
	if ds, _ := r.Devices(ctx, "u2"); nt.devIDs(ds) != "o1" {
		t.Fatalf("another user's devices were trimmed: %s", nt.devIDs(ds))
	}
}

func (nt notificationSuite) devicesConcurrentRegistrations(t *testing.T) {
	r := nt.newRepo(t)
	fns := make([]func() error, 8)
	for i := range fns {
		fns[i] = func() error {
			_, err := register(r, nt.dev(fmt.Sprintf("d%d", i), fmt.Sprintf("u%d", i%2), "tok", now), 10)
			return err
		}
	}
	for _, err := range race(fns...) {
		must(t, err)
	}
	a, _ := r.Devices(ctx, "u0")
	b, _ := r.Devices(ctx, "u1")
	if len(a)+len(b) != 1 {
		t.Fatalf("devices %+v %+v", a, b)
	}
}

func (nt notificationSuite) devicesRemove(t *testing.T) {
	r := nt.newRepo(t)
	for _, d := range []notifications.Device{nt.dev("d1", "u1", "t1", now), nt.dev("d2", "u1", "t2", now), nt.dev("d3", "u2", "t3", now)} {
		_, err := register(r, d, 10)
		must(t, err)
	}
	wantKind(t, r.RemoveDevice(ctx, "u1", "d3"), core.KindNotFound)
	wantKind(t, r.RemoveDevice(ctx, "u1", "nope"), core.KindNotFound)
	must(t, r.RemoveDevice(ctx, "u1", "d1"))
	wantKind(t, r.RemoveDevice(ctx, "u1", "d1"), core.KindNotFound)
	must(t, r.RemoveDevices(ctx, nil))
	must(t, r.RemoveDevices(ctx, []string{"d2", "d3", "ghost"}))
	a, _ := r.Devices(ctx, "u1")
	b, _ := r.Devices(ctx, "u2")
	if len(a)+len(b) != 0 {
		t.Fatalf("left %+v %+v", a, b)
	}
	// the removed token is free again
	d, err := register(r, nt.dev("d4", "u1", "t1", now), 10)
	must(t, err)
	if d.ID != "d4" {
		t.Fatalf("got %+v", d)
	}
}

// TicketRepository checks a notifications.TicketRepository implementation.
func TicketRepository(t *testing.T, newRepo func(t *testing.T) notifications.TicketRepository) {
	s := ticketSuite{newRepo: newRepo, delay: 15 * time.Minute}
	t.Run("due after the delay, oldest first, round trip; again a delay after each claim", s.dueAfterDelay)
	t.Run("a stored id keeps its row; delete forgets, unknown ids ignored", s.storedIDsAndDelete)
	t.Run("concurrent claims take each ticket once", s.concurrentClaims)
}

// ticketSuite holds TicketRepository's helpers and subtests.
type ticketSuite struct {
	newRepo func(t *testing.T) notifications.TicketRepository
	delay   time.Duration
}

func (ticketSuite) ticket(id, device string, sent time.Time) notifications.Ticket {
	return notifications.Ticket{ID: id, DeviceID: device, SentAt: sent}
}

func (ticketSuite) ids(ts []notifications.Ticket) string {
	out := make([]string, len(ts))
	for i, x := range ts {
		out[i] = x.ID
	}
	slices.Sort(out)
	return strings.Join(out, ",")
}

func (s ticketSuite) claim(t *testing.T, r notifications.TicketRepository, at time.Time, limit int) []notifications.Ticket {
	t.Helper()
	ts, err := r.ClaimTickets(ctx, at.Add(-s.delay), at, limit)
	must(t, err)
	return ts
}

func (s ticketSuite) dueAfterDelay(t *testing.T) {
	r := s.newRepo(t)
	must(t, r.AddTickets(ctx, nil))
	must(t, r.AddTickets(ctx, []notifications.Ticket{
		s.ticket("0195a-late", "d2", now.Add(time.Minute)),
		s.ticket("0195a-early", "d1", now.Add(123*time.Millisecond)),
		s.ticket("0195a-mid", "d3", now.Add(30*time.Second)),
	}))
	if got := s.claim(t, r, now.Add(s.delay), 10); len(got) != 0 {
		t.Fatalf("claimed before the delay: %v", got)
	}
	got := s.claim(t, r, now.Add(s.delay+45*time.Second), 1)
	if len(got) != 1 || got[0] != s.ticket("0195a-early", "d1", now.Add(123*time.Millisecond)) {
		t.Fatalf("the oldest first, whole: %+v", got)
	}
	at := now.Add(s.delay + time.Minute)
	if got := s.claim(t, r, at, 10); s.ids(got) != "0195a-late,0195a-mid" {
		t.Fatalf("the others: %s", s.ids(got))
	}
	if got := s.claim(t, r, at.Add(s.delay-time.Second), 10); s.ids(got) != "0195a-early" {
		t.Fatalf("claimed again within the delay: %s", s.ids(got))
	}
	if got := s.claim(t, r, at.Add(s.delay), 10); s.ids(got) != "0195a-late,0195a-mid" || !got[0].SentAt.Before(at) {
		t.Fatalf("again a delay after the claim: %+v", got)
	}
}

func (s ticketSuite) storedIDsAndDelete(t *testing.T) {
	r := s.newRepo(t)
	must(t, r.AddTickets(ctx, []notifications.Ticket{s.ticket("a", "d1", now), s.ticket("b", "d1", now)}))
	must(t, r.AddTickets(ctx, []notifications.Ticket{s.ticket("a", "d9", now.Add(time.Hour)), s.ticket("c", "d2", now)}))
	got := s.claim(t, r, now.Add(s.delay), 10)
	if s.ids(got) != "a,b,c" {
		t.Fatalf("claimed %s", s.ids(got))
	}
	for _, x := range got {
		if x.ID == "a" && x.DeviceID != "d1" {
			t.Fatalf("a stored ticket was replaced: %+v", x)
		}
	}
	must(t, r.DeleteTickets(ctx, []string{"a", "c", "nope"}))
	must(t, r.DeleteTickets(ctx, nil))
	if got := s.claim(t, r, now.Add(3*s.delay), 10); s.ids(got) != "b" {
		t.Fatalf("after delete %s", s.ids(got))
	}
}

func (s ticketSuite) concurrentClaims(t *testing.T) {
	r := s.newRepo(t)
	var all []notifications.Ticket
	for i := range 60 {
		all = append(all, s.ticket(fmt.Sprintf("t%02d", i), "d", now.Add(time.Duration(i)*time.Millisecond)))
	}
	must(t, r.AddTickets(ctx, all))
	var mu sync.Mutex
	seen := map[string]int{}
	fns := make([]func() error, 6)
	for i := range fns {
		fns[i] = func() error {
			for {
				got, err := r.ClaimTickets(ctx, now.Add(time.Second), now.Add(s.delay), 7)
				if err != nil || len(got) == 0 {
					return err
				}
				mu.Lock()
				for _, x := range got {
					seen[x.ID]++
				}
				mu.Unlock()
			}
		}
	}
	for _, err := range race(fns...) {
		must(t, err)
	}
	for _, x := range all {
		if seen[x.ID] != 1 {
			t.Fatalf("%s claimed %d times", x.ID, seen[x.ID])
		}
	}
}

// register registers d under the module's rule, keeping keep devices.
func register(r notifications.Repository, d notifications.Device, keep int) (notifications.Device, error) {
	return r.RegisterDevice(ctx, d, func(st notifications.DeviceState) notifications.DeviceChange {
		return notifications.DecideRegister(st, d, keep)
	})
}
