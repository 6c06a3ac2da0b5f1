package advice_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"tandem/adapters/i18n"
	"tandem/adapters/memory"
	"tandem/core"
	"tandem/core/coretest"
	"tandem/modules/advice"
)

// fixture is a Service on memory fakes with a fixed clock (2025-06-15 12:00 UTC).
type fixture struct {
	svc   *advice.Service
	repo  *memory.AdviceRepo
	zones *coretest.Zones
	clock *coretest.FixedClock
}

// english writes the texts as the English reader reads them.
var english = i18n.MustLoad(nil)

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{repo: memory.NewAdviceRepo(), zones: coretest.NewZones(), clock: coretest.NewClock(time.Time{})}
	f.zones.Unknown("ghost")
	f.svc = advice.NewService(f.repo, f.zones, f.clock, &coretest.SeqIDs{}, english)
	return f
}

func (f *fixture) today(t *testing.T, user string) advice.Daily {
	t.Helper()
	d, err := f.svc.Today(context.Background(), user)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestAdviceIsStableForTheUsersWholeDay(t *testing.T) {
	t.Parallel()
	kiritimati, _ := time.LoadLocation("Pacific/Kiritimati")
	honolulu, _ := time.LoadLocation("Pacific/Honolulu")
	cases := []struct {
		name     string
		loc      *time.Location // nil: unset (UTC)
		first    time.Time      // the first request of the day
		sameDay  time.Time      // a later request on the same local date
		nextDay  time.Time      // the first request after local midnight
		wantDate string
	}{
		{"UTC when unset", nil, time.Date(2025, 6, 15, 0, 0, 0, 0, time.UTC),
			time.Date(2025, 6, 15, 23, 59, 59, 0, time.UTC), time.Date(2025, 6, 16, 0, 0, 0, 0, time.UTC), "2025-06-15"},
		{"Kiritimati (UTC+14)", kiritimati, time.Date(2025, 6, 15, 10, 0, 0, 0, time.UTC),
			time.Date(2025, 6, 16, 9, 59, 0, 0, time.UTC), time.Date(2025, 6, 16, 10, 0, 0, 0, time.UTC), "2025-06-16"},
		{"Honolulu (UTC-10)", honolulu, time.Date(2025, 6, 15, 10, 0, 0, 0, time.UTC),
			time.Date(2025, 6, 16, 9, 59, 0, 0, time.UTC), time.Date(2025, 6, 16, 10, 0, 0, 0, time.UTC), "2025-06-15"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			if tc.loc != nil {
				f.zones.Set("u1", tc.loc)
			}
			f.clock.Set(tc.first)
			first := f.today(t, "u1")
			if first.Date.String() != tc.wantDate || first.ID != "id-1" || !first.CreatedAt.Equal(tc.first) ||
				first.Text == "" || !first.Theme.Valid() || first.UserID != "u1" {
				t.Fatalf("first %+v", first)
			}
			f.clock.Set(tc.sameDay)
			if again := f.today(t, "u1"); again != first {
				t.Fatalf("later the same day %+v, was %+v", again, first)
			}
			f.clock.Set(tc.nextDay)
			next := f.today(t, "u1")
			if next.ID == first.ID || next.AdviceID == first.AdviceID || next.Date != first.Date.AddDays(1) ||
				!next.CreatedAt.Equal(tc.nextDay) {
				t.Fatalf("next day %+v, was %+v", next, first)
			}
		})
	}
}

func TestAdviceDoesNotRepeatWithin30DaysOverNinetyDays(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	byDate := map[core.Date]advice.Daily{}
	for range 90 {
		d := f.today(t, "u1")
		byDate[d.Date] = d
		f.clock.Advance(24 * time.Hour)
	}
	if len(byDate) != 90 {
		t.Fatalf("%d dates", len(byDate))
	}
	for d, a := range byDate {
		for od, oa := range byDate {
			if gap := d.DaysUntil(od); od != d && oa.AdviceID == a.AdviceID && gap < 30 && gap > -30 {
				t.Fatalf("%s on %s and %s", a.AdviceID, d, od)
			}
		}
	}
}

func TestAdvicePerUser(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	seen := map[string]bool{}
	for i := range 10 {
		d := f.today(t, fmt.Sprintf("u%d", i))
		seen[d.AdviceID] = true
	}
	if len(seen) < 5 {
		t.Fatalf("10 users share %d pieces of advice", len(seen))
	}
	_, err := f.svc.Today(context.Background(), "ghost")
	if core.KindOf(err) != core.KindNotFound {
		t.Fatalf("unknown user: %v", err)
	}
}

func TestAdviceExportAndPurge(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	if f.svc.Section() != "advice" {
		t.Fatal(f.svc.Section())
	}
	a := f.today(t, "u1")
	f.clock.Advance(24 * time.Hour)
	b := f.today(t, "u1")
	f.today(t, "u2")
	got, err := f.svc.ExportUser(ctx, "u1")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.([]advice.Daily), []advice.Daily{b, a}) || b.Date.String() != "2025-06-16" {
		t.Fatalf("export %+v", got)
	}
	if err := f.svc.PurgeUser(ctx, "u1"); err != nil {
		t.Fatal(err)
	}
	if got, _ := f.svc.ExportUser(ctx, "u1"); fmt.Sprint(got) != "[]" {
		t.Fatalf("after purge %v", got)
	}
	if got, _ := f.svc.ExportUser(ctx, "u2"); fmt.Sprint(got) == "[]" {
		t.Fatal("purge took another user's advice")
	}
}
