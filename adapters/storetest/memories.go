package storetest

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"tandem/core"
	"tandem/modules/memories"
)

// MemoryRepository checks a memories.Repository implementation.
func MemoryRepository(t *testing.T, newRepo func(t *testing.T) memories.Repository) {
	s := memorySuite{newRepo: newRepo}
	t.Run("create and get every field; absent and another user's id", s.createAndGet)
	t.Run("a taken id is a conflict", s.takenID)
	t.Run("create within max counts the owner's memories only", s.createWithinMax)
	t.Run("a deleted memory frees its place; delete by user frees all", s.deleteFreesPlace)
	t.Run("concurrent creates end at exactly max", s.concurrentCreates)
	t.Run("stored images do not alias the caller's slice", s.imagesNotAliased)
	t.Run("list is the user's memories, newest date first, then latest created, then id", s.listOrder)
	t.Run("a span keeps the dates within it, bounds included", s.span)
	t.Run("list pages with a cursor through equal dates and creation times", s.listPages)
	t.Run("an unpaged list stops at the hard cap", s.unpagedListCap)
	t.Run("count counts the user's memories of one date", s.count)
	t.Run("update applies fn atomically; an error writes nothing", s.update)
	t.Run("concurrent updates are serialised: none is lost", s.concurrentUpdates)
	t.Run("delete takes only the owner's memory", s.deleteOwn)
	t.Run("delete by user is idempotent and touches only the user", s.deleteUser)
}

// memorySuite holds MemoryRepository's helpers and subtests.
type memorySuite struct {
	newRepo func(t *testing.T) memories.Repository
}

func (memorySuite) mem(id, user, day string) memories.Memory {
	return memories.Memory{ID: id, UserID: user, Title: "t-" + id, Date: date(day), Images: []string{},
		CreatedAt: now, UpdatedAt: now}
}

func (memorySuite) same(t *testing.T, got, want memories.Memory) {
	t.Helper()
	if got.ID != want.ID || got.UserID != want.UserID || got.Title != want.Title || got.Description != want.Description ||
		got.Date != want.Date || got.Images == nil || !slices.Equal(got.Images, want.Images) ||
		!got.CreatedAt.Equal(want.CreatedAt) || !got.UpdatedAt.Equal(want.UpdatedAt) {
		t.Fatalf("got  %+v\nwant %+v", got, want)
	}
}

func (memorySuite) ids(ms []memories.Memory) string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.ID
	}
	return fmt.Sprint(out)
}

func (memorySuite) create(t *testing.T, r memories.Repository, ms ...memories.Memory) {
	t.Helper()
	for _, m := range ms {
		must(t, r.Create(ctx, m, nil))
	}
}

func (memorySuite) list(t *testing.T, r memories.Repository, user string, span memories.Span, page core.Page) ([]memories.Memory, string) {
	t.Helper()
	ms, next, err := r.List(ctx, user, span, page)
	must(t, err)
	return ms, next
}

func (s memorySuite) createAndGet(t *testing.T) {
	r := s.newRepo(t)
	full := s.mem("m1", "u1", "2024-02-29")
	full.Title, full.Description = "Our first trip 🏔", "snow «everywhere»\nsecond line"
	full.Images = []string{"http://localhost:8080/files/u/u1/a.jpg", "http://localhost:8080/files/u/u1/b.png"}
	full.CreatedAt = time.UnixMilli(1718452800123).UTC() // milliseconds survive
	full.UpdatedAt = full.CreatedAt.Add(time.Second)
	long := s.mem("m2", "u1", "1900-01-01")
	long.Description = strings.Repeat("é", memories.MaxDescription)
	long.Images = make([]string, memories.MaxImages)
	for i := range long.Images {
		long.Images[i] = "https://example.com/files/" + strings.Repeat("k", memories.MaxImageURL-28) + fmt.Sprintf("%02d", i)
	}
	plain := s.mem("m3", "u1", "9999-12-31")
	s.create(t, r, full, long, plain)
	for _, want := range []memories.Memory{full, long, plain} {
		got, err := r.Get(ctx, "u1", want.ID)
		must(t, err)
		s.same(t, got, want)
	}
	_, err := r.Get(ctx, "u1", "ghost")
	wantKind(t, err, core.KindNotFound)
	_, err = r.Get(ctx, "u2", "m1")
	wantKind(t, err, core.KindNotFound)
}

