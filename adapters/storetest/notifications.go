package storetest

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"tandem/core"
	"tandem/modules/notifications"
)

// NotificationRepository checks a notifications.Repository implementation.
func NotificationRepository(t *testing.T, newRepo func(t *testing.T) notifications.Repository) {
	nt := notificationSuite{newRepo: newRepo}
	t.Run("settings: absent, defaults on first update, every field round-trips", nt.settingsRoundTrip)
	t.Run("settings: the daily reminder time round-trips", nt.settingsReminderTime)
	t.Run("settings: an error from fn writes nothing", nt.settingsFailedUpdate)
	t.Run("concurrent first updates all apply", nt.settingsConcurrentFirstUpdates)

	// the inbox and partner activity: notifications_inbox.go
	t.Run("inbox: newest first, ties by id, unread only, per user", nt.inboxOrderAndRead)
	t.Run("inbox pages by cursor, across equal timestamps", nt.inboxPages)
	t.Run("inbox: a text's key and arguments round-trip", nt.inboxTextRoundTrip)
	t.Run("activity: one unread entry counts the repeats, one push per quiet period", nt.activityCollects)
	t.Run("activity: concurrent repeats make one entry and one push", nt.activityConcurrentRepeats)

	// push devices: notifications_push.go (with TicketRepository)
	t.Run("devices: register, another user's token becomes a new device, newest first", nt.devicesRegister)
	t.Run("devices: a user keeps the most recent ones", nt.devicesKeepMostRecent)
	t.Run("devices: concurrent registrations of one token make one device", nt.devicesConcurrentRegistrations)
	t.Run("devices: remove own, others' and unknown; remove dead ones", nt.devicesRemove)

	t.Run("delete user is idempotent and touches only the user", nt.deleteUser)
}

// notificationSuite holds NotificationRepository's helpers and subtests.
type notificationSuite struct {
	newRepo func(t *testing.T) notifications.Repository
}

func (notificationSuite) note(id, user string, at time.Time) notifications.Notification {
	return notifications.Notification{ID: id, UserID: user, Title: "t-" + id, Message: "m-" + id,
		Category: "mood", CreatedAt: at}
}

func (notificationSuite) ids(ns []notifications.Notification) string {
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = n.ID
	}
	return strings.Join(out, ",")
}

func (notificationSuite) dev(id, user, token string, at time.Time) notifications.Device {
	return notifications.Device{ID: id, UserID: user, Token: token, Platform: core.PlatformIOS,
		Provider: "expo", CreatedAt: at, UpdatedAt: at}
}

func (notificationSuite) devIDs(ds []notifications.Device) string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = d.ID
	}
	return strings.Join(out, ",")
}

func (notificationSuite) list(t *testing.T, r notifications.Repository, user string, unread bool, p core.Page) ([]notifications.Notification, string) {
	t.Helper()
	ns, next, err := r.ListNotifications(ctx, user, unread, p)
	must(t, err)
	return ns, next
}

func (nt notificationSuite) settingsRoundTrip(t *testing.T) {
	r := nt.newRepo(t)
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
}

func (nt notificationSuite) settingsReminderTime(t *testing.T) {
	r := nt.newRepo(t)
	for _, at := range []core.TimeOfDay{{Hour: 7, Minute: 5}, {}, {Hour: 23, Minute: 59}} {
		_, err := r.UpdateSettings(ctx, "u1", func(s *notifications.Settings) error { s.ReminderTime = at; return nil })
		must(t, err)
		if got, _ := r.Settings(ctx, "u1"); got.ReminderTime != at || len(got.On()) != len(notifications.Kinds) {
			t.Fatalf("stored %+v, want %s", got, at)
		}
	}
}

func (nt notificationSuite) settingsFailedUpdate(t *testing.T) {
	r := nt.newRepo(t)
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
}

func (nt notificationSuite) settingsConcurrentFirstUpdates(t *testing.T) {
	r := nt.newRepo(t)
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
}

func (nt notificationSuite) deleteUser(t *testing.T) {
	r := nt.newRepo(t)
	for _, u := range []string{"u1", "u2"} {
		_, err := r.UpdateSettings(ctx, u, func(s *notifications.Settings) error { s.MoodUpdates = false; return nil })
		must(t, err)
		must(t, r.AddNotification(ctx, nt.note("n-"+u, u, now)))
		_, err = register(r, nt.dev("d-"+u, u, "tok-"+u, now), 10)
		must(t, err)
	}
	must(t, r.DeleteUser(ctx, "u1"))
	must(t, r.DeleteUser(ctx, "u1"))
	_, err := r.Settings(ctx, "u1")
	wantKind(t, err, core.KindNotFound)
	if ns, _ := nt.list(t, r, "u1", false, core.Page{}); len(ns) != 0 {
		t.Fatalf("notifications left: %v", ns)
	}
	if ds, _ := r.Devices(ctx, "u1"); len(ds) != 0 {
		t.Fatalf("devices left: %v", ds)
	}
	if s, err := r.Settings(ctx, "u2"); err != nil || s.MoodUpdates {
		t.Fatalf("u2 settings %+v %v", s, err)
	}
	if ns, _ := nt.list(t, r, "u2", false, core.Page{}); nt.ids(ns) != "n-u2" {
		t.Fatalf("u2 notifications %s", nt.ids(ns))
	}
	if ds, _ := r.Devices(ctx, "u2"); nt.devIDs(ds) != "d-u2" {
		t.Fatalf("u2 devices %s", nt.devIDs(ds))
	}
}

func (nt notificationSuite) inboxTextRoundTrip(t *testing.T) {
	r := nt.newRepo(t)
	at := time.Date(2025, 6, 15, 12, 0, 0, 0, time.UTC)
	keyed := nt.note("n1", "u1", at)
	keyed.Text = core.Msg("milestone.anniversary", 2, 731, core.Date{Year: 2023, Month: 6, Day: 15}, "Ünïcode “title”")
	plain := nt.note("n2", "u1", at.Add(time.Second))
	must(t, r.AddNotification(ctx, keyed))
	must(t, r.AddNotification(ctx, plain))
	ns, _ := nt.list(t, r, "u1", false, core.Page{})
	if len(ns) != 2 || !reflect.DeepEqual(ns[1].Text, keyed.Text) || ns[0].Text.Key != "" || ns[0].Text.Args != nil ||
		ns[1].Title != keyed.Title || ns[0].Message != plain.Message {
		t.Fatalf("read %+v, want %+v then %+v", ns, plain, keyed)
	}
}

func sameSettings(a, b notifications.Settings) bool {
	return a.UserID == b.UserID && a.PauseAll == b.PauseAll && a.Preferences == b.Preferences &&
		a.Resume == b.Resume && a.ReminderTime == b.ReminderTime && a.UpdatedAt.Equal(b.UpdatedAt)
}
