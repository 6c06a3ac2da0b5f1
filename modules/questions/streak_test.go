package questions_test

import (
	"context"
	"testing"
	"time"

	"tandem/core"
	"tandem/modules/questions"
)

func TestStreakOf(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name          string
		days          []string // answered by both, ascending
		today         string
		current, best int
	}{
		{"nothing answered", nil, "2025-06-15", 0, 0},
		{"a run ending today", []string{"2025-06-13", "2025-06-14", "2025-06-15"}, "2025-06-15", 3, 3},
		{"today still open: the run ending yesterday is current", []string{"2025-06-12", "2025-06-13", "2025-06-14"},
			"2025-06-15", 3, 3},
		{"a missed day resets current, best kept", []string{"2025-06-10", "2025-06-11", "2025-06-12", "2025-06-13"},
			"2025-06-15", 0, 4},
		{"a shorter run after a miss: best kept", []string{"2025-06-05", "2025-06-06", "2025-06-07", "2025-06-08",
			"2025-06-09", "2025-06-13", "2025-06-14", "2025-06-15"}, "2025-06-15", 3, 5},
		{"one day today", []string{"2025-06-01", "2025-06-15"}, "2025-06-15", 1, 1},
		{"the day before yesterday alone is no current run", []string{"2025-06-13"}, "2025-06-15", 0, 1},
		{"across the year's end", []string{"2024-12-30", "2024-12-31", "2025-01-01", "2025-01-02"}, "2025-01-02", 4, 4},
		{"across a leap day", []string{"2024-02-28", "2024-02-29", "2024-03-01"}, "2024-03-02", 3, 3},
		{"not across a missing leap day", []string{"2025-02-27", "2025-02-28", "2025-03-02"}, "2025-03-02", 1, 2},
		{"a run holding today counts whole", []string{"2025-06-14", "2025-06-15", "2025-06-16"}, "2025-06-15", 3, 3},
		{"a day after today is not the current run's", []string{"2025-06-14", "2025-06-16"}, "2025-06-15", 1, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			days := make([]core.Date, len(tc.days))
			for i, s := range tc.days {
				days[i] = date(s)
			}
			got := questions.StreakOf(days, date(tc.today))
			if want := (questions.Streak{Current: tc.current, Best: tc.best}); got != want {
				t.Fatalf("got %+v, want %+v", got, want)
			}
		})
	}
}

// streakStep moves the clock to at, runs do, lets the users of answer
// answer their today's question in turn, then wants each partner's streak
// (through Streak, and in the question of their today when paired).
type streakStep struct {
	at       time.Time
	do       func(f *fixture)
	answer   []string
	ann, bob questions.Streak
}