func (s memorySuite) takenID(t *testing.T) {
	r := s.newRepo(t)
	s.create(t, r, s.mem("m1", "u1", "2025-01-01"))
	wantKind(t, r.Create(ctx, s.mem("m1", "u2", "2025-02-01"), memories.RoomFor(memories.NoLimit)), core.KindConflict)
	got, err := r.Get(ctx, "u1", "m1")
	must(t, err)
	s.same(t, got, s.mem("m1", "u1", "2025-01-01"))
}

func (s memorySuite) createWithinMax(t *testing.T) {
	r := s.newRepo(t)
	s.create(t, r, s.mem("o1", "u2", "2025-01-01"), s.mem("o2", "u2", "2025-01-01"))
	for _, tc := range []struct {
		id, user string
		max      int
		fits     bool
	}{
		{"m1", "u1", 2, true},  // the other user's two do not count
		{"m2", "u1", 2, true},  // reaches max
		{"m3", "u1", 2, false}, // would pass it
		{"m3", "u1", 3, true},  // a higher max (premium) fits
		{"m4", "u1", 0, false}, // zero allows none
		{"m4", "u1", memories.NoLimit, true},
		{"o3", "u2", 2, false},
	} {
		err := r.Create(ctx, s.mem(tc.id, tc.user, "2025-01-02"), memories.RoomFor(tc.max))
		if tc.fits {
			must(t, err)
			continue
		}
		wantCode(t, err, core.KindForbidden, memories.CodeLimitReached)
		if _, err := r.Get(ctx, tc.user, tc.id); !core.IsKind(err, core.KindNotFound) {
			t.Fatalf("refused %s was stored: %v", tc.id, err)
		}
	}
	ms, _ := s.list(t, r, "u1", memories.AllDates, core.Page{})
	if s.ids(ms) != "[m4 m3 m2 m1]" {
		t.Fatalf("stored %s", s.ids(ms))
	}
}

func (s memorySuite) deleteFreesPlace(t *testing.T) {
	r := s.newRepo(t)
	must(t, r.Create(ctx, s.mem("m1", "u1", "2025-01-01"), memories.RoomFor(2)))
	must(t, r.Create(ctx, s.mem("m2", "u1", "2025-01-01"), memories.RoomFor(2)))
	wantCode(t, r.Create(ctx, s.mem("m3", "u1", "2025-01-01"), memories.RoomFor(2)), core.KindForbidden, memories.CodeLimitReached)
	must(t, r.Delete(ctx, "u1", "m1"))
	must(t, r.Create(ctx, s.mem("m3", "u1", "2025-01-01"), memories.RoomFor(2)))
	must(t, r.DeleteByUser(ctx, "u1"))
	must(t, r.Create(ctx, s.mem("m4", "u1", "2025-01-01"), memories.RoomFor(1)))
}

func (s memorySuite) concurrentCreates(t *testing.T) {
	r := s.newRepo(t)
	const max, tries = 5, 12
	s.create(t, r, s.mem("m0", "u1", "2025-01-01"), s.mem("m1", "u1", "2025-01-01"))
	created := concurrentlyAllowed(t, tries, func(i int) error {
		return r.Create(ctx, s.mem(fmt.Sprintf("c%02d", i), "u1", "2025-01-01"), memories.RoomFor(max))
	})
	ms, _ := s.list(t, r, "u1", memories.AllDates, core.Page{})
	if created != max-2 || len(ms) != max {
		t.Fatalf("created %d, stored %d, want %d in all", created, len(ms), max)
	}
}

func (s memorySuite) imagesNotAliased(t *testing.T) {
	r := s.newRepo(t)
	m := s.mem("m1", "u1", "2025-01-01")
	m.Images = []string{"a", "b"}
	s.create(t, r, m)
	m.Images[0] = "changed"
	got, _ := r.Get(ctx, "u1", "m1")
	got.Images[1] = "changed too"
	again, _ := r.Get(ctx, "u1", "m1")
	if !slices.Equal(again.Images, []string{"a", "b"}) {
		t.Fatalf("aliased: %v", again.Images)
	}
}

func (s memorySuite) listOrder(t *testing.T) {
	r := s.newRepo(t)
	later := s.mem("m5", "u1", "2025-03-01")
	later.CreatedAt = now.Add(time.Minute)
	s.create(t, r,
		s.mem("m3", "u1", "2025-03-01"),
		s.mem("m1", "u1", "2025-03-01"),
		later,
		s.mem("m2", "u1", "2024-12-31"),
		s.mem("m4", "u1", "2025-06-16"),
		s.mem("x1", "u2", "2025-01-01"),
	)
	got, next := s.list(t, r, "u1", memories.AllDates, core.Page{})
	if s.ids(got) != "[m4 m5 m3 m1 m2]" || next != "" {
		t.Fatalf("list %s next %q", s.ids(got), next)
	}
	none, next := s.list(t, r, "nobody", memories.AllDates, core.Page{})
	if len(none) != 0 || next != "" {
		t.Fatalf("none %v %q", none, next)
	}
}

