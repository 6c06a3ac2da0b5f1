package storetest

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"tandem/modules/moods"
)

// MoodRepository checks a moods.Repository implementation.
func MoodRepository(t *testing.T, newRepo func(t *testing.T) moods.Repository) {
	s := moodSuite{newRepo: newRepo}
	t.Run("put a new mood and read back every field", s.putAndRead)
	t.Run("a second put of the day replaces the mood, keeping its id and creation", s.putReplaces)
	t.Run("range: inclusive bounds, by date, one user, within a partnership on demand", s.moodRange)
	t.Run("on: each key's own day, within its partnership on demand, in one read", s.on)
	t.Run("concurrent puts of one day leave one mood", s.concurrentPuts)
	t.Run("delete by user is idempotent and touches only the user", s.deleteUser)
}

// moodSuite holds MoodRepository's helpers and subtests.
type moodSuite struct {
	newRepo func(t *testing.T) moods.Repository
}

func (moodSuite) mood(id, user, day string, level moods.Level) moods.Mood {
	return moods.Mood{ID: id, UserID: user, Date: date(day), Level: level, Note: "note " + id, CreatedAt: now, UpdatedAt: now}
}

func (moodSuite) put(t *testing.T, r moods.Repository, ms ...moods.Mood) {
	t.Helper()
	for _, m := range ms {
		if _, err := r.Put(ctx, m, nil); err != nil {
			t.Fatal(err)
		}
	}
}

// ids lists ms as "id@date" in order.
func (moodSuite) ids(ms []moods.Mood) string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.ID + "@" + m.Date.String()
	}
	return strings.Join(out, ",")
}

func (moodSuite) rangeOf(t *testing.T, r moods.Repository, user, partnership, from, to string) []moods.Mood {
	t.Helper()
	ms, err := r.Range(ctx, user, partnership, date(from), date(to))
	must(t, err)
	return ms
}

func (s moodSuite) putAndRead(t *testing.T) {
	r := s.newRepo(t)
	want := moods.Mood{ID: "m1", UserID: "u1", Date: date("2025-06-15"), Level: moods.Awful,
		Note: strings.Repeat("ü", moods.MaxNote-2) + "\n😔", PartnershipID: "p1",
		CreatedAt: time.UnixMilli(1749988800123).UTC(), UpdatedAt: time.UnixMilli(1749988800456).UTC()}
	got, err := r.Put(ctx, want, nil)
	must(t, err)
	if got != want {
		t.Fatalf("put returned %+v", got)
	}
	if all := s.rangeOf(t, r, "u1", "", "2025-06-15", "2025-06-15"); len(all) != 1 || all[0] != want {
		t.Fatalf("read back %+v", all)
	}
	empty := moods.Mood{ID: "m2", UserID: "u2", Date: date("2025-06-15"), Level: moods.Okay, CreatedAt: now, UpdatedAt: now}
	got, err = r.Put(ctx, empty, nil)
	must(t, err)
	if all := s.rangeOf(t, r, "u2", "", "2025-06-15", "2025-06-15"); got != empty || len(all) != 1 || all[0] != empty {
		t.Fatalf("no note, no partnership: %+v then %+v", got, all)
	}
}

func (s moodSuite) putReplaces(t *testing.T) {
	r := s.newRepo(t)
	first := s.mood("m1", "u1", "2025-06-15", moods.Low)
	first.PartnershipID = "p1"
	s.put(t, r, first, s.mood("o1", "u1", "2025-06-14", moods.Good), s.mood("o2", "u2", "2025-06-15", moods.Good))
	later := now.Add(3 * time.Hour)
	again := moods.Mood{ID: "m2", UserID: "u1", Date: date("2025-06-15"), Level: moods.Great, Note: "",
		PartnershipID: "", CreatedAt: later, UpdatedAt: later}
	var made moods.Mood // what the put hands over before it commits
	got, err := r.Put(ctx, again, func(m moods.Mood) { made = m })
	must(t, err)
	want := again
	want.ID, want.CreatedAt = "m1", now
	if got != want || made != want {
		t.Fatalf("put returned %+v, made %+v, want %+v", got, made, want)
	}
	all := s.rangeOf(t, r, "u1", "", "2025-06-01", "2025-06-30")
	if s.ids(all) != "o1@2025-06-14,m1@2025-06-15" || all[1] != want {
		t.Fatalf("stored %+v", all)
	}
	if other := s.rangeOf(t, r, "u2", "", "2025-06-15", "2025-06-15"); s.ids(other) != "o2@2025-06-15" || other[0].Level != moods.Good {
		t.Fatalf("another user's day changed: %+v", other)
	}
}

