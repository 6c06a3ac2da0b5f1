package events_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"go.uber.org/mock/gomock"

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

func TestListIsOwnEventsByDateInPages(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	evs, next, err := f.svc.List(ctx, "u1", core.Page{})
	if err != nil || evs == nil || len(evs) != 0 || next != "" {
		t.Fatalf("empty: %v %q %v", evs, next, err)
	}
	f.create(t, "u1", "c", "2025-03-01", "2025-03-01")
	f.create(t, "u1", "a", "2024-12-31", "2025-01-02")
	f.create(t, "u1", "b", "2025-01-15", "2025-01-15")
	f.create(t, "u1", "d", "2025-03-01", "2025-03-02") // same day as c, created later
	f.partners.Pair("u1", "u2")
	f.create(t, "u2", "theirs", "2025-01-01", "2025-01-01")

	evs, next, err = f.svc.List(ctx, "u1", core.Page{})
	if err != nil || titles(evs) != "a,b,c,d" || next != "" {
		t.Fatalf("list %s %q %v", titles(evs), next, err)
	}
	var seen []events.Event
	page := core.Page{Limit: 3}
	for {
		evs, next, err := f.svc.List(ctx, "u1", page)
		if err != nil {
			t.Fatal(err)
		}
		seen = append(seen, evs...)
		if next == "" {
			break
		}
		page.Cursor = next
	}
	if titles(seen) != "a,b,c,d" {
		t.Fatalf("pages %s", titles(seen))
	}
	_, _, err = f.svc.List(ctx, "u1", core.Page{Limit: 3, Cursor: "forged"})
	coretest.WantErr(t, err, core.KindInvalid, "invalid_request")
}