func (s memorySuite) span(t *testing.T) {
	r := s.newRepo(t)
	s.create(t, r,
		s.mem("before", "u1", "2025-02-28"),
		s.mem("first", "u1", "2025-03-01"),
		s.mem("inside", "u1", "2025-03-15"),
		s.mem("last", "u1", "2025-03-31"),
		s.mem("after", "u1", "2025-04-01"),
		s.mem("theirs", "u2", "2025-03-15"),
	)
	got, _ := s.list(t, r, "u1", memories.Span{From: date("2025-03-01"), To: date("2025-03-31")}, core.Page{})
	if s.ids(got) != "[last inside first]" {
		t.Fatalf("span %s", s.ids(got))
	}
	got, _ = s.list(t, r, "u1", memories.Span{From: date("2025-03-15"), To: date("2025-03-15")}, core.Page{})
	if s.ids(got) != "[inside]" {
		t.Fatalf("one day %s", s.ids(got))
	}
	got, _ = s.list(t, r, "u1", memories.Span{From: date("2030-01-01"), To: date("2030-12-31")}, core.Page{})
	if len(got) != 0 {
		t.Fatalf("empty span %s", s.ids(got))
	}
}

func (s memorySuite) listPages(t *testing.T) {
	r := s.newRepo(t)
	for i := range 7 {
		m := s.mem(fmt.Sprintf("m%d", i), "u1", "2025-01-0"+fmt.Sprint(3-i/3)) // three share each date
		m.CreatedAt = now.Add(time.Duration(i%2) * time.Second)                // and some a creation time
		s.create(t, r, m)
	}
	want := "[m1 m2 m0 m5 m3 m4 m6]"
	all, _ := s.list(t, r, "u1", memories.AllDates, core.Page{})
	if s.ids(all) != want {
		t.Fatalf("order %s", s.ids(all))
	}
	var seen []memories.Memory
	page := core.Page{Limit: 2}
	for range 10 {
		ms, next := s.list(t, r, "u1", memories.AllDates, page)
		seen = append(seen, ms...)
		if next == "" {
			break
		}
		page.Cursor = next
	}
	if s.ids(seen) != want {
		t.Fatalf("pages %s", s.ids(seen))
	}
	// exactly one full page: no next cursor
	ms, next := s.list(t, r, "u1", memories.AllDates, core.Page{Limit: 7})
	if len(ms) != 7 || next != "" {
		t.Fatalf("full page: %d %q", len(ms), next)
	}
	// a cursor without a limit continues to the end, with no next cursor
	ms, next = s.list(t, r, "u1", memories.AllDates, core.Page{Cursor: memories.CursorAfter(all[4]).String()})
	if s.ids(ms) != "[m4 m6]" || next != "" {
		t.Fatalf("after m3: %s %q", s.ids(ms), next)
	}
	// a span pages too
	span := memories.Span{From: date("2025-01-02"), To: date("2025-01-03")}
	ms, next = s.list(t, r, "u1", span, core.Page{Limit: 4})
	if s.ids(ms) != "[m1 m2 m0 m5]" || next == "" {
		t.Fatalf("span page: %s %q", s.ids(ms), next)
	}
	ms, next = s.list(t, r, "u1", span, core.Page{Limit: 4, Cursor: next})
	if s.ids(ms) != "[m3 m4]" || next != "" {
		t.Fatalf("span second page: %s %q", s.ids(ms), next)
	}
	_, _, err := r.List(ctx, "u1", memories.AllDates, core.Page{Limit: 2, Cursor: "not-a-cursor"})
	wantKind(t, err, core.KindInvalid)
}

func (s memorySuite) unpagedListCap(t *testing.T) {
	r := s.newRepo(t)
	for i := range core.MaxListItems + 1 {
		s.create(t, r, s.mem(fmt.Sprintf("m%04d", i), "u1", "2025-01-01"))
	}
	ms, next := s.list(t, r, "u1", memories.AllDates, core.Page{})
	if len(ms) != core.MaxListItems || next != "" || ms[0].ID != "m1000" {
		t.Fatalf("%d memories, next %q", len(ms), next)
	}
}

