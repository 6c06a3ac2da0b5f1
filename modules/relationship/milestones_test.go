package relationship_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"tandem/core"
	"tandem/core/coretest"
	"tandem/modules/relationship"
)

// ms writes milestones as "date label/kind/days", comma-separated.
func ms(list []relationship.Milestone) string {
	out := make([]string, len(list))
	for i, m := range list {
		out[i] = fmt.Sprintf("%s %s/%s/%d", m.Date, m.Label(), m.Kind, m.Days)
	}
	return strings.Join(out, ",")
}

func TestMilestonesFrom(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name        string
		start, from string
		n           int
		want        string
	}{
		{"from the start day: days and anniversaries in date order; 365 days and 1 year both, the anniversary first",
			"2025-01-01", "2025-01-01", 11,
			"2025-04-11 100 days/days/100,2025-07-20 200 days/days/200,2026-01-01 1 year/anniversary/365," +
				"2026-01-01 365 days/days/365,2026-05-16 500 days/days/500,2027-01-01 2 years/anniversary/730," +
				"2027-09-28 1000 days/days/1000,2028-01-01 3 years/anniversary/1095,2029-01-01 4 years/anniversary/1461," +
				"2030-01-01 5 years/anniversary/1826,2030-06-24 2000 days/days/2000"},
		{"today's is included", "2025-01-01", "2025-04-11", 2, "2025-04-11 100 days/days/100,2025-07-20 200 days/days/200"},
		{"yesterday's is not", "2025-01-01", "2025-04-12", 1, "2025-07-20 200 days/days/200"},
		{"an anniversary today is included", "2025-01-01", "2027-01-01", 2,
			"2027-01-01 2 years/anniversary/730,2027-09-28 1000 days/days/1000"},
		{"coinciding: a limit may cut between the two", "2025-01-01", "2025-12-31", 1, "2026-01-01 1 year/anniversary/365"},
		// 2024 is a leap year, 2025-2027 are not: 28 February is day 365, the
		// anniversary is on 1 March (day 366), and on 29 February again in 2028.
		{"29 February start: 1 March in years without one", "2024-02-29", "2024-02-29", 9,
			"2024-06-08 100 days/days/100,2024-09-16 200 days/days/200,2025-02-28 365 days/days/365," +
				"2025-03-01 1 year/anniversary/366,2025-07-13 500 days/days/500,2026-03-01 2 years/anniversary/731," +
				"2026-11-25 1000 days/days/1000,2027-03-01 3 years/anniversary/1096,2028-02-29 4 years/anniversary/1461"},
		{"29 February start: 29 February in a leap year", "2024-02-29", "2028-02-28", 2,
			"2028-02-29 4 years/anniversary/1461,2029-03-01 5 years/anniversary/1827"},
		{"29 February start: 1 March of a year divisible by 100 but not 400", "2096-02-29", "2100-02-01", 1,
			"2100-03-01 4 years/anniversary/1461"},
		{"every 1000 days after 1000", "2015-03-10", "2025-06-15", 5,
			"2026-02-20 4000 days/days/4000,2026-03-10 11 years/anniversary/4018,2027-03-10 12 years/anniversary/4383," +
				"2028-03-10 13 years/anniversary/4749,2028-11-16 5000 days/days/5000"},
		{"1000, then 2000", "2025-01-01", "2027-09-28", 4,
			"2027-09-28 1000 days/days/1000,2028-01-01 3 years/anniversary/1095,2029-01-01 4 years/anniversary/1461," +
				"2030-01-01 5 years/anniversary/1826"},
		{"a start still tomorrow for the reader: from the start on", "2025-06-16", "2025-06-15", 1, "2025-09-24 100 days/days/100"},
		{"none asked", "2025-01-01", "2025-01-01", 0, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := ms(relationship.MilestonesFrom(date(t, tc.start), date(t, tc.from), tc.n)); got != tc.want {
				t.Fatalf("got\n%s\nwant\n%s", strings.ReplaceAll(got, ",", "\n"), strings.ReplaceAll(tc.want, ",", "\n"))
			}
		})
	}
}

// TestMilestonesAgreeWithTheDayCount: for starts on every day from
// December 2023 to March 2024 (a year's end, a 29 February) and readers
// every 29th day over eight years, the list is in date order from the reader's
// today, each day count is what the duration shows on that date, day N is
// the start plus N days, every anniversary is there once, and a list from a
// later milestone is the same list's rest.
func TestMilestonesAgreeWithTheDayCount(t *testing.T) {
	t.Parallel()
	first := date(t, "2023-12-01")
	for i := range 122 {
		start := first.AddDays(i)
		r := relationship.Relationship{StartDate: start, Active: true}
		for j := 0; j < 3000; j += 29 {
			from := start.AddDays(j - 30)
			list := relationship.MilestonesFrom(start, from, 12)
			if len(list) != 12 {
				t.Fatalf("%s from %s: %d milestones", start, from, len(list))
			}
			years := 0
			for k, m := range list {
				switch {
				case m.Date.Before(from), k > 0 && m.Date.Before(list[k-1].Date):
					t.Fatalf("%s from %s: out of order: %s", start, from, ms(list))
				case r.DurationOn(m.Date).Days != m.Days:
					t.Fatalf("%s: %s counts %d days", start, ms(list[k:k+1]), r.DurationOn(m.Date).Days)
				case m.Kind == relationship.MilestoneDays && start.AddDays(m.Days) != m.Date:
					t.Fatalf("%s: %s", start, ms(list[k:k+1]))
				case m.Kind == relationship.MilestoneAnniversary && years != 0 && m.Years != years+1:
					t.Fatalf("%s: an anniversary skipped or doubled: %s", start, ms(list))
				}
				if m.Kind == relationship.MilestoneAnniversary {
					years = m.Years
				}
			}
			k := 4
			for list[k].Date == list[k-1].Date { // not between two of one date
				k++
			}
			if rest := relationship.MilestonesFrom(start, list[k].Date, 12-k); ms(rest) != ms(list[k:]) {
				t.Fatalf("%s: from %s\n%s\nbut from %s\n%s", start, from, ms(list), list[k].Date, ms(rest))
			}
		}
	}
}

