// This file holds the tests of what happens to a user's notifications with
// their partnership and account: the end of a partnership told to both, the
// export (paged through a long inbox) and the purge.

package notifications_test

import (
	"context"
	"fmt"
	reflect "reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"tandem/core"
	n "tandem/modules/notifications"
)

func TestPartnershipEndedNotifiesBothFormerPartners(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	bus := core.NewBus([]core.Listener{f.svc.Listener()}, func(_ string, _ core.Event, err error) { t.Errorf("listener: %v", err) })
	f.register(t, "ann", "ann-phone")
	f.register(t, "bob", "bob-phone")
	if _, err := f.svc.UpdateSettings(ctx, "bob", n.Changes{Switches: n.Patch{n.PartnerActivity: false}}); err != nil {
		t.Fatal(err)
	}

	bus.Publish(ctx, core.PartnershipEnded{PartnershipID: "p1", UserIDs: [2]string{"ann", "bob"}})
	for _, u := range []string{"ann", "bob"} {
		ns := f.inbox(t, u)
		if len(ns) != 1 || ns[0].Category != n.CategoryPartnerActivity || ns[0].Title != "Partnership ended" ||
			ns[0].Message != "You and your partner are no longer connected." || ns[0].Read {
			t.Fatalf("%s: %+v", u, ns)
		}
	}
	// Bob turned partner activity off: saved, but only Ann's phone got a push.
	calls := f.pusher.all()
	if len(calls) != 1 || strings.Join(calls[0].to, ",") != "ann-phone" {
		t.Fatalf("pushes %+v", calls)
	}

	bus.Publish(ctx, core.PartnershipStarted{PartnershipID: "p2", UserIDs: [2]string{"ann", "bob"}})
	bus.Publish(ctx, core.PartnershipEnded{PartnershipID: "p3"}) // no users: nothing
	if len(f.inbox(t, "ann")) != 1 || len(f.pusher.all()) != 1 {
		t.Fatal("other events notified")
	}

	// A deleted account loses what it received while being deleted.
	bus.Publish(ctx, core.AccountDeleted{UserID: "ann"})
	if len(f.inbox(t, "ann")) != 0 || f.tokens(t, "ann") != "" || len(f.inbox(t, "bob")) != 1 {
		t.Fatal("AccountDeleted did not purge exactly ann")
	}
}

func TestExportAndPurge(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	var owner core.UserData = f.svc
	if owner.Section() != "notifications" {
		t.Fatal(owner.Section())
	}
	empty := func(v any) bool {
		e := v.(n.Export)
		return e.Settings == n.DefaultSettings("u1") && len(e.Notifications) == 0 && len(e.Devices) == 0
	}
	if v, err := owner.ExportUser(ctx, "u1"); err != nil || !empty(v) {
		t.Fatalf("empty export %+v %v", v, err)
	}

	d := f.register(t, "u1", "secret-token")
	if _, err := f.svc.UpdateSettings(ctx, "u1", n.Changes{Switches: n.Patch{n.GamesNotification: false}}); err != nil {
		t.Fatal(err)
	}
	first, _ := f.svc.Notify(ctx, "u1", "mood", "One", "first")
	f.clock.Advance(time.Second)
	second, _ := f.svc.Notify(ctx, "u1", "notes", "Two", "second")
	if err := f.svc.MarkRead(ctx, "u1", first.Notification.ID); err != nil {
		t.Fatal(err)
	}
	v, err := owner.ExportUser(ctx, "u1")
	if err != nil {
		t.Fatal(err)
	}
	e := v.(n.Export)
	prefs := n.AllOn()
	prefs.GamesNotification = false
	read := first.Notification
	read.Read = true
	device := n.DeviceInfo{ID: d.ID, Platform: "android", Provider: "fcm", RegisteredAt: d.UpdatedAt}
	if e.Settings.PauseAll || e.Settings.Preferences != prefs ||
		!reflect.DeepEqual(e.Notifications, []n.Notification{second.Notification, read}) ||
		!slices.Equal(e.Devices, []n.DeviceInfo{device}) {
		t.Fatalf("export %+v", e)
	}

	f.register(t, "u2", "theirs")
	for range 2 {
		if err := owner.PurgeUser(ctx, "u1"); err != nil {
			t.Fatal(err)
		}
	}
	if v, _ := owner.ExportUser(ctx, "u1"); !empty(v) {
		t.Fatalf("after purge %+v", v)
	}
	if f.tokens(t, "u2") != "theirs" {
		t.Fatal("purge touched another user")
	}
}

func TestExportPagesThroughALongInbox(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	const total = core.MaxPageLimit + 3
	for range total {
		if err := f.repo.AddNotification(ctx, n.Notification{ID: fmt.Sprintf("n%04d", f.clock.Now().Unix()), UserID: "u1",
			Title: "t", Message: "m", Category: "mood", CreatedAt: f.clock.Now()}); err != nil {
			t.Fatal(err)
		}
		f.clock.Advance(time.Second)
	}
	v, err := f.svc.ExportUser(ctx, "u1")
	if err != nil {
		t.Fatal(err)
	}
	if got := len(v.(n.Export).Notifications); got != total {
		t.Fatalf("exported %d of %d", got, total)
	}
}
