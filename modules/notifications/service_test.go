package notifications_test

import (
	"context"
	"errors"
	"fmt"
	reflect "reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/mock/gomock"

	"tandem/adapters/i18n"
	"tandem/adapters/memory"
	"tandem/core"
	"tandem/core/coretest"
	n "tandem/modules/notifications"
)

// fixture is a Service on the memory repositories, a recording pusher,
// users' timezones and a fixed clock (2025-06-15 12:00 UTC).
type fixture struct {
	svc       *n.Service
	repo      *memory.NotificationRepo
	tickets   *memory.TicketRepo
	reminders *memory.DailyReminderRepo
	zones     *coretest.Zones
	pusher    *fakePusher
	bus       *coretest.Events
	clock     *coretest.FixedClock
}

// english writes the texts as the English reader reads them.
var english = i18n.MustLoad(nil)

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{repo: memory.NewNotificationRepo(), tickets: memory.NewTicketRepo(), reminders: memory.NewDailyReminderRepo(),
		zones: coretest.NewZones(), pusher: &fakePusher{}, bus: &coretest.Events{}, clock: coretest.NewClock(time.Time{})}
	f.svc = n.NewService(f.repo, f.tickets, f.reminders, f.zones, f.pusher, f.bus, f.clock, &coretest.SeqIDs{}, english)
	return f
}

// newService is a Service with the given repository and pusher (gomock
// tests) and memory repositories for the rest.
func newService(repo n.Repository, pusher n.Pusher, clock core.Clock) *n.Service {
	return n.NewService(repo, memory.NewTicketRepo(), memory.NewDailyReminderRepo(), coretest.NewZones(), pusher,
		&coretest.Events{}, clock, &coretest.SeqIDs{}, english)
}

// fakePusher answers by token: "dead..." is a dead token, "fail..." fails,
// anything else is delivered. It records every push.
type fakePusher struct {
	mu    sync.Mutex
	calls []pushCall
}

type pushCall struct {
	m  n.Message
	to []string // tokens
}

func (p *fakePusher) Push(_ context.Context, m n.Message, to []n.Device) []n.Delivery {
	p.mu.Lock()
	defer p.mu.Unlock()
	call := pushCall{m: m}
	out := make([]n.Delivery, len(to))
	for i, d := range to {
		call.to = append(call.to, d.Token)
		switch {
		case strings.HasPrefix(d.Token, "dead"):
			out[i] = n.Delivery{Outcome: n.OutcomeDeadToken}
		case strings.HasPrefix(d.Token, "fail"):
			out[i] = n.Delivery{Outcome: n.OutcomeFailed, Err: errors.New("provider down")}
		default:
			out[i] = n.Delivery{Outcome: n.OutcomeDelivered}
		}
	}
	p.calls = append(p.calls, call)
	return out
}

func (p *fakePusher) all() []pushCall {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]pushCall(nil), p.calls...)
}

func (f *fixture) register(t *testing.T, user, token string) n.Device {
	t.Helper()
	d, err := f.svc.RegisterDevice(context.Background(), user, n.Registration{Token: token, Platform: "android", Provider: "fcm"})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func (f *fixture) inbox(t *testing.T, user string) []n.Notification {
	t.Helper()
	ns, _, err := f.svc.List(context.Background(), user, false, core.Page{})
	if err != nil {
		t.Fatal(err)
	}
	return ns
}

func (f *fixture) tokens(t *testing.T, user string) string {
	t.Helper()
	ds, err := f.repo.Devices(context.Background(), user)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = d.Token
	}
	return strings.Join(out, ",")
}