func TestGetOwnOrThePartnersOnly(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	mine := f.create(t, "me", "mine", "2025-07-01", "2025-07-01")
	theirs := f.create(t, "partner", "theirs", "2025-07-02", "2025-07-02")
	strangers := f.create(t, "stranger", "strangers", "2025-07-03", "2025-07-03")
	f.partners.Pair("me", "partner")

	cases := []struct {
		name        string
		user, id    string
		wantPartner bool
		kind        core.Kind
		code        string // "" when readable
	}{
		{name: "my own", user: "me", id: mine.ID},
		{name: "my partner's", user: "me", id: theirs.ID, wantPartner: true},
		{name: "the partner reads mine", user: "partner", id: mine.ID, wantPartner: true},
		{name: "a stranger's", user: "me", id: strangers.ID, kind: core.KindNotFound, code: "event_not_found"},
		{name: "the stranger reads mine", user: "stranger", id: mine.ID, kind: core.KindNotFound, code: "event_not_found"},
		{name: "no such event", user: "me", id: "ghost", kind: core.KindNotFound, code: "event_not_found"},
		{name: "no event id", user: "me", id: "", kind: core.KindInvalid, code: "invalid_request"},
		{name: "no user id", user: "", id: mine.ID, kind: core.KindInvalid, code: "invalid_request"},
	}
	for _, tc := range cases {
		e, partner, err := f.svc.Get(ctx, tc.user, tc.id)
		if tc.code != "" {
			if err == nil || core.As(err).Kind != tc.kind || core.As(err).Code != tc.code {
				t.Fatalf("%s: %v", tc.name, err)
			}
			continue
		}
		if err != nil || e.ID != tc.id || partner != tc.wantPartner {
			t.Fatalf("%s: %+v %v %v", tc.name, e, partner, err)
		}
	}

	f.partners.Unpair("me", "partner") // the partner's events are no longer readable
	_, _, err := f.svc.Get(ctx, "me", theirs.ID)
	coretest.WantErr(t, err, core.KindNotFound, "event_not_found")
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

func TestDateRangeRules(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	type ev struct{ title, start, end string }
	cases := []struct {
		name         string
		stored       []ev
		from, to     string
		wantExact    string // titles by date
		wantOther    string
		wantCoverage string // "start..end days", "" when none
		wantKind     core.Kind
	}{
		{name: "exact match goes to exactMatches only", stored: []ev{{"a", "2025-03-01", "2025-03-03"}},
			from: "2025-03-01", to: "2025-03-03", wantExact: "a", wantCoverage: "2025-03-01..2025-03-03 3"},
		{name: "multi-day event partly overlapping is another recent",
			stored: []ev{{"early", "2025-02-25", "2025-03-02"}, {"late", "2025-03-03", "2025-03-08"}},
			from:   "2025-03-01", to: "2025-03-03", wantOther: "early,late", wantCoverage: "2025-02-25..2025-03-08 12"},
		{name: "touching the boundary counts (inclusive)",
			stored: []ev{{"ends-on-start", "2025-02-01", "2025-03-01"}, {"starts-on-end", "2025-03-03", "2025-03-03"}},
			from:   "2025-03-01", to: "2025-03-03", wantOther: "ends-on-start,starts-on-end", wantCoverage: "2025-02-01..2025-03-03 31"},
		{name: "same start, other end is not exact",
			stored: []ev{{"longer", "2025-03-01", "2025-03-04"}, {"shorter", "2025-03-01", "2025-03-02"}, {"exact", "2025-03-01", "2025-03-03"}},
			from:   "2025-03-01", to: "2025-03-03", wantExact: "exact", wantOther: "longer,shorter", wantCoverage: "2025-03-01..2025-03-04 4"},
		{name: "an event covering the whole range", stored: []ev{{"year", "2025-01-01", "2025-12-31"}},
			from: "2025-03-01", to: "2025-03-03", wantOther: "year", wantCoverage: "2025-01-01..2025-12-31 365"},
		{name: "the longest event, started 366 days before", stored: []ev{{"long", "2024-02-29", "2025-03-01"}},
			from: "2025-03-01", to: "2025-03-01", wantOther: "long", wantCoverage: "2024-02-29..2025-03-01 367"},
		{name: "a one-day range and a one-day event", stored: []ev{{"day", "2025-03-01", "2025-03-01"}},
			from: "2025-03-01", to: "2025-03-01", wantExact: "day", wantCoverage: "2025-03-01..2025-03-01 1"},
		{name: "events outside are left out", stored: []ev{{"before", "2025-02-01", "2025-02-28"}, {"after", "2025-03-04", "2025-03-04"}},
			from: "2025-03-01", to: "2025-03-03"},
		{name: "no events gives empty, non-nil lists", from: "2025-03-01", to: "2025-03-03"},
		{name: "start after end is invalid", from: "2025-03-05", to: "2025-03-01", wantKind: core.KindInvalid},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			for _, e := range tc.stored {
				f.create(t, "u1", e.title, e.start, e.end)
			}
			f.create(t, "stranger", "not mine", "2025-03-01", "2025-03-03")
			rep, err := f.svc.DateRange(ctx, "u1", date(t, tc.from), date(t, tc.to))
			if tc.wantKind != core.KindInternal {
				coretest.WantErr(t, err, tc.wantKind, "invalid_request")
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if rep.Exact == nil || rep.Other == nil {
				t.Fatal("nil category")
			}
			if got := foundTitles(rep.Exact); got != tc.wantExact {
				t.Fatalf("exact %q", got)
			}
			if got := foundTitles(rep.Other); got != tc.wantOther {
				t.Fatalf("other %q", got)
			}
			start, end, ok := rep.Coverage()
			cov := ""
			if ok {
				cov = fmt.Sprintf("%s..%s %d", start, end, rep.CoverageDays())
			}
			if cov != tc.wantCoverage || (!ok && rep.CoverageDays() != 0) {
				t.Fatalf("coverage %q", cov)
			}
			if rep.Total() != len(rep.Exact)+len(rep.Other) || rep.From != date(t, tc.from) || rep.To != date(t, tc.to) {
				t.Fatalf("report %+v", rep)
			}
		})
	}
}

func TestDateRangeIncludesTheCurrentPartnersEventsMarked(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	f.create(t, "me", "mine", "2025-03-02", "2025-03-02")
	f.create(t, "partner", "ours", "2025-03-01", "2025-03-03")
	f.create(t, "partner", "their trip", "2025-02-27", "2025-03-01")
	f.create(t, "stranger", "not ours", "2025-03-01", "2025-03-03")
	from, to := date(t, "2025-03-01"), date(t, "2025-03-03")

	rep, err := f.svc.DateRange(ctx, "me", from, to) // unpaired: my own only
	if err != nil || rep.Total() != 1 || foundTitles(rep.Other) != "mine" || rep.Other[0].Partner {
		t.Fatalf("unpaired: %+v %v", rep, err)
	}
	f.partners.Pair("me", "partner")
	rep, err = f.svc.DateRange(ctx, "me", from, to)
	if err != nil {
		t.Fatal(err)
	}
	if foundTitles(rep.Exact) != "ours" || !rep.Exact[0].Partner ||
		foundTitles(rep.Other) != "their trip,mine" || !rep.Other[0].Partner || rep.Other[1].Partner {
		t.Fatalf("paired: %+v", rep)
	}
	if start, end, _ := rep.Coverage(); start != date(t, "2025-02-27") || end != date(t, "2025-03-03") || rep.CoverageDays() != 5 {
		t.Fatalf("coverage %v %v %d", start, end, rep.CoverageDays())
	}
	empty, err := f.svc.DateRange(ctx, "me", date(t, "2030-01-01"), date(t, "2030-01-01"))
	if err != nil || empty.Total() != 0 || empty.CoverageDays() != 0 {
		t.Fatalf("empty: %+v %v", empty, err)
	}
}

