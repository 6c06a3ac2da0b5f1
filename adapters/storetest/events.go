package storetest

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"tandem/core"
	"tandem/modules/events"
)

// EventRepository checks an events.Repository implementation.
func EventRepository(t *testing.T, newRepo func(t *testing.T) events.Repository) {
	s := eventSuite{newRepo: newRepo}
	t.Run("create and get every field; absent id", s.createAndGet)
	t.Run("a taken id is a conflict", s.takenID)
	t.Run("stored participants do not alias the caller's slice", s.participantsNotAliased)
	t.Run("list is the user's events by start date then id", s.listOrder)
	t.Run("list pages with a cursor through equal dates", s.listPages)
	t.Run("an unpaged list stops at the hard cap", s.unpagedListCap)
	t.Run("overlapping: inclusive bounds, multi-day spans, the user's only", s.overlapping)
	t.Run("next: the first event under way or to come, by date, time and id; the couple's", s.next)
	t.Run("update applies fn atomically; an error writes nothing", s.update)
	t.Run("concurrent updates are serialised: none is lost", s.concurrentUpdates)
	t.Run("delete takes only the owner's event", s.deleteOwn)
	t.Run("delete by user is idempotent and touches only the user", s.deleteUser)
	t.Run("due reminders come earliest first; a claim wins once", s.dueReminders)
}

// eventSuite holds EventRepository's helpers and subtests.
type eventSuite struct {
	newRepo func(t *testing.T) events.Repository
}

func (eventSuite) ev(id, user, start, end string) events.Event {
	return events.Event{ID: id, UserID: user, Title: "t-" + id, StartDate: date(start), EndDate: date(end),
		Type: events.TypeOther, Importance: events.ImportanceMedium, Participants: []string{},
		CreatedAt: now, UpdatedAt: now}
}

func (eventSuite) same(t *testing.T, got, want events.Event) {
	t.Helper()
	if got.ID != want.ID || got.UserID != want.UserID || got.Title != want.Title || got.Description != want.Description ||
		got.StartDate != want.StartDate || got.EndDate != want.EndDate || got.StartTime != want.StartTime ||
		got.EndTime != want.EndTime || got.Location != want.Location || got.Type != want.Type ||
		got.Importance != want.Importance || got.Notify != want.Notify || got.Participants == nil ||
		!slices.Equal(got.Participants, want.Participants) || !got.CreatedAt.Equal(want.CreatedAt) ||
		!got.UpdatedAt.Equal(want.UpdatedAt) {
		t.Fatalf("got  %+v\nwant %+v", got, want)
	}
}

func (eventSuite) ids(evs []events.Event) string {
	out := make([]string, len(evs))
	for i, e := range evs {
		out[i] = e.ID
	}
	return fmt.Sprint(out)
}

func (eventSuite) create(t *testing.T, r events.Repository, evs ...events.Event) {
	t.Helper()
	for _, e := range evs {
		must(t, r.Create(ctx, e))
	}
}

func (s eventSuite) createAndGet(t *testing.T) {
	r := s.newRepo(t)
	full := s.ev("e1", "u1", "2024-02-29", "2024-03-02")
	full.Title, full.Description, full.Location = "Anniversary dinner 🍷", "at «Chez Nous»\nsecond line", "Paris"
	full.StartTime = events.WallTime{TimeOfDay: core.TimeOfDay{Hour: 19, Minute: 30}, Set: true}
	full.EndTime = events.WallTime{TimeOfDay: core.TimeOfDay{Hour: 0, Minute: 0}, Set: true}
	full.Type, full.Importance = events.TypeDate, events.ImportanceHigh
	full.Notify = events.Notify{Minutes: 0, Set: true} // "at the start" differs from "no reminder"
	full.Participants = []string{"u2", "u3"}
	full.CreatedAt = time.UnixMilli(1718452800123).UTC() // milliseconds survive
	full.UpdatedAt = full.CreatedAt.Add(time.Second)
	plain := s.ev("e2", "u1", "2025-01-01", "2025-01-01")
	s.create(t, r, full, plain)
	got, err := r.Get(ctx, "e1")
	must(t, err)
	s.same(t, got, full)
	got, err = r.Get(ctx, "e2")
	must(t, err)
	s.same(t, got, plain) // no times, no reminder, no participants
	_, err = r.Get(ctx, "ghost")
	wantKind(t, err, core.KindNotFound)
}

