package relationship_test

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
	"tandem/modules/relationship"
)

// fixture is a Service on memory fakes with a fixed clock; "ann" and "bob"
// are partners (partnership "p1"), "cat" is single.
type fixture struct {
	svc   *relationship.Service
	repo  *memory.RelationshipRepo
	pairs *coretest.Couples
	users *coretest.Zones
	clock *coretest.FixedClock
	bus   *core.Bus
	live  *coretest.Events
	notes *coretest.Activities
}

func newFixture(t *testing.T, now time.Time) *fixture {
	t.Helper()
	f := &fixture{repo: memory.NewRelationshipRepo(), pairs: coretest.NewCouples(),
		users: coretest.NewZones(), clock: coretest.NewClock(now), live: &coretest.Events{}, notes: &coretest.Activities{}}
	f.svc = relationship.NewService(f.repo, f.pairs, f.users, f.notes, f.live, f.clock, &coretest.SeqIDs{})
	f.bus = core.NewBus([]core.Listener{f.svc.Listener()}, func(_ string, _ core.Event, err error) { t.Errorf("listener: %v", err) })
	f.pairs.PairAs("p1", "ann", "bob")
	return f
}

func loc(t *testing.T, name string) *time.Location {
	t.Helper()
	l, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func (f *fixture) start(t *testing.T, user, date string) relationship.Duration {
	t.Helper()
	d, err := f.svc.Start(context.Background(), user, date)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func (f *fixture) get(t *testing.T, user string) relationship.Duration {
	t.Helper()
	d, err := f.svc.Get(context.Background(), user)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestDaysCountToTheCallersToday(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		now   time.Time
		zone  string // "" for unset (UTC)
		start string
		want  int
	}{
		// 04:30 UTC on March 10 is 00:30 EDT: New York's today is the 10th, and
		// the 23-hour March 9th still counts as one whole day.
		{"New York across spring-forward", time.Date(2025, 3, 10, 4, 30, 0, 0, time.UTC), "America/New_York", "2025-03-01", 9},
		{"New York just before midnight", time.Date(2025, 3, 10, 3, 59, 0, 0, time.UTC), "America/New_York", "2025-03-01", 8},
		// 23:30 UTC on October 27 is 00:30 CET on the 28th; the 25-hour 26th counts once.
		{"Paris across fall-back", time.Date(2025, 10, 27, 23, 30, 0, 0, time.UTC), "Europe/Paris", "2025-10-25", 3},
		{"leap day to the day before its anniversary", time.Date(2025, 2, 28, 12, 0, 0, 0, time.UTC), "", "2024-02-29", 365},
		{"leap day to March 1st", time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC), "", "2024-02-29", 366},
		{"unset timezone is UTC", time.Date(2025, 6, 15, 23, 59, 0, 0, time.UTC), "", "2025-06-01", 14},
		// One instant, two todays: 12:00 UTC is 02:00 on June 16 in Kiritimati
		// (UTC+14) and 05:00 on June 15 in Los Angeles (UTC-7).
		{"Kiritimati is a day ahead", time.Date(2025, 6, 15, 12, 0, 0, 0, time.UTC), "Pacific/Kiritimati", "2025-06-01", 15},
		{"Los Angeles at the same instant", time.Date(2025, 6, 15, 12, 0, 0, 0, time.UTC), "America/Los_Angeles", "2025-06-01", 14},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, tc.now)
			f.start(t, "bob", tc.start)
			if tc.zone != "" {
				f.users.Set("ann", loc(t, tc.zone))
			}
			d := f.get(t, "ann")
			if d.Days != tc.want || !d.Active || d.StartDate.String() != tc.start || !d.EndDate.IsZero() {
				t.Fatalf("%+v, want %d days", d, tc.want)
			}
		})
	}
}