func TestDateRangeKeepsAtMostTheHardCap(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	f.unbounded()
	f.partners.Pair("me", "partner")
	for i := range core.MaxListItems {
		f.create(t, "me", fmt.Sprint("m", i), "2025-03-02", "2025-03-02")
	}
	f.create(t, "partner", "early", "2025-03-01", "2025-03-01")
	rep, err := f.svc.DateRange(ctx, "me", date(t, "2025-03-01"), date(t, "2025-03-03"))
	if err != nil || rep.Total() != core.MaxListItems || rep.Other[0].Title != "early" {
		t.Fatalf("%d events, first %q, %v", rep.Total(), rep.Other[0].Title, err)
	}
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

// The interactions below are the point of their tests, so they use gomock.

func TestOwnEventDoesNotConsultThePartner(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ctrl := gomock.NewController(t)
	partners := NewMockPartners(ctrl) // any unexpected call fails the test
	repo := memory.NewEventRepo()
	clock := coretest.NewClock(time.Time{})
	svc := events.NewService(repo, partners, coretest.NewZones(), &coretest.Activities{}, &coretest.Events{},
		limiter(clock), events.Settings{}, clock, &coretest.SeqIDs{})
	// Each write asks for the owner's partner once, after it is stored, to
	// announce it (create, update, delete); the rules never do.
	partners.EXPECT().PartnerOf(gomock.Any(), "me").Return("", false, nil).Times(3)
	mine, err := svc.Create(ctx, "me", events.Draft{Title: "mine", StartDate: "2025-07-01"})
	if err != nil {
		t.Fatal(err)
	}
	if _, partner, err := svc.Get(ctx, "me", mine.ID); err != nil || partner {
		t.Fatalf("%v %v", partner, err)
	}
	// Updating and deleting one's own event never needs the partner either.
	title := "renamed"
	if _, err := svc.Update(ctx, "me", mine.ID, events.Patch{Title: &title}); err != nil {
		t.Fatal(err)
	}
	// Someone else's event: the partner is asked exactly once.
	partners.EXPECT().PartnerOf(gomock.Any(), "other").Return("", false, nil).Times(1)
	_, _, err = svc.Get(ctx, "other", mine.ID)
	coretest.WantErr(t, err, core.KindNotFound, "event_not_found")
	if err := svc.Delete(ctx, "me", mine.ID); err != nil {
		t.Fatal(err)
	}
}

func TestDateRangeReadsTheCouplesBoundedRangesInOneRead(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ctrl := gomock.NewController(t)
	repo := NewMockRepository(ctrl)
	partners := NewMockPartners(ctrl)
	clock := coretest.NewClock(time.Time{})
	svc := events.NewService(repo, partners, coretest.NewZones(), NewMockPartnerNotifier(ctrl), &coretest.Events{},
		limiter(clock), events.Settings{}, clock, &coretest.SeqIDs{})
	from, to := date(t, "2025-03-01"), date(t, "2025-03-03")

	gomock.InOrder(
		partners.EXPECT().PartnerOf(gomock.Any(), "me").Return("partner", true, nil),
		repo.EXPECT().Overlapping(gomock.Any(), []string{"me", "partner"}, from, to).
			Return([]events.Event{{ID: "x", UserID: "partner", StartDate: from, EndDate: to},
				{ID: "y", UserID: "me", StartDate: from, EndDate: to}}, nil),
	)
	rep, err := svc.DateRange(ctx, "me", from, to)
	if err != nil || len(rep.Exact) != 2 || !rep.Exact[0].Partner || rep.Exact[1].Partner || rep.Other == nil {
		t.Fatalf("%+v %v", rep, err)
	}

	// A start after the end is refused before any read.
	_, err = svc.DateRange(ctx, "me", to, from)
	coretest.WantErr(t, err, core.KindInvalid, "invalid_request")

	// A failing store is an internal error, passed on as it is.
	broken := errors.New("disk on fire")
	partners.EXPECT().PartnerOf(gomock.Any(), "me").Return("", false, nil)
	repo.EXPECT().Overlapping(gomock.Any(), []string{"me"}, from, to).Return(nil, core.Internal(broken))
	if _, err := svc.DateRange(ctx, "me", from, to); !errors.Is(err, broken) || core.KindOf(err) != core.KindInternal {
		t.Fatalf("got %v", err)
	}
}

// TestNextReadsOneEventPerPartner: the home screen's next event is one
// Next read of the couple over from..from+days, never the date range's
// read of every event in those days (gomock fails on an unexpected
// Overlapping).
func TestNextReadsOneEventPerPartner(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ctrl := gomock.NewController(t)
	repo := NewMockRepository(ctrl)
	partners := NewMockPartners(ctrl)
	clock := coretest.NewClock(time.Time{})
	svc := events.NewService(repo, partners, coretest.NewZones(), NewMockPartnerNotifier(ctrl), &coretest.Events{},
		limiter(clock), events.Settings{}, clock, &coretest.SeqIDs{})
	from := date(t, "2025-03-01")

	gomock.InOrder(
		partners.EXPECT().PartnerOf(gomock.Any(), "me").Return("partner", true, nil),
		repo.EXPECT().Next(gomock.Any(), []string{"me", "partner"}, from, date(t, "2026-03-02")).
			Return(events.Event{ID: "x", UserID: "partner", StartDate: from, EndDate: from}, true, nil),
	)
	f, ok, err := svc.Next(ctx, "me", from, 366)
	if err != nil || !ok || f.ID != "x" || !f.Partner {
		t.Fatalf("%+v %v %v", f, ok, err)
	}

	// Alone, with nothing ahead.
	partners.EXPECT().PartnerOf(gomock.Any(), "me").Return("", false, nil)
	repo.EXPECT().Next(gomock.Any(), []string{"me"}, from, date(t, "2025-03-08")).Return(events.Event{}, false, nil)
	if f, ok, err := svc.Next(ctx, "me", from, 7); err != nil || ok {
		t.Fatalf("%+v %v %v", f, ok, err)
	}

	// No user: refused before any read.
	_, _, err = svc.Next(ctx, "", from, 7)
	coretest.WantErr(t, err, core.KindInvalid, "invalid_request")

	// A failing store is an internal error, passed on as it is.
	broken := errors.New("disk on fire")
	partners.EXPECT().PartnerOf(gomock.Any(), "me").Return("", false, nil)
	repo.EXPECT().Next(gomock.Any(), []string{"me"}, from, date(t, "2025-03-08")).Return(events.Event{}, false, core.Internal(broken))
	if _, _, err := svc.Next(ctx, "me", from, 7); !errors.Is(err, broken) || core.KindOf(err) != core.KindInternal {
		t.Fatalf("got %v", err)
	}
}

func foundTitles(fs []events.Found) string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.Title
	}
	return strings.Join(out, ",")
}