func TestDispatchRules(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cases := []struct {
		name     string
		patch    n.Patch // applied before sending; nil: defaults
		category string
		tokens   []string // registered oldest first
		optedIn  bool
		sent     int
		removed  int
		pushedTo string // tokens of the one push, "" for none
		left     string // tokens after, newest first
	}{
		{name: "defaults, two devices: sent to both", category: "mood", tokens: []string{"a", "b"},
			optedIn: true, sent: 2, pushedTo: "b,a", left: "b,a"},
		{name: "defaults, no device: saved only", category: "systemUpdates", optedIn: true},
		{name: "mapped setting off: not pushed", patch: n.Patch{n.MoodUpdates: false}, category: "mood",
			tokens: []string{"a"}, left: "a"},
		{name: "alias category, its setting off", patch: n.Patch{n.MoodUpdates: false}, category: "moodUpdates",
			tokens: []string{"a"}, left: "a"},
		{name: "another setting off does not matter", patch: n.Patch{n.MoodUpdates: false}, category: "questions",
			tokens: []string{"a"}, optedIn: true, sent: 1, pushedTo: "a", left: "a"},
		{name: "pauseAll: nothing is pushed", patch: n.Patch{n.PauseAll: true}, category: "systemUpdates",
			tokens: []string{"a", "b"}, left: "b,a"},
		{name: "un-paused: pushed again", patch: n.Patch{n.PauseAll: false}, category: "notes",
			tokens: []string{"a"}, optedIn: true, sent: 1, pushedTo: "a", left: "a"},
		{name: "dead token removed, not counted", category: "events", tokens: []string{"dead-1", "a"},
			optedIn: true, sent: 1, removed: 1, pushedTo: "a,dead-1", left: "a"},
		{name: "failed delivery kept, not counted", category: "games", tokens: []string{"fail-1", "a"},
			optedIn: true, sent: 1, pushedTo: "a,fail-1", left: "a,fail-1"},
		{name: "every delivery failed: saved only", category: "habits", tokens: []string{"fail-1"},
			optedIn: true, sent: 0, pushedTo: "fail-1", left: "fail-1"},
		{name: "only dead tokens: all removed", category: "partnerActivity", tokens: []string{"dead-1", "dead-2"},
			optedIn: true, sent: 0, removed: 2, pushedTo: "dead-2,dead-1", left: ""},
		{name: "opted out: dead tokens stay unknown", patch: n.Patch{n.PauseAll: true}, category: "mood",
			tokens: []string{"dead-1"}, left: "dead-1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			for _, tok := range tc.tokens {
				f.register(t, "u1", tok)
				f.clock.Advance(time.Second)
			}
			f.register(t, "u2", "someone-else")
			if tc.patch != nil {
				if _, err := f.svc.UpdateSettings(ctx, "u1", n.Changes{Switches: tc.patch}); err != nil {
					t.Fatal(err)
				}
			}
			res, err := f.svc.Notify(ctx, "u1", tc.category, " Hello ", " World ")
			if err != nil {
				t.Fatal(err)
			}
			if res.OptedIn != tc.optedIn || res.Sent != tc.sent || res.Total != len(tc.tokens) || res.Removed != tc.removed ||
				res.Setting != n.Category(tc.category).Setting() || res.Paused != tc.patch[n.PauseAll] {
				t.Fatalf("result %+v", res)
			}
			wantAction := n.ActionSavedOnly
			if tc.sent > 0 {
				wantAction = n.ActionSavedAndSent
			}
			if res.Action() != wantAction {
				t.Fatalf("action %s", res.Action())
			}
			// always saved, unread, trimmed
			inbox := f.inbox(t, "u1")
			want := n.Notification{ID: res.Notification.ID, UserID: "u1", Title: "Hello", Message: "World",
				Category: n.Category(tc.category), CreatedAt: f.clock.Now()}
			if len(inbox) != 1 || !reflect.DeepEqual(inbox[0], want) || !reflect.DeepEqual(res.Notification, want) {
				t.Fatalf("inbox %+v, result %+v", inbox, res.Notification)
			}
			calls := f.pusher.all()
			switch {
			case tc.pushedTo == "" && len(calls) != 0:
				t.Fatalf("pushed %+v", calls)
			case tc.pushedTo != "" && (len(calls) != 1 || strings.Join(calls[0].to, ",") != tc.pushedTo):
				t.Fatalf("pushes %+v", calls)
			case tc.pushedTo != "" && calls[0].m != (n.Message{NotificationID: want.ID, Title: "Hello", Body: "World", Category: want.Category}):
				t.Fatalf("message %+v", calls[0].m)
			}
			if got := f.tokens(t, "u1"); got != tc.left {
				t.Fatalf("devices left %q", got)
			}
			if f.tokens(t, "u2") != "someone-else" {
				t.Fatal("another user's device was touched")
			}
		})
	}
}

func TestNotifyRefusesBadInputAndSavesNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cases := []struct {
		name, category, title, message, msg string
	}{
		{"unknown category", "birthdays", "t", "m", `unknown category "birthdays"`},
		{"empty category", "", "t", "m", "category is required"},
		{"category in the wrong case", "Mood", "t", "m", `unknown category "Mood"`},
		{"blank title", "mood", "  ", "m", "title is required"},
		{"title of 201", "mood", strings.Repeat("é", 201), "m", "title must be at most 200 characters"},
		{"blank message", "mood", "t", "\n", "message is required"},
		{"message of 2001", "mood", "t", strings.Repeat("x", 2001), "message must be at most 2000 characters"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			f.register(t, "u1", "a")
			_, err := f.svc.Notify(ctx, "u1", tc.category, tc.title, tc.message)
			coretest.WantErr(t, err, core.KindInvalid, "invalid_request")
			if !strings.HasPrefix(core.As(err).Message, tc.msg) {
				t.Fatalf("message %q", core.As(err).Message)
			}
			if len(f.inbox(t, "u1")) != 0 || len(f.pusher.all()) != 0 {
				t.Fatal("a refused notification was saved or pushed")
			}
		})
	}
	t.Run("exactly at the limits", func(t *testing.T) {
		f := newFixture(t)
		if _, err := f.svc.Notify(ctx, "u1", "mood", strings.Repeat("é", 200), strings.Repeat("x", 2000)); err != nil {
			t.Fatal(err)
		}
	})
}

func TestSettingsReadAndUpdate(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	st, err := f.svc.Settings(ctx, "u1")
	if err != nil || st != n.DefaultSettings("u1") {
		t.Fatalf("defaults %+v %v", st, err)
	}
	if _, err := f.repo.Settings(ctx, "u1"); !core.IsKind(err, core.KindNotFound) {
		t.Fatal("reading the defaults wrote them")
	}

	_, err = f.svc.UpdateSettings(ctx, "u1", n.Changes{Switches: n.Patch{}})
	coretest.WantErr(t, err, core.KindInvalid, "invalid_request")
	_, err = f.svc.UpdateSettings(ctx, "u1", n.Changes{Switches: n.Patch{n.MoodUpdates: false, "sounds": true}})
	coretest.WantErr(t, err, core.KindInvalid, "invalid_request")
	if _, err := f.repo.Settings(ctx, "u1"); !core.IsKind(err, core.KindNotFound) {
		t.Fatal("a refused update wrote")
	}

	f.clock.Advance(time.Hour)
	st, err = f.svc.UpdateSettings(ctx, "u1", n.Changes{Switches: n.Patch{n.MoodUpdates: false, n.PauseAll: true}})
	if err != nil || !st.PauseAll || len(st.On()) != 0 || !st.UpdatedAt.Equal(f.clock.Now()) || st.UserID != "u1" {
		t.Fatalf("paused %+v %v", st, err)
	}
	if got, _ := f.svc.Settings(ctx, "u1"); got != st {
		t.Fatalf("read back %+v", got)
	}
	st, err = f.svc.UpdateSettings(ctx, "u1", n.Changes{Switches: n.Patch{n.PauseAll: false}})
	want := n.AllOn()
	want.MoodUpdates = false
	if err != nil || st.PauseAll || st.Preferences != want {
		t.Fatalf("resumed %+v %v", st, err)
	}
	if other, _ := f.svc.Settings(ctx, "u2"); other != n.DefaultSettings("u2") {
		t.Fatalf("another user's settings changed: %+v", other)
	}
}

