package events_test

import (
	"context"
	"testing"
	"time"

	"tandem/adapters/sqlstore"
	"tandem/adapters/sqlstore/sqltest"
	"tandem/core"
	"tandem/core/coretest"
	"tandem/modules/events"
)

// BenchmarkDateRange measures a month's date-range answer on SQLite for a
// couple with a few thousand events each, spread over ten years (with some
// multi-day ones): two bounded index-range reads, the merge and the split.
func BenchmarkDateRange(b *testing.B) {
	ctx := context.Background()
	db := sqltest.Open(b, sqlstore.SQLite)
	repo := sqlstore.NewEventRepo(db)
	partners := coretest.NewCouples()
	partners.Pair("me", "partner")
	clock := coretest.NewClock(time.Time{})
	svc := events.NewService(repo, partners, coretest.NewZones(), &coretest.Activities{}, &coretest.Events{},
		limiter(clock), unbounded, clock, core.NewUUIDv7()) // the set-up writes 6,000 at one instant
	first := date(b, "2020-01-01")
	const perUser = 3000
	for _, user := range []string{"me", "partner"} {
		for i := range perUser {
			start := first.AddDays(i * 3650 / perUser)
			end := start.AddDays(i % 5) // up to five days long
			if i%97 == 0 {
				end = start.AddDays(60)
			}
			if _, err := svc.Create(ctx, user, events.Draft{Title: "event", StartDate: start.String(),
				EndDate: end.String(), StartTime: "09:00", Notify: "30", Participants: []string{"me", "partner"}}); err != nil {
				b.Fatal(err)
			}
		}
	}
	from, to := date(b, "2025-03-01"), date(b, "2025-03-31")
	rep, err := svc.DateRange(ctx, "me", from, to)
	if err != nil || rep.Total() < 40 {
		b.Fatalf("%d events, %v", rep.Total(), err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := svc.DateRange(ctx, "me", from, to); err != nil {
			b.Fatal(err)
		}
	}
}