func (s eventSuite) takenID(t *testing.T) {
	r := s.newRepo(t)
	s.create(t, r, s.ev("e1", "u1", "2025-01-01", "2025-01-01"))
	wantKind(t, r.Create(ctx, s.ev("e1", "u2", "2025-02-01", "2025-02-01")), core.KindConflict)
	got, _ := r.Get(ctx, "e1")
	if got.UserID != "u1" {
		t.Fatalf("overwritten: %+v", got)
	}
}

func (s eventSuite) participantsNotAliased(t *testing.T) {
	r := s.newRepo(t)
	e := s.ev("e1", "u1", "2025-01-01", "2025-01-01")
	e.Participants = []string{"a", "b"}
	s.create(t, r, e)
	e.Participants[0] = "changed"
	got, _ := r.Get(ctx, "e1")
	got.Participants[1] = "changed too"
	again, _ := r.Get(ctx, "e1")
	if !slices.Equal(again.Participants, []string{"a", "b"}) {
		t.Fatalf("aliased: %v", again.Participants)
	}
}

func (s eventSuite) listOrder(t *testing.T) {
	r := s.newRepo(t)
	s.create(t, r,
		s.ev("e3", "u1", "2025-03-01", "2025-03-01"),
		s.ev("e1", "u1", "2025-03-01", "2025-03-09"),
		s.ev("e2", "u1", "2024-12-31", "2025-01-02"),
		s.ev("e4", "u2", "2025-01-01", "2025-01-01"),
	)
	list, next, err := r.List(ctx, "u1", core.Page{})
	must(t, err)
	if s.ids(list) != "[e2 e1 e3]" || next != "" {
		t.Fatalf("list %s next %q", s.ids(list), next)
	}
	none, next, err := r.List(ctx, "nobody", core.Page{})
	must(t, err)
	if len(none) != 0 || next != "" {
		t.Fatalf("none %v %q", none, next)
	}
}

func (s eventSuite) listPages(t *testing.T) {
	r := s.newRepo(t)
	for i := range 7 {
		day := "2025-01-0" + fmt.Sprint(1+i/3) // three events share each date
		s.create(t, r, s.ev(fmt.Sprintf("e%d", i), "u1", day, day))
	}
	var seen []events.Event
	page := core.Page{Limit: 2}
	for range 10 {
		evs, next, err := r.List(ctx, "u1", page)
		must(t, err)
		seen = append(seen, evs...)
		if next == "" {
			break
		}
		page.Cursor = next
	}
	if s.ids(seen) != "[e0 e1 e2 e3 e4 e5 e6]" {
		t.Fatalf("pages %s", s.ids(seen))
	}
	// exactly one full page: no next cursor
	evs, next, err := r.List(ctx, "u1", core.Page{Limit: 7})
	must(t, err)
	if len(evs) != 7 || next != "" {
		t.Fatalf("full page: %d %q", len(evs), next)
	}
	// a cursor without a limit continues to the end, with no next cursor
	evs, next, err = r.List(ctx, "u1", core.Page{Cursor: events.CursorAfter(s.ev("e4", "u1", "2025-01-02", "2025-01-02")).String()})
	must(t, err)
	if s.ids(evs) != "[e5 e6]" || next != "" {
		t.Fatalf("after e4: %s %q", s.ids(evs), next)
	}
	_, _, err = r.List(ctx, "u1", core.Page{Limit: 2, Cursor: "not-a-cursor"})
	wantKind(t, err, core.KindInvalid)
}

