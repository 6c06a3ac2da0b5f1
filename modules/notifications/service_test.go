package notifications_test

import (
	"context"
	"errors"
	reflect "reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/mock/gomock"

	"tandem/adapters/i18n"
	"tandem/adapters/memory"
	"tandem/adapters/push"
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
	f.svc = n.NewService(f.repo, f.tickets, f.reminders, f.zones, f.pusher, push.Providers{}, f.bus, f.clock, &coretest.SeqIDs{}, english)
	return f
}

// newService is a Service with the given repository and pusher (gomock
// tests) and memory repositories for the rest.
func newService(repo n.Repository, pusher n.Pusher, clock core.Clock) *n.Service {
	return n.NewService(repo, memory.NewTicketRepo(), memory.NewDailyReminderRepo(), coretest.NewZones(), pusher,
		push.Providers{}, &coretest.Events{}, clock, &coretest.SeqIDs{}, english)
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
		repo.EXPECT().Settings(gomock.Any(), "u1").Return(n.Settings{}, core.NotFound("not_found", "notifications.none", "none")),
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
