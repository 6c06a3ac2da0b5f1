package storetest

import (
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"tandem/adapters/i18n"
	"tandem/core"
	"tandem/modules/notifications"
)

func (nt notificationSuite) inboxOrderAndRead(t *testing.T) {
	r := nt.newRepo(t)
	for _, n := range []notifications.Notification{
		nt.note("n1", "u1", now), nt.note("n3", "u1", now.Add(time.Minute)), nt.note("n2", "u1", now.Add(time.Minute)),
		nt.note("n4", "u1", now.Add(-time.Hour)), nt.note("x1", "u2", now.Add(time.Hour)),
	} {
		must(t, r.AddNotification(ctx, n))
	}
	wantKind(t, r.AddNotification(ctx, nt.note("n1", "u1", now)), core.KindConflict)
	all, next := nt.list(t, r, "u1", false, core.Page{})
	if nt.ids(all) != "n3,n2,n1,n4" || next != "" {
		t.Fatalf("list %s next %q", nt.ids(all), next)
	}
	first := all[2]
	if first.UserID != "u1" || first.Title != "t-n1" || first.Message != "m-n1" || first.Category != "mood" ||
		first.Read || !first.CreatedAt.Equal(now) {
		t.Fatalf("round trip %+v", first)
	}
	n, err := r.CountUnread(ctx, "u1")
	must(t, err)
	if n != 4 {
		t.Fatalf("unread %d", n)
	}

	must(t, r.MarkRead(ctx, "u1", "n2", nil))
	var made notifications.Notification                                                   // the feed's put: the entry as stored, read
	must(t, r.MarkRead(ctx, "u1", "n2", func(n notifications.Notification) { made = n })) // again is harmless
	if made.ID != "n2" || made.UserID != "u1" || !made.Read || made.Title != "t-n2" || !made.CreatedAt.Equal(now.Add(time.Minute)) {
		t.Fatalf("the notification MarkRead made: %+v", made)
	}
	wantKind(t, r.MarkRead(ctx, "u2", "n1", nil), core.KindNotFound)
	wantKind(t, r.MarkRead(ctx, "u1", "x1", nil), core.KindNotFound)
	wantKind(t, r.MarkRead(ctx, "u1", "nope", nil), core.KindNotFound)
	unread, _ := nt.list(t, r, "u1", true, core.Page{})
	if nt.ids(unread) != "n3,n1,n4" {
		t.Fatalf("unread %s", nt.ids(unread))
	}
	all, _ = nt.list(t, r, "u1", false, core.Page{})
	if !all[1].Read || all[0].Read {
		t.Fatalf("read flags %+v", all)
	}
	if n, _ := r.CountUnread(ctx, "u1"); n != 3 {
		t.Fatalf("unread %d", n)
	}

	marked, err := r.MarkAllRead(ctx, "u1")
	must(t, err)
	if marked != 3 {
		t.Fatalf("marked %d", marked)
	}
	if again, _ := r.MarkAllRead(ctx, "u1"); again != 0 {
		t.Fatalf("marked again %d", again)
	}
	if n, _ := r.CountUnread(ctx, "u1"); n != 0 {
		t.Fatalf("unread %d", n)
	}
	if n, _ := r.CountUnread(ctx, "u2"); n != 1 {
		t.Fatalf("the other user's were marked: %d", n)
	}
	if none, next := nt.list(t, r, "nobody", false, core.Page{Limit: 5}); len(none) != 0 || next != "" {
		t.Fatalf("nobody %v %q", none, next)
	}
}

func (nt notificationSuite) inboxPages(t *testing.T) {
	r := nt.newRepo(t)
	for i := range 7 {
		at := now.Add(time.Duration(i/3) * time.Second) // three per second
		must(t, r.AddNotification(ctx, nt.note(fmt.Sprintf("n%d", i), "u1", at)))
	}
	must(t, r.MarkRead(ctx, "u1", "n5", nil))
	for _, tc := range []struct {
		unread bool
		want   []string
	}{
		{false, []string{"n6,n5", "n4,n3", "n2,n1", "n0"}},
		{true, []string{"n6,n4", "n3,n2", "n1,n0"}},
	} {
		var pages []string
		p := core.Page{Limit: 2}
		for {
			ns, next := nt.list(t, r, "u1", tc.unread, p)
			pages = append(pages, nt.ids(ns))
			if next == "" {
				break
			}
			p.Cursor = next
			if len(pages) > 10 {
				t.Fatal("paging does not end")
			}
		}
		if strings.Join(pages, "|") != strings.Join(tc.want, "|") {
			t.Fatalf("unread=%v pages %v, want %v", tc.unread, pages, tc.want)
		}
	}
	ns, next := nt.list(t, r, "u1", false, core.Page{Limit: 7})
	if len(ns) != 7 || next != "" {
		t.Fatalf("exact page: %d %q", len(ns), next)
	}
	ns, next = nt.list(t, r, "u1", false, core.Page{Limit: 3}) // more to come: a cursor
	if len(ns) != 3 || next == "" {
		t.Fatalf("first page: %d %q", len(ns), next)
	}
	for _, bad := range []string{"!!", core.EncodeCursor("x", "n1"), core.EncodeCursor("1")} {
		_, _, err := r.ListNotifications(ctx, "u1", false, core.Page{Limit: 2, Cursor: bad})
		wantKind(t, err, core.KindInvalid)
	}
}

