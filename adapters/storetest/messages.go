package storetest

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"tandem/core"
	"tandem/modules/messages"
)

// MessageRepository checks a messages.Repository implementation.
func MessageRepository(t *testing.T, newRepo func(t *testing.T) messages.Repository) {
	s := messageSuite{newRepo: newRepo}
	t.Run("add and list a thread newest first with every field", s.addAndList)
	t.Run("a taken id is a conflict", s.takenID)
	t.Run("pages with a cursor through equal times", s.listPages)
	t.Run("an unpaged list stops at the hard cap", s.unpagedListCap)
	t.Run("by author reads every thread of the author, newest first, in pages", s.byAuthorPages)
	t.Run("delete user takes their messages everywhere and their solo thread, idempotently", s.deleteUser)
}

// messageSuite holds MessageRepository's helpers and subtests.
type messageSuite struct {
	newRepo func(t *testing.T) messages.Repository
}

func (messageSuite) msg(id, scope, author string, at time.Duration) messages.Message {
	return messages.Message{ID: id, Scope: scope, AuthorID: author, Body: "b-" + id, CreatedAt: now.Add(at)}
}

func (messageSuite) ids(ms []messages.Message) string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.ID
	}
	return fmt.Sprint(out)
}

func (messageSuite) add(t *testing.T, r messages.Repository, ms ...messages.Message) {
	t.Helper()
	for _, m := range ms {
		must(t, r.Add(ctx, m))
	}
}

func (messageSuite) list(t *testing.T, r messages.Repository, scope string, page core.Page) ([]messages.Message, string) {
	t.Helper()
	ms, next, err := r.List(ctx, scope, page)
	must(t, err)
	return ms, next
}

func (messageSuite) byAuthor(t *testing.T, r messages.Repository, author string, page core.Page) ([]messages.Message, string) {
	t.Helper()
	ms, next, err := r.ByAuthor(ctx, author, page)
	must(t, err)
	return ms, next
}

func (s messageSuite) addAndList(t *testing.T) {
	r := s.newRepo(t)
	first := s.msg("m1", "p1", "u1", 0)
	first.Body = "hello 👋 «love»\nsecond line"
	first.CreatedAt = time.UnixMilli(1718452800123).UTC() // milliseconds survive
	long := s.msg("m2", "p1", "u2", time.Hour)
	long.Body = strings.Repeat("é", messages.MaxBody)
	s.add(t, r, first, long, s.msg("m3", "p2", "u3", 2*time.Hour), s.msg("m4", messages.SoloScope("u1"), "u1", 3*time.Hour))
	got, next := s.list(t, r, "p1", core.Page{})
	if s.ids(got) != "[m2 m1]" || next != "" {
		t.Fatalf("thread %s %q", s.ids(got), next)
	}
	for i, want := range []messages.Message{long, first} {
		g := got[i]
		if g.ID != want.ID || g.Scope != want.Scope || g.AuthorID != want.AuthorID || g.Body != want.Body ||
			!g.CreatedAt.Equal(want.CreatedAt) {
			t.Fatalf("got  %+v\nwant %+v", g, want)
		}
	}
	solo, _ := s.list(t, r, messages.SoloScope("u1"), core.Page{})
	if s.ids(solo) != "[m4]" {
		t.Fatalf("solo %s", s.ids(solo))
	}
	none, next := s.list(t, r, "nowhere", core.Page{})
	if len(none) != 0 || next != "" {
		t.Fatalf("none %v %q", none, next)
	}
}

func (s messageSuite) takenID(t *testing.T) {
	r := s.newRepo(t)
	s.add(t, r, s.msg("m1", "p1", "u1", 0))
	wantKind(t, r.Add(ctx, s.msg("m1", "p2", "u2", time.Second)), core.KindConflict)
	got, _ := s.list(t, r, "p1", core.Page{})
	if s.ids(got) != "[m1]" || got[0].AuthorID != "u1" {
		t.Fatalf("overwritten: %+v", got)
	}
}