// TestEventChangesAreAnnouncedToWhoMayReadThem: an event's live events go
// to its owner and to the owner's current partner, each with the event as
// their own single read returns it (the partner's marked isPartnerEvent),
// and the partner is notified of an event added or changed. Never a
// stranger, an ex-partner, nor a partner who unpaired while the write was
// being stored; a refused write announces nothing.
func TestEventChangesAreAnnouncedToWhoMayReadThem(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	title := "Renamed"
	create := func(f *fixture) (string, error) {
		e, err := f.svc.Create(ctx, "ann", events.Draft{Title: "Dinner", StartDate: "2025-07-01"})
		return e.ID, err
	}
	update := func(user string) func(f *fixture) (string, error) {
		return func(f *fixture) (string, error) {
			_, err := f.svc.Update(ctx, user, "id-1", events.Patch{Title: &title})
			return "id-1", err
		}
	}
	remove := func(user string) func(f *fixture) (string, error) {
		return func(f *fixture) (string, error) { return "id-1", f.svc.Delete(ctx, user, "id-1") }
	}
	unpair := func(f *fixture) { f.partners.Unpair("ann", "bob") }
	cases := []struct {
		name    string
		setup   func(f *fixture) // ann's event id-1 exists; ann and bob are partners; eve and mal are
		during  func(f *fixture) // after the write is stored, before it is announced
		act     func(f *fixture) (string, error)
		live    string   // the event type; "" when refused
		readers []string // besides ann, the owner
		notes   []string
	}{
		{name: "created: the owner and the partner", act: create, live: "event.created",
			readers: []string{"bob"}, notes: []string{"bob<-ann:eventAdded"}},
		{name: "created unpaired: the owner only", setup: unpair, act: create, live: "event.created"},
		{name: "created with a new partner: the new one, not the ex-partner",
			setup: func(f *fixture) { unpair(f); f.partners.Pair("ann", "cid") }, act: create, live: "event.created",
			readers: []string{"cid"}, notes: []string{"cid<-ann:eventAdded"}},
		{name: "created as the couple unpairs: the owner only", during: unpair, act: create, live: "event.created"},
		{name: "updated: the owner and the partner", act: update("ann"), live: "event.updated",
			readers: []string{"bob"}, notes: []string{"bob<-ann:eventChanged"}},
		{name: "updated after unpairing: the owner only", setup: unpair, act: update("ann"), live: "event.updated"},
		{name: "updated as the couple unpairs: the owner only", during: unpair, act: update("ann"), live: "event.updated"},
		{name: "deleted: the owner and the partner, the id only", act: remove("ann"), live: "event.deleted",
			readers: []string{"bob"}},
		{name: "deleted after unpairing: the owner only", setup: unpair, act: remove("ann"), live: "event.deleted"},
		{name: "the partner's update is refused: nothing", act: update("bob")},
		{name: "the partner's delete is refused: nothing", act: remove("bob")},
		{name: "a stranger's update is refused: nothing", act: update("eve")},
		{name: "a stranger's delete is refused: nothing", act: remove("eve")},
		{name: "an invalid create: nothing", act: func(f *fixture) (string, error) {
			_, err := f.svc.Create(ctx, "ann", events.Draft{StartDate: "2025-07-01"})
			return "", err
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			f.partners.Pair("ann", "bob")
			f.partners.Pair("eve", "mal")
			f.create(t, "ann", "Lunch", "2025-06-20", "2025-06-20")
			f.bus.WantLive(t, core.Live{Type: "event.created", For: map[string]any{
				"ann": events.Read{Event: f.stored(t, "ann")[0]}, "bob": events.Read{Event: f.stored(t, "ann")[0], Partner: true}}})
			f.notes.Take()
			if tc.setup != nil {
				tc.setup(f)
			}
			if tc.during != nil {
				f.svc = events.NewService(hookedRepo{f.repo, func() { tc.during(f) }}, f.partners, f.zones, f.notes, f.bus,
					limiter(f.clock), events.Settings{}, f.clock, f.ids)
			}
			id, err := tc.act(f)
			if tc.live == "" {
				if err == nil {
					t.Fatal("accepted")
				}
				f.bus.WantLive(t)
				if got := f.notes.Take(); len(got) != 0 {
					t.Fatalf("notes %q", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := core.Live{Type: tc.live, For: map[string]any{}}
			for _, r := range append([]string{"ann"}, tc.readers...) {
				if tc.live == "event.deleted" {
					want.For[r] = core.Deleted{ID: id}
					continue
				}
				e, partner, err := f.svc.Get(ctx, r, id) // what the reader's own single read returns
				if err != nil {
					t.Fatalf("%s may not read it: %v", r, err)
				}
				want.For[r] = events.Read{Event: e, Partner: partner}
			}
			f.bus.WantLive(t, want)
			if got := f.notes.Take(); fmt.Sprint(got) != fmt.Sprint(tc.notes) {
				t.Fatalf("notes %q, want %q", got, tc.notes)
			}
		})
	}
}

// hookedRepo runs after once a create, update or delete is stored.
type hookedRepo struct {
	events.Repository
	after func()
}

func (r hookedRepo) Create(ctx context.Context, e events.Event) error {
	if err := r.Repository.Create(ctx, e); err != nil {
		return err
	}
	r.after()
	return nil
}

func (r hookedRepo) Update(ctx context.Context, id string, fn func(e *events.Event) error) (events.Event, error) {
	e, err := r.Repository.Update(ctx, id, fn)
	if err == nil {
		r.after()
	}
	return e, err
}

func (r hookedRepo) Delete(ctx context.Context, userID, id string) error {
	if err := r.Repository.Delete(ctx, userID, id); err != nil {
		return err
	}
	r.after()
	return nil
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
