package storetest

import (
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"tandem/core"
	"tandem/modules/advice"
)

// AdviceRepository checks an advice.Repository implementation.
func AdviceRepository(t *testing.T, newRepo func(t *testing.T) advice.Repository) {
	ad := adviceSuite{newRepo: newRepo, day: core.Date{Year: 2025, Month: time.June, Day: 15}}
	t.Run("open picks once per user and date, every field round-trips", ad.openOnce)
	t.Run("pick sees the user's dates less than 30 days away, in date order", ad.nearby)
	t.Run("a failing pick stores nothing", ad.failingPick)
	t.Run("concurrent first opens of a date agree on one advice", ad.concurrentOpens)
	t.Run("list newest first; delete is idempotent and touches only the user", ad.listAndDelete)
}

// adviceSuite holds AdviceRepository's helpers and subtests.
type adviceSuite struct {
	newRepo func(t *testing.T) advice.Repository
	day     core.Date // the day every subtest opens around
}

func (adviceSuite) daily(id, user string, d core.Date) advice.Daily {
	return advice.Daily{ID: id, UserID: user, Date: d, AdviceID: "a-" + id, Text: "advice " + id,
		Theme: advice.ThemeQualityTime, CreatedAt: now}
}

// open opens d's date for d's user, picking d.
func (adviceSuite) open(t *testing.T, r advice.Repository, d advice.Daily) advice.Daily {
	t.Helper()
	got, err := r.Open(ctx, d.UserID, d.Date, func([]advice.Daily) (advice.Daily, error) { return d, nil })
	must(t, err)
	return got
}

func (adviceSuite) dates(ds []advice.Daily) string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = d.Date.String()
	}
	return strings.Join(out, ",")
}

func (ad adviceSuite) openOnce(t *testing.T) {
	r := ad.newRepo(t)
	want := ad.daily("d1", "u1", ad.day)
	want.Text, want.CreatedAt = "Say “I love you” — 💞", time.UnixMilli(1718452800123).UTC()
	calls := 0
	got, err := r.Open(ctx, "u1", ad.day, func(nearby []advice.Daily) (advice.Daily, error) {
		calls++
		if len(nearby) != 0 {
			t.Fatalf("nearby of a new user: %v", nearby)
		}
		return want, nil
	})
	must(t, err)
	again, err := r.Open(ctx, "u1", ad.day, func([]advice.Daily) (advice.Daily, error) {
		calls++
		return ad.daily("d2", "u1", ad.day), nil
	})
	must(t, err)
	if got != want || again != want || calls != 1 {
		t.Fatalf("opened %+v then %+v, %d picks", got, again, calls)
	}
	if other := ad.open(t, r, ad.daily("d3", "u2", ad.day)); other.ID != "d3" {
		t.Fatalf("another user's date: %+v", other)
	}
}

func (ad adviceSuite) nearby(t *testing.T) {
	r := ad.newRepo(t)
	for i, off := range []int{29, -30, 30, -29, -1} {
		ad.open(t, r, ad.daily(fmt.Sprintf("d%d", i), "u1", ad.day.AddDays(off)))
	}
	ad.open(t, r, ad.daily("other", "u2", ad.day))
	var seen []advice.Daily
	_, err := r.Open(ctx, "u1", ad.day, func(nearby []advice.Daily) (advice.Daily, error) {
		seen = nearby
		return ad.daily("today", "u1", ad.day), nil
	})
	must(t, err)
	if got := ad.dates(seen); got != "2025-05-17,2025-06-14,2025-07-14" {
		t.Fatalf("nearby %s", got)
	}
	if seen[1].AdviceID != "a-d4" || seen[1].Theme != advice.ThemeQualityTime {
		t.Fatalf("nearby fields %+v", seen[1])
	}
}

func (ad adviceSuite) failingPick(t *testing.T) {
	r := ad.newRepo(t)
	boom := errors.New("boom")
	_, err := r.Open(ctx, "u1", ad.day, func([]advice.Daily) (advice.Daily, error) { return advice.Daily{}, boom })
	if !errors.Is(err, boom) {
		t.Fatalf("pick error: %v", err)
	}
	if ds, _ := r.ListByUser(ctx, "u1"); len(ds) != 0 {
		t.Fatalf("stored %v", ds)
	}
}

func (ad adviceSuite) concurrentOpens(t *testing.T) {
	r := ad.newRepo(t)
	var n atomic.Int64
	got := make([]advice.Daily, 8)
	fns := make([]func() error, len(got))
	for i := range fns {
		fns[i] = func() error {
			var err error
			got[i], err = r.Open(ctx, "u1", ad.day, func([]advice.Daily) (advice.Daily, error) {
				return ad.daily(fmt.Sprintf("d%d", n.Add(1)), "u1", ad.day), nil
			})
			return err
		}
	}
	for _, err := range race(fns...) {
		must(t, err)
	}
	for _, d := range got {
		if d.ID != got[0].ID {
			t.Fatalf("two advices for one date: %s and %s", got[0].ID, d.ID)
		}
	}
	if ds, _ := r.ListByUser(ctx, "u1"); len(ds) != 1 {
		t.Fatalf("stored %d", len(ds))
	}
}

func (ad adviceSuite) listAndDelete(t *testing.T) {
	r := ad.newRepo(t)
	for i, off := range []int{0, -2, 5, -1} {
		ad.open(t, r, ad.daily(fmt.Sprintf("d%d", i), "u1", ad.day.AddDays(off)))
	}
	theirs := ad.open(t, r, ad.daily("x", "u2", ad.day))
	ds, err := r.ListByUser(ctx, "u1")
	must(t, err)
	if ad.dates(ds) != "2025-06-20,2025-06-15,2025-06-14,2025-06-13" || ds[1] != ad.daily("d0", "u1", ad.day) {
		t.Fatalf("list %s %+v", ad.dates(ds), ds)
	}
	must(t, r.DeleteByUser(ctx, "u1"))
	must(t, r.DeleteByUser(ctx, "u1"))
	if ds, _ := r.ListByUser(ctx, "u1"); len(ds) != 0 {
		t.Fatalf("after delete %v", ds)
	}
	if ds, _ := r.ListByUser(ctx, "u2"); len(ds) != 1 || ds[0] != theirs {
		t.Fatalf("the other user's %v", ds)
	}
	if again := ad.open(t, r, ad.daily("new", "u1", ad.day)); again.ID != "new" {
		t.Fatalf("a purged user's date is picked again: %+v", again)
	}
}