func (s messageSuite) listPages(t *testing.T) {
	r := s.newRepo(t)
	for i := range 7 {
		s.add(t, r, s.msg(fmt.Sprintf("m%d", i), "p1", "u1", time.Duration(i/3)*time.Millisecond)) // three share each time
	}
	want := "[m6 m5 m4 m3 m2 m1 m0]"
	all, _ := s.list(t, r, "p1", core.Page{})
	if s.ids(all) != want {
		t.Fatalf("order %s", s.ids(all))
	}
	var seen []messages.Message
	page := core.Page{Limit: 2}
	for range 10 {
		ms, next := s.list(t, r, "p1", page)
		seen = append(seen, ms...)
		if next == "" {
			break
		}
		page.Cursor = next
	}
	if s.ids(seen) != want {
		t.Fatalf("pages %s", s.ids(seen))
	}
	ms, next := s.list(t, r, "p1", core.Page{Limit: 7})
	if len(ms) != 7 || next != "" {
		t.Fatalf("full page: %d %q", len(ms), next)
	}
	ms, next = s.list(t, r, "p1", core.Page{Cursor: messages.CursorAfter(all[4]).String()})
	if s.ids(ms) != "[m1 m0]" || next != "" {
		t.Fatalf("after m2: %s %q", s.ids(ms), next)
	}
	_, _, err := r.List(ctx, "p1", core.Page{Limit: 2, Cursor: "not-a-cursor"})
	wantKind(t, err, core.KindInvalid)
	_, _, err = r.ByAuthor(ctx, "u1", core.Page{Limit: 2, Cursor: "not-a-cursor"})
	wantKind(t, err, core.KindInvalid)
}

func (s messageSuite) unpagedListCap(t *testing.T) {
	r := s.newRepo(t)
	for i := range core.MaxListItems + 1 {
		s.add(t, r, s.msg(fmt.Sprintf("m%04d", i), "p1", "u1", time.Duration(i)*time.Millisecond))
	}
	ms, next := s.list(t, r, "p1", core.Page{})
	if len(ms) != core.MaxListItems || next != "" || ms[0].ID != "m1000" || ms[len(ms)-1].ID != "m0001" {
		t.Fatalf("%d messages, next %q", len(ms), next)
	}
}

func (s messageSuite) byAuthorPages(t *testing.T) {
	r := s.newRepo(t)
	s.add(t, r,
		s.msg("a1", "p-old", "u1", 0),
		s.msg("b1", "p-old", "u2", time.Second),
		s.msg("a2", messages.SoloScope("u1"), "u1", 2*time.Second),
		s.msg("a3", "p-new", "u1", 3*time.Second),
		s.msg("c1", "p-new", "u3", 4*time.Second),
	)
	got, next := s.byAuthor(t, r, "u1", core.Page{})
	if s.ids(got) != "[a3 a2 a1]" || next != "" {
		t.Fatalf("by author %s %q", s.ids(got), next)
	}
	first, next := s.byAuthor(t, r, "u1", core.Page{Limit: 2})
	rest, last := s.byAuthor(t, r, "u1", core.Page{Limit: 2, Cursor: next})
	if s.ids(first) != "[a3 a2]" || s.ids(rest) != "[a1]" || last != "" {
		t.Fatalf("pages %s %s %q", s.ids(first), s.ids(rest), last)
	}
	none, _ := s.byAuthor(t, r, "nobody", core.Page{})
	if len(none) != 0 {
		t.Fatalf("none %s", s.ids(none))
	}
}

func (s messageSuite) deleteUser(t *testing.T) {
	r := s.newRepo(t)
	s.add(t, r,
		s.msg("a1", "p1", "u1", 0),
		s.msg("b1", "p1", "u2", time.Second),
		s.msg("a2", messages.SoloScope("u1"), "u1", 2*time.Second),
		s.msg("x1", messages.SoloScope("u1"), "u9", 3*time.Second), // not written by u1, yet in u1's solo thread
		s.msg("b2", messages.SoloScope("u2"), "u2", 4*time.Second),
	)
	must(t, r.DeleteUser(ctx, "u1"))
	must(t, r.DeleteUser(ctx, "u1"))
	if got, _ := s.list(t, r, "p1", core.Page{}); s.ids(got) != "[b1]" {
		t.Fatalf("shared thread %s", s.ids(got))
	}
	if got, _ := s.list(t, r, messages.SoloScope("u1"), core.Page{}); len(got) != 0 {
		t.Fatalf("solo thread %s", s.ids(got))
	}
	if got, _ := s.byAuthor(t, r, "u1", core.Page{}); len(got) != 0 {
		t.Fatalf("authored %s", s.ids(got))
	}
	if got, _ := s.byAuthor(t, r, "u2", core.Page{}); s.ids(got) != "[b2 b1]" {
		t.Fatalf("the partner's %s", s.ids(got))
	}
}