func TestInboxRules(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	var ids []string
	for i := range 3 {
		res, err := f.svc.Notify(ctx, "u1", "questions", fmt.Sprintf("q%d", i), "m")
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, res.Notification.ID)
		f.clock.Advance(time.Minute)
	}
	other, err := f.svc.Notify(ctx, "u2", "mood", "theirs", "m")
	if err != nil {
		t.Fatal(err)
	}
	count := func(user string) int {
		t.Helper()
		c, err := f.svc.UnreadCount(ctx, user)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	if c := count("u1"); c != 3 {
		t.Fatalf("unread %d", c)
	}
	if ns := f.inbox(t, "u1"); len(ns) != 3 || ns[0].ID != ids[2] || ns[2].ID != ids[0] {
		t.Fatalf("newest first: %+v", ns)
	}
	empty, next, err := f.svc.List(ctx, "nobody", true, core.Page{})
	if err != nil || empty == nil || len(empty) != 0 || next != "" {
		t.Fatalf("an empty inbox is a non-nil empty list: %#v %q %v", empty, next, err)
	}

	coretest.WantErr(t, f.svc.MarkRead(ctx, "u1", other.Notification.ID), core.KindNotFound, "not_found")
	coretest.WantErr(t, f.svc.MarkRead(ctx, "u1", "nope"), core.KindNotFound, "not_found")
	coretest.WantErr(t, f.svc.MarkRead(ctx, "u1", " "), core.KindInvalid, "invalid_request")
	if err := f.svc.MarkRead(ctx, "u1", ids[1]); err != nil {
		t.Fatal(err)
	}
	if err := f.svc.MarkRead(ctx, "u1", ids[1]); err != nil {
		t.Fatalf("marking again: %v", err)
	}
	unread, _, _ := f.svc.List(ctx, "u1", true, core.Page{})
	if len(unread) != 2 || unread[0].ID != ids[2] || unread[1].ID != ids[0] || count("u1") != 2 {
		t.Fatalf("unread %+v", unread)
	}
	marked, err := f.svc.MarkAllRead(ctx, "u1")
	if err != nil || marked != 2 || count("u1") != 0 || count("u2") != 1 {
		t.Fatalf("mark all %d %v", marked, err)
	}
	if marked, _ := f.svc.MarkAllRead(ctx, "u1"); marked != 0 {
		t.Fatalf("again %d", marked)
	}
}

func TestDeviceRules(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cases := []struct {
		name string
		reg  n.Registration
		msg  string
	}{
		{"missing platform", n.Registration{Token: "t", Provider: "fcm"}, "platform is required: ios, android or web"},
		{"unknown platform", n.Registration{Token: "t", Platform: "tizen", Provider: "fcm"}, "platform must be ios, android or web"},
		{"missing provider", n.Registration{Token: "t", Platform: "ios"}, "provider is required: expo or fcm"},
		{"unknown provider", n.Registration{Token: "t", Platform: "ios", Provider: "apns"}, "provider must be expo or fcm"},
		{"missing token", n.Registration{Platform: "ios", Provider: "fcm"}, "token is required"},
		{"expo token of the wrong form", n.Registration{Token: "abc", Platform: "ios", Provider: "expo"}, "an expo token looks like ExponentPushToken[...]"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			_, err := f.svc.RegisterDevice(ctx, "u1", tc.reg)
			coretest.WantErr(t, err, core.KindInvalid, "invalid_request")
			if core.As(err).Message != tc.msg {
				t.Fatalf("message %q", core.As(err).Message)
			}
			if f.tokens(t, "u1") != "" {
				t.Fatal("a refused device was stored")
			}
		})
	}

	t.Run("the same token again is the same device; another user takes it as a new device", func(t *testing.T) {
		f := newFixture(t)
		reg := n.Registration{Token: "ExponentPushToken[abc]", Platform: "ios", Provider: "expo"}
		d1, err := f.svc.RegisterDevice(ctx, "u1", reg)
		if err != nil {
			t.Fatal(err)
		}
		want := n.Device{ID: d1.ID, UserID: "u1", Token: reg.Token, Platform: core.PlatformIOS, Provider: n.ProviderExpo,
			CreatedAt: f.clock.Now(), UpdatedAt: f.clock.Now()}
		if d1 != want {
			t.Fatalf("registered %+v", d1)
		}
		f.clock.Advance(time.Hour)
		again, err := f.svc.RegisterDevice(ctx, "u1", reg)
		if err != nil || again.ID != d1.ID || !again.UpdatedAt.Equal(f.clock.Now()) {
			t.Fatalf("again %+v %v", again, err)
		}
		f.clock.Advance(time.Hour)
		moved, err := f.svc.RegisterDevice(ctx, "u2", reg)
		if err != nil || moved.ID == d1.ID || moved.UserID != "u2" || !moved.CreatedAt.Equal(f.clock.Now()) {
			t.Fatalf("moved %+v %v: u1's device id must not be handed to u2", moved, err)
		}
		if f.tokens(t, "u1") != "" || f.tokens(t, "u2") != reg.Token {
			t.Fatal("not moved")
		}
		coretest.WantErr(t, f.svc.RemoveDevice(ctx, "u1", d1.ID), core.KindNotFound, "not_found")
		coretest.WantErr(t, f.svc.RemoveDevice(ctx, "u2", d1.ID), core.KindNotFound, "not_found")
		coretest.WantErr(t, f.svc.RemoveDevice(ctx, "u2", "nope"), core.KindNotFound, "not_found")
		if err := f.svc.RemoveDevice(ctx, "u2", moved.ID); err != nil {
			t.Fatal(err)
		}
		if f.tokens(t, "u2") != "" {
			t.Fatal("not removed")
		}
	})

	t.Run("a user keeps the ten most recently registered devices", func(t *testing.T) {
		f := newFixture(t)
		for i := range n.MaxDevices + 2 {
			f.register(t, "u1", fmt.Sprintf("t%02d", i))
			f.clock.Advance(time.Second)
		}
		got := f.tokens(t, "u1")
		if strings.Count(got, ",") != n.MaxDevices-1 || !strings.HasPrefix(got, "t11,") || !strings.HasSuffix(got, ",t02") {
			t.Fatalf("kept %s", got)
		}
	})
}

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