// TestStreakRules runs couples through days of answers on the fake clock.
// ann and bob are the couple p1; dates are the daily question's (each
// partner's today in their own zone).
func TestStreakRules(t *testing.T) {
	t.Parallel()
	utc := func(s string) time.Time { return at(t, time.UTC, s) }
	ny, paris := zone(t, "America/New_York"), zone(t, "Europe/Paris")
	kiritimati, honolulu := zone(t, "Pacific/Kiritimati"), zone(t, "Pacific/Honolulu") // UTC+14, UTC-10: a date apart
	s := func(current, best int) questions.Streak { return questions.Streak{Current: current, Best: best} }
	both := []string{"ann", "bob"}
	cases := []struct {
		name         string
		annTZ, bobTZ *time.Location // nil: unset (UTC)
		steps        []streakStep
	}{
		{name: "a run of days grows by each date both answered", steps: []streakStep{
			{at: utc("2025-06-15 12:00"), ann: s(0, 0), bob: s(0, 0)},
			{at: utc("2025-06-15 12:05"), answer: both, ann: s(1, 1), bob: s(1, 1)},
			{at: utc("2025-06-16 08:00"), answer: both, ann: s(2, 2), bob: s(2, 2)},
			{at: utc("2025-06-17 21:00"), answer: both, ann: s(3, 3), bob: s(3, 3)},
		}},
		{name: "the streak is alive before today is answered by both", steps: []streakStep{
			{at: utc("2025-06-14 12:00"), answer: both, ann: s(1, 1), bob: s(1, 1)},
			{at: utc("2025-06-15 12:00"), answer: both, ann: s(2, 2), bob: s(2, 2)},
			{at: utc("2025-06-16 00:00"), ann: s(2, 2), bob: s(2, 2)},
			{at: utc("2025-06-16 12:00"), answer: []string{"ann"}, ann: s(2, 2), bob: s(2, 2)},
			{at: utc("2025-06-16 23:59"), answer: []string{"bob"}, ann: s(3, 3), bob: s(3, 3)},
		}},
		{name: "a missed day resets current and best is kept", steps: []streakStep{
			{at: utc("2025-06-13 12:00"), answer: both, ann: s(1, 1), bob: s(1, 1)},
			{at: utc("2025-06-14 12:00"), answer: both, ann: s(2, 2), bob: s(2, 2)},
			{at: utc("2025-06-15 12:00"), answer: both, ann: s(3, 3), bob: s(3, 3)},
			{at: utc("2025-06-16 12:00"), answer: []string{"ann"}, ann: s(3, 3), bob: s(3, 3)}, // one answer is no day
			{at: utc("2025-06-17 00:00"), ann: s(0, 3), bob: s(0, 3)},
			{at: utc("2025-06-17 12:00"), answer: both, ann: s(1, 3), bob: s(1, 3)},
			{at: utc("2025-06-18 12:00"), answer: both, ann: s(2, 3), bob: s(2, 3)},
			{at: utc("2025-06-20 12:00"), ann: s(0, 3), bob: s(0, 3)}, // nobody came on the 19th
		}},
		{name: "across the spring DST change (New York, a 23-hour day)", annTZ: ny, bobTZ: ny, steps: []streakStep{
			{at: at(t, ny, "2025-03-08 23:30"), answer: both, ann: s(1, 1), bob: s(1, 1)},
			{at: at(t, ny, "2025-03-09 23:30"), answer: both, ann: s(2, 2), bob: s(2, 2)}, // 23 h later
			{at: at(t, ny, "2025-03-10 00:30"), ann: s(2, 2), bob: s(2, 2)},
			{at: at(t, ny, "2025-03-10 23:30"), answer: both, ann: s(3, 3), bob: s(3, 3)},
		}},
		{name: "across the autumn DST change (Paris, a 25-hour day)", annTZ: paris, bobTZ: paris, steps: []streakStep{
			{at: at(t, paris, "2025-10-25 00:10"), answer: both, ann: s(1, 1), bob: s(1, 1)},
			{at: at(t, paris, "2025-10-26 00:10"), answer: both, ann: s(2, 2), bob: s(2, 2)},
			{at: at(t, paris, "2025-10-26 23:10"), ann: s(2, 2), bob: s(2, 2)}, // 24 h later, still the 26th
			{at: at(t, paris, "2025-10-27 00:10"), answer: both, ann: s(3, 3), bob: s(3, 3)},
		}},
		{name: "across the date line, answers near midnight: a date stays open while a partner is on it",
			annTZ: kiritimati, bobTZ: honolulu, steps: []streakStep{
				// ann's June 15 at 23:55 is bob's June 14
				{at: utc("2025-06-15 09:55"), answer: []string{"ann"}, ann: s(0, 0), bob: s(0, 0)},
				// bob's June 15 at 23:50: the date is answered by both; ann answers her June 16
				{at: utc("2025-06-16 09:50"), answer: both, ann: s(1, 1), bob: s(1, 1)},
				// ann's June 17 begins: June 16 is still bob's today, not a missed date
				{at: utc("2025-06-16 10:05"), ann: s(1, 1), bob: s(1, 1)},
				{at: utc("2025-06-17 09:59"), answer: []string{"bob"}, ann: s(2, 2), bob: s(2, 2)},
				// ann never answered her June 17; bob's June 18 begins: it has passed for both
				{at: utc("2025-06-18 10:01"), ann: s(0, 2), bob: s(0, 2)},
			}},
		{name: "a partner a date ahead may answer first, near midnight", annTZ: paris, steps: []streakStep{
			{at: utc("2025-06-14 22:30"), answer: []string{"ann"}, ann: s(0, 0), bob: s(0, 0)}, // ann's June 15, bob's June 14
			{at: utc("2025-06-15 23:30"), answer: []string{"bob"}, ann: s(1, 1), bob: s(1, 1)}, // bob's June 15, ann's June 16
			{at: utc("2025-06-15 23:40"), answer: []string{"ann"}, ann: s(1, 1), bob: s(1, 1)},
			{at: utc("2025-06-16 23:00"), answer: []string{"bob"}, ann: s(2, 2), bob: s(2, 2)},
		}},
		{name: "days before the partnership do not count; after unpairing it is history", steps: []streakStep{
			{at: utc("2025-06-14 12:00"), answer: both, ann: s(1, 1), bob: s(1, 1)},
			{at: utc("2025-06-15 12:00"), answer: both, ann: s(2, 2), bob: s(2, 2)},
			{at: utc("2025-06-15 13:00"), do: func(f *fixture) { f.couples.Unpair("ann", "bob") }, ann: s(0, 0), bob: s(0, 0)},
			// the same two pair again: a new partnership, starting at 0
			{at: utc("2025-06-15 14:00"), do: func(f *fixture) { f.couples.PairAs("p2", "ann", "bob") }, ann: s(0, 0), bob: s(0, 0)},
			{at: utc("2025-06-15 15:00"), answer: both, ann: s(1, 1), bob: s(1, 1)},
			{at: utc("2025-06-16 12:00"), answer: both, ann: s(2, 2), bob: s(2, 2)},
			{at: utc("2025-06-17 12:00"), answer: both, ann: s(3, 3), bob: s(3, 3)},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			f := newFixture(t)
			if tc.annTZ != nil {
				f.zones.Set("ann", tc.annTZ)
			}
			if tc.bobTZ != nil {
				f.zones.Set("bob", tc.bobTZ)
			}
			for i, st := range tc.steps {
				f.clock.Set(st.at)
				if st.do != nil {
					st.do(f)
				}
				var last questions.View
				for _, u := range st.answer {
					last = f.act(t, u, answer(u+"'s answer"))
				}
				want := map[string]questions.Streak{"ann": st.ann, "bob": st.bob}
				for _, u := range []string{"ann", "bob"} {
					got, err := f.svc.Streak(ctx, u)
					if err != nil || got != want[u] {
						t.Fatalf("step %d (%s): %s's streak %+v (%v), want %+v", i, st.at.UTC().Format(time.DateTime), u, got, err, want[u])
					}
					if _, _, paired, _ := f.couples.PartnershipOf(ctx, u); paired {
						if v := f.today(t, u); v.Streak != want[u] {
							t.Fatalf("step %d: %s's question of %s carries %+v", i, u, v.Daily.Date, v.Streak)
						}
					}
				}
				if n := len(st.answer); n > 0 && last.Streak != want[st.answer[n-1]] {
					t.Fatalf("step %d: the answer's view carries %+v", i, last.Streak)
				}
			}
		})
	}
}