func (nt notificationSuite) activityCollects(t *testing.T) {
	r := nt.newRepo(t)
	quiet := 10 * time.Minute
	memo := notifications.Activity{UserID: "u1", From: "u2", Kind: notifications.ActivityMemoryAdded}
	fresh := func(id string, at time.Time) notifications.Notification {
		return notifications.Notification{ID: id, UserID: "u1", Category: notifications.CategoryPartnerActivity, CreatedAt: at}
	}
	// Each read also gives back the text's key and count, which the
	// service writes in the reader's locale.
	add := func(a notifications.Activity, id string, at time.Time, wantID, wantMsg string, wantPush bool) {
		t.Helper()
		got, push, err := addActivity(r, a, fresh(id, at), quiet)
		must(t, err)
		if got.ID != wantID || got.Message != wantMsg || got.Title == "" || got.UserID != a.UserID || got.Read ||
			got.Category != notifications.CategoryPartnerActivity || !got.CreatedAt.Equal(at) || push != wantPush {
			t.Fatalf("%s: got %+v push %v, want %s %q push %v", id, got, push, wantID, wantMsg, wantPush)
		}
	}
	add(memo, "n1", now, "n1", "Your partner added a memory.", true)
	add(memo, "n2", now.Add(time.Minute), "n1", "Your partner added 2 memories.", false)
	add(memo, "n3", now.Add(9*time.Minute), "n1", "Your partner added 3 memories.", false)
	ns, _ := nt.list(t, r, "u1", false, core.Page{})
	if nt.ids(ns) != "n1" || ns[0].Title != "New memories" || ns[0].Message != "Your partner added 3 memories." ||
		ns[0].Text.Key != "activity.memoryAdded" || !reflect.DeepEqual(ns[0].Text.Args, []any{3}) ||
		!ns[0].CreatedAt.Equal(now.Add(9*time.Minute)) {
		t.Fatalf("inbox %+v", ns)
	}
	// the quiet period runs from the last push
	add(memo, "n4", now.Add(quiet), "n1", "Your partner added 4 memories.", true)
	add(memo, "n5", now.Add(quiet+time.Minute), "n1", "Your partner added 5 memories.", false)
	// another actor is counted apart
	add(notifications.Activity{UserID: "u1", From: "u3", Kind: notifications.ActivityMemoryAdded}, "m1", now.Add(quiet+2*time.Minute),
		"m1", "Your partner added a memory.", true)
	// a read entry collects no more: the next one starts again at 1
	must(t, r.MarkRead(ctx, "u1", "n1", nil))
	add(memo, "n6", now.Add(quiet+3*time.Minute), "n6", "Your partner added a memory.", false)
	if ns, _ := nt.list(t, r, "u1", false, core.Page{}); nt.ids(ns) != "n6,m1,n1" || ns[2].Message != "Your partner added 5 memories." {
		t.Fatalf("inbox %s", nt.ids(ns))
	}
	if n, err := r.CountUnread(ctx, "u1"); err != nil || n != 2 {
		t.Fatalf("unread %d %v", n, err)
	}
	// deleting the actor forgets what they did; deleting the user forgets everything
	must(t, r.DeleteUser(ctx, "u3"))
	add(notifications.Activity{UserID: "u1", From: "u3", Kind: notifications.ActivityMemoryAdded}, "m2", now.Add(quiet+4*time.Minute),
		"m2", "Your partner added a memory.", true)
	must(t, r.DeleteUser(ctx, "u1"))
	add(memo, "n7", now.Add(quiet+5*time.Minute), "n7", "Your partner added a memory.", true)
}

func (nt notificationSuite) activityConcurrentRepeats(t *testing.T) {
	r := nt.newRepo(t)
	a := notifications.Activity{UserID: "u1", From: "u2", Kind: notifications.ActivityMemoryAdded}
	var mu sync.Mutex
	pushes := 0
	fns := make([]func() error, 8)
	for i := range fns {
		fns[i] = func() error {
			n := notifications.Notification{ID: fmt.Sprint("n", i), UserID: "u1", Category: notifications.CategoryPartnerActivity,
				CreatedAt: now.Add(time.Duration(i) * time.Second)}
			_, push, err := addActivity(r, a, n, 10*time.Minute)
			if push {
				mu.Lock()
				pushes++
				mu.Unlock()
			}
			return err
		}
	}
	for _, err := range race(fns...) {
		must(t, err)
	}
	ns, _ := nt.list(t, r, "u1", false, core.Page{})
	if len(ns) != 1 || ns[0].Message != "Your partner added 8 memories." || pushes != 1 {
		t.Fatalf("inbox %+v, %d pushes", ns, pushes)
	}
}

// addActivity runs the module's Collect through AddActivity, as the service
// does, and returns the entry stored and whether a push is due.
// english writes texts as the English reader reads them.
var english = i18n.MustLoad(nil)

func addActivity(r notifications.Repository, a notifications.Activity, n notifications.Notification, quiet time.Duration) (notifications.Notification, bool, error) {
	var push bool
	got, err := r.AddActivity(ctx, a, func(c notifications.Collected) notifications.Collected {
		var next notifications.Collected
		next, push = notifications.Collect(c, a, n, quiet)
		next.Entry.Title, next.Entry.Message = english.Note("en", next.Entry.Text) // as the service stores it
		return next
	})
	if err != nil {
		return notifications.Notification{}, false, err
	}
	return *got.Entry, push, nil
}
