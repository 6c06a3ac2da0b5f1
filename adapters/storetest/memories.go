package storetest

import (
	"context"
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
	ctx := context.Background()
	now := time.Date(2025, 6, 15, 12, 0, 0, 0, time.UTC)
	date := func(s string) core.Date {
		d, err := core.ParseDate(s)
		must(t, err)
		return d
	}
	mem := func(id, user, day string) memories.Memory {
		return memories.Memory{ID: id, UserID: user, Title: "t-" + id, Date: date(day), Images: []string{},
			CreatedAt: now, UpdatedAt: now}
	}
	same := func(t *testing.T, got, want memories.Memory) {
		t.Helper()
		if got.ID != want.ID || got.UserID != want.UserID || got.Title != want.Title || got.Description != want.Description ||
			got.Date != want.Date || got.Images == nil || !slices.Equal(got.Images, want.Images) ||
			!got.CreatedAt.Equal(want.CreatedAt) || !got.UpdatedAt.Equal(want.UpdatedAt) {
			t.Fatalf("got  %+v\nwant %+v", got, want)
		}
	}
	ids := func(ms []memories.Memory) string {
		out := make([]string, len(ms))
		for i, m := range ms {
			out[i] = m.ID
		}
		return fmt.Sprint(out)
	}
	create := func(t *testing.T, r memories.Repository, ms ...memories.Memory) {
		t.Helper()
		for _, m := range ms {
			must(t, r.Create(ctx, m, nil))
		}
	}
	list := func(t *testing.T, r memories.Repository, user string, span memories.Span, page core.Page) ([]memories.Memory, string) {
		t.Helper()
		ms, next, err := r.List(ctx, user, span, page)
		must(t, err)
		return ms, next
	}

	t.Run("create and get every field; absent and another user's id", func(t *testing.T) {
		r := newRepo(t)
		full := mem("m1", "u1", "2024-02-29")
		full.Title, full.Description = "Our first trip 🏔", "snow «everywhere»\nsecond line"
		full.Images = []string{"http://localhost:8080/files/u/u1/a.jpg", "http://localhost:8080/files/u/u1/b.png"}
		full.CreatedAt = time.UnixMilli(1718452800123).UTC() // milliseconds survive
		full.UpdatedAt = full.CreatedAt.Add(time.Second)
		long := mem("m2", "u1", "1900-01-01")
		long.Description = strings.Repeat("é", memories.MaxDescription)
		long.Images = make([]string, memories.MaxImages)
		for i := range long.Images {
			long.Images[i] = "https://example.com/files/" + strings.Repeat("k", memories.MaxImageURL-28) + fmt.Sprintf("%02d", i)
		}
		plain := mem("m3", "u1", "9999-12-31")
		create(t, r, full, long, plain)
		for _, want := range []memories.Memory{full, long, plain} {
			got, err := r.Get(ctx, "u1", want.ID)
			must(t, err)
			same(t, got, want)
		}
		_, err := r.Get(ctx, "u1", "ghost")
		wantKind(t, err, core.KindNotFound)
		_, err = r.Get(ctx, "u2", "m1")
		wantKind(t, err, core.KindNotFound)
	})

	t.Run("a taken id is a conflict", func(t *testing.T) {
		r := newRepo(t)
		create(t, r, mem("m1", "u1", "2025-01-01"))
		wantKind(t, r.Create(ctx, mem("m1", "u2", "2025-02-01"), memories.RoomFor(memories.NoLimit)), core.KindConflict)
		got, err := r.Get(ctx, "u1", "m1")
		must(t, err)
		same(t, got, mem("m1", "u1", "2025-01-01"))
	})

	t.Run("create within max counts the owner's memories only", func(t *testing.T) {
		r := newRepo(t)
		create(t, r, mem("o1", "u2", "2025-01-01"), mem("o2", "u2", "2025-01-01"))
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
			err := r.Create(ctx, mem(tc.id, tc.user, "2025-01-02"), memories.RoomFor(tc.max))
			if tc.fits {
				must(t, err)
				continue
			}
			wantCode(t, err, core.KindForbidden, memories.CodeLimitReached)
			if _, err := r.Get(ctx, tc.user, tc.id); !core.IsKind(err, core.KindNotFound) {
				t.Fatalf("refused %s was stored: %v", tc.id, err)
			}
		}
		ms, _ := list(t, r, "u1", memories.AllDates, core.Page{})
		if ids(ms) != "[m4 m3 m2 m1]" {
			t.Fatalf("stored %s", ids(ms))
		}
	})

	t.Run("a deleted memory frees its place; delete by user frees all", func(t *testing.T) {
		r := newRepo(t)
		must(t, r.Create(ctx, mem("m1", "u1", "2025-01-01"), memories.RoomFor(2)))
		must(t, r.Create(ctx, mem("m2", "u1", "2025-01-01"), memories.RoomFor(2)))
		wantCode(t, r.Create(ctx, mem("m3", "u1", "2025-01-01"), memories.RoomFor(2)), core.KindForbidden, memories.CodeLimitReached)
		must(t, r.Delete(ctx, "u1", "m1"))
		must(t, r.Create(ctx, mem("m3", "u1", "2025-01-01"), memories.RoomFor(2)))
		must(t, r.DeleteByUser(ctx, "u1"))
		must(t, r.Create(ctx, mem("m4", "u1", "2025-01-01"), memories.RoomFor(1)))
	})

	t.Run("concurrent creates end at exactly max", func(t *testing.T) {
		r := newRepo(t)
		const max, tries = 5, 12
		create(t, r, mem("m0", "u1", "2025-01-01"), mem("m1", "u1", "2025-01-01"))
		created := concurrentlyAllowed(t, tries, func(i int) error {
			return r.Create(ctx, mem(fmt.Sprintf("c%02d", i), "u1", "2025-01-01"), memories.RoomFor(max))
		})
		ms, _ := list(t, r, "u1", memories.AllDates, core.Page{})
		if created != max-2 || len(ms) != max {
			t.Fatalf("created %d, stored %d, want %d in all", created, len(ms), max)
		}
	})

	t.Run("stored images do not alias the caller's slice", func(t *testing.T) {
		r := newRepo(t)
		m := mem("m1", "u1", "2025-01-01")
		m.Images = []string{"a", "b"}
		create(t, r, m)
		m.Images[0] = "changed"
		got, _ := r.Get(ctx, "u1", "m1")
		got.Images[1] = "changed too"
		again, _ := r.Get(ctx, "u1", "m1")
		if !slices.Equal(again.Images, []string{"a", "b"}) {
			t.Fatalf("aliased: %v", again.Images)
		}
	})

	t.Run("list is the user's memories, newest date first, then latest created, then id", func(t *testing.T) {
		r := newRepo(t)
		later := mem("m5", "u1", "2025-03-01")
		later.CreatedAt = now.Add(time.Minute)
		create(t, r,
			mem("m3", "u1", "2025-03-01"),
			mem("m1", "u1", "2025-03-01"),
			later,
			mem("m2", "u1", "2024-12-31"),
			mem("m4", "u1", "2025-06-16"),
			mem("x1", "u2", "2025-01-01"),
		)
		got, next := list(t, r, "u1", memories.AllDates, core.Page{})
		if ids(got) != "[m4 m5 m3 m1 m2]" || next != "" {
			t.Fatalf("list %s next %q", ids(got), next)
		}
		none, next := list(t, r, "nobody", memories.AllDates, core.Page{})
		if len(none) != 0 || next != "" {
			t.Fatalf("none %v %q", none, next)
		}
	})

	t.Run("a span keeps the dates within it, bounds included", func(t *testing.T) {
		r := newRepo(t)
		create(t, r,
			mem("before", "u1", "2025-02-28"),
			mem("first", "u1", "2025-03-01"),
			mem("inside", "u1", "2025-03-15"),
			mem("last", "u1", "2025-03-31"),
			mem("after", "u1", "2025-04-01"),
			mem("theirs", "u2", "2025-03-15"),
		)
		got, _ := list(t, r, "u1", memories.Span{From: date("2025-03-01"), To: date("2025-03-31")}, core.Page{})
		if ids(got) != "[last inside first]" {
			t.Fatalf("span %s", ids(got))
		}
		got, _ = list(t, r, "u1", memories.Span{From: date("2025-03-15"), To: date("2025-03-15")}, core.Page{})
		if ids(got) != "[inside]" {
			t.Fatalf("one day %s", ids(got))
		}
		got, _ = list(t, r, "u1", memories.Span{From: date("2030-01-01"), To: date("2030-12-31")}, core.Page{})
		if len(got) != 0 {
			t.Fatalf("empty span %s", ids(got))
		}
	})

	t.Run("list pages with a cursor through equal dates and creation times", func(t *testing.T) {
		r := newRepo(t)
		for i := range 7 {
			m := mem(fmt.Sprintf("m%d", i), "u1", "2025-01-0"+fmt.Sprint(3-i/3)) // three share each date
			m.CreatedAt = now.Add(time.Duration(i%2) * time.Second)              // and some a creation time
			create(t, r, m)
		}
		want := "[m1 m2 m0 m5 m3 m4 m6]"
		all, _ := list(t, r, "u1", memories.AllDates, core.Page{})
		if ids(all) != want {
			t.Fatalf("order %s", ids(all))
		}
		var seen []memories.Memory
		page := core.Page{Limit: 2}
		for range 10 {
			ms, next := list(t, r, "u1", memories.AllDates, page)
			seen = append(seen, ms...)
			if next == "" {
				break
			}
			page.Cursor = next
		}
		if ids(seen) != want {
			t.Fatalf("pages %s", ids(seen))
		}
		// exactly one full page: no next cursor
		ms, next := list(t, r, "u1", memories.AllDates, core.Page{Limit: 7})
		if len(ms) != 7 || next != "" {
			t.Fatalf("full page: %d %q", len(ms), next)
		}
		// a cursor without a limit continues to the end, with no next cursor
		ms, next = list(t, r, "u1", memories.AllDates, core.Page{Cursor: memories.CursorAfter(all[4]).String()})
		if ids(ms) != "[m4 m6]" || next != "" {
			t.Fatalf("after m3: %s %q", ids(ms), next)
		}
		// a span pages too
		span := memories.Span{From: date("2025-01-02"), To: date("2025-01-03")}
		ms, next = list(t, r, "u1", span, core.Page{Limit: 4})
		if ids(ms) != "[m1 m2 m0 m5]" || next == "" {
			t.Fatalf("span page: %s %q", ids(ms), next)
		}
		ms, next = list(t, r, "u1", span, core.Page{Limit: 4, Cursor: next})
		if ids(ms) != "[m3 m4]" || next != "" {
			t.Fatalf("span second page: %s %q", ids(ms), next)
		}
		_, _, err := r.List(ctx, "u1", memories.AllDates, core.Page{Limit: 2, Cursor: "not-a-cursor"})
		wantKind(t, err, core.KindInvalid)
	})

	t.Run("an unpaged list stops at the hard cap", func(t *testing.T) {
		r := newRepo(t)
		for i := range core.MaxListItems + 1 {
			create(t, r, mem(fmt.Sprintf("m%04d", i), "u1", "2025-01-01"))
		}
		ms, next := list(t, r, "u1", memories.AllDates, core.Page{})
		if len(ms) != core.MaxListItems || next != "" || ms[0].ID != "m1000" {
			t.Fatalf("%d memories, next %q", len(ms), next)
		}
	})

	t.Run("count counts the user's memories of one date", func(t *testing.T) {
		r := newRepo(t)
		create(t, r, mem("m1", "u1", "2025-03-01"), mem("m2", "u1", "2025-03-01"), mem("m3", "u1", "2025-03-02"),
			mem("m4", "u2", "2025-03-01"))
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
	})

	t.Run("update applies fn atomically; an error writes nothing", func(t *testing.T) {
		r := newRepo(t)
		orig := mem("m1", "u1", "2025-01-01")
		orig.Images = []string{"a"}
		create(t, r, orig)
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
		same(t, out, want)
		got, _ := r.Get(ctx, "u1", "m1")
		same(t, got, want)

		boom := errors.New("boom")
		_, err = r.Update(ctx, "u1", "m1", func(m *memories.Memory) error { m.Title = "lost"; return boom })
		if !errors.Is(err, boom) {
			t.Fatalf("fn error: %v", err)
		}
		got, _ = r.Get(ctx, "u1", "m1")
		same(t, got, want)

		for _, tc := range []struct{ user, id string }{{"u1", "ghost"}, {"u2", "m1"}} {
			called := false
			_, err = r.Update(ctx, tc.user, tc.id, func(*memories.Memory) error { called = true; return nil })
			wantKind(t, err, core.KindNotFound)
			if called {
				t.Fatalf("fn called for %s/%s", tc.user, tc.id)
			}
		}
	})

	t.Run("concurrent updates are serialised: none is lost", func(t *testing.T) {
		r := newRepo(t)
		create(t, r, mem("m1", "u1", "2025-01-01"))
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
	})

	t.Run("delete takes only the owner's memory", func(t *testing.T) {
		r := newRepo(t)
		create(t, r, mem("m1", "u1", "2025-01-01"), mem("m2", "u1", "2025-01-01"))
		wantKind(t, r.Delete(ctx, "u2", "m1"), core.KindNotFound)
		must(t, r.Delete(ctx, "u1", "m1"))
		wantKind(t, r.Delete(ctx, "u1", "m1"), core.KindNotFound)
		_, err := r.Get(ctx, "u1", "m1")
		wantKind(t, err, core.KindNotFound)
		_, err = r.Get(ctx, "u1", "m2")
		must(t, err)
	})

	t.Run("delete by user is idempotent and touches only the user", func(t *testing.T) {
		r := newRepo(t)
		create(t, r, mem("m1", "u1", "2025-01-01"), mem("m2", "u1", "2025-02-01"), mem("m3", "u2", "2025-01-01"))
		must(t, r.DeleteByUser(ctx, "u1"))
		must(t, r.DeleteByUser(ctx, "u1"))
		ms, _ := list(t, r, "u1", memories.AllDates, core.Page{})
		if len(ms) != 0 {
			t.Fatalf("left %s", ids(ms))
		}
		_, err := r.Get(ctx, "u2", "m3")
		must(t, err)
	})
}
