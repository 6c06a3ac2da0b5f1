package memories_test

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
	"tandem/modules/memories"
	"tandem/modules/throttle"
)

// fixture is a Service on memory fakes with a fixed clock (2025-06-15 12:00
// UTC), sequential ids (id-1, id-2, ...) and a recording notifier.
type fixture struct {
	svc      *memories.Service
	repo     *memory.MemoryRepo
	partners *coretest.Couples
	notes    *notes
	bus      *coretest.Events
	clock    *coretest.FixedClock
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{repo: memory.NewMemoryRepo(), partners: coretest.NewCouples(), notes: &notes{},
		bus: &coretest.Events{}, clock: coretest.NewClock(time.Time{})}
	f.svc = memories.NewService(f.repo, f.partners, f.notes, &maxMemories{}, settings, f.bus, limiter(f.clock), f.clock,
		&coretest.SeqIDs{})
	return f
}

// limiter is the real limiter over memory counters, on clock.
func limiter(clock core.Clock) core.Limiter {
	return throttle.NewLimiter(memory.NewThrottleRepo(), clock)
}

// unbounded lifts the fixture's write budget, for a test whose set-up
// creates more memories than a day's budget.
func (f *fixture) unbounded() {
	s := settings
	s.Budget = core.WriteBudget{Kind: "memories", PerMinute: 1 << 30, PerDay: 1 << 30}
	f.svc = memories.NewService(f.repo, f.partners, f.notes, &maxMemories{}, s, f.bus, limiter(f.clock), f.clock, &coretest.SeqIDs{})
}

// create stores a memory of user on day and returns it; the clock moves on a
// millisecond so creation times differ.
func (f *fixture) create(t *testing.T, user, title, day string) memories.Memory {
	t.Helper()
	m, err := f.svc.Create(context.Background(), user, memories.Draft{Title: title, Date: day})
	if err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(time.Millisecond)
	return m
}

func (f *fixture) stored(t *testing.T, user string) []memories.Memory {
	t.Helper()
	ms, _, err := f.repo.List(context.Background(), user, memories.AllDates, core.Page{})
	if err != nil {
		t.Fatal(err)
	}
	return ms
}

func titles(ms []memories.Memory) string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.Title
	}
	return strings.Join(out, ",")
}