func (s eventSuite) unpagedListCap(t *testing.T) {
	r := s.newRepo(t)
	for i := range core.MaxListItems + 1 {
		s.create(t, r, s.ev(fmt.Sprintf("e%04d", i), "u1", "2025-01-01", "2025-01-01"))
	}
	evs, next, err := r.List(ctx, "u1", core.Page{})
	must(t, err)
	if len(evs) != core.MaxListItems || next != "" || evs[0].ID != "e0000" {
		t.Fatalf("%d events, next %q", len(evs), next)
	}
}

func (s eventSuite) overlapping(t *testing.T) {
	r := s.newRepo(t)
	s.create(t, r,
		s.ev("inside", "u1", "2025-03-02", "2025-03-02"),
		s.ev("exact", "u1", "2025-03-01", "2025-03-03"),
		s.ev("ends-on-from", "u1", "2025-02-20", "2025-03-01"),
		s.ev("starts-on-to", "u1", "2025-03-03", "2025-03-10"),
		s.ev("around", "u1", "2025-02-01", "2025-04-01"),
		s.ev("longest", "u1", "2024-02-29", "2025-03-01"), // 366 days: starts at the lower bound
		s.ev("before", "u1", "2025-02-01", "2025-02-28"),
		s.ev("after", "u1", "2025-03-04", "2025-03-04"),
		s.ev("old-long", "u1", "2024-02-28", "2025-02-28"),
		s.ev("theirs", "u2", "2025-03-02", "2025-03-02"),
	)
	got, err := r.Overlapping(ctx, []string{"u1"}, date("2025-03-01"), date("2025-03-03"))
	must(t, err)
	if s.ids(got) != "[longest around ends-on-from exact inside starts-on-to]" {
		t.Fatalf("overlapping %s", s.ids(got))
	}
	one, err := r.Overlapping(ctx, []string{"u1"}, date("2025-03-04"), date("2025-03-04"))
	must(t, err)
	if s.ids(one) != "[around starts-on-to after]" {
		t.Fatalf("one day %s", s.ids(one))
	}
	none, err := r.Overlapping(ctx, []string{"u3"}, date("2025-03-01"), date("2025-03-03"))
	must(t, err)
	if len(none) != 0 {
		t.Fatalf("none %s", s.ids(none))
	}
	couple, err := r.Overlapping(ctx, []string{"u2", "u1"}, date("2025-03-01"), date("2025-03-03"))
	must(t, err)
	if s.ids(couple) != "[longest around ends-on-from exact inside theirs starts-on-to]" {
		t.Fatalf("a couple's, in one list order %s", s.ids(couple))
	}
	early, err := r.Overlapping(ctx, []string{"u1"}, date("1000-01-01"), date("1000-01-02")) // the bound clamps at MinDate
	must(t, err)
	if len(early) != 0 {
		t.Fatalf("early %s", s.ids(early))
	}
}