func (s memorySuite) count(t *testing.T) {
	r := s.newRepo(t)
	s.create(t, r, s.mem("m1", "u1", "2025-03-01"), s.mem("m2", "u1", "2025-03-01"), s.mem("m3", "u1", "2025-03-02"),
		s.mem("m4", "u2", "2025-03-01"))
	for _, tc := range []struct {
		user, day string
		want      int
	}{{"u1", "2025-03-01", 2}, {"u1", "2025-03-02", 1}, {"u1", "2025-03-03", 0}, {"u2", "2025-03-01", 1}, {"u3", "2025-03-01", 0}} {
		n, err := r.Count(ctx, tc.user, date(tc.day))
		must(t, err)
		if n != tc.want {
			t.Fatalf("%s %s: %d, want %d", tc.user, tc.day, n, tc.want)
		}
	}
}

func (s memorySuite) update(t *testing.T) {
	r := s.newRepo(t)
	orig := s.mem("m1", "u1", "2025-01-01")
	orig.Images = []string{"a"}
	s.create(t, r, orig)
	later := now.Add(time.Hour)
	out, err := r.Update(ctx, "u1", "m1", func(m *memories.Memory) error {
		m.Title, m.Description, m.Date, m.Images = "renamed", "now with words", date("2025-02-01"), []string{"b", "c"}
		m.UpdatedAt = later
		m.UserID, m.CreatedAt = "thief", later // neither may change
		return nil
	})
	must(t, err)
	want := orig
	want.Title, want.Description, want.Date, want.Images, want.UpdatedAt = "renamed", "now with words", date("2025-02-01"), []string{"b", "c"}, later
	s.same(t, out, want)
	got, _ := r.Get(ctx, "u1", "m1")
	s.same(t, got, want)

	boom := errors.New("boom")
	_, err = r.Update(ctx, "u1", "m1", func(m *memories.Memory) error { m.Title = "lost"; return boom })
	if !errors.Is(err, boom) {
		t.Fatalf("fn error: %v", err)
	}
	got, _ = r.Get(ctx, "u1", "m1")
	s.same(t, got, want)

	for _, tc := range []struct{ user, id string }{{"u1", "ghost"}, {"u2", "m1"}} {
		called := false
		_, err = r.Update(ctx, tc.user, tc.id, func(*memories.Memory) error { called = true; return nil })
		wantKind(t, err, core.KindNotFound)
		if called {
			t.Fatalf("fn called for %s/%s", tc.user, tc.id)
		}
	}
}

func (s memorySuite) concurrentUpdates(t *testing.T) {
	r := s.newRepo(t)
	s.create(t, r, s.mem("m1", "u1", "2025-01-01"))
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := r.Update(ctx, "u1", "m1", func(m *memories.Memory) error {
				m.Images = append(m.Images, fmt.Sprintf("i%d", i))
				return nil
			})
			if err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	got, _ := r.Get(ctx, "u1", "m1")
	if len(got.Images) != 8 {
		t.Fatalf("lost updates: %v", got.Images)
	}
}

func (s memorySuite) deleteOwn(t *testing.T) {
	r := s.newRepo(t)
	s.create(t, r, s.mem("m1", "u1", "2025-01-01"), s.mem("m2", "u1", "2025-01-01"))
	wantKind(t, r.Delete(ctx, "u2", "m1"), core.KindNotFound)
	must(t, r.Delete(ctx, "u1", "m1"))
	wantKind(t, r.Delete(ctx, "u1", "m1"), core.KindNotFound)
	_, err := r.Get(ctx, "u1", "m1")
	wantKind(t, err, core.KindNotFound)
	_, err = r.Get(ctx, "u1", "m2")
	must(t, err)
}

func (s memorySuite) deleteUser(t *testing.T) {
	r := s.newRepo(t)
	s.create(t, r, s.mem("m1", "u1", "2025-01-01"), s.mem("m2", "u1", "2025-02-01"), s.mem("m3", "u2", "2025-01-01"))
	must(t, r.DeleteByUser(ctx, "u1"))
	must(t, r.DeleteByUser(ctx, "u1"))
	ms, _ := s.list(t, r, "u1", memories.AllDates, core.Page{})
	if len(ms) != 0 {
		t.Fatalf("left %s", s.ids(ms))
	}
	_, err := r.Get(ctx, "u2", "m3")
	must(t, err)
}