func TestTheCallersTimezoneDecidesWhatIsInTheFuture(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t, time.Date(2025, 6, 15, 12, 0, 0, 0, time.UTC))
	f.users.Set("ann", loc(t, "Pacific/Kiritimati"))  // June 16, 02:00
	f.users.Set("bob", loc(t, "America/Los_Angeles")) // June 15, 05:00

	_, err := f.svc.Start(ctx, "bob", "2025-06-16")
	coretest.WantErr(t, err, core.KindInvalid, "invalid_date") // tomorrow for Bob
	if d := f.start(t, "ann", "2025-06-16"); d.Days != 0 {
		t.Fatalf("ann: %+v", d)
	}
	if d := f.get(t, "bob"); d.Days != 0 || d.StartDate.String() != "2025-06-16" {
		t.Fatalf("bob reads a start that is tomorrow for him as 0 days: %+v", d)
	}
	// Bob's default end date (his today, the 15th) is before the start: it ends on the start day.
	d, err := f.svc.End(ctx, "bob", "")
	if err != nil || d.EndDate.String() != "2025-06-16" || d.Days != 0 || d.Active {
		t.Fatalf("%+v %v", d, err)
	}
}

func TestStartRules(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cases := []struct {
		name, user, date string
		kind             core.Kind
		code             string
	}{
		{"missing date", "ann", "", core.KindInvalid, "invalid_request"},
		{"bad format", "ann", "14/02/2024", core.KindInvalid, "invalid_date"},
		{"date-time instead of a date", "ann", "2024-02-14T00:00:00Z", core.KindInvalid, "invalid_date"},
		{"impossible date", "ann", "2025-02-30", core.KindInvalid, "invalid_date"},
		{"not a leap year", "ann", "2023-02-29", core.KindInvalid, "invalid_date"},
		{"tomorrow", "ann", "2025-06-16", core.KindInvalid, "invalid_date"},
		{"no partner", "cat", "2025-01-01", core.KindConflict, "not_paired"},
		{"bad date beats no partner", "cat", "2025-13-01", core.KindInvalid, "invalid_date"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, time.Time{})
			_, err := f.svc.Start(ctx, tc.user, tc.date)
			coretest.WantErr(t, err, tc.kind, tc.code)
			if _, err := f.repo.Latest(ctx, "p1"); !core.IsKind(err, core.KindNotFound) {
				t.Fatal("a refused start wrote")
			}
		})
	}

	t.Run("either partner starts; both read the same; a second start conflicts", func(t *testing.T) {
		f := newFixture(t, time.Time{}) // 2025-06-15 12:00 UTC
		d := f.start(t, "bob", "2024-02-29")
		if d.Days != 472 || !d.Active || d.StartDate.String() != "2024-02-29" {
			t.Fatalf("start reply %+v", d)
		}
		if a, b := f.get(t, "ann"), f.get(t, "bob"); a != b || a != d {
			t.Fatalf("ann %+v bob %+v", a, b)
		}
		for _, user := range []string{"ann", "bob"} {
			_, err := f.svc.Start(ctx, user, "2025-01-01")
			coretest.WantErr(t, err, core.KindConflict, "conflict")
		}
		if got := f.get(t, "ann"); got.StartDate.String() != "2024-02-29" {
			t.Fatalf("a refused start changed the date: %+v", got)
		}
	})
	t.Run("today is allowed", func(t *testing.T) {
		f := newFixture(t, time.Time{})
		if d := f.start(t, "ann", "2025-06-15"); d.Days != 0 {
			t.Fatalf("%+v", d)
		}
	})
}

