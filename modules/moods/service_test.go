package moods_test

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
	"tandem/modules/moods"
	"tandem/modules/throttle"
)

// fixture is a Service on the memory repository, fake timezones and
// couples, recording notifier and bus, a fixed clock (2025-06-15 12:00 UTC)
// and sequential ids.
type fixture struct {
	svc      *moods.Service
	repo     *memory.MoodRepo
	zones    *coretest.Zones
	couples  *coretest.Couples
	notified *coretest.Activities
	bus      *coretest.Events
	clock    *coretest.FixedClock
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{repo: memory.NewMoodRepo(), zones: coretest.NewZones(), couples: coretest.NewCouples(),
		notified: &coretest.Activities{}, bus: &coretest.Events{}, clock: coretest.NewClock(time.Time{})}
	f.svc = moods.NewService(f.repo, f.zones, f.couples, f.notified, f.bus, limiter(f.clock), moods.Settings{}, f.clock,
		&coretest.SeqIDs{})
	return f
}

// limiter is the real limiter over memory counters, on clock.
func limiter(clock core.Clock) core.Limiter {
	return throttle.NewLimiter(memory.NewThrottleRepo(), clock)
}

var ctx = context.Background()

func (f *fixture) checkIn(t *testing.T, user string, level moods.Level, note string) moods.Mood {
	t.Helper()
	m, err := f.svc.CheckIn(ctx, user, moods.Draft{Mood: string(level), Note: note})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// list lists as user (default range) and returns "user:date:mood" items.
func (f *fixture) list(t *testing.T, user string, q moods.Query) []string {
	t.Helper()
	l, err := f.svc.List(ctx, user, q)
	if err != nil {
		t.Fatal(err)
	}
	out := []string{}
	for _, m := range l.Moods {
		out = append(out, m.UserID+":"+m.Date.String()+":"+string(m.Level))
	}
	return out
}

func (f *fixture) stored(t *testing.T, user string) []moods.Mood {
	t.Helper()
	ms, err := f.repo.Range(ctx, user, "", moods.MinDate, moods.MaxDate)
	if err != nil {
		t.Fatal(err)
	}
	return ms
}

func tokyo(t *testing.T) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation("Asia/Tokyo")
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

func TestCheckInValidation(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name        string
		draft       moods.Draft
		wantNote    string
		wantMessage string // "" when valid
	}{
		{name: "mood only", draft: moods.Draft{Mood: "good"}},
		{name: "note trimmed", draft: moods.Draft{Mood: "low", Note: "  long day\nat work \n"}, wantNote: "long day\nat work"},
		{name: "note of 280 characters", draft: moods.Draft{Mood: "okay", Note: strings.Repeat("é", 280)},
			wantNote: strings.Repeat("é", 280)},
		{name: "note of 281 characters", draft: moods.Draft{Mood: "okay", Note: strings.Repeat("é", 281)},
			wantMessage: "note must be at most 280 characters"},
		{name: "mood missing", draft: moods.Draft{Note: "hi"}, wantMessage: "mood is required: great, good, okay, low or awful"},
		{name: "mood unknown", draft: moods.Draft{Mood: "ecstatic"}, wantMessage: "mood must be one of great, good, okay, low or awful"},
		{name: "mood with spaces", draft: moods.Draft{Mood: " good"}, wantMessage: "mood must be one of great, good, okay, low or awful"},
		{name: "note with a control character", draft: moods.Draft{Mood: "good", Note: "a\x00b"},
			wantMessage: "note must not contain control characters other than tab and newline"},
		{name: "note with a bidi override", draft: moods.Draft{Mood: "good", Note: "a\u202eb"},
			wantMessage: "note must not contain bidirectional override or isolate characters"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			m, err := f.svc.CheckIn(ctx, "u1", tc.draft)
			if tc.wantMessage != "" {
				coretest.WantErrMessage(t, err, core.KindInvalid, "invalid_request", tc.wantMessage)
				if s := f.stored(t, "u1"); len(s) != 0 {
					t.Fatalf("stored %+v", s)
				}
				return
			}
			want := moods.Mood{ID: "id-1", UserID: "u1", Level: moods.Level(tc.draft.Mood), Note: tc.wantNote,
				Date: day(t, "2025-06-15"), CreatedAt: f.clock.Now(), UpdatedAt: f.clock.Now()}
			if err != nil || m != want {
				t.Fatalf("got %+v, %v", m, err)
			}
			if s := f.stored(t, "u1"); len(s) != 1 || s[0] != want {
				t.Fatalf("stored %+v", s)
			}
		})
	}
}

