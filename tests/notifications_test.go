package tests

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"tandem/adapters/push/mempush"
)

// Notification settings, the inbox, devices and the dispatch rule, end to end.

func notifPath(u user, rest string) string { return "/api/users/user/" + u.ID + rest }

// eachProfileWithPushes is eachProfile with the memory pusher's outbox (the
// harness runs TANDEM_PUSH=memory), to see what was pushed.
func eachProfileWithPushes(t *testing.T, fn func(t *testing.T, h *harness, pushes *mempush.Outbox), opts ...option) {
	eachProfileWith(t, fn, opts...)
}

// settingsJSON is the settings object: the defaults with pauseAll as given
// and the named types off (the daily reminder at 20:00).
func settingsJSON(pauseAll bool, off ...string) string {
	return settingsAt("20:00", pauseAll, off...)
}

// settingsAt is settingsJSON with the daily reminder at the given time.
func settingsAt(reminder string, pauseAll bool, off ...string) string {
	var parts []string
	parts = append(parts, fmt.Sprintf(`"pauseAll":%v`, pauseAll))
	for _, k := range []string{"dailyReminders", "moodUpdates", "habitsReminder", "eventsNotification",
		"gamesNotification", "partnerActivity", "systemUpdates"} {
		on := !pauseAll
		for _, o := range off {
			if o == k {
				on = false
			}
		}
		parts = append(parts, fmt.Sprintf(`"%s":%v`, k, on))
	}
	parts = append(parts, `"dailyReminderTime":`+jsonStr(reminder))
	return "{" + strings.Join(parts, ",") + "}"
}

const settingsUpdated = `"message":"notification settings updated"`

// settingsStep makes the scenarios of updates of u's settings at path: each
// answers the settings and stores them (read back after it).
func settingsStep(u user, path string) func(name string, r req, settings string) scenario {
	return func(name string, r req, settings string) scenario {
		return scenario{name: name, req: r, status: 200, want: `{"success":true,"settings":` + settings + `,` + settingsUpdated + `}`,
			after: func(t *testing.T, h *harness) {
				expect(t, h.get(path, u.Token), 200, `{"success":true,"settings":`+settings+`}`)
			}}
	}
}

func (h *harness) registerDevice(u user, token, platform, provider string) string {
	h.t.Helper()
	r := h.post(notifPath(u, "/devices"), u.Token, map[string]any{"token": token, "platform": platform, "provider": provider})
	expect(h.t, r, 200, `{"success":true,"deviceId":"<string>"}`)
	return r.JSON(h.t)["deviceId"].(string)
}

func (h *harness) sendTest(u user, category string) response {
	h.t.Helper()
	return h.post(notifPath(u, "/send-test-notification"), u.Token,
		map[string]any{"title": "Hello", "message": "Just testing", "category": category})
}

func (h *harness) unreadCount(t *testing.T, u user) int {
	t.Helper()
	r := h.get(notifPath(u, "/notifications/unread"), u.Token)
	expect(t, r, 200, `{"success":true,"unreadCount":"<number>"}`)
	return int(r.JSON(t)["unreadCount"].(float64))
}

// notificationJSON is one inbox item as listed.
func notificationJSON(id, title, message, category string, read bool, at time.Time) string {
	return fmt.Sprintf(`{"id":%q,"title":%q,"message":%q,"category":%q,"read":%v,"createdAt":%d}`,
		id, title, message, category, read, at.UnixMilli())
}