func TestCreateRules(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ok := func(edit func(d *memories.Draft)) memories.Draft {
		d := memories.Draft{Title: "Beach", Date: "2025-06-01"}
		edit(&d)
		return d
	}
	cases := []struct {
		name  string
		draft memories.Draft
		code  string // "" when accepted
		msg   string
		check func(t *testing.T, m memories.Memory)
	}{
		{name: "only title and date: no description, no images", draft: ok(func(*memories.Draft) {}),
			check: func(t *testing.T, m memories.Memory) {
				if m.Title != "Beach" || m.Description != "" || m.Date != date(t, "2025-06-01") || m.Images == nil || len(m.Images) != 0 {
					t.Fatalf("stored %+v", m)
				}
			}},
		{name: "every field, trimmed", draft: memories.Draft{Title: "  First trip ", Description: " snow \n",
			Date: " 2024-02-29 ", Images: []string{img("u/a.jpg"), " " + img("u/b.png"), img("u/a.jpg")}},
			check: func(t *testing.T, m memories.Memory) {
				if m.Title != "First trip" || m.Description != "snow" || m.Date != date(t, "2024-02-29") ||
					!slices.Equal(m.Images, []string{img("u/a.jpg"), img("u/b.png")}) {
					t.Fatalf("stored %+v", m)
				}
			}},
		{name: "today", draft: ok(func(d *memories.Draft) { d.Date = "2025-06-15" }), check: func(*testing.T, memories.Memory) {}},
		{name: "tomorrow (already today east of UTC)", draft: ok(func(d *memories.Draft) { d.Date = "2025-06-16" }),
			check: func(*testing.T, memories.Memory) {}},
		{name: "title of 200 characters", draft: ok(func(d *memories.Draft) { d.Title = strings.Repeat("é", 200) }),
			check: func(*testing.T, memories.Memory) {}},
		{name: "description of 5000", draft: ok(func(d *memories.Draft) { d.Description = strings.Repeat("d", 5000) }),
			check: func(*testing.T, memories.Memory) {}},
		{name: "no title", draft: ok(func(d *memories.Draft) { d.Title = "" }), code: "invalid_request", msg: "title is required"},
		{name: "blank title", draft: ok(func(d *memories.Draft) { d.Title = " \t " }), code: "invalid_request", msg: "title is required"},
		{name: "title of 201", draft: ok(func(d *memories.Draft) { d.Title = strings.Repeat("t", 201) }), code: "invalid_request",
			msg: "title must be at most 200 characters"},
		{name: "description of 5001", draft: ok(func(d *memories.Draft) { d.Description = strings.Repeat("d", 5001) }),
			code: "invalid_request", msg: "description must be at most 5000 characters"},
		{name: "no date", draft: ok(func(d *memories.Draft) { d.Date = "" }), code: "invalid_request", msg: "date is required (YYYY-MM-DD)"},
		{name: "impossible date", draft: ok(func(d *memories.Draft) { d.Date = "2025-02-30" }), code: "invalid_date",
			msg: "date must be a date in the form YYYY-MM-DD"},
		{name: "not a date", draft: ok(func(d *memories.Draft) { d.Date = "yesterday" }), code: "invalid_date",
			msg: "date must be a date in the form YYYY-MM-DD"},
		{name: "before 1900", draft: ok(func(d *memories.Draft) { d.Date = "1899-12-31" }), code: "invalid_date",
			msg: "date must be between 1900-01-01 and 9999-12-31"},
		{name: "the day after tomorrow", draft: ok(func(d *memories.Draft) { d.Date = "2025-06-17" }), code: "invalid_date",
			msg: "date must not be in the future"},
		{name: "21 images", draft: ok(func(d *memories.Draft) { d.Images = make([]string, 21) }), code: "invalid_request",
			msg: "images may hold at most 20 addresses"},
		{name: "an image elsewhere", draft: ok(func(d *memories.Draft) { d.Images = []string{"https://tracker.example/p.gif"} }),
			code: "invalid_request", msg: "images must be addresses of uploaded images (https://tandem.example/files/...)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			m, err := f.svc.Create(ctx, "u1", tc.draft)
			if tc.code != "" {
				coretest.WantErr(t, err, core.KindInvalid, tc.code)
				if core.As(err).Message != tc.msg {
					t.Fatalf("message %q", core.As(err).Message)
				}
				if n := len(f.stored(t, "u1")); n != 0 {
					t.Fatalf("%d memories written", n)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			now := f.clock.Now()
			if m.ID != "id-1" || m.UserID != "u1" || !m.CreatedAt.Equal(now) || !m.UpdatedAt.Equal(now) {
				t.Fatalf("created %+v", m)
			}
			tc.check(t, m)
			got, err := f.svc.Get(ctx, "u1", m.ID)
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, got)
			kept, err := f.repo.Get(ctx, "u1", m.ID) // keys, not addresses: they move with the deployment
			if err != nil || len(kept.Images) != len(m.Images) {
				t.Fatalf("stored %+v %v", kept, err)
			}
			for i, key := range kept.Images {
				if settings.FilesURL()+key != m.Images[i] {
					t.Fatalf("stored %q for %q, want its key", key, m.Images[i])
				}
			}
		})
	}
	f := newFixture(t)
	_, err := f.svc.Create(ctx, " ", memories.Draft{Title: "t", Date: "2025-01-01"})
	coretest.WantErr(t, err, core.KindInvalid, "invalid_request")
}

