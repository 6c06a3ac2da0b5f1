package httpapi_test

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"tandem/modules/notifications"
)

type settingsRecord struct {
	Success  bool                       `json:"success"`
	Settings map[string]json.RawMessage `json:"settings"`
}

type inboxRecord struct {
	Notifications []struct {
		ID       string `json:"id"`
		Title    string `json:"title"`
		Message  string `json:"message"`
		Category string `json:"category"`
	} `json:"notifications"`
}

var settingKeys = []string{"pauseAll", "dailyReminders", "moodUpdates", "habitsReminder", "eventsNotification",
	"gamesNotification", "partnerActivity", "systemUpdates", "dailyReminderTime"}

var categories = []string{"mood", "moodUpdates", "habits", "habitsReminder", "events", "eventsNotification", "games",
	"gamesNotification", "questions", "dailyReminders", "notes", "partnerActivity", "systemUpdates"}

// FuzzNotificationBodies: any body of the notification routes (PUT and
// PATCH settings, POST send-test-notification, POST devices, PATCH
// notifications) gets a 200 or a 4xx with the error body; stored settings
// are the eight booleans and a dailyReminderTime HH:MM and read back as
// answered; a saved test notification has a title of 1-200 and a message of
// 1-2000 characters without control or bidi characters (tab and newline in
// the message only) and one of the thirteen categories; devices hold one of
// three platforms and two providers, at most ten.
func FuzzNotificationBodies(f *testing.F) {
	f.Add([]byte(`{"pauseAll":true,"moodUpdates":false}`), uint8(0))
	f.Add([]byte(`{"dailyReminderTime":"07:30","systemUpdates":true}`), uint8(1))
	f.Add([]byte(`{"dailyReminderTime":"24:00"}`), uint8(0))
	f.Add([]byte(`{"title":"Hi","message":"Hello\nthere","category":"questions"}`), uint8(2))
	f.Add([]byte(`{"token":"ExponentPushToken[abc]","platform":"ios","provider":"expo"}`), uint8(3))
	f.Add([]byte(`{"token":"fcm-token-1","platform":"android","provider":"fcm"}`), uint8(3))
	f.Add([]byte(`{"markAll":true}`), uint8(4))
	f.Add([]byte(`{"notificationId":"nope"}`), uint8(4))
	f.Fuzz(func(t *testing.T, body []byte, route uint8) {
		a := apiForFuzz(t)
		a.mu.Lock()
		defer a.mu.Unlock()
		base := "/api/users/user/" + a.user.ID
		tok := a.user.Token
		switch route % 5 {
		case 0, 1:
			method := "PUT"
			if route%5 == 1 {
				method = "PATCH"
			}
			st, b := a.send(t, method, base+"/notification-settings", tok, body)
			if st != 200 {
				return
			}
			s := decodeAs[settingsRecord](t, b)
			checkSettings(t, s.Settings)
			got := decodeAs[settingsRecord](t, a.must(t, "GET", base+"/notification-settings", tok, nil))
			if string(jsonOf(got.Settings)) != string(jsonOf(s.Settings)) {
				t.Fatalf("answered %s, stored %s", jsonOf(s.Settings), jsonOf(got.Settings))
			}
		case 2:
			st, _ := a.send(t, "POST", base+"/send-test-notification", tok, body)
			if st == 429 {
				a.clock.Advance(time.Minute) // the next window: the limit is not what this checks
			}
			if st != 200 {
				return
			}
			inbox := decodeAs[inboxRecord](t, a.must(t, "GET", base+"/notifications?limit=1", tok, nil))
			if len(inbox.Notifications) != 1 {
				t.Fatal("the test notification was not saved")
			}
			n := inbox.Notifications[0]
			textRule(t, "title", n.Title, 1, notifications.MaxTitle, false, false)
			textRule(t, "message", n.Message, 1, notifications.MaxMessage, true, false)
			if !slices.Contains(categories, n.Category) {
				t.Fatalf("category %q", n.Category)
			}
		case 3:
			st, _ := a.send(t, "POST", base+"/devices", tok, body)
			if st == 429 {
				a.clock.Advance(time.Minute)
			}
			if st != 200 {
				return
			}
			ds := decodeAs[struct {
				Devices []struct{ ID, Platform, Provider string }
			}](t, a.must(t, "GET", base+"/devices", tok, nil))
			if len(ds.Devices) > 10 {
				t.Fatalf("%d devices", len(ds.Devices))
			}
			for _, d := range ds.Devices {
				if !slices.Contains([]string{"ios", "android", "web"}, d.Platform) || !slices.Contains([]string{"expo", "fcm"}, d.Provider) {
					t.Fatalf("device %+v", d)
				}
			}
		case 4:
			a.send(t, "PATCH", base+"/notifications", tok, body)
		}
	})
}

func checkSettings(t *testing.T, s map[string]json.RawMessage) {
	t.Helper()
	if len(s) != len(settingKeys) {
		t.Fatalf("settings %s", jsonOf(s))
	}
	for _, k := range settingKeys {
		raw, ok := s[k]
		switch {
		case !ok:
			t.Fatalf("settings lack %s", k)
		case k == "dailyReminderTime":
			var v string
			if json.Unmarshal(raw, &v) != nil || !wallTime.MatchString(v) {
				t.Fatalf("dailyReminderTime %s", raw)
			}
		case string(raw) != "true" && string(raw) != "false":
			t.Fatalf("%s is %s", k, raw)
		}
	}
}