func TestNotificationSettingsReadAndUpdate(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		u, other := h.newUser("a@x.io"), h.newUser("b@x.io")
		path := notifPath(u, "/notification-settings")
		expect(t, h.get(path, u.Token), 200, `{"success":true,"settings":`+settingsJSON(false)+`}`)

		step := settingsStep(u, path)
		runScenarios(t, h, signedIn(u, []scenario{
			step("one type off", PATCH(path, map[string]any{"moodUpdates": false}), settingsJSON(false, "moodUpdates")),
			step("PUT takes a subset too", PUT(path, map[string]any{"gamesNotification": false, "systemUpdates": false}),
				settingsJSON(false, "moodUpdates", "gamesNotification", "systemUpdates")),
			step("pauseAll true turns every other setting off", PUT(path, map[string]any{"pauseAll": true}), settingsJSON(true)),
			step("turning a type off while paused keeps the pause", PATCH(path, map[string]any{"habitsReminder": false}), settingsJSON(true)),
			step("pauseAll false brings the earlier choices back", PATCH(path, map[string]any{"pauseAll": false}),
				settingsJSON(false, "moodUpdates", "gamesNotification", "systemUpdates", "habitsReminder")),
			step("pauseAll true wins over a type turned on with it", PATCH(path, map[string]any{"pauseAll": true, "moodUpdates": true}),
				settingsJSON(true)),
			step("turning a type on while paused ends the pause", PATCH(path, map[string]any{"gamesNotification": true}),
				settingsJSON(false, "systemUpdates", "habitsReminder")),
			step("everything back on", PUT(path, map[string]any{"habitsReminder": true, "systemUpdates": true}), settingsJSON(false)),
		}))
		expect(t, h.do(req{Method: "PATCH", Path: path, Token: u.Token, Body: map[string]any{"pauseAll": true}}), 200, "")
		expect(t, h.get(notifPath(other, "/notification-settings"), other.Token), 200, `{"success":true,"settings":`+settingsJSON(false)+`}`)

		// the export carries the settings
		data := h.get("/api/users/user/"+u.ID+"/export", u.Token).JSON(t)["data"].(map[string]any)
		b, _ := json.Marshal(data["notifications"].(map[string]any)["settings"])
		var want, got any
		_ = json.Unmarshal([]byte(settingsJSON(true)), &want)
		_ = json.Unmarshal(b, &got)
		if fmt.Sprint(want) != fmt.Sprint(got) {
			t.Fatalf("export settings %s", b)
		}
	})
}

func TestNotificationSettingsErrors(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		u, other := h.newUser("a@x.io"), h.newUser("b@x.io")
		path := notifPath(u, "/notification-settings")
		unknown := func(k string) string {
			return errInvalid(`unknown setting \"` + k + `\": use pauseAll, dailyReminders, moodUpdates, habitsReminder, eventsNotification, gamesNotification, partnerActivity, systemUpdates or dailyReminderTime`)
		}
		unchanged := func(t *testing.T, h *harness) {
			expect(t, h.get(path, u.Token), 200, `{"success":true,"settings":`+settingsJSON(false)+`}`)
			expect(t, h.get(notifPath(other, "/notification-settings"), other.Token), 200, `{"success":true,"settings":`+settingsJSON(false)+`}`)
		}
		runScenarios(t, h, afterEach(unchanged, signedIn(u, []scenario{
			{name: "unknown key", req: PATCH(path, `{"moodUpdates":false,"sounds":true}`), status: 400, want: unknown("sounds")},
			{name: "key in the wrong case", req: PUT(path, `{"PauseAll":true}`), status: 400, want: unknown("PauseAll")},
			{name: "string instead of a boolean", req: PATCH(path, `{"pauseAll":"true"}`), status: 400,
				want: errInvalid("field pauseAll must be a boolean")},
			{name: "number instead of a boolean", req: PATCH(path, `{"moodUpdates":0}`), status: 400,
				want: errInvalid("field moodUpdates must be a boolean")},
			{name: "null instead of a boolean", req: PUT(path, `{"systemUpdates":null}`), status: 400,
				want: errInvalid("field systemUpdates must be a boolean")},
			{name: "empty object", req: PATCH(path, `{}`), status: 400, want: errInvalid("send at least one of the eight setting keys or dailyReminderTime")},
			{name: "array body", req: PATCH(path, `[{"pauseAll":true}]`), status: 400, want: errInvalid("request body must be a JSON object")},
			{name: "malformed JSON", req: PUT(path, `{"pauseAll":`), status: 400, want: errInvalid("malformed JSON")},
			{name: "empty body", req: PATCH(path, ``), status: 400, want: errInvalid("request body is empty")},
			{name: "not JSON", req: PATCH(path, []byte("pauseAll=true")).asText(), status: 415, want: errNotJSON},
			{name: "no token", req: GET(path).anonymous(), status: 401, want: errNoToken},
			{name: "someone else's settings", req: PATCH(notifPath(other, "/notification-settings"), map[string]any{"pauseAll": true}), status: 403,
				want: errNotYours},
		})))
	})
}