func TestUpdateRules(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := func(v string) *string { return &v }
	cases := []struct {
		name      string
		patch     memories.Patch
		otherUser bool
		id        string // "" for the seeded memory
		kind      core.Kind
		msg       string // "" when accepted
		title     string
		desc      string
	}{
		{name: "title only", patch: memories.Patch{Title: s(" Renamed ")}, title: "Renamed", desc: "seed text"},
		{name: "description only", patch: memories.Patch{Description: s(" new words ")}, title: "Seed", desc: "new words"},
		{name: "both", patch: memories.Patch{Title: s("T"), Description: s("D")}, title: "T", desc: "D"},
		{name: "clearing the description", patch: memories.Patch{Description: s("")}, title: "Seed", desc: ""},
		{name: "nothing", patch: memories.Patch{}, kind: core.KindInvalid, msg: "send title and/or description to change"},
		{name: "a date", patch: memories.Patch{Title: s("T"), Date: s("2025-01-01")}, kind: core.KindInvalid,
			msg: "date and images cannot be changed: send title and/or description"},
		{name: "images", patch: memories.Patch{Title: s("T"), Images: &[]string{}}, kind: core.KindInvalid,
			msg: "date and images cannot be changed: send title and/or description"},
		{name: "the whole record back, date and images unchanged", patch: memories.Patch{Title: s("T"), Description: s("D"),
			Date: s("2025-06-01"), Images: &[]string{img("a.jpg")}}, title: "T", desc: "D"},
		{name: "a blank title", patch: memories.Patch{Title: s("  ")}, kind: core.KindInvalid, msg: "title is required"},
		{name: "title of 201", patch: memories.Patch{Title: s(strings.Repeat("t", 201))}, kind: core.KindInvalid,
			msg: "title must be at most 200 characters"},
		{name: "description of 5001", patch: memories.Patch{Description: s(strings.Repeat("d", 5001))}, kind: core.KindInvalid,
			msg: "description must be at most 5000 characters"},
		{name: "another user's", patch: memories.Patch{Title: s("mine now")}, otherUser: true, kind: core.KindNotFound, msg: "memory not found"},
		{name: "unknown id", patch: memories.Patch{Title: s("x")}, id: "ghost", kind: core.KindNotFound, msg: "memory not found"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			seed, err := f.svc.Create(ctx, "me", memories.Draft{Title: "Seed", Description: "seed text",
				Date: "2025-06-01", Images: []string{img("a.jpg")}})
			if err != nil {
				t.Fatal(err)
			}
			f.clock.Advance(time.Hour)
			user, id := "me", seed.ID
			if tc.otherUser {
				user = "other"
			}
			if tc.id != "" {
				id = tc.id
			}
			m, err := f.svc.Update(ctx, user, id, tc.patch)
			got, gerr := f.svc.Get(ctx, "me", seed.ID)
			if gerr != nil {
				t.Fatal(gerr)
			}
			if tc.msg != "" {
				if core.KindOf(err) != tc.kind || core.As(err).Message != tc.msg {
					t.Fatalf("got %v", err)
				}
				if got.Title != "Seed" || got.Description != "seed text" || !got.UpdatedAt.Equal(seed.UpdatedAt) {
					t.Fatalf("written: %+v", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, x := range []memories.Memory{m, got} {
				if x.Title != tc.title || x.Description != tc.desc || x.Date != seed.Date ||
					!slices.Equal(x.Images, seed.Images) || !x.CreatedAt.Equal(seed.CreatedAt) ||
					!x.UpdatedAt.Equal(f.clock.Now()) {
					t.Fatalf("updated %+v", x)
				}
			}
		})
	}
}

func TestDeleteOnlyTheOwnersMemory(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	m := f.create(t, "me", "gone soon", "2025-06-01")
	coretest.WantErr(t, f.svc.Delete(ctx, "other", m.ID), core.KindNotFound, "not_found")
	coretest.WantErr(t, f.svc.Delete(ctx, "me", "ghost"), core.KindNotFound, "not_found")
	coretest.WantErr(t, f.svc.Delete(ctx, "me", ""), core.KindInvalid, "invalid_request")
	if err := f.svc.Delete(ctx, "me", m.ID); err != nil {
		t.Fatal(err)
	}
	coretest.WantErr(t, f.svc.Delete(ctx, "me", m.ID), core.KindNotFound, "not_found")
	if n := len(f.stored(t, "me")); n != 0 {
		t.Fatalf("%d left", n)
	}
}

func TestExportAndPurge(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	f.unbounded()
	if got, err := f.svc.ExportUser(ctx, "me"); err != nil || len(got.([]memories.Memory)) != 0 {
		t.Fatalf("empty export %v %v", got, err)
	}
	for range core.MaxPageLimit + 2 { // more than one page
		f.create(t, "me", "m", "2025-01-01")
	}
	first, err := f.svc.Create(ctx, "me", memories.Draft{Title: "Newest", Description: "d",
		Date: "2025-06-01", Images: []string{img("a.jpg")}})
	if err != nil {
		t.Fatal(err)
	}
	f.create(t, "partner", "theirs", "2025-01-01")
	if f.svc.Section() != "memories" {
		t.Fatal(f.svc.Section())
	}
	got, err := f.svc.ExportUser(ctx, "me")
	if err != nil {
		t.Fatal(err)
	}
	all := got.([]memories.Memory)
	if len(all) != core.MaxPageLimit+3 || all[0].ID != first.ID || all[0].Title != "Newest" ||
		!slices.Equal(all[0].Images, []string{img("a.jpg")}) {
		t.Fatalf("export of %d, first %+v", len(all), all[0])
	}
	if err := f.svc.PurgeUser(ctx, "me"); err != nil {
		t.Fatal(err)
	}
	if err := f.svc.PurgeUser(ctx, "me"); err != nil {
		t.Fatal(err)
	}
	if n := len(f.stored(t, "me")); n != 0 {
		t.Fatalf("%d left", n)
	}
	if n := len(f.stored(t, "partner")); n != 1 {
		t.Fatalf("the partner's memories went too: %d", n)
	}
}

func TestRoomFor(t *testing.T) {
	t.Parallel()
	if memories.RoomFor(memories.NoLimit) != nil {
		t.Fatal("no limit is no rule")
	}
	for _, tc := range []struct {
		max  int
		held int64
		msg  string // "" allowed
	}{
		{2, 0, ""}, {2, 1, ""}, {2, 2, "memory limit reached: 2 memories"}, {2, 3, "memory limit reached: 2 memories"},
		{1, 1, "memory limit reached: 1 memory"}, {0, 0, "memory limit reached: 0 memories"},
	} {
		err := memories.RoomFor(tc.max).Allows(tc.held)
		if tc.msg == "" && err != nil || tc.msg != "" && (core.KindOf(err) != core.KindForbidden ||
			core.As(err).Code != memories.CodeLimitReached || core.As(err).Message != tc.msg) {
			t.Errorf("max %d held %d: %v", tc.max, tc.held, err)
		}
	}
}

// TestCreateSpendsTheWriteBudget: creates are bounded per user by the
// minute and by the day; a refused create stores, announces and notifies
// nothing, and an invalid one spends nothing.
func TestCreateSpendsTheWriteBudget(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	s := settings
	s.Budget = coretest.SmallBudget("memories")
	f.svc = memories.NewService(f.repo, f.partners, f.notes, &maxMemories{}, s, f.bus, limiter(f.clock), f.clock, &coretest.SeqIDs{})
	f.partners.Pair("ann", "cat")
	for range 5 { // refused before the budget: spends none of it
		_, err := f.svc.Create(ctx, "ann", memories.Draft{Title: "", Date: "2025-06-01"})
		coretest.WantErr(t, err, core.KindInvalid, "invalid_request")
	}
	coretest.CheckWriteBudget(t, f.clock, func(user string, n int) error {
		_, err := f.svc.Create(ctx, user, memories.Draft{Title: fmt.Sprint("memory ", n), Date: "2025-06-01"})
		return err
	}, func(user string) string {
		return fmt.Sprint(titles(f.stored(t, user)), len(f.bus.All()), len(f.notes.all()))
	})
}