func (s moodSuite) moodRange(t *testing.T) {
	r := s.newRepo(t)
	in := func(m moods.Mood, p string) moods.Mood { m.PartnershipID = p; return m }
	s.put(t, r,
		in(s.mood("a3", "u1", "2025-03-03", moods.Good), "p2"),
		in(s.mood("a1", "u1", "2025-03-01", moods.Good), ""),
		in(s.mood("a4", "u1", "2025-03-04", moods.Good), "p2"),
		in(s.mood("a2", "u1", "2025-03-02", moods.Good), "p1"),
		in(s.mood("a0", "u1", "2025-02-28", moods.Good), "p2"),
		in(s.mood("b2", "u2", "2025-03-02", moods.Good), "p2"))
	cases := []struct{ partnership, from, to, want string }{
		{"", "2025-03-01", "2025-03-03", "a1@2025-03-01,a2@2025-03-02,a3@2025-03-03"},
		{"", "2025-03-02", "2025-03-02", "a2@2025-03-02"},
		{"", "2025-01-01", "2025-12-31", "a0@2025-02-28,a1@2025-03-01,a2@2025-03-02,a3@2025-03-03,a4@2025-03-04"},
		{"", "2025-03-05", "2025-04-01", ""},
		{"p2", "2025-01-01", "2025-12-31", "a0@2025-02-28,a3@2025-03-03,a4@2025-03-04"},
		{"p2", "2025-03-01", "2025-03-03", "a3@2025-03-03"},
		{"p1", "2025-03-03", "2025-03-04", ""},
		{"nope", "2025-01-01", "2025-12-31", ""},
	}
	for _, tc := range cases {
		if got := s.ids(s.rangeOf(t, r, "u1", tc.partnership, tc.from, tc.to)); got != tc.want {
			t.Errorf("%q %s..%s: %s, want %s", tc.partnership, tc.from, tc.to, got, tc.want)
		}
	}
	if got := s.ids(s.rangeOf(t, r, "nobody", "", "2025-01-01", "2025-12-31")); got != "" {
		t.Fatalf("nobody has %s", got)
	}
}

func (s moodSuite) on(t *testing.T) {
	r := s.newRepo(t)
	mine := s.mood("m1", "u1", "2025-06-15", moods.Good)
	theirs := s.mood("t1", "u2", "2025-06-14", moods.Low) // the partner's today is a day behind
	theirs.PartnershipID = "p1"
	before := s.mood("t0", "u2", "2025-06-13", moods.Great)
	before.PartnershipID = "p0" // an earlier partnership's
	s.put(t, r, mine, theirs, before, s.mood("x1", "u3", "2025-06-15", moods.Awful))
	got, err := r.On(ctx, []moods.DayKey{{UserID: "u1", Date: date("2025-06-15")},
		{UserID: "u2", PartnershipID: "p1", Date: date("2025-06-14")}})
	must(t, err)
	if len(got) != 2 || (got[0] != mine && got[1] != mine) || (got[0] != theirs && got[1] != theirs) {
		t.Fatalf("on: %s", s.ids(got))
	}
	got, err = r.On(ctx, []moods.DayKey{{UserID: "u2", PartnershipID: "p1", Date: date("2025-06-13")},
		{UserID: "u1", Date: date("2025-06-14")}})
	must(t, err)
	if len(got) != 0 {
		t.Fatalf("another partnership's mood or another day: %s", s.ids(got))
	}
}

func (s moodSuite) concurrentPuts(t *testing.T) {
	r := s.newRepo(t)
	var wg sync.WaitGroup
	got := make([]moods.Mood, 8)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m, err := r.Put(ctx, s.mood(fmt.Sprintf("m%d", i), "u1", "2025-06-15", moods.Levels[i%len(moods.Levels)]), nil)
			if err != nil {
				t.Error(err)
			}
			got[i] = m
		}()
	}
	wg.Wait()
	all := s.rangeOf(t, r, "u1", "", "2025-06-15", "2025-06-15")
	if len(all) != 1 {
		t.Fatalf("%d moods stored: %+v", len(all), all)
	}
	for i, m := range got {
		if m.ID != all[0].ID {
			t.Fatalf("put %d answered id %s, stored %s", i, m.ID, all[0].ID)
		}
	}
}

func (s moodSuite) deleteUser(t *testing.T) {
	r := s.newRepo(t)
	s.put(t, r, s.mood("m1", "u1", "2025-06-14", moods.Good), s.mood("m2", "u1", "2025-06-15", moods.Good),
		s.mood("m3", "u2", "2025-06-15", moods.Good))
	must(t, r.DeleteByUser(ctx, "u1"))
	must(t, r.DeleteByUser(ctx, "u1"))
	if left := s.rangeOf(t, r, "u1", "", "2025-01-01", "2025-12-31"); len(left) != 0 {
		t.Fatalf("left %s", s.ids(left))
	}
	if other := s.rangeOf(t, r, "u2", "", "2025-01-01", "2025-12-31"); s.ids(other) != "m3@2025-06-15" {
		t.Fatalf("u2 has %s", s.ids(other))
	}
	s.put(t, r, s.mood("m4", "u1", "2025-06-15", moods.Good))
	if again := s.rangeOf(t, r, "u1", "", "2025-06-15", "2025-06-15"); s.ids(again) != "m4@2025-06-15" {
		t.Fatalf("after the purge %s", s.ids(again))
	}
}
