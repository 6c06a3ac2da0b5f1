// This file holds the tests of the live announcements: every saved
// notification to its recipient only, nothing when the save failed.

package notifications_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"tandem/adapters/memory"
	"tandem/adapters/push"
	"tandem/core"
	"tandem/core/coretest"
	n "tandem/modules/notifications"
)

// TestEverySavedNotificationIsAnnouncedToItsRecipientOnly: a notification
// saved to an inbox (Notify, a new or coalesced activity entry, the
// partnership-ended notice) is a notification.created live event for its
// recipient alone, with the notification exactly as the inbox lists it.
// What is not saved is not announced.
func TestEverySavedNotificationIsAnnouncedToItsRecipientOnly(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	live := func(x n.Notification) core.Live {
		return core.Live{Type: "notification.created", For: map[string]any{x.UserID: x}}
	}
	head := func(user string) n.Notification { t.Helper(); return f.inbox(t, user)[0] }

	if _, err := f.svc.Notify(ctx, "ann", "mood", "Hello", "there"); err != nil {
		t.Fatal(err)
	}
	f.bus.WantLive(t, live(head("ann")))

	// an activity entry, then the same entry counting one more (same id)
	memo := n.Activity{UserID: "ann", From: "bob", Kind: n.ActivityMemoryAdded}
	if _, err := f.svc.NotifyActivity(ctx, memo); err != nil {
		t.Fatal(err)
	}
	first := head("ann")
	f.bus.WantLive(t, live(first))
	f.clock.Advance(time.Minute)
	if _, err := f.svc.NotifyActivity(ctx, memo); err != nil {
		t.Fatal(err)
	}
	second := head("ann")
	if second.ID != first.ID || second.Message != "Your partner added 2 memories." {
		t.Fatalf("coalesced entry %+v after %+v", second, first)
	}
	f.bus.WantLive(t, live(second))

	// pushed or not, announced: Bob's partner activity is off
	if _, err := f.svc.UpdateSettings(ctx, "bob", n.Changes{Switches: n.Patch{n.PartnerActivity: false}}); err != nil {
		t.Fatal(err)
	}
	bus := core.NewBus([]core.Listener{f.svc.Listener()}, func(_ string, _ core.Event, err error) { t.Errorf("listener: %v", err) })
	bus.Publish(ctx, core.PartnershipEnded{PartnershipID: "p1", UserIDs: [2]string{"ann", "bob"}})
	f.bus.WantLive(t, live(head("ann")), live(head("bob")))

	// refused input saves nothing and announces nothing
	if _, err := f.svc.Notify(ctx, "ann", "nope", "t", "m"); err == nil {
		t.Fatal("unknown category accepted")
	}
	if _, err := f.svc.NotifyActivity(ctx, n.Activity{UserID: "ann", From: "bob", Kind: "memoryDeleted"}); err == nil {
		t.Fatal("unknown activity accepted")
	}
	f.bus.WantLive(t)
}

// A notification the store failed to save fails its Notify or
// NotifyActivity with the store's error, and is never pushed or announced.
func TestAFailedSaveAnnouncesNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	down := core.Unavailable("unavailable", "notifications.databaseUnavailable", "the database is unavailable")
	repo := failingSaves{NotificationRepo: memory.NewNotificationRepo(), err: down}
	pusher, bus := &fakePusher{}, &coretest.Events{}
	svc := n.NewService(repo, memory.NewTicketRepo(), memory.NewDailyReminderRepo(), coretest.NewZones(), pusher,
		push.Providers{}, bus, coretest.NewClock(time.Time{}), &coretest.SeqIDs{}, english)
	if _, err := svc.RegisterDevice(ctx, "u1", n.Registration{Token: "t1", Platform: "web", Provider: "fcm"}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Notify(ctx, "u1", "mood", "t", "m"); !errors.Is(err, down) {
		t.Fatalf("notify: got %v", err)
	}
	if _, err := svc.NotifyActivity(ctx, n.Activity{UserID: "u1", From: "u2", Kind: n.ActivityMessageSent}); !errors.Is(err, down) {
		t.Fatalf("activity: got %v", err)
	}
	if got := pusher.all(); len(got) != 0 {
		t.Fatalf("pushed %+v", got)
	}
	bus.WantLive(t)
}

// failingSaves is the memory repository, except that saving a notification
// fails with err.
type failingSaves struct {
	*memory.NotificationRepo
	err error
}

func (r failingSaves) AddNotification(context.Context, n.Notification) error { return r.err }

func (r failingSaves) AddActivity(context.Context, n.Activity, func(n.Collected) n.Collected) (n.Collected, error) {
	return n.Collected{}, r.err
}