// TestSameDayReplaces: the day's second check-in replaces the first in
// place (same id and createdAt; the note is the new one's, none clears
// it), and each is announced and told to the partner.
func TestSameDayReplaces(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.couples.Pair("ann", "bob")
	first := f.checkIn(t, "ann", moods.Low, "tired")
	created := f.clock.Now()
	f.clock.Advance(5 * time.Hour) // 17:00 UTC, still 2025-06-15
	second := f.checkIn(t, "ann", moods.Great, "")
	want := moods.Mood{ID: first.ID, UserID: "ann", Level: moods.Great, Date: day(t, "2025-06-15"), PartnershipID: "p-ann-bob",
		CreatedAt: created, UpdatedAt: f.clock.Now()}
	if second != want {
		t.Fatalf("second check-in %+v, want %+v", second, want)
	}
	if s := f.stored(t, "ann"); len(s) != 1 || s[0] != want {
		t.Fatalf("stored %+v", s)
	}
	f.bus.WantLive(t,
		core.Live{Type: moods.LiveCreated, For: map[string]any{"ann": first, "bob": first}},
		core.Live{Type: moods.LiveUpdated, For: map[string]any{"ann": second, "bob": second}})
	if got := f.notified.Take(); !slices.Equal(got, []string{"bob<-ann:moodShared", "bob<-ann:moodShared"}) {
		t.Fatalf("notified %q", got)
	}
}

// TestDayIsTheUsersOwn: the day of a check-in is the date in the user's
// timezone: at 14:30 UTC it is 23:30 in Tokyo, and an hour later a new
// Tokyo day begins while London's (UTC) goes on.
func TestDayIsTheUsersOwn(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.zones.Set("tokyo", tokyo(t))
	f.clock.Set(time.Date(2025, 6, 15, 14, 30, 0, 0, time.UTC))
	t1 := f.checkIn(t, "tokyo", moods.Good, "")
	u1 := f.checkIn(t, "utc", moods.Good, "")
	f.clock.Advance(time.Hour) // 00:30 on the 16th in Tokyo, 15:30 on the 15th in UTC
	t2 := f.checkIn(t, "tokyo", moods.Low, "")
	u2 := f.checkIn(t, "utc", moods.Low, "")
	if t1.Date.String() != "2025-06-15" || t2.Date.String() != "2025-06-16" || t1.ID == t2.ID {
		t.Fatalf("tokyo: %+v then %+v", t1, t2)
	}
	if u1.Date.String() != "2025-06-15" || u2.Date.String() != "2025-06-15" || u1.ID != u2.ID {
		t.Fatalf("utc: %+v then %+v", u1, u2)
	}
	if got := f.list(t, "tokyo", moods.Query{}); !slices.Equal(got, []string{"tokyo:2025-06-15:good", "tokyo:2025-06-16:low"}) {
		t.Fatalf("tokyo lists %q", got)
	}
	// Tokyo's default range ends at its own today
	l, err := f.svc.List(ctx, "tokyo", moods.Query{})
	if err != nil || l.Span.From.String() != "2025-05-18" || l.Span.To.String() != "2025-06-16" {
		t.Fatalf("span %+v %v", l.Span, err)
	}
}

