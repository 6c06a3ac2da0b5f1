package storetest

import (
	"strings"
	"testing"
	"time"

	"tandem/core"
	"tandem/modules/feedback"
)

// FeedbackRepository checks a feedback.Repository implementation.
func FeedbackRepository(t *testing.T, newRepo func(t *testing.T) feedback.Repository) {
	fd := feedbackSuite{newRepo: newRepo}
	t.Run("create and read back every field; an id is taken once", fd.createAndRead)
	t.Run("lists are newest first, by time then id, paged", fd.lists)
	t.Run("mark handled once, read it back, list by state", fd.markHandled)
	t.Run("delete is idempotent and touches only the user", fd.deleteUser)
}

// feedbackSuite holds FeedbackRepository's helpers and subtests.
type feedbackSuite struct {
	newRepo func(t *testing.T) feedback.Repository
}

func (feedbackSuite) fb(id, user string, at time.Time) feedback.Feedback {
	return feedback.Feedback{ID: id, UserID: user, Message: "message " + id, CreatedAt: at}
}

func (feedbackSuite) ids(fs []feedback.Feedback) string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.ID
	}
	return strings.Join(out, ",")
}

// seeded is a new repository holding f1..f5 of u1 a minute apart (f3 and
// f4 at the same instant) and g1 of u2 in between.
func (fd feedbackSuite) seeded(t *testing.T) feedback.Repository {
	t.Helper()
	r := fd.newRepo(t)
	for _, f := range []feedback.Feedback{fd.fb("f1", "u1", now), fd.fb("f2", "u1", now.Add(time.Minute)),
		fd.fb("g1", "u2", now.Add(90*time.Second)), fd.fb("f3", "u1", now.Add(2*time.Minute)),
		fd.fb("f4", "u1", now.Add(2*time.Minute)), fd.fb("f5", "u1", now.Add(3*time.Minute))} {
		must(t, r.Create(ctx, f))
	}
	return r
}

func (fd feedbackSuite) createAndRead(t *testing.T) {
	r := fd.newRepo(t)
	want := feedback.Feedback{ID: "f1", UserID: "u1", Message: strings.Repeat("ü💬", feedback.MaxMessage/2),
		CreatedAt: time.UnixMilli(1718452800123).UTC()}
	must(t, r.Create(ctx, want))
	wantKind(t, r.Create(ctx, fd.fb("f1", "u2", now)), core.KindConflict)
	got, next, err := r.ListByUser(ctx, "u1", core.Page{})
	must(t, err)
	if len(got) != 1 || got[0] != want || next != "" {
		t.Fatalf("got %+v next %q", got, next)
	}
	none, _, err := r.ListByUser(ctx, "u2", core.Page{})
	must(t, err)
	if len(none) != 0 {
		t.Fatalf("u2 has %v", none)
	}
}

func (fd feedbackSuite) lists(t *testing.T) {
	r := fd.seeded(t)
	mine, next, err := r.ListByUser(ctx, "u1", core.Page{})
	must(t, err)
	if fd.ids(mine) != "f5,f4,f3,f2,f1" || next != "" {
		t.Fatalf("u1 %s next %q", fd.ids(mine), next)
	}
	all, _, err := r.List(ctx, core.Page{})
	must(t, err)
	if fd.ids(all) != "f5,f4,f3,g1,f2,f1" {
		t.Fatalf("all %s", fd.ids(all))
	}
	p1, next, err := r.ListByUser(ctx, "u1", core.Page{Limit: 2})
	must(t, err)
	p2, next2, err := r.ListByUser(ctx, "u1", core.Page{Limit: 2, Cursor: next})
	must(t, err)
	p3, next3, err := r.ListByUser(ctx, "u1", core.Page{Limit: 2, Cursor: next2})
	must(t, err)
	if fd.ids(p1) != "f5,f4" || fd.ids(p2) != "f3,f2" || fd.ids(p3) != "f1" || next3 != "" {
		t.Fatalf("pages %s | %s | %s next %q", fd.ids(p1), fd.ids(p2), fd.ids(p3), next3)
	}
	a1, an, err := r.List(ctx, core.Page{Limit: 3})
	must(t, err)
	a2, an2, err := r.List(ctx, core.Page{Limit: 3, Cursor: an})
	must(t, err)
	if fd.ids(a1) != "f5,f4,f3" || fd.ids(a2) != "g1,f2,f1" || an2 != "" {
		t.Fatalf("all pages %s | %s next %q", fd.ids(a1), fd.ids(a2), an2)
	}
	for _, bad := range []string{"x!", core.EncodeCursor("soon", "f1"), core.EncodeCursor("1")} {
		_, _, err = r.List(ctx, core.Page{Limit: 2, Cursor: bad})
		wantKind(t, err, core.KindInvalid)
		_, _, err = r.ListByUser(ctx, "u1", core.Page{Limit: 2, Cursor: bad})
		wantKind(t, err, core.KindInvalid)
	}
}

func (fd feedbackSuite) markHandled(t *testing.T) {
	r := fd.seeded(t)
	at := time.UnixMilli(1718452900456).UTC()
	got, err := r.MarkHandled(ctx, "f2", "boss@example.com", at)
	must(t, err)
	if !got.Handled() || !got.HandledAt.Equal(at) || got.HandledBy != "boss@example.com" || got.Message != "message f2" {
		t.Fatalf("marked %+v", got)
	}
	again, err := r.MarkHandled(ctx, "f2", "other@example.com", at.Add(time.Hour))
	must(t, err)
	if again.HandledBy != "boss@example.com" || !again.HandledAt.Equal(at) {
		t.Fatalf("the first mark did not stay: %+v", again)
	}
	_, err = r.MarkHandled(ctx, "nope", "boss@example.com", at)
	wantKind(t, err, core.KindNotFound)
	_, err = r.Get(ctx, "nope")
	wantKind(t, err, core.KindNotFound)
	read, err := r.Get(ctx, "f2")
	must(t, err)
	if read != again {
		t.Fatalf("get %+v, want %+v", read, again)
	}
	open, err := r.Get(ctx, "f1")
	must(t, err)
	if open.Handled() || open.HandledBy != "" {
		t.Fatalf("f1 %+v", open)
	}
	_, err = r.MarkHandled(ctx, "g1", "boss@example.com", at)
	must(t, err)
	handled, _, err := r.ListByState(ctx, true, core.Page{})
	must(t, err)
	openList, _, err := r.ListByState(ctx, false, core.Page{})
	must(t, err)
	if fd.ids(handled) != "g1,f2" || fd.ids(openList) != "f5,f4,f3,f1" {
		t.Fatalf("handled %s open %s", fd.ids(handled), fd.ids(openList))
	}
	p1, next, err := r.ListByState(ctx, false, core.Page{Limit: 3})
	must(t, err)
	p2, next2, err := r.ListByState(ctx, false, core.Page{Limit: 3, Cursor: next})
	must(t, err)
	if fd.ids(p1) != "f5,f4,f3" || fd.ids(p2) != "f1" || next2 != "" {
		t.Fatalf("open pages %s | %s next %q", fd.ids(p1), fd.ids(p2), next2)
	}
}

func (fd feedbackSuite) deleteUser(t *testing.T) {
	r := fd.seeded(t)
	must(t, r.DeleteByUser(ctx, "u1"))
	must(t, r.DeleteByUser(ctx, "u1"))
	all, _, err := r.List(ctx, core.Page{})
	must(t, err)
	if fd.ids(all) != "g1" {
		t.Fatalf("left %s", fd.ids(all))
	}
}
