package events_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"tandem/adapters/memory"
	"tandem/core"
	"tandem/core/coretest"
	"tandem/modules/events"
	"tandem/modules/throttle"
)

// fixture is a Service on memory fakes with a fixed clock (2025-06-15 12:00 UTC)
// and sequential ids (id-1, id-2, ...).
type fixture struct {
	svc      *events.Service
	repo     *memory.EventRepo
	partners *coretest.Couples
	zones    *coretest.Zones
	notes    *coretest.Activities
	bus      *coretest.Events
	clock    *coretest.FixedClock
	ids      *coretest.SeqIDs
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{repo: memory.NewEventRepo(), partners: coretest.NewCouples(), zones: coretest.NewZones(),
		notes: &coretest.Activities{}, bus: &coretest.Events{}, clock: coretest.NewClock(time.Time{}), ids: &coretest.SeqIDs{}}
	f.svc = events.NewService(f.repo, f.partners, f.zones, f.notes, f.bus, limiter(f.clock), events.Settings{}, f.clock, f.ids)
	return f
}

// limiter is the real limiter over memory counters, on clock.
func limiter(clock core.Clock) core.Limiter {
	return throttle.NewLimiter(memory.NewThrottleRepo(), clock)
}

// unbounded is a write budget no test reaches.
var unbounded = events.Settings{Budget: core.WriteBudget{Kind: "events", PerMinute: 1 << 30, PerDay: 1 << 30}}

// unbounded lifts the fixture's write budget, for a test whose set-up
// writes more events at one instant than a minute's budget.
func (f *fixture) unbounded() {
	f.svc = events.NewService(f.repo, f.partners, f.zones, f.notes, f.bus, limiter(f.clock), unbounded, f.clock, f.ids)
}