// TestPartnerVisibility: a couple lists both partners' moods; after
// unpairing neither sees the other's; a new partner sees only what was
// checked in since the two paired; a stranger is never listed.
func TestPartnerVisibility(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.clock.Set(time.Date(2025, 6, 10, 12, 0, 0, 0, time.UTC))
	f.checkIn(t, "cat", moods.Awful, "before anyone") // cat alone on the 10th
	f.couples.Pair("ann", "bob")
	f.checkIn(t, "ann", moods.Good, "")
	f.checkIn(t, "bob", moods.Okay, "")
	f.checkIn(t, "eve", moods.Great, "a stranger")
	f.clock.Advance(24 * time.Hour) // the 11th
	f.checkIn(t, "bob", moods.Low, "")
	f.notified.Take()

	all := moods.Query{From: "2025-06-01", To: "2025-06-30"}
	if got := f.list(t, "ann", all); !slices.Equal(got, []string{"ann:2025-06-10:good", "bob:2025-06-10:okay", "bob:2025-06-11:low"}) {
		t.Fatalf("ann lists %q", got)
	}
	if got := f.list(t, "bob", all); !slices.Equal(got, []string{"bob:2025-06-10:okay", "ann:2025-06-10:good", "bob:2025-06-11:low"}) {
		t.Fatalf("bob lists %q", got)
	}
	if got := f.list(t, "eve", all); !slices.Equal(got, []string{"eve:2025-06-10:great"}) {
		t.Fatalf("eve lists %q", got)
	}

	// unpaired: each their own only, and a check-in tells nobody
	f.couples.Unpair("ann", "bob")
	if got := f.list(t, "ann", all); !slices.Equal(got, []string{"ann:2025-06-10:good"}) {
		t.Fatalf("ann after unpairing lists %q", got)
	}
	f.checkIn(t, "bob", moods.Great, "over it")
	if got := f.list(t, "ann", all); !slices.Equal(got, []string{"ann:2025-06-10:good"}) {
		t.Fatalf("ann sees the ex's new mood: %q", got)
	}
	if got := f.notified.Take(); len(got) != 0 {
		t.Fatalf("notified %q", got)
	}

	// bob pairs with cat: cat's mood of the 10th, and bob's of the
	// partnership with ann (the 11th, replaced since), stay theirs
	f.couples.Pair("bob", "cat")
	if got := f.list(t, "bob", all); !slices.Equal(got, []string{"bob:2025-06-10:okay", "bob:2025-06-11:great"}) {
		t.Fatalf("bob lists %q", got)
	}
	if got := f.list(t, "cat", all); !slices.Equal(got, []string{"cat:2025-06-10:awful"}) {
		t.Fatalf("cat lists %q", got)
	}
	f.checkIn(t, "bob", moods.Good, "") // the 11th again: now within the new partnership
	if got := f.list(t, "cat", all); !slices.Equal(got, []string{"cat:2025-06-10:awful", "bob:2025-06-11:good"}) {
		t.Fatalf("cat lists %q", got)
	}
	if got := f.notified.Take(); !slices.Equal(got, []string{"cat<-bob:moodShared"}) {
		t.Fatalf("notified %q", got)
	}
}

// TestToday: the home screen's pair of moods, each of its owner's today.
func TestToday(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.zones.Set("ann", tokyo(t))
	f.clock.Set(time.Date(2025, 6, 15, 14, 30, 0, 0, time.UTC)) // 23:30 in Tokyo
	mine, partner, err := f.svc.Today(ctx, "ann")
	if err != nil || mine != nil || partner != nil {
		t.Fatalf("nothing yet: %v %v %v", mine, partner, err)
	}
	annM := f.checkIn(t, "ann", moods.Good, "")
	bobBefore := f.checkIn(t, "bob", moods.Low, "before pairing")
	mine, partner, err = f.svc.Today(ctx, "ann")
	if err != nil || mine == nil || *mine != annM || partner != nil {
		t.Fatalf("unpaired: %v %v %v", mine, partner, err)
	}

	f.couples.Pair("ann", "bob")
	if _, partner, _ = f.svc.Today(ctx, "ann"); partner != nil {
		t.Fatalf("a mood of before the pairing: %+v", partner)
	}
	bobM := f.checkIn(t, "bob", moods.Great, "")
	if bobM.ID != bobBefore.ID {
		t.Fatalf("same day, new id: %+v", bobM)
	}
	mine, partner, err = f.svc.Today(ctx, "ann")
	if err != nil || mine == nil || *mine != annM || partner == nil || *partner != bobM {
		t.Fatalf("paired: %v %v %v", mine, partner, err)
	}

	// an hour later Tokyo's 16th has begun: ann's today is empty, bob's (UTC) is not
	f.clock.Advance(time.Hour)
	mine, partner, err = f.svc.Today(ctx, "ann")
	if err != nil || mine != nil || partner == nil || *partner != bobM {
		t.Fatalf("ann's new day: %v %v %v", mine, partner, err)
	}
	mine, partner, err = f.svc.Today(ctx, "bob")
	if err != nil || mine == nil || *mine != bobM || partner != nil {
		t.Fatalf("bob's side: %v %v %v", mine, partner, err)
	}
}