// TestSendTestNotificationDispatchRules is the dispatch table over HTTP:
// setting on/off × pauseAll × devices, with the stored effect (the inbox) and
// what reached the pusher.
func TestSendTestNotificationDispatchRules(t *testing.T) {
	parallel(t)
	type device struct{ token, platform, provider string } // token: a format with the row number
	phone := device{"ExponentPushToken[phone-%d]", "ios", "expo"}
	tablet := device{"fcm-tablet-%d", "android", "fcm"}
	pause := map[string]any{"pauseAll": true}
	cases := []struct {
		name     string
		settings []map[string]any // PATCHed in order first
		devices  []device
		category string
		reply    string // without the common keys
	}{
		{"defaults, two devices", nil, []device{phone, tablet}, "mood",
			`"message":"notification saved; pushed to 2 of 2 devices","userOptedIn":true,"sent":2,"total":2,"action":"saved_and_sent"`},
		{"defaults, no device", nil, nil, "systemUpdates",
			`"message":"notification saved; no device is registered","userOptedIn":true,"sent":0,"total":0,"action":"saved_only"`},
		{"mapped setting off", []map[string]any{{"dailyReminders": false}}, []device{phone}, "questions",
			`"message":"notification saved; not pushed: dailyReminders is off","userOptedOut":true,"sent":0,"total":1,"action":"saved_only"`},
		{"alias category, mapped setting off", []map[string]any{{"partnerActivity": false}}, []device{phone, tablet}, "notes",
			`"message":"notification saved; not pushed: partnerActivity is off","userOptedOut":true,"sent":0,"total":2,"action":"saved_only"`},
		{"another setting off", []map[string]any{{"moodUpdates": false}}, []device{tablet}, "events",
			`"message":"notification saved; pushed to 1 of 1 device","userOptedIn":true,"sent":1,"total":1,"action":"saved_and_sent"`},
		{"pauseAll", []map[string]any{pause}, []device{phone, tablet}, "gamesNotification",
			`"message":"notification saved; not pushed: all notifications are paused","userOptedOut":true,"sent":0,"total":2,"action":"saved_only"`},
		{"pauseAll, no device", []map[string]any{pause}, nil, "habits",
			`"message":"notification saved; not pushed: all notifications are paused","userOptedOut":true,"sent":0,"total":0,"action":"saved_only"`},
		{"paused, then un-paused", []map[string]any{pause, {"pauseAll": false}}, []device{phone}, "habitsReminder",
			`"message":"notification saved; pushed to 1 of 1 device","userOptedIn":true,"sent":1,"total":1,"action":"saved_and_sent"`},
		{"off before the pause stays off after it", []map[string]any{{"eventsNotification": false}, pause, {"pauseAll": false}},
			[]device{phone}, "eventsNotification",
			`"message":"notification saved; not pushed: eventsNotification is off","userOptedOut":true,"sent":0,"total":1,"action":"saved_only"`},
	}
	eachProfileWithPushes(t, func(t *testing.T, h *harness, pushes *mempush.Outbox) {
		for i, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				u := h.newUser(fmt.Sprintf("u%d@x.io", i))
				bystander := h.newUser(fmt.Sprintf("b%d@x.io", i))
				h.registerDevice(bystander, fmt.Sprintf("ExponentPushToken[b%d]", i), "ios", "expo")
				for _, d := range tc.devices {
					h.registerDevice(u, fmt.Sprintf(d.token, i), d.platform, d.provider)
				}
				for _, patch := range tc.settings {
					expect(t, h.do(req{Method: "PATCH", Path: notifPath(u, "/notification-settings"), Token: u.Token, Body: patch}), 200, "")
				}
				expect(t, h.sendTest(u, tc.category), 200,
					`{"success":true,"notificationType":"`+tc.category+`","saved":true,`+tc.reply+`}`)

				// stored: one unread notification with exactly what was sent
				r := h.get(notifPath(u, "/notifications"), u.Token)
				expect(t, r, 200, `{"success":true,"notifications":[`+
					notificationJSON("<string>", "Hello", "Just testing", tc.category, false, h.Clock.Now())+`]}`)
				if n := h.unreadCount(t, u); n != 1 {
					t.Fatalf("unread %d", n)
				}
				// pushed: one per device when the reply says so, each carrying the notification
				id := r.JSON(t)["notifications"].([]any)[0].(map[string]any)["id"].(string)
				got := pushes.To(u.ID)
				want := 0
				if strings.Contains(tc.reply, `"userOptedIn":true`) {
					want = len(tc.devices)
				}
				if len(got) != want {
					t.Fatalf("%d pushes, want %d", len(got), want)
				}
				for _, p := range got {
					if p.Message.NotificationID != id || p.Message.Title != "Hello" || p.Message.Body != "Just testing" ||
						string(p.Message.Category) != tc.category {
						t.Fatalf("push %+v", p)
					}
				}
				if len(pushes.To(bystander.ID)) != 0 {
					t.Fatal("another user's device got the push")
				}
			})
		}
	})
}