// create stores an event of user from start to end (YYYY-MM-DD) and returns it.
func (f *fixture) create(t *testing.T, user, title, start, end string) events.Event {
	t.Helper()
	e, err := f.svc.Create(context.Background(), user, events.Draft{Title: title, StartDate: start, EndDate: end})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func (f *fixture) stored(t *testing.T, user string) []events.Event {
	t.Helper()
	evs, _, err := f.repo.List(context.Background(), user, core.Page{})
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

func titles(evs []events.Event) string {
	out := make([]string, len(evs))
	for i, e := range evs {
		out[i] = e.Title
	}
	return strings.Join(out, ",")
}

func TestCreateRules(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ok := func(edit func(d *events.Draft)) events.Draft {
		d := events.Draft{Title: "Dinner", StartDate: "2025-07-01"}
		edit(&d)
		return d
	}
	cases := []struct {
		name  string
		draft events.Draft
		code  string // "" when accepted
		msg   string
		check func(t *testing.T, e events.Event)
	}{
		{name: "only title and startDate: the defaults", draft: ok(func(*events.Draft) {}),
			check: func(t *testing.T, e events.Event) {
				if e.EndDate != date(t, "2025-07-01") || e.Type != events.TypeOther || e.Importance != events.ImportanceMedium ||
					e.StartTime.Set || e.EndTime.Set || e.Notify.Set || e.Participants == nil || len(e.Participants) != 0 ||
					e.Description != "" || e.Location != "" {
					t.Fatalf("defaults %+v", e)
				}
			}},
		{name: "every field", draft: events.Draft{Title: "  Trip ", Description: " bring passports ",
			StartDate: "2025-07-01", EndDate: "2025-07-14", StartTime: "08:30", EndTime: "18:00", Location: " Lisbon ",
			EventType: ptr("traveling"), ImportanceLevel: ptr("High"), Notify: "1440", Participants: []string{"u2", " u3 ", "u2"}},
			check: func(t *testing.T, e events.Event) {
				if e.Title != "Trip" || e.Description != "bring passports" || e.Location != "Lisbon" ||
					e.EndDate != date(t, "2025-07-14") || e.StartTime.String() != "08:30" || e.EndTime.String() != "18:00" ||
					e.Type != events.TypeTraveling || e.Importance != events.ImportanceHigh || e.Notify.String() != "1440" ||
					strings.Join(e.Participants, ",") != "u2,u3" {
					t.Fatalf("stored %+v", e)
				}
			}},
		{name: "notify 0 is a reminder at the start", draft: ok(func(d *events.Draft) { d.Notify = "0" }),
			check: func(t *testing.T, e events.Event) {
				if !e.Notify.Set || e.Notify.Minutes != 0 {
					t.Fatalf("notify %+v", e.Notify)
				}
			}},
		{name: "no title", draft: ok(func(d *events.Draft) { d.Title = " " }), code: "invalid_request", msg: "title is required"},
		{name: "title of 201", draft: ok(func(d *events.Draft) { d.Title = strings.Repeat("t", 201) }), code: "invalid_request",
			msg: "title must be at most 200 characters"},
		{name: "description of 2001", draft: ok(func(d *events.Draft) { d.Description = strings.Repeat("d", 2001) }),
			code: "invalid_request", msg: "description must be at most 2000 characters"},
		{name: "location of 201", draft: ok(func(d *events.Draft) { d.Location = strings.Repeat("l", 201) }),
			code: "invalid_request", msg: "location must be at most 200 characters"},
		{name: "no startDate", draft: ok(func(d *events.Draft) { d.StartDate = "" }), code: "invalid_request",
			msg: "startDate is required (YYYY-MM-DD)"},
		{name: "bad startDate", draft: ok(func(d *events.Draft) { d.StartDate = "01/07/2025" }), code: "invalid_date",
			msg: "startDate must be a date in the form YYYY-MM-DD"},
		{name: "impossible endDate", draft: ok(func(d *events.Draft) { d.EndDate = "2025-02-29" }), code: "invalid_date",
			msg: "endDate must be a date in the form YYYY-MM-DD"},
		{name: "end before start", draft: ok(func(d *events.Draft) { d.EndDate = "2025-06-30" }), code: "invalid_date",
			msg: "endDate must not be before startDate"},
		{name: "longer than 366 days", draft: ok(func(d *events.Draft) { d.EndDate = "2026-07-03" }), code: "invalid_date",
			msg: "an event may last at most 366 days: endDate must be at most 366 days after startDate"},
		{name: "bad startTime", draft: ok(func(d *events.Draft) { d.StartTime = "8:30" }), code: "invalid_time",
			msg: "startTime must be a time in the form HH:mm"},
		{name: "endTime before startTime", draft: ok(func(d *events.Draft) { d.StartTime, d.EndTime = "10:00", "09:00" }),
			code: "invalid_time", msg: "endTime must not be before startTime on a one-day event"},
		{name: "unknown eventType", draft: ok(func(d *events.Draft) { d.EventType = ptr("party") }), code: "invalid_request",
			msg: "eventType must be one of date, meeting, reminder, traveling, task, other"},
		{name: "unknown importanceLevel", draft: ok(func(d *events.Draft) { d.ImportanceLevel = ptr("low") }), code: "invalid_request",
			msg: "importanceLevel must be one of Low, Medium, High"},
		{name: "an empty eventType is no default", draft: ok(func(d *events.Draft) { d.EventType = ptr("") }), code: "invalid_request",
			msg: "eventType must be one of date, meeting, reminder, traveling, task, other"},
		{name: "an empty importanceLevel is no default", draft: ok(func(d *events.Draft) { d.ImportanceLevel = ptr("") }),
			code: "invalid_request", msg: "importanceLevel must be one of Low, Medium, High"},
		{name: "notify not minutes", draft: ok(func(d *events.Draft) { d.Notify = "1h" }), code: "invalid_request",
			msg: "notify must be a number of minutes before the start, from 0 to 40320 (4 weeks), or empty"},
		{name: "21 participants", draft: ok(func(d *events.Draft) { d.Participants = make([]string, 21) }), code: "invalid_request",
			msg: "participants may hold at most 20 user ids"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			e, err := f.svc.Create(ctx, "u1", tc.draft)
			if tc.code != "" {
				coretest.WantErr(t, err, core.KindInvalid, tc.code)
				if core.As(err).Message != tc.msg {
					t.Fatalf("message %q", core.As(err).Message)
				}
				if n := len(f.stored(t, "u1")); n != 0 {
					t.Fatalf("%d events written", n)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			now := f.clock.Now()
			if e.ID != "id-1" || e.UserID != "u1" || !e.CreatedAt.Equal(now) || !e.UpdatedAt.Equal(now) {
				t.Fatalf("created %+v", e)
			}
			tc.check(t, e)
			got, err := f.repo.Get(ctx, e.ID)
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, got)
		})
	}
	f := newFixture(t)
	_, err := f.svc.Create(ctx, " ", events.Draft{Title: "t", StartDate: "2025-01-01"})
	coretest.WantErr(t, err, core.KindInvalid, "invalid_request")
}

func TestUpdateRules(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := func(v string) *string { return &v }
	cases := []struct {
		name  string
		user  string
		patch events.Patch
		kind  core.Kind
		code  string // "" when accepted
		check func(t *testing.T, e events.Event)
	}{
		{name: "title only", user: "me", patch: events.Patch{Title: s(" Lunch ")}, check: func(t *testing.T, e events.Event) {
			if e.Title != "Lunch" || e.StartDate != date(t, "2025-07-01") || e.EndDate != date(t, "2025-07-03") ||
				e.Notify.String() != "30" || e.StartTime.String() != "10:00" || strings.Join(e.Participants, ",") != "p1" {
				t.Fatalf("updated %+v", e)
			}
		}},
		{name: "clear optional fields", user: "me", patch: events.Patch{Description: s(""), StartTime: s(""), EndTime: s(""),
			Location: s(""), Notify: s(""), Participants: &[]string{}}, check: func(t *testing.T, e events.Event) {
			if e.Description != "" || e.StartTime.Set || e.EndTime.Set || e.Location != "" || e.Notify.Set ||
				e.Participants == nil || len(e.Participants) != 0 {
				t.Fatalf("cleared %+v", e)
			}
		}},
		{name: "move both dates", user: "me", patch: events.Patch{StartDate: s("2025-08-01"), EndDate: s("2025-08-02")},
			check: func(t *testing.T, e events.Event) {
				if e.StartDate != date(t, "2025-08-01") || e.EndDate != date(t, "2025-08-02") {
					t.Fatalf("moved %+v", e)
				}
			}},
		{name: "type, importance, notify", user: "me", patch: events.Patch{EventType: s("task"), ImportanceLevel: s("Low"), Notify: s("40320")},
			check: func(t *testing.T, e events.Event) {
				if e.Type != events.TypeTask || e.Importance != events.ImportanceLow || e.Notify.Minutes != 40320 {
					t.Fatalf("updated %+v", e)
				}
			}},
		{name: "a start after the stored end", user: "me", patch: events.Patch{StartDate: s("2025-07-04")}, kind: core.KindInvalid, code: "invalid_date"},
		{name: "an end making it too long", user: "me", patch: events.Patch{EndDate: s("2026-07-03")}, kind: core.KindInvalid, code: "invalid_date"},
		{name: "an empty title", user: "me", patch: events.Patch{Title: s("")}, kind: core.KindInvalid, code: "invalid_request"},
		{name: "a bad time", user: "me", patch: events.Patch{EndTime: s("25:00")}, kind: core.KindInvalid, code: "invalid_time"},
		{name: "an unknown type", user: "me", patch: events.Patch{EventType: s("")}, kind: core.KindInvalid, code: "invalid_request"},
		{name: "nothing to change", user: "me", patch: events.Patch{}, kind: core.KindInvalid, code: "invalid_request"},
		{name: "the partner may not", user: "partner", patch: events.Patch{Title: s("mine now")}, kind: core.KindNotFound, code: "event_not_found"},
		{name: "a stranger may not", user: "stranger", patch: events.Patch{Title: s("x")}, kind: core.KindNotFound, code: "event_not_found"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			orig, err := f.svc.Create(ctx, "me", events.Draft{Title: "Trip", Description: "d", StartDate: "2025-07-01",
				EndDate: "2025-07-03", StartTime: "10:00", EndTime: "09:00", Location: "L", Notify: "30", Participants: []string{"p1"}})
			if err != nil {
				t.Fatal(err)
			}
			f.partners.Pair("me", "partner")
			f.clock.Advance(time.Hour)
			got, err := f.svc.Update(ctx, tc.user, orig.ID, tc.patch)
			stored, gerr := f.repo.Get(ctx, orig.ID)
			if gerr != nil {
				t.Fatal(gerr)
			}
			if tc.code != "" {
				coretest.WantErr(t, err, tc.kind, tc.code)
				if stored.Title != orig.Title || !stored.UpdatedAt.Equal(orig.UpdatedAt) || stored.StartDate != orig.StartDate {
					t.Fatalf("written: %+v", stored)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, got)
			tc.check(t, stored)
			if got.ID != orig.ID || got.UserID != "me" || !got.CreatedAt.Equal(orig.CreatedAt) || !got.UpdatedAt.Equal(f.clock.Now()) {
				t.Fatalf("identity or times: %+v", got)
			}
		})
	}
	f := newFixture(t)
	title := "x"
	_, err := f.svc.Update(ctx, "me", "ghost", events.Patch{Title: &title})
	coretest.WantErr(t, err, core.KindNotFound, "event_not_found")
}

func TestDeleteOnlyTheOwnersEvent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	e := f.create(t, "me", "mine", "2025-07-01", "2025-07-01")
	f.partners.Pair("me", "partner")
	coretest.WantErr(t, f.svc.Delete(ctx, "partner", e.ID), core.KindNotFound, "event_not_found")
	coretest.WantErr(t, f.svc.Delete(ctx, "me", ""), core.KindInvalid, "invalid_request")
	if err := f.svc.Delete(ctx, "me", e.ID); err != nil {
		t.Fatal(err)
	}
	coretest.WantErr(t, f.svc.Delete(ctx, "me", e.ID), core.KindNotFound, "event_not_found") // permanent
	_, _, err := f.svc.Get(ctx, "me", e.ID)
	coretest.WantErr(t, err, core.KindNotFound, "event_not_found")
}

func TestExportAndPurge(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	f.unbounded()
	var owner core.UserData = f.svc
	if owner.Section() != "events" {
		t.Fatal(owner.Section())
	}
	v, err := owner.ExportUser(ctx, "u1")
	if list, ok := v.([]events.Event); err != nil || !ok || list == nil || len(list) != 0 {
		t.Fatalf("nothing to export: %#v %v", v, err)
	}
	first, err := f.svc.Create(ctx, "u1", events.Draft{Title: "first", StartDate: "2025-01-01", StartTime: "09:00",
		EventType: ptr("date"), Notify: "15", Participants: []string{"u2"}})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 600 { // more than one page of the export loop
		f.create(t, "u1", fmt.Sprint("e", i), "2025-02-01", "2025-02-01")
	}
	f.create(t, "u2", "the partner's", "2025-01-01", "2025-01-01")
	v, err = owner.ExportUser(ctx, "u1")
	if err != nil {
		t.Fatal(err)
	}
	list := v.([]events.Event)
	if len(list) != 601 {
		t.Fatalf("exported %d", len(list))
	}
	if got := list[0]; got.ID != first.ID || got.Title != "first" || !slices.Equal(got.Participants, []string{"u2"}) {
		t.Fatalf("export starts with %+v, want %+v", got, first)
	}
	for range 2 {
		if err := owner.PurgeUser(ctx, "u1"); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(f.stored(t, "u1")); n != 0 {
		t.Fatalf("%d left", n)
	}
	if n := len(f.stored(t, "u2")); n != 1 {
		t.Fatalf("the partner's events went too: %d", n)
	}
}

// TestCreateSpendsTheWriteBudget: creates are bounded per user by the
// minute and by the day; a refused create stores nothing, and an invalid
// one spends nothing.
func TestCreateSpendsTheWriteBudget(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	f.svc = events.NewService(f.repo, f.partners, f.zones, f.notes, f.bus, limiter(f.clock),
		events.Settings{Budget: coretest.SmallBudget("events")}, f.clock, f.ids)
	for range 5 { // refused before the budget: spends none of it
		_, err := f.svc.Create(ctx, "ann", events.Draft{StartDate: "2025-07-01"})
		coretest.WantErr(t, err, core.KindInvalid, "invalid_request")
	}
	coretest.CheckWriteBudget(t, f.clock, func(user string, n int) error {
		_, err := f.svc.Create(ctx, user, events.Draft{Title: fmt.Sprint("event ", n), StartDate: "2025-07-01"})
		return err
	}, func(user string) string { return fmt.Sprint(f.stored(t, user), len(f.bus.All())) })
}

func ptr(s string) *string { return &s }

// The partner's change of an event is read through the partnership, so a
// store records none after an unpair; the owner's is their own.
func TestEventChangeIsThePartnersThroughThePartnership(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.partners.Pair("ann", "bob")
	f.create(t, "ann", "dinner", "2025-07-01", "")
	if got, want := f.bus.Through(), []string{"ann event -", "bob event p-ann-bob"}; !slices.Equal(got, want) {
		t.Errorf("%v, want %v", got, want)
	}
}