func TestUnknownUser(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.zones.Unknown("ghost")
	_, err := f.svc.CheckIn(ctx, "ghost", moods.Draft{Mood: "good"})
	coretest.WantErr(t, err, core.KindNotFound, "user_not_found")
	_, err = f.svc.List(ctx, "ghost", moods.Query{})
	coretest.WantErr(t, err, core.KindNotFound, "user_not_found")
	_, err = f.svc.CheckIn(ctx, " ", moods.Draft{Mood: "good"})
	coretest.WantErrMessage(t, err, core.KindInvalid, "invalid_request", "userId is required")
}

func TestExportAndPurge(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.couples.Pair("ann", "bob")
	a1 := f.checkIn(t, "ann", moods.Good, "one")
	f.clock.Advance(24 * time.Hour)
	a2 := f.checkIn(t, "ann", moods.Low, "two")
	f.checkIn(t, "bob", moods.Great, "")
	if f.svc.Section() != "moods" {
		t.Fatal(f.svc.Section())
	}
	got, err := f.svc.ExportUser(ctx, "ann")
	if ms, ok := got.([]moods.Mood); err != nil || !ok || !slices.Equal(ms, []moods.Mood{a1, a2}) {
		t.Fatalf("export %+v %v", got, err)
	}
	if err := f.svc.PurgeUser(ctx, "ann"); err != nil {
		t.Fatal(err)
	}
	if err := f.svc.PurgeUser(ctx, "ann"); err != nil {
		t.Fatal(err)
	}
	got, err = f.svc.ExportUser(ctx, "ann")
	if ms, ok := got.([]moods.Mood); err != nil || !ok || ms == nil || len(ms) != 0 {
		t.Fatalf("after the purge %+v %v", got, err)
	}
	if s := f.stored(t, "bob"); len(s) != 1 {
		t.Fatalf("bob's moods: %+v", s)
	}
}

// TestCheckInSpendsTheWriteBudget: check-ins, the ones that replace the
// day's mood too, are bounded per user by the minute and by the day; a
// refused one changes and announces nothing, and an invalid one spends
// nothing.
func TestCheckInSpendsTheWriteBudget(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.svc = moods.NewService(f.repo, f.zones, f.couples, f.notified, f.bus, limiter(f.clock),
		moods.Settings{Budget: coretest.SmallBudget("moods")}, f.clock, &coretest.SeqIDs{})
	f.couples.Pair("ann", "cat")
	for range 5 { // refused before the budget: spends none of it
		_, err := f.svc.CheckIn(ctx, "ann", moods.Draft{Mood: "ecstatic"})
		coretest.WantErr(t, err, core.KindInvalid, "invalid_request")
	}
	coretest.CheckWriteBudget(t, f.clock, func(user string, n int) error {
		_, err := f.svc.CheckIn(ctx, user, moods.Draft{Mood: "good", Note: fmt.Sprint("note ", n)})
		return err
	}, func(user string) string { return fmt.Sprint(f.stored(t, user), len(f.bus.All())) })
}

// The partner's change of a check-in is read through the partnership, so a
// store records none after an unpair; the owner's is their own.
func TestCheckInChangeIsThePartnersThroughThePartnership(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.couples.Pair("ann", "bob")
	f.checkIn(t, "ann", moods.Great, "")
	if got, want := f.bus.Through(), []string{"ann mood -", "bob mood p-ann-bob"}; !slices.Equal(got, want) {
		t.Errorf("%v, want %v", got, want)
	}
}