func TestSendTestNotificationErrors(t *testing.T) {
	eachProfileWithPushes(t, func(t *testing.T, h *harness, pushes *mempush.Outbox) {
		u, other := h.newUser("a@x.io"), h.newUser("b@x.io")
		h.registerDevice(u, "ExponentPushToken[a]", "ios", "expo")
		path := notifPath(u, "/send-test-notification")
		body := func(title, message, category any) map[string]any {
			return map[string]any{"title": title, "message": message, "category": category}
		}
		categories := `: use mood, moodUpdates, habits, habitsReminder, events, eventsNotification, games, gamesNotification, questions, dailyReminders, notes, partnerActivity or systemUpdates`
		nothingSent := func(t *testing.T, h *harness) {
			expect(t, h.get(notifPath(u, "/notifications"), u.Token), 200, `{"success":true,"notifications":[]}`)
			expect(t, h.get(notifPath(other, "/notifications"), other.Token), 200, `{"success":true,"notifications":[]}`)
			if len(pushes.All()) != 0 {
				t.Fatalf("pushed %+v", pushes.All())
			}
		}
		runScenarios(t, h, afterEach(nothingSent, signedIn(u, []scenario{
			{name: "unknown category", req: POST(path, body("t", "m", "birthdays")), status: 400,
				want: errInvalid(`unknown category \"birthdays\"` + categories)},
			{name: "a setting key that is no category", req: POST(path, body("t", "m", "pauseAll")), status: 400,
				want: errInvalid(`unknown category \"pauseAll\"` + categories)},
			{name: "missing category", req: POST(path, map[string]any{"title": "t", "message": "m"}), status: 400,
				want: errInvalid("category is required")},
			{name: "blank title", req: POST(path, body(" ", "m", "mood")), status: 400, want: errInvalid("title is required")},
			{name: "title of 201", req: POST(path, body(strings.Repeat("t", 201), "m", "mood")), status: 400,
				want: errInvalid("title must be at most 200 characters")},
			{name: "missing message", req: POST(path, map[string]any{"title": "t", "category": "mood"}), status: 400,
				want: errInvalid("message is required")},
			{name: "message of 2001", req: POST(path, body("t", strings.Repeat("m", 2001), "mood")), status: 400,
				want: errInvalid("message must be at most 2000 characters")},
			{name: "message not a string", req: POST(path, body("t", 42, "mood")), status: 400, want: errInvalid("field message must be a string")},
			{name: "category not a string", req: POST(path, body("t", "m", []string{"mood"})), status: 400,
				want: errInvalid("field category must be a string")},
			{name: "malformed JSON", req: POST(path, `{"title":"t",`), status: 400, want: errInvalid("malformed JSON")},
			{name: "no token", req: POST(path, body("t", "m", "mood")).anonymous(), status: 401, want: errNoToken},
			{name: "to someone else", req: POST(notifPath(other, "/send-test-notification"), body("t", "m", "mood")), status: 403, want: errNotYours},
		})))
	})
}

