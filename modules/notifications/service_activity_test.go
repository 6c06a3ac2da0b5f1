// This file holds the tests of partner activity: repeats coalesced within
// the quiet period, mood check-ins, and a quiet activity's single write.

package notifications_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"go.uber.org/mock/gomock"

	"tandem/adapters/memory"
	"tandem/adapters/push"
	"tandem/core"
	"tandem/core/coretest"
	n "tandem/modules/notifications"
)

// TestPartnerActivityIsCoalesced: repeats of one kind from one partner make
// one unread entry that counts them, pushed at most once per PushEvery; the
// count and push are per actor and kind, and a read entry starts again.
func TestPartnerActivityIsCoalesced(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	f.register(t, "me", "phone")
	memo := n.Activity{UserID: "me", From: "partner", Kind: n.ActivityMemoryAdded}
	steps := []struct {
		name    string
		advance time.Duration
		a       n.Activity
		read    bool // mark everything read first
		inbox   []string
		pushed  string // the message pushed, "" none
	}{
		{"first: an entry and a push", 0, memo, false,
			[]string{"New memory: Your partner added a memory."}, "Your partner added a memory."},
		{"second a minute later: counted, no push", time.Minute, memo, false,
			[]string{"New memories: Your partner added 2 memories."}, ""},
		{"third: counted, no push", 8 * time.Minute, memo, false,
			[]string{"New memories: Your partner added 3 memories."}, ""},
		{"ten minutes after the push: pushed with the count", time.Minute, memo, false,
			[]string{"New memories: Your partner added 4 memories."}, "Your partner added 4 memories."},
		{"another actor: an entry and a push of its own", time.Second,
			n.Activity{UserID: "me", From: "someone", Kind: n.ActivityMemoryAdded}, false,
			[]string{"New memory: Your partner added a memory.", "New memories: Your partner added 4 memories."}, "Your partner added a memory."},
		{"after reading: a new entry, still quiet", time.Second, memo, true,
			[]string{"New memory: Your partner added a memory.", "New memory: Your partner added a memory.", "New memories: Your partner added 4 memories."}, ""},
	}
	for _, st := range steps {
		f.clock.Advance(st.advance)
		if st.read {
			if _, err := f.svc.MarkAllRead(ctx, "me"); err != nil {
				t.Fatal(err)
			}
		}
		before := len(f.pusher.all())
		res, err := f.svc.NotifyActivity(ctx, st.a)
		if err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		var got []string
		for _, x := range f.inbox(t, "me") {
			got = append(got, x.Title+": "+x.Message)
		}
		if fmt.Sprint(got) != fmt.Sprint(st.inbox) || res.Notification.Category != n.CategoryPartnerActivity ||
			!res.Notification.CreatedAt.Equal(f.clock.Now()) {
			t.Fatalf("%s: inbox %q, result %+v", st.name, got, res)
		}
		calls := f.pusher.all()[before:]
		switch {
		case st.pushed == "" && (len(calls) != 0 || res.Sent != 0):
			t.Fatalf("%s: pushed %+v", st.name, calls)
		case st.pushed != "" && (len(calls) != 1 || calls[0].m.Body != st.pushed || calls[0].m.NotificationID != res.Notification.ID || res.Sent != 1):
			t.Fatalf("%s: pushes %+v, want %q", st.name, calls, st.pushed)
		}
	}

	// opted out: counted in the inbox, never pushed
	g := newFixture(t)
	g.register(t, "me", "phone")
	if _, err := g.svc.UpdateSettings(ctx, "me", n.Changes{Switches: n.Patch{n.PartnerActivity: false}}); err != nil {
		t.Fatal(err)
	}
	if res, err := g.svc.NotifyActivity(ctx, memo); err != nil || res.OptedIn || len(g.pusher.all()) != 0 {
		t.Fatalf("opted out: %+v %v", res, err)
	}

	// bad input saves nothing
	for _, a := range []n.Activity{{From: "p", Kind: n.ActivityMemoryAdded}, {UserID: "u", Kind: n.ActivityMemoryAdded},
		{UserID: "u", From: "p", Kind: "memoryDeleted"}} {
		_, err := g.svc.NotifyActivity(ctx, a)
		coretest.WantErr(t, err, core.KindInvalid, "invalid_request")
	}
	if ns := g.inbox(t, "u"); len(ns) != 0 {
		t.Fatalf("saved %+v", ns)
	}
}