// TestStreakKeepsEachPartnershipApart: a partner's new couple starts at 0
// and never shows the old couple's streak, which stays with its answers.
func TestStreakKeepsEachPartnershipApart(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	for range 3 {
		f.act(t, "ann", answer("with bob"))
		f.act(t, "bob", answer("with ann"))
		f.clock.Advance(24 * time.Hour)
	}
	f.couples.Unpair("ann", "bob")
	f.couples.PairAs("p2", "ann", "cid")
	f.act(t, "ann", answer("with cid"))
	f.act(t, "cid", answer("with ann"))
	for u, want := range map[string]questions.Streak{"ann": {Current: 1, Best: 1}, "cid": {Current: 1, Best: 1}, "bob": {}, "cat": {}} {
		if got, err := f.svc.Streak(ctx, u); err != nil || got != want {
			t.Fatalf("%s: %+v %v, want %+v", u, got, err, want)
		}
	}
	if old, err := f.repo.AnsweredByBoth(ctx, "p1"); err != nil || len(old) != 3 {
		t.Fatalf("the old couple's days: %v %v", old, err)
	}
}

// TestStreakErrors: the lookups' failures are the streak's; unpaired is no error.
func TestStreakErrors(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	if got, err := f.svc.Streak(ctx, "ghost"); err != nil || got != (questions.Streak{}) {
		t.Fatalf("an unknown user without a partner: %+v %v", got, err)
	}
	f.couples.PairAs("p3", "cat", "ghost") // the partner's timezone cannot be read
	_, err := f.svc.Streak(ctx, "cat")
	if !core.IsKind(err, core.KindNotFound) {
		t.Fatalf("the partner's lookup failed: %v", err)
	}
}

// at is the wall-clock time s ("YYYY-MM-DD HH:MM") in loc.
func at(t *testing.T, loc *time.Location, s string) time.Time {
	t.Helper()
	v, err := time.ParseInLocation("2006-01-02 15:04", s, loc)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
