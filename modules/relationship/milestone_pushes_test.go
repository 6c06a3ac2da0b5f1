package relationship_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"tandem/adapters/i18n"
	"tandem/core"
	"tandem/modules/relationship"
)

// notes records the milestone notifications as "user 01-02 15:04 title"
// (the clock's UTC time), and fails for the users in fail.
type notes struct {
	mu    sync.Mutex
	clock core.Clock
	got   []string
	fail  map[string]bool
}

// english writes the notifications as the English reader reads them.
var english = i18n.MustLoad(nil)

func (n *notes) Notify(_ context.Context, userID, category string, text core.Message) error {
	title, message := english.Note("en", text)
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.fail[userID] {
		return errors.New("push down")
	}
	if category != relationship.MilestoneCategory || !strings.Contains(message, " since you got together on ") {
		return fmt.Errorf("category %q, message %q", category, message)
	}
	n.got = append(n.got, userID+" "+n.clock.Now().UTC().Format("01-02 15:04")+" "+title)
	return nil
}

// of lists the user's notifications, comma-separated, without the user.
func (n *notes) of(user string) string {
	n.mu.Lock()
	defer n.mu.Unlock()
	var out []string
	for _, g := range n.got {
		if rest, ok := strings.CutPrefix(g, user+" "); ok {
			out = append(out, rest)
		}
	}
	return strings.Join(out, ",")
}

func (n *notes) count() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return len(n.got)
}

// pushFixture is the milestone job on the fixture's repository.
type pushFixture struct {
	*fixture
	job   *relationship.MilestonePushes
	notes *notes
}

func newPushFixture(t *testing.T, now time.Time) *pushFixture {
	t.Helper()
	f := newFixture(t, now)
	n := &notes{clock: f.clock, fail: map[string]bool{}}
	return &pushFixture{fixture: f, notes: n, job: relationship.NewMilestonePushes(f.repo, f.repo, f.pairs, f.users, n, f.clock)}
}

// run runs the job at now and returns how many it sent.
func (f *pushFixture) run(t *testing.T, now time.Time) int {
	t.Helper()
	f.clock.Set(now)
	sent, err := f.job.SendDue(context.Background())
	if err != nil {
		t.Fatalf("at %s: %v", now, err)
	}
	return sent
}

// runEvery runs the job every step from from (included) to to (excluded)
// and returns how many it sent.
func (f *pushFixture) runEvery(t *testing.T, step time.Duration, from, to time.Time) int {
	t.Helper()
	total := 0
	for now := from; now.Before(to); now = now.Add(step) {
		total += f.run(t, now)
	}
	return total
}

func utc(y int, mo time.Month, d, h, m int) time.Time {
	return time.Date(y, mo, d, h, m, 0, 0, time.UTC)
}