func TestEndRules(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cases := []struct {
		name, user, date string
		kind             core.Kind
		code             string
		wantEnd          string
		wantDays         int
	}{
		{name: "given date", user: "bob", date: "2025-02-14", wantEnd: "2025-02-14", wantDays: 366},
		{name: "default is the caller's today", user: "ann", date: "", wantEnd: "2025-06-15", wantDays: 487},
		{name: "on the start day", user: "ann", date: "2024-02-14", wantEnd: "2024-02-14", wantDays: 0},
		{name: "before the start", user: "ann", date: "2024-02-13", kind: core.KindInvalid, code: "invalid_date"},
		{name: "in the future", user: "ann", date: "2025-06-16", kind: core.KindInvalid, code: "invalid_date"},
		{name: "impossible date", user: "ann", date: "2025-02-30", kind: core.KindInvalid, code: "invalid_date"},
		{name: "no partner", user: "cat", date: "", kind: core.KindConflict, code: "not_paired"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, time.Time{}) // 2025-06-15 12:00 UTC
			f.start(t, "ann", "2024-02-14")
			d, err := f.svc.End(ctx, tc.user, tc.date)
			if tc.code != "" {
				coretest.WantErr(t, err, tc.kind, tc.code)
				if got := f.get(t, "ann"); !got.Active {
					t.Fatal("a refused end wrote")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d.Active || d.EndDate.String() != tc.wantEnd || d.Days != tc.wantDays {
				t.Fatalf("end reply %+v", d)
			}
			f.clock.Advance(400 * 24 * time.Hour) // an ended relationship stops counting
			for _, user := range []string{"ann", "bob"} {
				if got := f.get(t, user); got != d {
					t.Fatalf("%s reads %+v, want %+v", user, got, d)
				}
			}
		})
	}

	t.Run("nothing active: 404; then a new relationship may start", func(t *testing.T) {
		f := newFixture(t, time.Time{})
		_, err := f.svc.End(ctx, "ann", "")
		coretest.WantErr(t, err, core.KindNotFound, "not_found")
		_, err = f.svc.Get(ctx, "ann")
		coretest.WantErr(t, err, core.KindNotFound, "not_found")
		f.start(t, "ann", "2025-01-01")
		if _, err := f.svc.End(ctx, "bob", "2025-03-01"); err != nil {
			t.Fatal(err)
		}
		_, err = f.svc.End(ctx, "ann", "")
		coretest.WantErr(t, err, core.KindNotFound, "not_found")
		if d := f.start(t, "bob", "2025-04-01"); !d.Active || d.Days != 75 {
			t.Fatalf("restart %+v", d)
		}
		if d := f.get(t, "ann"); !d.Active || d.StartDate.String() != "2025-04-01" {
			t.Fatalf("the new one is read: %+v", d)
		}
	})
	t.Run("unpaired readers get 409 not_paired", func(t *testing.T) {
		f := newFixture(t, time.Time{})
		_, err := f.svc.Get(ctx, "cat")
		coretest.WantErr(t, err, core.KindConflict, "not_paired")
	})
}

func TestPartnershipEndedEndsTheActiveRelationship(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("ends on today's UTC date; other couples untouched", func(t *testing.T) {
		f := newFixture(t, time.Date(2025, 6, 15, 23, 30, 0, 0, time.UTC))
		f.users.Set("ann", loc(t, "Pacific/Kiritimati")) // already June 16 for her
		f.pairs.PairAs("p2", "dan", "eve")
		f.start(t, "ann", "2025-01-01")
		f.start(t, "dan", "2025-02-01")

		f.bus.Publish(ctx, core.PartnershipEnded{PartnershipID: "p1", UserIDs: [2]string{"ann", "bob"}})
		got, _ := f.repo.Latest(ctx, "p1")
		if got.Active || got.EndDate.String() != "2025-06-15" {
			t.Fatalf("p1 %+v", got)
		}
		if other, _ := f.repo.Latest(ctx, "p2"); !other.Active {
			t.Fatalf("p2 %+v", other)
		}
		f.pairs.Unpair("ann", "bob")
		_, err := f.svc.Get(ctx, "ann")
		coretest.WantErr(t, err, core.KindConflict, "not_paired")
	})
	t.Run("never before the start", func(t *testing.T) {
		f := newFixture(t, time.Date(2025, 6, 15, 12, 0, 0, 0, time.UTC))
		f.users.Set("ann", loc(t, "Pacific/Kiritimati"))
		f.start(t, "ann", "2025-06-16") // her today, tomorrow in UTC
		f.bus.Publish(ctx, core.PartnershipEnded{PartnershipID: "p1", UserIDs: [2]string{"ann", "bob"}})
		if got, _ := f.repo.Latest(ctx, "p1"); got.Active || got.EndDate.String() != "2025-06-16" {
			t.Fatalf("%+v", got)
		}
	})
	t.Run("nothing active, unknown partnership and other events are no-ops", func(t *testing.T) {
		f := newFixture(t, time.Time{})
		f.start(t, "ann", "2025-01-01")
		if _, err := f.svc.End(ctx, "ann", "2025-02-01"); err != nil {
			t.Fatal(err)
		}
		f.bus.Publish(ctx, core.PartnershipEnded{PartnershipID: "p1"})
		f.bus.Publish(ctx, core.PartnershipEnded{PartnershipID: "nope"})
		f.bus.Publish(ctx, core.PartnershipStarted{PartnershipID: "p1"})
		f.bus.Publish(ctx, core.AccountDeleted{UserID: "ann"})
		if got, _ := f.repo.Latest(ctx, "p1"); got.EndDate.String() != "2025-02-01" {
			t.Fatalf("the earlier end stands: %+v", got)
		}
	})
}

