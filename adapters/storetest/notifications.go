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
	"tandem/modules/notifications"
)

// NotificationRepository checks a notifications.Repository implementation.
func NotificationRepository(t *testing.T, newRepo func(t *testing.T) notifications.Repository) {
	ctx := context.Background()
	now := time.Date(2025, 6, 15, 12, 0, 0, 0, time.UTC)
	note := func(id, user string, at time.Time) notifications.Notification {
		return notifications.Notification{ID: id, UserID: user, Title: "t-" + id, Message: "m-" + id,
			Category: "mood", CreatedAt: at}
	}
	ids := func(ns []notifications.Notification) string {
		out := make([]string, len(ns))
		for i, n := range ns {
			out[i] = n.ID
		}
		return strings.Join(out, ",")
	}
	dev := func(id, user, token string, at time.Time) notifications.Device {
		return notifications.Device{ID: id, UserID: user, Token: token, Platform: core.PlatformIOS,
			Provider: notifications.ProviderExpo, CreatedAt: at, UpdatedAt: at}
	}
	devIDs := func(ds []notifications.Device) string {
		out := make([]string, len(ds))
		for i, d := range ds {
			out[i] = d.ID
		}
		return strings.Join(out, ",")
	}
	list := func(t *testing.T, r notifications.Repository, user string, unread bool, p core.Page) ([]notifications.Notification, string) {
		t.Helper()
		ns, next, err := r.ListNotifications(ctx, user, unread, p)
		must(t, err)
		return ns, next
	}

	t.Run("settings: absent, defaults on first update, every field round-trips", func(t *testing.T) {
		r := newRepo(t)
		_, err := r.Settings(ctx, "u1")
		wantKind(t, err, core.KindNotFound)

		var seen notifications.Settings
		got, err := r.UpdateSettings(ctx, "u1", func(s *notifications.Settings) error {
			seen = *s
			s.PauseAll, s.Preferences = true, notifications.Preferences{}
			s.Resume = notifications.Preferences{MoodUpdates: true, SystemUpdates: true}
			s.UpdatedAt = time.UnixMilli(1718452800123).UTC()
			return nil
		})
		must(t, err)
		if seen != notifications.DefaultSettings("u1") {
			t.Fatalf("fn saw %+v, want the defaults", seen)
		}
		want := notifications.Settings{UserID: "u1", PauseAll: true, ReminderTime: notifications.DefaultReminderTime,
			Resume: notifications.Preferences{MoodUpdates: true, SystemUpdates: true}, UpdatedAt: time.UnixMilli(1718452800123).UTC()}
		if !sameSettings(got, want) {
			t.Fatalf("returned %+v", got)
		}
		stored, err := r.Settings(ctx, "u1")
		must(t, err)
		if !sameSettings(stored, want) {
			t.Fatalf("stored %+v", stored)
		}
		_, err = r.Settings(ctx, "u2")
		wantKind(t, err, core.KindNotFound)

		// every per-type column is its own
		for _, k := range notifications.Kinds {
			_, err := r.UpdateSettings(ctx, "u3", func(s *notifications.Settings) error {
				s.Preferences = notifications.Preferences{}
				s.Preferences.Set(k, true)
				s.Resume = notifications.Preferences{}
				s.Resume.Set(k, true)
				return nil
			})
			must(t, err)
			got, _ := r.Settings(ctx, "u3")
			if on := got.On(); len(on) != 1 || on[0] != k || got.Resume != got.Preferences {
				t.Fatalf("%s: %+v", k, got)
			}
		}
	})

	t.Run("settings: the daily reminder time round-trips", func(t *testing.T) {
		r := newRepo(t)
		for _, at := range []core.TimeOfDay{{Hour: 7, Minute: 5}, {}, {Hour: 23, Minute: 59}} {
			_, err := r.UpdateSettings(ctx, "u1", func(s *notifications.Settings) error { s.ReminderTime = at; return nil })
			must(t, err)
			if got, _ := r.Settings(ctx, "u1"); got.ReminderTime != at || len(got.On()) != len(notifications.Kinds) {
				t.Fatalf("stored %+v, want %s", got, at)
			}
		}
	})

	t.Run("settings: an error from fn writes nothing", func(t *testing.T) {
		r := newRepo(t)
		boom := errors.New("boom")
		_, err := r.UpdateSettings(ctx, "u1", func(s *notifications.Settings) error { s.PauseAll = true; return boom })
		if !errors.Is(err, boom) {
			t.Fatalf("fn error: %v", err)
		}
		_, err = r.Settings(ctx, "u1")
		wantKind(t, err, core.KindNotFound)
		_, err = r.UpdateSettings(ctx, "u1", func(s *notifications.Settings) error { s.MoodUpdates = false; return nil })
		must(t, err)
		_, err = r.UpdateSettings(ctx, "u1", func(s *notifications.Settings) error { s.MoodUpdates = true; return boom })
		if !errors.Is(err, boom) {
			t.Fatalf("fn error: %v", err)
		}
		if got, _ := r.Settings(ctx, "u1"); got.MoodUpdates {
			t.Fatalf("a failed update wrote: %+v", got)
		}
	})

	t.Run("concurrent first updates all apply", func(t *testing.T) {
		r := newRepo(t)
		fns := make([]func() error, len(notifications.Kinds))
		for i, k := range notifications.Kinds {
			fns[i] = func() error {
				_, err := r.UpdateSettings(ctx, "u1", func(s *notifications.Settings) error { s.Set(k, false); return nil })
				return err
			}
		}
		for _, err := range race(fns...) {
			must(t, err)
		}
		if got, _ := r.Settings(ctx, "u1"); len(got.On()) != 0 {
			t.Fatalf("lost updates: %+v", got)
		}
	})

	t.Run("inbox: newest first, ties by id, unread only, per user", func(t *testing.T) {
		r := newRepo(t)
		for _, n := range []notifications.Notification{
			note("n1", "u1", now), note("n3", "u1", now.Add(time.Minute)), note("n2", "u1", now.Add(time.Minute)),
			note("n4", "u1", now.Add(-time.Hour)), note("x1", "u2", now.Add(time.Hour)),
		} {
			must(t, r.AddNotification(ctx, n))
		}
		wantKind(t, r.AddNotification(ctx, note("n1", "u1", now)), core.KindConflict)
		all, next := list(t, r, "u1", false, core.Page{})
		if ids(all) != "n3,n2,n1,n4" || next != "" {
			t.Fatalf("list %s next %q", ids(all), next)
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

		must(t, r.MarkRead(ctx, "u1", "n2"))
		must(t, r.MarkRead(ctx, "u1", "n2")) // again is harmless
		wantKind(t, r.MarkRead(ctx, "u2", "n1"), core.KindNotFound)
		wantKind(t, r.MarkRead(ctx, "u1", "x1"), core.KindNotFound)
		wantKind(t, r.MarkRead(ctx, "u1", "nope"), core.KindNotFound)
		unread, _ := list(t, r, "u1", true, core.Page{})
		if ids(unread) != "n3,n1,n4" {
			t.Fatalf("unread %s", ids(unread))
		}
		all, _ = list(t, r, "u1", false, core.Page{})
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
		if none, next := list(t, r, "nobody", false, core.Page{Limit: 5}); len(none) != 0 || next != "" {
			t.Fatalf("nobody %v %q", none, next)
		}
	})

	t.Run("inbox pages by cursor, across equal timestamps", func(t *testing.T) {
		r := newRepo(t)
		for i := range 7 {
			at := now.Add(time.Duration(i/3) * time.Second) // three per second
			must(t, r.AddNotification(ctx, note(fmt.Sprintf("n%d", i), "u1", at)))
		}
		must(t, r.MarkRead(ctx, "u1", "n5"))
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
				ns, next := list(t, r, "u1", tc.unread, p)
				pages = append(pages, ids(ns))
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
		ns, next := list(t, r, "u1", false, core.Page{Limit: 7})
		if len(ns) != 7 || next != "" {
			t.Fatalf("exact page: %d %q", len(ns), next)
		}
		ns, next = list(t, r, "u1", false, core.Page{Limit: 3}) // more to come: a cursor
		if len(ns) != 3 || next == "" {
			t.Fatalf("first page: %d %q", len(ns), next)
		}
		for _, bad := range []string{"!!", core.EncodeCursor("x", "n1"), core.EncodeCursor("1")} {
			_, _, err := r.ListNotifications(ctx, "u1", false, core.Page{Limit: 2, Cursor: bad})
			wantKind(t, err, core.KindInvalid)
		}
	})

	t.Run("activity: one unread entry counts the repeats, one push per quiet period", func(t *testing.T) {
		r := newRepo(t)
		quiet := 10 * time.Minute
		memo := notifications.Activity{UserID: "u1", From: "u2", Kind: notifications.ActivityMemoryAdded}
		fresh := func(id string, at time.Time) notifications.Notification {
			return notifications.Notification{ID: id, UserID: "u1", Category: notifications.CategoryPartnerActivity, CreatedAt: at}
		}
		add := func(a notifications.Activity, id string, at time.Time, wantID, wantMsg string, wantPush bool) {
			t.Helper()
			got, push, err := r.AddActivity(ctx, a, fresh(id, at), quiet)
			must(t, err)
			if got.ID != wantID || got.Message != wantMsg || got.Title == "" || got.UserID != a.UserID || got.Read ||
				got.Category != notifications.CategoryPartnerActivity || !got.CreatedAt.Equal(at) || push != wantPush {
				t.Fatalf("%s: got %+v push %v, want %s %q push %v", id, got, push, wantID, wantMsg, wantPush)
			}
		}
		add(memo, "n1", now, "n1", "Your partner added a memory.", true)
		add(memo, "n2", now.Add(time.Minute), "n1", "Your partner added 2 memories.", false)
		add(memo, "n3", now.Add(9*time.Minute), "n1", "Your partner added 3 memories.", false)
		ns, _ := list(t, r, "u1", false, core.Page{})
		if ids(ns) != "n1" || ns[0].Title != "New memories" || ns[0].Message != "Your partner added 3 memories." ||
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
		must(t, r.MarkRead(ctx, "u1", "n1"))
		add(memo, "n6", now.Add(quiet+3*time.Minute), "n6", "Your partner added a memory.", false)
		if ns, _ := list(t, r, "u1", false, core.Page{}); ids(ns) != "n6,m1,n1" || ns[2].Message != "Your partner added 5 memories." {
			t.Fatalf("inbox %s", ids(ns))
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
	})

	t.Run("activity: concurrent repeats make one entry and one push", func(t *testing.T) {
		r := newRepo(t)
		a := notifications.Activity{UserID: "u1", From: "u2", Kind: notifications.ActivityMemoryAdded}
		var mu sync.Mutex
		pushes := 0
		fns := make([]func() error, 8)
		for i := range fns {
			fns[i] = func() error {
				n := notifications.Notification{ID: fmt.Sprint("n", i), UserID: "u1", Category: notifications.CategoryPartnerActivity,
					CreatedAt: now.Add(time.Duration(i) * time.Second)}
				_, push, err := r.AddActivity(ctx, a, n, 10*time.Minute)
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
		ns, _ := list(t, r, "u1", false, core.Page{})
		if len(ns) != 1 || ns[0].Message != "Your partner added 8 memories." || pushes != 1 {
			t.Fatalf("inbox %+v, %d pushes", ns, pushes)
		}
	})

	t.Run("devices: register, another user's token becomes a new device, newest first", func(t *testing.T) {
		r := newRepo(t)
		d1, err := r.RegisterDevice(ctx, dev("d1", "u1", "ExponentPushToken[a]", now), 10)
		must(t, err)
		if d1 != dev("d1", "u1", "ExponentPushToken[a]", now) {
			t.Fatalf("stored %+v", d1)
		}
		_, err = r.RegisterDevice(ctx, dev("d2", "u1", "ExponentPushToken[b]", now.Add(time.Minute)), 10)
		must(t, err)
		_, err = r.RegisterDevice(ctx, dev("d3", "u1", "ExponentPushToken[A]", now.Add(2*time.Minute)), 10) // tokens are case-sensitive
		must(t, err)
		ds, err := r.Devices(ctx, "u1")
		must(t, err)
		if devIDs(ds) != "d3,d2,d1" {
			t.Fatalf("devices %s", devIDs(ds))
		}

		// the same token from another user: taken from u1 as a new device,
		// never under u1's id
		later := now.Add(time.Hour)
		again := dev("d9", "u2", "ExponentPushToken[a]", later)
		again.Platform, again.Provider = core.PlatformAndroid, notifications.ProviderFCM
		moved, err := r.RegisterDevice(ctx, again, 10)
		must(t, err)
		if moved != again {
			t.Fatalf("moved %+v", moved)
		}
		if ds, _ := r.Devices(ctx, "u1"); devIDs(ds) != "d3,d2" {
			t.Fatalf("u1 devices %s", devIDs(ds))
		}
		if ds, _ := r.Devices(ctx, "u2"); len(ds) != 1 || ds[0] != again {
			t.Fatalf("u2 devices %+v", ds)
		}
		wantKind(t, r.RemoveDevice(ctx, "u1", "d1"), core.KindNotFound)
		wantKind(t, r.RemoveDevice(ctx, "u2", "d1"), core.KindNotFound)
		// the new owner registering it again keeps it as it is
		same, err := r.RegisterDevice(ctx, dev("d11", "u2", "ExponentPushToken[a]", later.Add(time.Minute)), 10)
		must(t, err)
		if same.ID != "d9" || !same.CreatedAt.Equal(later) || !same.UpdatedAt.Equal(later.Add(time.Minute)) {
			t.Fatalf("re-registered %+v", same)
		}
		// re-registering by the same user refreshes it to the front
		_, err = r.RegisterDevice(ctx, dev("d10", "u1", "ExponentPushToken[b]", later), 10)
		must(t, err)
		if ds, _ := r.Devices(ctx, "u1"); devIDs(ds) != "d2,d3" {
			t.Fatalf("refreshed %s", devIDs(ds))
		}
		if ds, _ := r.Devices(ctx, "nobody"); len(ds) != 0 {
			t.Fatalf("nobody %v", ds)
		}
	})

	t.Run("devices: a user keeps the most recent ones", func(t *testing.T) {
		r := newRepo(t)
		for i := range 5 {
			_, err := r.RegisterDevice(ctx, dev(fmt.Sprintf("d%d", i), "u1", fmt.Sprintf("tok-%d", i), now.Add(time.Duration(i)*time.Minute)), 3)
			must(t, err)
		}
		_, err := r.RegisterDevice(ctx, dev("o1", "u2", "tok-other", now), 3)
		must(t, err)
		if ds, _ := r.Devices(ctx, "u1"); devIDs(ds) != "d4,d3,d2" {
			t.Fatalf("kept %s", devIDs(ds))
		}
		// a forgotten token is free: registering it again makes a new device
		d, err := r.RegisterDevice(ctx, dev("d5", "u1", "tok-0", now.Add(time.Hour)), 3)
		must(t, err)
		if d.ID != "d5" {
			t.Fatalf("got %+v", d)
		}
		if ds, _ := r.Devices(ctx, "u2"); devIDs(ds) != "o1" {
			t.Fatalf("another user's devices were trimmed: %s", devIDs(ds))
		}
	})

	t.Run("devices: concurrent registrations of one token make one device", func(t *testing.T) {
		r := newRepo(t)
		fns := make([]func() error, 8)
		for i := range fns {
			fns[i] = func() error {
				_, err := r.RegisterDevice(ctx, dev(fmt.Sprintf("d%d", i), fmt.Sprintf("u%d", i%2), "tok", now), 10)
				return err
			}
		}
		for _, err := range race(fns...) {
			must(t, err)
		}
		a, _ := r.Devices(ctx, "u0")
		b, _ := r.Devices(ctx, "u1")
		if len(a)+len(b) != 1 {
			t.Fatalf("devices %+v %+v", a, b)
		}
	})

	t.Run("devices: remove own, others' and unknown; remove dead ones", func(t *testing.T) {
		r := newRepo(t)
		for _, d := range []notifications.Device{dev("d1", "u1", "t1", now), dev("d2", "u1", "t2", now), dev("d3", "u2", "t3", now)} {
			_, err := r.RegisterDevice(ctx, d, 10)
			must(t, err)
		}
		wantKind(t, r.RemoveDevice(ctx, "u1", "d3"), core.KindNotFound)
		wantKind(t, r.RemoveDevice(ctx, "u1", "nope"), core.KindNotFound)
		must(t, r.RemoveDevice(ctx, "u1", "d1"))
		wantKind(t, r.RemoveDevice(ctx, "u1", "d1"), core.KindNotFound)
		must(t, r.RemoveDevices(ctx, nil))
		must(t, r.RemoveDevices(ctx, []string{"d2", "d3", "ghost"}))
		a, _ := r.Devices(ctx, "u1")
		b, _ := r.Devices(ctx, "u2")
		if len(a)+len(b) != 0 {
			t.Fatalf("left %+v %+v", a, b)
		}
		// the removed token is free again
		d, err := r.RegisterDevice(ctx, dev("d4", "u1", "t1", now), 10)
		must(t, err)
		if d.ID != "d4" {
			t.Fatalf("got %+v", d)
		}
	})

	t.Run("delete user is idempotent and touches only the user", func(t *testing.T) {
		r := newRepo(t)
		for _, u := range []string{"u1", "u2"} {
			_, err := r.UpdateSettings(ctx, u, func(s *notifications.Settings) error { s.MoodUpdates = false; return nil })
			must(t, err)
			must(t, r.AddNotification(ctx, note("n-"+u, u, now)))
			_, err = r.RegisterDevice(ctx, dev("d-"+u, u, "tok-"+u, now), 10)
			must(t, err)
		}
		must(t, r.DeleteUser(ctx, "u1"))
		must(t, r.DeleteUser(ctx, "u1"))
		_, err := r.Settings(ctx, "u1")
		wantKind(t, err, core.KindNotFound)
		if ns, _ := list(t, r, "u1", false, core.Page{}); len(ns) != 0 {
			t.Fatalf("notifications left: %v", ns)
		}
		if ds, _ := r.Devices(ctx, "u1"); len(ds) != 0 {
			t.Fatalf("devices left: %v", ds)
		}
		if s, err := r.Settings(ctx, "u2"); err != nil || s.MoodUpdates {
			t.Fatalf("u2 settings %+v %v", s, err)
		}
		if ns, _ := list(t, r, "u2", false, core.Page{}); ids(ns) != "n-u2" {
			t.Fatalf("u2 notifications %s", ids(ns))
		}
		if ds, _ := r.Devices(ctx, "u2"); devIDs(ds) != "d-u2" {
			t.Fatalf("u2 devices %s", devIDs(ds))
		}
	})
}

func sameSettings(a, b notifications.Settings) bool {
	return a.UserID == b.UserID && a.PauseAll == b.PauseAll && a.Preferences == b.Preferences &&
		a.Resume == b.Resume && a.ReminderTime == b.ReminderTime && a.UpdatedAt.Equal(b.UpdatedAt)
}

// TicketRepository checks a notifications.TicketRepository implementation.
func TicketRepository(t *testing.T, newRepo func(t *testing.T) notifications.TicketRepository) {
	ctx := context.Background()
	now := time.Date(2025, 6, 15, 12, 0, 0, 0, time.UTC)
	delay := 15 * time.Minute
	ticket := func(id, device string, sent time.Time) notifications.Ticket {
		return notifications.Ticket{ID: id, DeviceID: device, SentAt: sent}
	}
	ids := func(ts []notifications.Ticket) string {
		out := make([]string, len(ts))
		for i, x := range ts {
			out[i] = x.ID
		}
		slices.Sort(out)
		return strings.Join(out, ",")
	}
	claim := func(t *testing.T, r notifications.TicketRepository, at time.Time, limit int) []notifications.Ticket {
		t.Helper()
		ts, err := r.ClaimTickets(ctx, at.Add(-delay), at, limit)
		must(t, err)
		return ts
	}

	t.Run("due after the delay, oldest first, round trip; again a delay after each claim", func(t *testing.T) {
		r := newRepo(t)
		must(t, r.AddTickets(ctx, nil))
		must(t, r.AddTickets(ctx, []notifications.Ticket{
			ticket("0195a-late", "d2", now.Add(time.Minute)),
			ticket("0195a-early", "d1", now.Add(123*time.Millisecond)),
			ticket("0195a-mid", "d3", now.Add(30*time.Second)),
		}))
		if got := claim(t, r, now.Add(delay), 10); len(got) != 0 {
			t.Fatalf("claimed before the delay: %v", got)
		}
		got := claim(t, r, now.Add(delay+45*time.Second), 1)
		if len(got) != 1 || got[0] != ticket("0195a-early", "d1", now.Add(123*time.Millisecond)) {
			t.Fatalf("the oldest first, whole: %+v", got)
		}
		at := now.Add(delay + time.Minute)
		if got := claim(t, r, at, 10); ids(got) != "0195a-late,0195a-mid" {
			t.Fatalf("the others: %s", ids(got))
		}
		if got := claim(t, r, at.Add(delay-time.Second), 10); ids(got) != "0195a-early" {
			t.Fatalf("claimed again within the delay: %s", ids(got))
		}
		if got := claim(t, r, at.Add(delay), 10); ids(got) != "0195a-late,0195a-mid" || !got[0].SentAt.Before(at) {
			t.Fatalf("again a delay after the claim: %+v", got)
		}
	})

	t.Run("a stored id keeps its row; delete forgets, unknown ids ignored", func(t *testing.T) {
		r := newRepo(t)
		must(t, r.AddTickets(ctx, []notifications.Ticket{ticket("a", "d1", now), ticket("b", "d1", now)}))
		must(t, r.AddTickets(ctx, []notifications.Ticket{ticket("a", "d9", now.Add(time.Hour)), ticket("c", "d2", now)}))
		got := claim(t, r, now.Add(delay), 10)
		if ids(got) != "a,b,c" {
			t.Fatalf("claimed %s", ids(got))
		}
		for _, x := range got {
			if x.ID == "a" && x.DeviceID != "d1" {
				t.Fatalf("a stored ticket was replaced: %+v", x)
			}
		}
		must(t, r.DeleteTickets(ctx, []string{"a", "c", "nope"}))
		must(t, r.DeleteTickets(ctx, nil))
		if got := claim(t, r, now.Add(3*delay), 10); ids(got) != "b" {
			t.Fatalf("after delete %s", ids(got))
		}
	})

	t.Run("concurrent claims take each ticket once", func(t *testing.T) {
		r := newRepo(t)
		var all []notifications.Ticket
		for i := range 60 {
			all = append(all, ticket(fmt.Sprintf("t%02d", i), "d", now.Add(time.Duration(i)*time.Millisecond)))
		}
		must(t, r.AddTickets(ctx, all))
		var mu sync.Mutex
		seen := map[string]int{}
		fns := make([]func() error, 6)
		for i := range fns {
			fns[i] = func() error {
				for {
					got, err := r.ClaimTickets(ctx, now.Add(time.Second), now.Add(delay), 7)
					if err != nil || len(got) == 0 {
						return err
					}
					mu.Lock()
					for _, x := range got {
						seen[x.ID]++
					}
					mu.Unlock()
				}
			}
		}
		for _, err := range race(fns...) {
			must(t, err)
		}
		for _, x := range all {
			if seen[x.ID] != 1 {
				t.Fatalf("%s claimed %d times", x.ID, seen[x.ID])
			}
		}
	})
}

// DailyReminderRepository checks a notifications.DailyReminderRepository
// implementation.
func DailyReminderRepository(t *testing.T, newRepo func(t *testing.T) notifications.DailyReminderRepository) {
	ctx := context.Background()
	now := time.Date(2025, 6, 15, 12, 0, 0, 0, time.UTC)
	day := core.Date{Year: 2025, Month: 6, Day: 15}
	due := func(t *testing.T, r notifications.DailyReminderRepository, at time.Time, limit int) string {
		t.Helper()
		ds, err := r.DueReminders(ctx, at, limit)
		must(t, err)
		out := make([]string, len(ds))
		for i, d := range ds {
			out[i] = d.UserID + "@" + d.At.UTC().Format("15:04:05.000")
		}
		return strings.Join(out, ",")
	}

	t.Run("schedule: due ones earliest first, ties by user, replaced by a new schedule", func(t *testing.T) {
		r := newRepo(t)
		must(t, r.ScheduleReminder(ctx, "u3", now.Add(2*time.Hour)))
		must(t, r.ScheduleReminder(ctx, "u2", now.Add(time.Hour+123*time.Millisecond)))
		must(t, r.ScheduleReminder(ctx, "u1", now.Add(time.Hour+123*time.Millisecond)))
		must(t, r.ScheduleReminder(ctx, "u4", now.Add(-24*time.Hour)))
		if got := due(t, r, now, 10); got != "u4@12:00:00.000" {
			t.Fatalf("due %s", got)
		}
		if got := due(t, r, now.Add(time.Hour+123*time.Millisecond), 10); got != "u4@12:00:00.000,u1@13:00:00.123,u2@13:00:00.123" {
			t.Fatalf("due %s", got)
		}
		if got := due(t, r, now.Add(3*time.Hour), 2); got != "u4@12:00:00.000,u1@13:00:00.123" {
			t.Fatalf("limited %s", got)
		}
		must(t, r.ScheduleReminder(ctx, "u4", now.Add(3*time.Hour))) // later: replaced
		must(t, r.ScheduleReminder(ctx, "u3", now.Add(time.Hour)))   // earlier: replaced
		if got := due(t, r, now.Add(2*time.Hour), 10); got != "u3@13:00:00.000,u1@13:00:00.123,u2@13:00:00.123" {
			t.Fatalf("after rescheduling %s", got)
		}
	})

	t.Run("move and clear only from the instant read", func(t *testing.T) {
		r := newRepo(t)
		at := now.Add(time.Hour)
		must(t, r.ScheduleReminder(ctx, "u1", at))
		must(t, r.ScheduleReminder(ctx, "u2", at))
		ok, err := r.MoveReminder(ctx, "u1", now, now.Add(5*time.Hour))
		must(t, err)
		if ok {
			t.Fatal("moved from another instant")
		}
		if ok, _ := r.MoveReminder(ctx, "u1", at, now.Add(5*time.Hour)); !ok {
			t.Fatal("not moved")
		}
		if ok, _ := r.MoveReminder(ctx, "u1", at, now.Add(6*time.Hour)); ok {
			t.Fatal("moved twice from one read")
		}
		if ok, _ := r.MoveReminder(ctx, "nobody", at, now); ok {
			t.Fatal("moved a reminder nobody has")
		}
		if ok, _ := r.ClearReminder(ctx, "u2", now); ok {
			t.Fatal("cleared from another instant")
		}
		if ok, _ := r.ClearReminder(ctx, "u2", at); !ok {
			t.Fatal("not cleared")
		}
		if ok, _ := r.ClearReminder(ctx, "u2", at); ok {
			t.Fatal("cleared twice")
		}
		if got := due(t, r, now.Add(24*time.Hour), 10); got != "u1@17:00:00.000" {
			t.Fatalf("due %s", got)
		}
	})

	t.Run("a user and date is claimed once, even at once", func(t *testing.T) {
		r := newRepo(t)
		var mu sync.Mutex
		won := 0
		fns := make([]func() error, 8)
		for i := range fns {
			fns[i] = func() error {
				ok, err := r.ClaimReminderDay(ctx, "u1", day, now)
				if ok {
					mu.Lock()
					won++
					mu.Unlock()
				}
				return err
			}
		}
		for _, err := range race(fns...) {
			must(t, err)
		}
		if won != 1 {
			t.Fatalf("%d claims won", won)
		}
		for _, c := range []struct {
			user string
			day  core.Date
		}{{"u1", day.AddDays(1)}, {"u1", day.AddDays(-1)}, {"u2", day}} {
			if ok, err := r.ClaimReminderDay(ctx, c.user, c.day, now); !ok || err != nil {
				t.Fatalf("%s %s: %v %v", c.user, c.day, ok, err)
			}
		}
	})

	t.Run("purge forgets the claims before a date", func(t *testing.T) {
		r := newRepo(t)
		for i := range 5 {
			ok, err := r.ClaimReminderDay(ctx, "u1", day.AddDays(-i), now)
			if !ok || err != nil {
				t.Fatal(ok, err)
			}
		}
		n, err := r.PurgeReminderDays(ctx, day.AddDays(-2))
		must(t, err)
		if n != 2 {
			t.Fatalf("purged %d", n)
		}
		if n, _ := r.PurgeReminderDays(ctx, day.AddDays(-2)); n != 0 {
			t.Fatalf("purged again %d", n)
		}
		if ok, _ := r.ClaimReminderDay(ctx, "u1", day.AddDays(-2), now); ok {
			t.Fatal("the first kept date was purged")
		}
		if ok, _ := r.ClaimReminderDay(ctx, "u1", day.AddDays(-3), now); !ok {
			t.Fatal("a purged date is still claimed")
		}
	})

	t.Run("delete user removes their reminder and claims only", func(t *testing.T) {
		r := newRepo(t)
		for _, u := range []string{"u1", "u2"} {
			must(t, r.ScheduleReminder(ctx, u, now))
			if ok, err := r.ClaimReminderDay(ctx, u, day, now); !ok || err != nil {
				t.Fatal(ok, err)
			}
		}
		must(t, r.DeleteUserReminders(ctx, "u1"))
		must(t, r.DeleteUserReminders(ctx, "u1"))
		if got := due(t, r, now, 10); got != "u2@12:00:00.000" {
			t.Fatalf("due %s", got)
		}
		if ok, _ := r.ClaimReminderDay(ctx, "u1", day, now); !ok {
			t.Fatal("u1's claim survived")
		}
		if ok, _ := r.ClaimReminderDay(ctx, "u2", day, now); ok {
			t.Fatal("u2's claim was deleted")
		}
	})
}