// TestMilestonePushRules starts ann and bob's relationship at from, applies
// a change, runs the job every 15 minutes (every timezone's 09:00 is on
// that grid) up to to, and checks who is told what when.
func TestMilestonePushRules(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cases := []struct {
		name       string
		start      string    // the relationship's start date
		zones      [2]string // ann's and bob's ("" for UTC)
		from, to   time.Time
		change     func(t *testing.T, f *pushFixture) // after the first run
		ann, bob   string
		nextCheck  time.Time // when the relationship is due again after the run (zero: not checked)
		wantChecks bool
	}{
		{name: "each partner at 09:00 in their own timezone", start: "2025-03-07",
			zones: [2]string{"Europe/Berlin", "America/New_York"}, from: utc(2025, 6, 14, 12, 0), to: utc(2025, 6, 16, 12, 0),
			ann: "06-15 07:00 100 days together today", bob: "06-15 13:00 100 days together today",
			nextCheck: utc(2025, 9, 23, 7, 0)}, // day 200, ann's morning first
		{name: "29 February start, a year without one: 365 days on 28 February, 1 year on 1 March", start: "2024-02-29",
			from: utc(2025, 2, 27, 12, 0), to: utc(2025, 3, 2, 12, 0),
			ann: "02-28 09:00 365 days together today,03-01 09:00 1 year together today",
			bob: "02-28 09:00 365 days together today,03-01 09:00 1 year together today", nextCheck: utc(2025, 7, 13, 9, 0)},
		{name: "29 February start, a leap year: on 29 February only", start: "2024-02-29",
			from: utc(2028, 2, 27, 12, 0), to: utc(2028, 3, 2, 12, 0),
			ann: "02-29 09:00 4 years together today", bob: "02-29 09:00 4 years together today",
			nextCheck: utc(2029, 3, 1, 9, 0)},
		{name: "365 days and 1 year on one date: one push, named after the anniversary", start: "2024-06-15",
			zones: [2]string{"Asia/Tokyo", "Asia/Kolkata"}, from: utc(2025, 6, 14, 0, 0), to: utc(2025, 6, 16, 0, 0),
			ann: "06-15 00:00 1 year together today", bob: "06-15 03:30 1 year together today",
			nextCheck: utc(2025, 10, 28, 0, 0)}, // day 500 (2025-10-28), Tokyo first
		{name: "every 1000 days: day 3000", start: "2017-03-29", from: utc(2025, 6, 14, 12, 0), to: utc(2025, 6, 16, 12, 0),
			ann: "06-15 09:00 3,000 days together today", bob: "06-15 09:00 3,000 days together today",
			nextCheck: utc(2026, 3, 29, 9, 0)}, // 9 years
		{name: "a day without a milestone: none", start: "2025-03-08", from: utc(2025, 6, 14, 12, 0), to: utc(2025, 6, 16, 8, 0),
			ann: "", bob: "", nextCheck: utc(2025, 6, 16, 9, 0)},
		{name: "a timezone moved east, announced: the new morning", start: "2025-03-07",
			zones: [2]string{"America/New_York", "America/New_York"}, from: utc(2025, 6, 14, 12, 0), to: utc(2025, 6, 16, 12, 0),
			change: func(t *testing.T, f *pushFixture) {
				f.users.Set("ann", loc(t, "Asia/Tokyo"))
				if err := f.job.Listener().Handle(ctx, core.TimezoneChanged{UserID: "ann", Timezone: "Asia/Tokyo"}); err != nil {
					t.Fatal(err)
				}
			},
			ann: "06-15 00:00 100 days together today", bob: "06-15 13:00 100 days together today", nextCheck: utc(2025, 9, 23, 0, 0)},
		{name: "a timezone moved west, unannounced: found when due", start: "2025-03-07",
			zones: [2]string{"Europe/Berlin", "Europe/Berlin"}, from: utc(2025, 6, 14, 12, 0), to: utc(2025, 6, 16, 12, 0),
			change: func(t *testing.T, f *pushFixture) { f.users.Set("bob", loc(t, "America/Los_Angeles")) },
			ann:    "06-15 07:00 100 days together today", bob: "06-15 16:00 100 days together today", nextCheck: utc(2025, 9, 23, 7, 0)},
		{name: "ended before the morning: none, and no more checks", start: "2025-03-07",
			from: utc(2025, 6, 14, 12, 0), to: utc(2025, 6, 16, 12, 0),
			change: func(t *testing.T, f *pushFixture) {
				if _, err := f.svc.End(ctx, "bob", ""); err != nil {
					t.Fatal(err)
				}
			}},
		{name: "started on a milestone day after 09:00: told at once", start: "2025-03-07",
			from: utc(2025, 6, 15, 15, 0), to: utc(2025, 6, 16, 12, 0),
			ann: "06-15 15:00 100 days together today", bob: "06-15 15:00 100 days together today", nextCheck: utc(2025, 9, 23, 9, 0)},
		{name: "a partner's account gone: the other one is told", start: "2025-03-07",
			from: utc(2025, 6, 14, 12, 0), to: utc(2025, 6, 16, 12, 0),
			change: func(t *testing.T, f *pushFixture) { f.users.Unknown("bob") },
			ann:    "06-15 09:00 100 days together today", nextCheck: utc(2025, 9, 23, 9, 0)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newPushFixture(t, tc.from)
			for i, u := range []string{"ann", "bob"} {
				if tc.zones[i] != "" {
					f.users.Set(u, loc(t, tc.zones[i]))
				}
			}
			f.start(t, "ann", tc.start)
			total := f.run(t, tc.from)
			if tc.change != nil {
				tc.change(t, f)
			}
			total += f.runEvery(t, 15*time.Minute, tc.from.Add(15*time.Minute), tc.to)
			if ann, bob := f.notes.of("ann"), f.notes.of("bob"); ann != tc.ann || bob != tc.bob {
				t.Fatalf("ann %q, bob %q\nwant %q, %q", ann, bob, tc.ann, tc.bob)
			}
			if total != f.notes.count() {
				t.Fatalf("the job said %d sent, %d were", total, f.notes.count())
			}
			due, err := f.repo.DueMilestones(ctx, utc(2100, 1, 1, 0, 0), 10)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case tc.nextCheck.IsZero() && len(due) != 0:
				t.Fatalf("still checked: %+v", due)
			case !tc.nextCheck.IsZero() && (len(due) != 1 || !due[0].At.Equal(tc.nextCheck)):
				t.Fatalf("next check %+v, want %s", due, tc.nextCheck)
			}
		})
	}
}