// TestMoodActivityFollowsMoodUpdates: a partner's mood check-ins are
// coalesced like any activity, but in category mood, so moodUpdates (not
// partnerActivity) decides whether they are pushed.
func TestMoodActivityFollowsMoodUpdates(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	f.register(t, "me", "phone")
	mood := n.Activity{UserID: "me", From: "partner", Kind: n.ActivityMoodShared}
	if _, err := f.svc.UpdateSettings(ctx, "me", n.Changes{Switches: n.Patch{n.PartnerActivity: false}}); err != nil {
		t.Fatal(err)
	}
	res, err := f.svc.NotifyActivity(ctx, mood)
	if err != nil || res.Notification.Category != n.CategoryMood || res.Setting != n.MoodUpdates || res.Sent != 1 {
		t.Fatalf("with partnerActivity off: %+v %v", res, err)
	}
	f.clock.Advance(time.Minute)
	if res, err = f.svc.NotifyActivity(ctx, mood); err != nil || res.Sent != 0 {
		t.Fatalf("a minute later: %+v %v", res, err)
	}
	if ns := f.inbox(t, "me"); len(ns) != 1 || ns[0].Category != n.CategoryMood ||
		ns[0].Title != "Mood check-ins" || ns[0].Message != "Your partner shared how they feel 2 times." {
		t.Fatalf("inbox %+v", ns)
	}
	if _, err := f.svc.UpdateSettings(ctx, "me", n.Changes{Switches: n.Patch{n.PartnerActivity: true, n.MoodUpdates: false}}); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(time.Hour)
	before := len(f.pusher.all())
	if res, err = f.svc.NotifyActivity(ctx, mood); err != nil || res.OptedIn || len(f.pusher.all()) != before {
		t.Fatalf("with moodUpdates off: %+v %v", res, err)
	}
}

// An activity counted within the quiet period pushes nothing, so it reads
// neither the settings nor the devices: one write, whatever the user's
// phones (the partner of a busy user is notified on every create).
func TestAQuietActivityReadsNothingMore(t *testing.T) {
	t.Parallel()
	ctrl := gomock.NewController(t)
	repo := NewMockRepository(ctrl)
	bus := &coretest.Events{}
	clock := coretest.NewClock(time.Time{})
	svc := n.NewService(repo, memory.NewTicketRepo(), memory.NewDailyReminderRepo(), coretest.NewZones(), NewMockPusher(ctrl),
		push.Providers{}, bus, clock, &coretest.SeqIDs{}, english)
	entry := n.Notification{ID: "n1", UserID: "u1", Category: n.CategoryPartnerActivity, Title: "New events"}
	pushed := clock.Now().Add(-time.Second) // a push reserved a second ago: still quiet
	repo.EXPECT().AddActivity(gomock.Any(), gomock.Any(), gomock.Any()).DoAndReturn(
		func(_ context.Context, _ n.Activity, collect func(n.Collected) n.Collected) (n.Collected, error) {
			return collect(n.Collected{Entry: &entry, Count: 1, PushedAt: pushed}), nil
		})
	res, err := svc.NotifyActivity(context.Background(), n.Activity{UserID: "u1", From: "u2", Kind: n.ActivityEventAdded})
	if err != nil || res.Notification.ID != "n1" || res.Sent != 0 || res.Setting != n.CategoryPartnerActivity.Setting() ||
		res.Notification.Message != "Your partner added 2 events to the calendar." {
		t.Fatalf("got %+v, %v", res, err)
	}
}