// The interactions below are the point of their tests, so they use gomock.

func TestOptedOutNeverReachesThePusher(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ctrl := gomock.NewController(t)
	pusher := NewMockPusher(ctrl) // any call fails the test
	repo := memory.NewNotificationRepo()
	svc := newService(repo, pusher, coretest.NewClock(time.Time{}))
	if _, err := svc.RegisterDevice(ctx, "u1", n.Registration{Token: "t1", Platform: "web", Provider: "fcm"}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.UpdateSettings(ctx, "u1", n.Changes{Switches: n.Patch{n.EventsNotification: false}}); err != nil {
		t.Fatal(err)
	}
	if res, err := svc.Notify(ctx, "u1", "events", "t", "m"); err != nil || res.OptedIn || res.Total != 1 {
		t.Fatalf("%+v %v", res, err)
	}
	if res, err := svc.Notify(ctx, "u2", "events", "no devices", "m"); err != nil || !res.OptedIn || res.Total != 0 {
		t.Fatalf("no devices, no push: %+v %v", res, err)
	}
}

func TestOnePushForAllDevicesAndDeadOnesRemovedOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ctrl := gomock.NewController(t)
	pusher := NewMockPusher(ctrl)
	repo := NewMockRepository(ctrl)
	clock := coretest.NewClock(time.Time{})
	svc := newService(repo, pusher, clock)
	devices := []n.Device{{ID: "d1", UserID: "u1", Token: "a"}, {ID: "d2", UserID: "u1", Token: "b"}, {ID: "d3", UserID: "u1", Token: "c"}}

	gomock.InOrder(
		repo.EXPECT().Settings(gomock.Any(), "u1").Return(n.Settings{}, core.NotFound("not_found", "none")),
		repo.EXPECT().AddNotification(gomock.Any(), n.Notification{ID: "id-1", UserID: "u1", Title: "t", Message: "m",
			Category: "systemUpdates", CreatedAt: clock.Now()}).Return(nil),
		repo.EXPECT().Devices(gomock.Any(), "u1").Return(devices, nil),
		pusher.EXPECT().Push(gomock.Any(), n.Message{NotificationID: "id-1", Title: "t", Body: "m", Category: "systemUpdates"}, devices).
			Return([]n.Delivery{{Outcome: n.OutcomeDeadToken}, {Outcome: n.OutcomeDelivered}, {Outcome: n.OutcomeDeadToken}}),
		repo.EXPECT().RemoveDevices(gomock.Any(), []string{"d1", "d3"}).Return(nil),
	)
	res, err := svc.Notify(ctx, "u1", "systemUpdates", "t", "m")
	if err != nil || res.Sent != 1 || res.Total != 3 || res.Removed != 2 || !res.OptedIn {
		t.Fatalf("%+v %v", res, err)
	}
}

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
	down := core.Unavailable("unavailable", "the database is unavailable")
	repo := failingSaves{NotificationRepo: memory.NewNotificationRepo(), err: down}
	pusher, bus := &fakePusher{}, &coretest.Events{}
	svc := n.NewService(repo, memory.NewTicketRepo(), memory.NewDailyReminderRepo(), coretest.NewZones(), pusher,
		bus, coretest.NewClock(time.Time{}), &coretest.SeqIDs{}, english)
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
		bus, clock, &coretest.SeqIDs{}, english)
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