func TestExportAndPurge(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t, time.Time{})
	var owner core.UserData = f.svc
	if v, err := owner.ExportUser(ctx, "ann"); err != nil || len(v.([]relationship.ExportedRelationship)) != 0 {
		t.Fatalf("empty export %v %v", v, err)
	}
	f.start(t, "ann", "2024-01-01")
	if _, err := f.svc.End(ctx, "bob", "2025-01-01"); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(time.Hour)
	f.start(t, "bob", "2025-02-01")
	v, err := owner.ExportUser(ctx, "ann")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range v.([]relationship.ExportedRelationship) {
		got = append(got, fmt.Sprint(e.StartDate, " ", e.EndDate, " ", e.Active, " ", e.PartnerID))
	}
	if want := "2025-02-01 0000-00-00 true bob|2024-01-01 2025-01-01 false bob"; strings.Join(got, "|") != want {
		t.Fatalf("export\n got %s\nwant %s", strings.Join(got, "|"), want)
	}
	if owner.Section() != "relationship" {
		t.Fatal(owner.Section())
	}
	for range 2 {
		if err := owner.PurgeUser(ctx, "bob"); err != nil {
			t.Fatal(err)
		}
	}
	_, err = f.svc.Get(ctx, "ann")
	coretest.WantErr(t, err, core.KindNotFound, "not_found")
}

