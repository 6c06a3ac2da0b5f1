package tests

import (
	"strings"
	"testing"
	"time"

	"tandem/adapters/push/mempush"
)

// Partner activity that reaches the phone, end to end: a message, a
// calendar event added or changed, and the relationship started each save a
// coalesced partnerActivity entry in the partner's inbox and push it (at
// most every 10 minutes), never naming what was written; with
// partnerActivity off the entry is saved and counted, not pushed. Nobody
// but the current partner hears of it.

// activity is what the partner (the actor) does in an activity test; setup
// runs first and may hand act an id.
type activity struct {
	name           string
	setup          func(h *harness, actor user) string
	act            func(h *harness, actor user, id string)
	title, message string // the entry after one
	title2, again  string // after two
	secret         string // what the actor wrote, which the entry never names
}

var activities = []activity{
	{name: "message sent",
		act:   func(h *harness, actor user, _ string) { h.sendMessage(actor, "Secret plans for Friday") },
		title: "New message", message: "Your partner sent you a message.",
		title2: "New messages", again: "Your partner sent you 2 messages.", secret: "Secret"},
	{name: "event added",
		act: func(h *harness, actor user, _ string) {
			h.createEvent(actor, map[string]any{"title": "Secret dinner", "startDate": "2025-07-01"})
		},
		title: "New event", message: "Your partner added an event to the calendar.",
		title2: "New events", again: "Your partner added 2 events to the calendar.", secret: "Secret"},
	{name: "event changed",
		setup: func(h *harness, actor user) string {
			return h.createEvent(actor, map[string]any{"title": "Dinner", "startDate": "2025-07-01"})["id"].(string)
		},
		act: func(h *harness, actor user, id string) {
			expect(h.t, h.do(req{Method: "PUT", Path: eventPath(actor, id), Token: actor.Token,
				Body: map[string]any{"title": "Secret dinner " + itoa(h.Clock.Now().UnixMilli())}}), 200, "")
		},
		title: "Event changed", message: "Your partner changed an event in the calendar.",
		title2: "Events changed", again: "Your partner changed 2 events in the calendar.", secret: "Secret"},
	{name: "relationship started",
		act: func(h *harness, actor user, _ string) {
			if h.get(relationshipPath(actor), actor.Token).Status == 200 {
				expect(h.t, h.post(relationshipPath(actor), actor.Token, map[string]any{"action": "end"}), 200, "")
			}
			expect(h.t, h.post(relationshipPath(actor), actor.Token, map[string]any{"action": "start", "date": "2025-01-01"}), 200, "")
		},
		title: "Relationship started", message: "Your partner started counting your days together.",
		title2: "Relationship started", again: "Your partner started counting your days together."},
}

func TestPartnerActivityReachesThePhone(t *testing.T) {
	parallel(t)
	for _, a := range activities {
		t.Run(a.name, func(t *testing.T) {
			eachProfileWithPushes(t, func(t *testing.T, h *harness, pushes *mempush.Outbox) {
				me, partner, stranger := h.newUser("me@x.io"), h.newUser("partner@x.io"), h.newUser("stranger@x.io")
				h.registerDevice(me, "ExponentPushToken[me]", "ios", "expo")
				h.registerDevice(partner, "ExponentPushToken[partner]", "ios", "expo")
				h.registerDevice(stranger, "ExponentPushToken[stranger]", "ios", "expo")
				h.pair(me, partner)
				var id string
				if a.setup != nil {
					id = a.setup(h, partner)
				}
				markAllRead(t, h, me)
				h.Clock.Advance(time.Hour) // past any push the setup caused
				pushed := len(pushes.To(me.ID))

				// once: an unread entry and a push, naming nothing the partner wrote
				at := h.Clock.Now()
				a.act(h, partner, id)
				r := h.get(notifPath(me, "/notifications?unreadOnly=true"), me.Token)
				expect(t, r, 200, `{"success":true,"notifications":[`+
					notificationJSON("<string>", a.title, a.message, "partnerActivity", false, at)+`]}`)
				got := pushes.To(me.ID)[pushed:]
				if len(got) != 1 || got[0].Message.Title != a.title || got[0].Message.Body != a.message ||
					got[0].Message.Category != "partnerActivity" {
					t.Fatalf("pushes %+v", got)
				}
				if a.secret != "" && strings.Contains(string(r.Body)+got[0].Message.Title+got[0].Message.Body, a.secret) {
					t.Fatalf("the entry names what the partner wrote: %s", r.Body)
				}

				// with partnerActivity off: counted in the same entry, not pushed
				expect(t, h.do(req{Method: "PATCH", Path: notifPath(me, "/notification-settings"), Token: me.Token,
					Body: map[string]any{"partnerActivity": false}}), 200, "")
				h.Clock.Advance(time.Hour)
				at = h.Clock.Now()
				a.act(h, partner, id)
				expect(t, h.get(notifPath(me, "/notifications?unreadOnly=true"), me.Token), 200, `{"success":true,"notifications":[`+
					notificationJSON("<string>", a.title2, a.again, "partnerActivity", false, at)+`]}`)
				if n := len(pushes.To(me.ID)); n != pushed+1 {
					t.Fatalf("pushed with partnerActivity off: %d", n-pushed)
				}

				// the actor and a stranger hear nothing of it
				for _, u := range []user{partner, stranger} {
					expect(t, h.get(notifPath(u, "/notifications?unreadOnly=true"), u.Token), 200, `{"success":true,"notifications":[]}`)
					if p := pushes.To(u.ID); len(p) != 0 {
						t.Fatalf("pushes to %s: %+v", u.ID, p)
					}
				}
			})
		})
	}
}

// TestActivityReachesTheCurrentPartnerOnly: after unpairing, the
// ex-partner hears nothing of one's activity (their inbox and phone stay
// quiet); the new partner does.
func TestActivityReachesTheCurrentPartnerOnly(t *testing.T) {
	parallel(t)
	for _, a := range activities {
		t.Run(a.name, func(t *testing.T) {
			eachProfileWithPushes(t, func(t *testing.T, h *harness, pushes *mempush.Outbox) {
				me, ex, next := h.newUser("me@x.io"), h.newUser("ex@x.io"), h.newUser("next@x.io")
				h.registerDevice(ex, "ExponentPushToken[ex]", "ios", "expo")
				h.pair(me, ex)
				var id string
				if a.setup != nil {
					id = a.setup(h, me)
				}
				expect(t, h.keyed("POST", "/api/partnerConnections/unlink", me, map[string]any{"userId": me.ID}), 200, "")
				markAllRead(t, h, ex)
				pushed := len(pushes.To(ex.ID))
				h.pair(me, next)
				h.Clock.Advance(time.Hour)
				at := h.Clock.Now()
				a.act(h, me, id)
				expect(t, h.get(notifPath(ex, "/notifications?unreadOnly=true"), ex.Token), 200, `{"success":true,"notifications":[]}`)
				if n := len(pushes.To(ex.ID)); n != pushed {
					t.Fatalf("the ex-partner's phone got %d pushes", n-pushed)
				}
				expect(t, h.get(notifPath(next, "/notifications?unreadOnly=true"), next.Token), 200, `{"success":true,"notifications":[`+
					notificationJSON("<string>", a.title, a.message, "partnerActivity", false, at)+`]}`)
			})
		})
	}
}

func markAllRead(t *testing.T, h *harness, u user) {
	t.Helper()
	expect(t, h.do(req{Method: "PATCH", Path: notifPath(u, "/notifications"), Token: u.Token,
		Body: map[string]any{"markAll": true}}), 200, "")
}