func (s eventSuite) next(t *testing.T) {
	r := s.newRepo(t)
	at := func(e events.Event, hh, mm int) events.Event {
		e.StartTime = events.WallTime{TimeOfDay: core.TimeOfDay{Hour: hh, Minute: mm}, Set: true}
		return e
	}
	s.create(t, r,
		s.ev("ended", "u1", "2025-02-20", "2025-02-28"),
		s.ev("long-ended", "u1", "2024-03-01", "2025-02-28"),
		at(s.ev("b-nine", "u1", "2025-03-05", "2025-03-05"), 9, 0),
		at(s.ev("a-ten", "u1", "2025-03-05", "2025-03-05"), 10, 30),
		at(s.ev("c-nine", "u1", "2025-03-05", "2025-03-05"), 9, 0),
		s.ev("later", "u1", "2025-03-09", "2025-03-09"),
		s.ev("far", "u1", "2026-03-09", "2026-03-09"),
		at(s.ev("theirs", "u2", "2025-03-07", "2025-03-07"), 8, 0),
		s.ev("stranger", "u3", "2025-03-02", "2025-03-02"),
	)
	want := func(name string, users []string, from, to, id string) {
		t.Helper()
		e, ok, err := r.Next(ctx, users, date(from), date(to))
		must(t, err)
		switch {
		case id == "" && ok:
			t.Fatalf("%s: got %s, want none", name, e.ID)
		case id != "" && (!ok || e.ID != id):
			t.Fatalf("%s: got %q (%v), want %s", name, e.ID, ok, id)
		}
	}
	want("by time, then id; ended events skipped", []string{"u1"}, "2025-03-01", "2025-12-31", "b-nine")
	want("the partner's earlier date", []string{"u1", "u2"}, "2025-03-06", "2025-12-31", "theirs")
	want("the caller's earlier date", []string{"u2", "u1"}, "2025-03-01", "2025-12-31", "b-nine")
	want("nothing within the range", []string{"u1"}, "2025-03-10", "2026-03-08", "")
	want("an event starting on the last day counts", []string{"u1"}, "2025-03-10", "2026-03-09", "far")
	want("a user without events", []string{"u5"}, "2025-03-01", "2025-12-31", "")

	// An event under way comes before any to come; an all-day event before
	// a timed one of its day.
	s.create(t, r, s.ev("under-way", "u2", "2025-03-01", "2025-03-20"),
		at(s.ev("a-timed", "u4", "2025-04-01", "2025-04-01"), 0, 0), s.ev("z-all-day", "u4", "2025-04-01", "2025-04-01"))
	want("under way", []string{"u1", "u2"}, "2025-03-06", "2025-12-31", "under-way")
	want("under way, on its last day", []string{"u2"}, "2025-03-20", "2025-03-20", "under-way")
	want("all day before 00:00", []string{"u4"}, "2025-03-01", "2025-12-31", "z-all-day")
	s.create(t, r, s.ev("spans-a-year", "u3", "2024-03-10", "2025-03-10")) // 366 days: starts at the lower bound
	want("an event of the longest span, under way", []string{"u3"}, "2025-03-10", "2025-03-10", "spans-a-year")
	got, ok, err := r.Next(ctx, []string{"u1"}, date("2025-03-01"), date("2025-12-31"))
	must(t, err)
	if !ok {
		t.Fatal("no next event")
	}
	s.same(t, got, at(s.ev("b-nine", "u1", "2025-03-05", "2025-03-05"), 9, 0)) // every field read back
}

func (s eventSuite) update(t *testing.T) {
	r := s.newRepo(t)
	orig := s.ev("e1", "u1", "2025-01-01", "2025-01-02")
	orig.Participants = []string{"p1"}
	s.create(t, r, orig)
	later := now.Add(time.Hour)
	out, err := r.Update(ctx, "e1", func(e *events.Event) error {
		e.Title, e.StartDate, e.EndDate, e.Type = "moved", date("2025-02-01"), date("2025-02-03"), events.TypeTask
		e.Notify = events.Notify{Minutes: 40320, Set: true}
		e.StartTime = events.WallTime{TimeOfDay: core.TimeOfDay{Hour: 8, Minute: 5}, Set: true}
		e.Participants = []string{}
		e.UpdatedAt = later
		e.UserID, e.CreatedAt = "thief", later // neither may change
		return nil
	})
	must(t, err)
	want := orig
	want.Title, want.StartDate, want.EndDate, want.Type = "moved", date("2025-02-01"), date("2025-02-03"), events.TypeTask
	want.Notify = events.Notify{Minutes: 40320, Set: true}
	want.StartTime = events.WallTime{TimeOfDay: core.TimeOfDay{Hour: 8, Minute: 5}, Set: true}
	want.Participants, want.UpdatedAt = []string{}, later
	s.same(t, out, want)
	got, _ := r.Get(ctx, "e1")
	s.same(t, got, want)

	boom := errors.New("boom")
	_, err = r.Update(ctx, "e1", func(e *events.Event) error { e.Title = "lost"; return boom })
	if !errors.Is(err, boom) {
		t.Fatalf("fn error: %v", err)
	}
	got, _ = r.Get(ctx, "e1")
	s.same(t, got, want)

	called := false
	_, err = r.Update(ctx, "ghost", func(*events.Event) error { called = true; return nil })
	wantKind(t, err, core.KindNotFound)
	if called {
		t.Fatal("fn called without an event")
	}
}