// TestChangesAreAnnouncedToBothPartnersEachWithTheirOwnDuration: a start or
// an end is a relationship.changed live event for both partners, each with
// the duration their own GET returns (days to their own today), and a start
// notifies the other partner. Never a stranger or an ex-partner; nobody for
// a relationship stored as the couple unpaired, nor for one the
// partnership's end closed (neither may read it); a refused change
// announces nothing.
func TestChangesAreAnnouncedToBothPartnersEachWithTheirOwnDuration(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	start := func(user string) func(f *fixture) error {
		return func(f *fixture) error { _, err := f.svc.Start(ctx, user, "2025-06-01"); return err }
	}
	end := func(user string) func(f *fixture) error {
		return func(f *fixture) error { _, err := f.svc.End(ctx, user, ""); return err }
	}
	started := func(f *fixture) { f.start(t, "ann", "2025-06-01") }
	cases := []struct {
		name    string
		setup   func(f *fixture) // ann (Kiritimati, a day ahead) and bob (UTC) are partners (p1); dan and eve (p2)
		during  func(f *fixture) // after the change is stored, before it is announced
		act     func(f *fixture) error
		readers []string // who hears of it; nil when nobody
		notes   []string
		refused bool
	}{
		{name: "started by ann: both, ann's partner notified", act: start("ann"),
			readers: []string{"ann", "bob"}, notes: []string{"bob<-ann:relationshipStarted"}},
		{name: "started by bob: both, ann notified", act: start("bob"),
			readers: []string{"ann", "bob"}, notes: []string{"ann<-bob:relationshipStarted"}},
		{name: "ended: both", setup: started, act: end("bob"), readers: []string{"ann", "bob"}},
		{name: "started with a new partner: never the ex-partner",
			setup: func(f *fixture) { f.pairs.Unpair("ann", "bob"); f.pairs.PairAs("p3", "ann", "cid") },
			act:   start("ann"), readers: []string{"ann", "cid"}, notes: []string{"cid<-ann:relationshipStarted"}},
		{name: "unpaired as it was stored: nobody", during: func(f *fixture) { f.pairs.Unpair("ann", "bob") },
			act: start("ann")},
		{name: "ended as they unpaired: nobody", setup: started, during: func(f *fixture) { f.pairs.Unpair("ann", "bob") },
			act: end("ann")},
		{name: "ended by the partnership's end: nobody", setup: started, act: func(f *fixture) error {
			f.pairs.Unpair("ann", "bob")
			f.bus.Publish(ctx, core.PartnershipEnded{PartnershipID: "p1", UserIDs: [2]string{"ann", "bob"}})
			if r, _ := f.repo.Latest(ctx, "p1"); r.Active {
				t.Fatal("still active")
			}
			return nil
		}},
		{name: "the ex-partner's start is refused: nothing", setup: func(f *fixture) { f.pairs.Unpair("ann", "bob") },
			act: start("bob"), refused: true},
		{name: "a single user's start is refused: nothing", act: start("cat"), refused: true},
		{name: "a second start is refused: nothing", setup: started, act: start("bob"), refused: true},
		{name: "an end with nothing active is refused: nothing", act: end("ann"), refused: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, time.Date(2025, 6, 15, 12, 0, 0, 0, time.UTC))
			f.users.Set("ann", loc(t, "Pacific/Kiritimati"))
			f.pairs.PairAs("p2", "dan", "eve")
			if tc.setup != nil {
				tc.setup(f)
			}
			f.live.Reset()
			f.notes.Take()
			if tc.during != nil {
				f.svc = relationship.NewService(hookedRepo{f.repo, func() { tc.during(f) }}, f.pairs, f.users, f.notes, f.live,
					f.clock, &coretest.SeqIDs{})
			}
			err := tc.act(f)
			if tc.refused != (err != nil) {
				t.Fatalf("refused %v: %v", tc.refused, err)
			}
			var want []core.Live
			if len(tc.readers) > 0 {
				l := core.Live{Type: "relationship.changed", For: map[string]any{}}
				for _, r := range tc.readers {
					l.For[r] = f.get(t, r) // what the reader's own GET returns
				}
				if ann, bob := f.get(t, tc.readers[0]), f.get(t, tc.readers[1]); ann.Active && ann.Days == bob.Days {
					t.Fatalf("each counts to their own today: %+v %+v", ann, bob)
				}
				want = append(want, l)
			}
			f.live.WantLive(t, want...)
			if got := f.notes.Take(); fmt.Sprint(got) != fmt.Sprint(tc.notes) {
				t.Fatalf("notes %q, want %q", got, tc.notes)
			}
		})
	}
}

// hookedRepo runs after once a start or an end is stored.
type hookedRepo struct {
	relationship.Repository
	after func()
}

func (r hookedRepo) Start(ctx context.Context, rel relationship.Relationship) error {
	if err := r.Repository.Start(ctx, rel); err != nil {
		return err
	}
	r.after()
	return nil
}

func (r hookedRepo) End(ctx context.Context, id string, on core.Date, at time.Time) (relationship.Relationship, error) {
	out, err := r.Repository.End(ctx, id, on, at)
	if err == nil {
		r.after()
	}
	return out, err
}

// The relationship is the couple's: both partners' changes are read
// through the partnership, so a store records none after an unpair.
func TestStartChangesAreReadThroughThePartnership(t *testing.T) {
	t.Parallel()
	f := newFixture(t, time.Date(2025, 6, 15, 12, 0, 0, 0, time.UTC))
	f.start(t, "ann", "2025-06-01")
	if got, want := f.live.Through(), []string{"ann relationship p1", "bob relationship p1"}; !slices.Equal(got, want) {
		t.Errorf("%v, want %v", got, want)
	}
}