func TestPartnershipEndedNotifiesBothPartners(t *testing.T) {
	eachProfileWithPushes(t, func(t *testing.T, h *harness, pushes *mempush.Outbox) {
		a, b := h.newUser("a@x.io"), h.newUser("b@x.io")
		h.registerDevice(a, "ExponentPushToken[a]", "ios", "expo")
		h.registerDevice(b, "fcm-b", "android", "fcm")
		expect(t, h.do(req{Method: "PATCH", Path: notifPath(b, "/notification-settings"), Token: b.Token,
			Body: map[string]any{"partnerActivity": false}}), 200, "")
		h.pair(a, b)
		expect(t, h.keyed("POST", "/api/partnerConnections/unlink", a, map[string]any{"userId": a.ID}), 200, "")
		for _, u := range []user{a, b} {
			expect(t, h.get(notifPath(u, "/notifications"), u.Token), 200, `{"success":true,"notifications":[`+
				notificationJSON("<string>", "Partnership ended", "You and your partner are no longer connected.", "partnerActivity", false, h.Clock.Now())+`]}`)
		}
		// b turned partner activity off: saved for both, pushed to a only
		if len(pushes.To(a.ID)) != 1 || len(pushes.To(b.ID)) != 0 {
			t.Fatalf("pushes a %d b %d", len(pushes.To(a.ID)), len(pushes.To(b.ID)))
		}
	})
}

func TestAccountDeletionPurgesNotifications(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		a, b := h.newUser("a@x.io"), h.newUser("b@x.io")
		old := h.registerDevice(a, "ExponentPushToken[a]", "ios", "expo")
		expect(t, h.do(req{Method: "PATCH", Path: notifPath(a, "/notification-settings"), Token: a.Token, Body: map[string]any{"pauseAll": true}}), 200, "")
		expect(t, h.sendTest(a, "mood"), 200, "")
		h.pair(a, b)
		h.createMemory(a, map[string]any{"title": "Mine", "date": "2025-06-01"})   // b hears of a's activity
		h.createMemory(b, map[string]any{"title": "Theirs", "date": "2025-06-01"}) // and a of b's

		expect(t, h.do(req{Method: "DELETE", Path: "/api/users/user/" + a.ID, Token: a.Token}), 200, "")
		// the partner learns of it; a's device is gone: its token is a new device for b
		if n := h.unreadCount(t, b); n != 2 {
			t.Fatalf("partner's unread %d", n)
		}
		if d := h.registerDevice(b, "ExponentPushToken[a]", "ios", "expo"); d == old {
			t.Fatal("the deleted account's device survived")
		}
		if h.DB != nil { // and no row of a is left behind
			for _, table := range []string{"notification_settings", "notifications", "notification_devices"} {
				var n int
				if err := h.DB.Get(&n, "SELECT COUNT(*) FROM "+table+" WHERE user_id = ?", a.ID); err != nil || n != 0 {
					t.Fatalf("%s: %d rows of the deleted account (%v)", table, n, err)
				}
			}
			var n int
			if err := h.DB.Get(&n, "SELECT COUNT(*) FROM notification_activity WHERE user_id = ? OR from_user_id = ?", a.ID, a.ID); err != nil || n != 0 {
				t.Fatalf("notification_activity: %d rows of the deleted account (%v)", n, err)
			}
		}
	})
}
