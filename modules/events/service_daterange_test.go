// This file holds the tests of the date-range report (exact matches and
// other events, the partner's marked, the hard cap, one bounded read) and
// of the home screen's next event.

package events_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"go.uber.org/mock/gomock"

	"tandem/core"
	"tandem/core/coretest"
	"tandem/modules/events"
)

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
