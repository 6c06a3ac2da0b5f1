package tests

import (
	"context"
	"testing"
	"time"

	"tandem/modules/events"
)

// TestEventReminderReachesTheOwnersInbox: an event with a lead time makes a
// notification (category events) when the reminder job runs after it falls
// due, once.
func TestEventReminderReachesTheOwnersInbox(t *testing.T) {
	eachProfileWith(t, func(t *testing.T, h *harness, rem *events.Reminders) {
		u := h.newUser("ann@x.io")
		expect(t, h.do(req{Method: "PATCH", Path: "/api/users/user/" + u.ID, Token: u.Token,
			Body: map[string]any{"timezone": "Europe/Paris"}}), 200, "")
		// The clock is 2025-06-15 12:00 UTC; dinner is the next day at 19:00 in Paris (17:00 UTC).
		expect(t, h.post("/api/users/user/"+u.ID+"/events", u.Token, map[string]any{"action": "create",
			"title": "Dinner", "startDate": "2025-06-16", "endDate": "2025-06-16", "startTime": "19:00", "notify": "30"}), 200, "")
		inbox := "/api/users/user/" + u.ID + "/notifications"
		ctx := context.Background()

		h.Clock.Set(time.Date(2025, 6, 16, 16, 29, 0, 0, time.UTC))
		if n, err := rem.SendDue(ctx); n != 0 || err != nil {
			t.Fatalf("sent %d early: %v", n, err)
		}
		expect(t, h.get(inbox, u.Token), 200, `{"success":true,"notifications":[]}`)

		h.Clock.Set(time.Date(2025, 6, 16, 16, 30, 0, 0, time.UTC))
		if n, err := rem.SendDue(ctx); n != 1 || err != nil {
			t.Fatalf("sent %d: %v", n, err)
		}
		if n, _ := rem.SendDue(ctx); n != 0 {
			t.Fatal("sent twice")
		}
		expect(t, h.get(inbox, u.Token), 200, `{"success":true,"notifications":[{"id":"<string>","title":"Dinner",
			"message":"Starts on 16 June 2025 at 19:00, in 30 minutes.","category":"events","read":false,"createdAt":`+ms(h.Clock.Now())+`}]}`)
	})
}