func (s eventSuite) concurrentUpdates(t *testing.T) {
	r := s.newRepo(t)
	e := s.ev("e1", "u1", "2025-01-01", "2025-01-01")
	s.create(t, r, e)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := r.Update(ctx, "e1", func(e *events.Event) error {
				e.Participants = append(e.Participants, fmt.Sprintf("p%d", i))
				return nil
			})
			if err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	got, _ := r.Get(ctx, "e1")
	if len(got.Participants) != 8 {
		t.Fatalf("lost updates: %v", got.Participants)
	}
}

func (s eventSuite) deleteOwn(t *testing.T) {
	r := s.newRepo(t)
	s.create(t, r, s.ev("e1", "u1", "2025-01-01", "2025-01-01"), s.ev("e2", "u1", "2025-01-01", "2025-01-01"))
	wantKind(t, r.Delete(ctx, "u2", "e1"), core.KindNotFound)
	must(t, r.Delete(ctx, "u1", "e1"))
	wantKind(t, r.Delete(ctx, "u1", "e1"), core.KindNotFound)
	_, err := r.Get(ctx, "e1")
	wantKind(t, err, core.KindNotFound)
	_, err = r.Get(ctx, "e2")
	must(t, err)
}

func (s eventSuite) deleteUser(t *testing.T) {
	r := s.newRepo(t)
	s.create(t, r, s.ev("e1", "u1", "2025-01-01", "2025-01-01"), s.ev("e2", "u1", "2025-02-01", "2025-02-01"),
		s.ev("e3", "u2", "2025-01-01", "2025-01-01"))
	must(t, r.DeleteByUser(ctx, "u1"))
	must(t, r.DeleteByUser(ctx, "u1"))
	list, _, err := r.List(ctx, "u1", core.Page{})
	must(t, err)
	if len(list) != 0 {
		t.Fatalf("left %s", s.ids(list))
	}
	_, err = r.Get(ctx, "e3")
	must(t, err)
}

func (s eventSuite) dueReminders(t *testing.T) {
	r := s.newRepo(t)
	at := func(e events.Event, d time.Duration) events.Event { e.RemindAt = now.Add(d); return e }
	s.create(t, r, at(s.ev("late", "u1", "2025-07-01", "2025-07-01"), time.Hour),
		at(s.ev("b", "u1", "2025-07-01", "2025-07-01"), -time.Minute),
		at(s.ev("a", "u2", "2025-07-01", "2025-07-01"), -time.Hour),
		s.ev("none", "u1", "2025-07-01", "2025-07-01"))
	due, err := r.DueReminders(ctx, now, 10)
	must(t, err)
	if s.ids(due) != "[a b]" || !due[0].RemindAt.Equal(now.Add(-time.Hour)) {
		t.Fatalf("due %s", s.ids(due))
	}
	if one, _ := r.DueReminders(ctx, now, 1); s.ids(one) != "[a]" {
		t.Fatalf("limit: %s", s.ids(one))
	}
	won, err := r.ClaimReminder(ctx, "a", due[0].RemindAt)
	must(t, err)
	again, _ := r.ClaimReminder(ctx, "a", due[0].RemindAt)
	stale, _ := r.ClaimReminder(ctx, "b", now) // not the stored time: someone re-armed it
	if !won || again || stale {
		t.Fatalf("claims: %v %v %v", won, again, stale)
	}
	if left, _ := r.DueReminders(ctx, now, 10); s.ids(left) != "[b]" {
		t.Fatalf("after claim: %s", s.ids(left))
	}
	got, _ := r.Get(ctx, "a")
	if !got.RemindAt.IsZero() {
		t.Fatal("a claimed reminder is cleared")
	}
	upd, err := r.Update(ctx, "late", func(e *events.Event) error { e.RemindAt = time.Time{}; return nil })
	must(t, err)
	if !upd.RemindAt.IsZero() {
		t.Fatal("update clears the reminder")
	}
}