func TestAnniversary(t *testing.T) {
	t.Parallel()
	cases := []struct {
		start string
		years int
		want  string
	}{
		{"2023-06-15", 1, "2024-06-15"},
		{"2023-12-31", 1, "2024-12-31"},
		{"2023-03-01", 1, "2024-03-01"},
		{"2024-02-29", 1, "2025-03-01"},
		{"2024-02-29", 4, "2028-02-29"},
		{"2024-02-29", 76, "2100-03-01"},
		{"2024-02-29", 376, "2400-02-29"},
		{"2024-02-28", 1, "2025-02-28"},
	}
	for _, tc := range cases {
		if got := relationship.Anniversary(date(t, tc.start), tc.years).String(); got != tc.want {
			t.Errorf("%s + %d years: %s, want %s", tc.start, tc.years, got, tc.want)
		}
	}
}

func TestMilestonesOfTheCouple(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	// 12:00 UTC on 2025-06-15 is 02:00 on June 16 in Kiritimati: a start on
	// 2025-03-08 is at day 100 there, still at day 99 in Los Angeles.
	f := newFixture(t, time.Date(2025, 6, 15, 12, 0, 0, 0, time.UTC))
	f.pairs.PairAs("p2", "cat", "dan")
	f.users.Set("ann", loc(t, "Pacific/Kiritimati"))
	f.users.Set("bob", loc(t, "America/Los_Angeles"))

	for _, u := range []string{"ann", "bob"} {
		_, err := f.svc.Milestones(ctx, u, 5)
		coretest.WantErrMessage(t, err, core.KindNotFound, "not_found", "no active relationship")
		if m, err := f.svc.NextMilestone(ctx, u); m != nil || err != nil {
			t.Fatalf("no relationship: %+v %v", m, err)
		}
	}
	f.start(t, "ann", "2025-03-08")
	got, err := f.svc.Milestones(ctx, "ann", 2)
	if err != nil || ms(got) != "2025-06-16 100 days/days/100,2025-09-24 200 days/days/200" {
		t.Fatalf("ann: %s %v", ms(got), err)
	}
	got, err = f.svc.Milestones(ctx, "bob", relationship.MaxMilestones)
	if err != nil || len(got) != relationship.MaxMilestones || ms(got[:1]) != "2025-06-16 100 days/days/100" {
		t.Fatalf("bob: %s %v", ms(got), err)
	}
	if m, err := f.svc.NextMilestone(ctx, "bob"); err != nil || m == nil || ms([]relationship.Milestone{*m}) != "2025-06-16 100 days/days/100" {
		t.Fatalf("bob's next: %+v %v", m, err)
	}
	f.clock.Advance(24 * time.Hour) // ann's today is the 17th: the 100th day has gone by
	if m, _ := f.svc.NextMilestone(ctx, "ann"); m == nil || m.Days != 200 {
		t.Fatalf("ann's next: %+v", m)
	}
	if m, _ := f.svc.NextMilestone(ctx, "bob"); m == nil || m.Days != 100 {
		t.Fatalf("bob's next: %+v", m)
	}

	for _, limit := range []int{0, -1, relationship.MaxMilestones + 1} {
		_, err := f.svc.Milestones(ctx, "ann", limit)
		coretest.WantErrMessage(t, err, core.KindInvalid, "invalid_request", "limit must be a whole number from 1 to 50")
	}
	_, err = f.svc.Milestones(ctx, "eve", 5)
	coretest.WantErr(t, err, core.KindConflict, "not_paired")
	if m, err := f.svc.NextMilestone(ctx, "eve"); m != nil || err != nil {
		t.Fatalf("unpaired: %+v %v", m, err)
	}
	_, err = f.svc.Milestones(ctx, "cat", 5)
	coretest.WantErr(t, err, core.KindNotFound, "not_found")

	if _, err := f.svc.End(ctx, "bob", ""); err != nil {
		t.Fatal(err)
	}
	_, err = f.svc.Milestones(ctx, "ann", 5)
	coretest.WantErrMessage(t, err, core.KindNotFound, "not_found", "no active relationship")
	if m, err := f.svc.NextMilestone(ctx, "ann"); m != nil || err != nil {
		t.Fatalf("ended: %+v %v", m, err)
	}
}