// TestMilestonePushesOnDSTMornings: a milestone on the day a timezone
// changes its clocks in the night before: one push, at 09:00 local.
func TestMilestonePushesOnDSTMornings(t *testing.T) {
	t.Parallel()
	cases := []struct {
		zone string
		day  string // the milestone's date: day 100
		want time.Time
	}{
		{"Europe/Berlin", "2026-03-29", utc(2026, 3, 29, 7, 0)},    // 02:00 CET became 03:00 CEST
		{"Europe/Berlin", "2026-10-25", utc(2026, 10, 25, 8, 0)},   // 03:00 CEST became 02:00 CET
		{"America/New_York", "2026-03-08", utc(2026, 3, 8, 13, 0)}, // 02:00 EST became 03:00 EDT
		{"America/New_York", "2026-11-01", utc(2026, 11, 1, 14, 0)},
		{"Australia/Sydney", "2026-04-05", utc(2026, 4, 4, 23, 0)}, // 03:00 AEDT became 02:00 AEST
		{"America/Santiago", "2026-09-06", utc(2026, 9, 6, 12, 0)}, // 24:00 became 01:00 (-03)
	}
	for _, tc := range cases {
		t.Run(tc.zone+" "+tc.day, func(t *testing.T) {
			t.Parallel()
			day := date(t, tc.day)
			from := core.InstantOf(day.AddDays(-2), core.TimeOfDay{Hour: 12}, loc(t, tc.zone))
			f := newPushFixture(t, from)
			f.users.Set("ann", loc(t, tc.zone))
			f.start(t, "ann", day.AddDays(-100).String())
			f.runEvery(t, 15*time.Minute, from, from.Add(96*time.Hour))
			if got, want := f.notes.of("ann"), tc.want.Format("01-02 15:04")+" 100 days together today"; got != want {
				t.Fatalf("%q, want %q", got, want)
			}
		})
	}
}

// TestMilestonePushFailures: a push that fails is lost (at most once: its
// claim is taken) and the check comes back MilestoneRetry later; the
// other partner is told then, and nobody twice.
func TestMilestonePushFailures(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newPushFixture(t, utc(2025, 6, 15, 8, 0))
	f.start(t, "ann", "2025-03-07")
	f.notes.fail["ann"] = true
	f.clock.Set(utc(2025, 6, 15, 9, 0))
	sent, err := f.job.SendDue(ctx)
	if sent != 0 || err == nil || !strings.Contains(err.Error(), "push down") {
		t.Fatalf("sent %d, %v", sent, err)
	}
	due, _ := f.repo.DueMilestones(ctx, utc(2100, 1, 1, 0, 0), 10)
	if len(due) != 1 || !due[0].At.Equal(utc(2025, 6, 15, 9, 0).Add(relationship.MilestoneRetry)) {
		t.Fatalf("retry %+v", due)
	}
	delete(f.notes.fail, "ann")
	f.runEvery(t, time.Minute, utc(2025, 6, 15, 9, 1), utc(2025, 6, 16, 12, 0))
	if f.notes.of("ann") != "" || f.notes.of("bob") != "06-15 09:05 100 days together today" {
		t.Fatalf("ann %q, bob %q", f.notes.of("ann"), f.notes.of("bob"))
	}
}

// TestMilestoneJobRunsAtOnceInManyProcesses: five jobs on one store at once
// tell each partner once.
func TestMilestoneJobRunsAtOnceInManyProcesses(t *testing.T) {
	t.Parallel()
	f := newPushFixture(t, utc(2025, 6, 15, 8, 0))
	couples := 2*relationship.MilestoneBatch + 10
	for i := range couples {
		a, b := fmt.Sprintf("a%03d", i), fmt.Sprintf("b%03d", i)
		f.pairs.PairAs(fmt.Sprintf("p%03d", i), a, b)
		f.start(t, a, "2025-03-07")
	}
	f.clock.Set(utc(2025, 6, 15, 9, 0))
	var wg sync.WaitGroup
	var mu sync.Mutex
	total := 0
	for range 5 {
		job := relationship.NewMilestonePushes(f.repo, f.repo, f.pairs, f.users, f.notes, f.clock)
		wg.Add(1)
		go func() {
			defer wg.Done()
			sent, err := job.SendDue(context.Background())
			if err != nil {
				t.Error(err)
			}
			mu.Lock()
			total += sent
			mu.Unlock()
		}()
	}
	wg.Wait()
	if total != 2*couples || f.notes.count() != 2*couples {
		t.Fatalf("sent %d, told %d, want %d", total, f.notes.count(), 2*couples)
	}
	for i := range couples {
		if got := f.notes.of(fmt.Sprintf("a%03d", i)); got != "06-15 09:00 100 days together today" {
			t.Fatalf("a%03d: %q", i, got)
		}
	}
	if again := f.run(t, utc(2025, 6, 15, 10, 0)); again != 0 {
		t.Fatalf("again: %d", again)
	}
}

// TestMilestoneRunIsBounded: one run works through at most
// MilestoneRunLimit checks; the next run takes the rest.
func TestMilestoneRunIsBounded(t *testing.T) {
	t.Parallel()
	f := newPushFixture(t, utc(2025, 6, 15, 8, 0))
	couples := relationship.MilestoneRunLimit + 30
	for i := range couples {
		f.pairs.PairAs(fmt.Sprintf("p%04d", i), fmt.Sprintf("a%04d", i), fmt.Sprintf("b%04d", i))
		f.start(t, fmt.Sprintf("a%04d", i), "2025-03-07")
	}
	if first := f.run(t, utc(2025, 6, 15, 9, 0)); first != 2*relationship.MilestoneRunLimit {
		t.Fatalf("first run sent %d", first)
	}
	if second := f.run(t, utc(2025, 6, 15, 9, 1)); second != 2*30 {
		t.Fatalf("second run sent %d", second)
	}
	if third := f.run(t, utc(2025, 6, 15, 9, 2)); third != 0 {
		t.Fatalf("third run sent %d", third)
	}
}
