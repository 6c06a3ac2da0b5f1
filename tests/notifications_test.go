package tests

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"tandem/adapters/push/expo/expotest"
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
			`"message":"notification saved; pushed to 1 of 1 devices","userOptedIn":true,"sent":1,"total":1,"action":"saved_and_sent"`},
		{"pauseAll", []map[string]any{pause}, []device{phone, tablet}, "gamesNotification",
			`"message":"notification saved; not pushed: all notifications are paused","userOptedOut":true,"sent":0,"total":2,"action":"saved_only"`},
		{"pauseAll, no device", []map[string]any{pause}, nil, "habits",
			`"message":"notification saved; not pushed: all notifications are paused","userOptedOut":true,"sent":0,"total":0,"action":"saved_only"`},
		{"paused, then un-paused", []map[string]any{pause, {"pauseAll": false}}, []device{phone}, "habitsReminder",
			`"message":"notification saved; pushed to 1 of 1 devices","userOptedIn":true,"sent":1,"total":1,"action":"saved_and_sent"`},
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

func TestInboxListsPagesAndMarksRead(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		u, other := h.newUser("a@x.io"), h.newUser("b@x.io")
		cats := []string{"mood", "events", "questions", "notes", "systemUpdates"}
		var ids []string
		var times []time.Time
		for _, c := range cats {
			r := h.post(notifPath(u, "/send-test-notification"), u.Token, map[string]any{"title": "T " + c, "message": "M " + c, "category": c})
			expect(t, r, 200, "")
			times = append(times, h.Clock.Now())
			h.Clock.Advance(time.Second)
		}
		r := h.get(notifPath(u, "/notifications"), u.Token)
		list := r.JSON(t)["notifications"].([]any)
		for i := range list {
			ids = append(ids, list[len(list)-1-i].(map[string]any)["id"].(string)) // oldest first
		}
		item := func(i int, read bool) string {
			return notificationJSON(ids[i], "T "+cats[i], "M "+cats[i], cats[i], read, times[i])
		}
		items := func(read map[int]bool, idx ...int) string {
			var parts []string
			for _, i := range idx {
				parts = append(parts, item(i, read[i]))
			}
			return `{"success":true,"notifications":[` + strings.Join(parts, ",") + `]}`
		}
		none := map[int]bool{}
		expect(t, r, 200, items(none, 4, 3, 2, 1, 0))
		if r.Header.Get("X-Next-Cursor") != "" {
			t.Fatal("an unpaged list has no cursor")
		}

		// pages of two, by the X-Next-Cursor header
		var paged []string
		for _, r := range pages(t, 2, func(q string) response { return h.get(notifPath(u, "/notifications?"+q), u.Token) }) {
			var page []string
			for _, n := range r.JSON(t)["notifications"].([]any) {
				page = append(page, n.(map[string]any)["category"].(string))
			}
			paged = append(paged, strings.Join(page, ","))
		}
		if strings.Join(paged, "|") != "systemUpdates,notes|questions,events|mood" {
			t.Fatalf("pages %v", paged)
		}

		// mark one read, then the rest
		expect(t, h.do(req{Method: "PATCH", Path: notifPath(u, "/notifications"), Token: u.Token, Body: map[string]any{"notificationId": ids[1]}}),
			200, `{"success":true,"message":"notification marked as read"}`)
		expect(t, h.do(req{Method: "PATCH", Path: notifPath(u, "/notifications"), Token: u.Token, Body: map[string]any{"notificationId": ids[1]}}),
			200, `{"success":true,"message":"notification marked as read"}`) // again is harmless
		expect(t, h.get(notifPath(u, "/notifications"), u.Token), 200, items(map[int]bool{1: true}, 4, 3, 2, 1, 0))
		expect(t, h.get(notifPath(u, "/notifications?unreadOnly=true"), u.Token), 200, items(none, 4, 3, 2, 0))
		expect(t, h.get(notifPath(u, "/notifications?unreadOnly=true&limit=3"), u.Token), 200, items(none, 4, 3, 2))
		expect(t, h.get(notifPath(u, "/notifications?unreadOnly=false&limit=1"), u.Token), 200, items(none, 4))
		if n := h.unreadCount(t, u); n != 4 {
			t.Fatalf("unread %d", n)
		}

		// another user's notification is not found, and stays unread
		expect(t, h.sendTest(other, "mood"), 200, "")
		otherID := h.get(notifPath(other, "/notifications"), other.Token).JSON(t)["notifications"].([]any)[0].(map[string]any)["id"].(string)
		expect(t, h.do(req{Method: "PATCH", Path: notifPath(u, "/notifications"), Token: u.Token, Body: map[string]any{"notificationId": otherID}}),
			404, errBody("not_found", "notification not found"))
		expect(t, h.do(req{Method: "PATCH", Path: notifPath(u, "/notifications"), Token: u.Token, Body: map[string]any{"notificationId": "nope"}}),
			404, errBody("not_found", "notification not found"))

		expect(t, h.do(req{Method: "PATCH", Path: notifPath(u, "/notifications"), Token: u.Token, Body: map[string]any{"markAll": true}}),
			200, `{"success":true,"message":"4 notifications marked as read","count":4}`)
		expect(t, h.do(req{Method: "PATCH", Path: notifPath(u, "/notifications"), Token: u.Token, Body: map[string]any{"markAll": true}}),
			200, `{"success":true,"message":"0 notifications marked as read","count":0}`)
		expect(t, h.get(notifPath(u, "/notifications?unreadOnly=true"), u.Token), 200, `{"success":true,"notifications":[]}`)
		if n := h.unreadCount(t, u); n != 0 {
			t.Fatalf("unread %d", n)
		}
		if n := h.unreadCount(t, other); n != 1 {
			t.Fatalf("the other user's unread %d", n)
		}
		expect(t, h.do(req{Method: "PATCH", Path: notifPath(other, "/notifications"), Token: other.Token, Body: map[string]any{"markAll": true}}),
			200, `{"success":true,"message":"1 notification marked as read","count":1}`)

		// the export carries the inbox, newest first
		data := h.get("/api/users/user/"+u.ID+"/export", u.Token).JSON(t)["data"].(map[string]any)
		exported := data["notifications"].(map[string]any)["notifications"].([]any)
		if len(exported) != 5 || exported[0].(map[string]any)["id"] != ids[4] || exported[4].(map[string]any)["read"] != true {
			t.Fatalf("export %v", exported)
		}
	})
}

func TestInboxErrors(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		u, other := h.newUser("a@x.io"), h.newUser("b@x.io")
		expect(t, h.sendTest(u, "mood"), 200, "")
		list := notifPath(u, "/notifications")
		limitMsg := errInvalid("limit must be a whole number from 1 to 500")
		unmarked := func(t *testing.T, h *harness) {
			if n := h.unreadCount(t, u); n != 1 {
				t.Fatalf("a refused request marked: %d unread", n)
			}
		}
		runScenarios(t, h, afterEach(unmarked, signedIn(u, []scenario{
			{name: "limit 0", req: GET(list + "?limit=0"), status: 400, want: limitMsg},
			{name: "limit 501", req: GET(list + "?limit=501"), status: 400, want: limitMsg},
			{name: "limit not a number", req: GET(list + "?limit=ten"), status: 400, want: limitMsg},
			{name: "forged cursor", req: GET(list + "?limit=2&cursor=bm9wZQ"), status: 400,
				want: errInvalid("cursor is not one this server handed out")},
			{name: "unreadOnly not a boolean", req: GET(list + "?unreadOnly=yes"), status: 400, want: errInvalid("unreadOnly must be true or false")},
			{name: "neither id nor markAll", req: PATCH(list, map[string]any{}), status: 400,
				want: errInvalid("send notificationId, or markAll: true")},
			{name: "markAll false", req: PATCH(list, map[string]any{"markAll": false}), status: 400,
				want: errInvalid("send notificationId, or markAll: true")},
			{name: "both", req: PATCH(list, map[string]any{"markAll": true, "notificationId": "x"}), status: 400,
				want: errInvalid("send either notificationId or markAll: true, not both")},
			{name: "empty id", req: PATCH(list, map[string]any{"notificationId": ""}), status: 400, want: errInvalid("notificationId is required")},
			{name: "markAll not a boolean", req: PATCH(list, map[string]any{"markAll": "true"}), status: 400,
				want: errInvalid("field markAll must be a boolean")},
			{name: "id not a string", req: PATCH(list, map[string]any{"notificationId": 7}), status: 400,
				want: errInvalid("field notificationId must be a string")},
			{name: "malformed JSON", req: PATCH(list, `{"markAll":tru}`), status: 400, want: errInvalid("malformed JSON")},
			{name: "no token", req: GET(notifPath(u, "/notifications/unread")).anonymous(), status: 401, want: errNoToken},
			{name: "someone else's count", req: GET(notifPath(other, "/notifications/unread")), status: 403, want: errNotYours},
			{name: "someone else's list", req: GET(notifPath(other, "/notifications")), status: 403, want: errNotYours},
			{name: "marking someone else's", req: PATCH(notifPath(other, "/notifications"), map[string]any{"markAll": true}), status: 403,
				want: errNotYours},
		})))
	})
}

func TestDevicesRegisterMoveAndRemove(t *testing.T) {
	eachProfileWithPushes(t, func(t *testing.T, h *harness, pushes *mempush.Outbox) {
		a, b := h.newUser("a@x.io"), h.newUser("b@x.io")
		total := func(u user) string {
			t.Helper()
			r := h.sendTest(u, "systemUpdates")
			expect(t, r, 200, "")
			return fmt.Sprint(r.JSON(t)["total"])
		}
		d1 := h.registerDevice(a, "ExponentPushToken[shared]", "ios", "expo")
		if again := h.registerDevice(a, "ExponentPushToken[shared]", "ios", "expo"); again != d1 {
			t.Fatalf("re-registering made a new device %s", again)
		}
		d2 := h.registerDevice(a, "fcm:token-a", "web", "fcm")
		if total(a) != "2" {
			t.Fatal("a has two devices")
		}
		// the same token from b: taken from a as a new device of b's
		moved := h.registerDevice(b, "ExponentPushToken[shared]", "android", "expo")
		if moved == d1 {
			t.Fatalf("b was handed a's device id %s", d1)
		}
		if total(a) != "1" || total(b) != "1" {
			t.Fatal("the device did not move")
		}
		last := pushes.To(b.ID)
		if len(last) != 1 || last[0].Device.ID != moved || last[0].Device.Platform != "android" {
			t.Fatalf("pushes to b %+v", last)
		}

		// export lists devices without their tokens
		data := h.get("/api/users/user/"+a.ID+"/export", a.Token).JSON(t)["data"].(map[string]any)
		devs, _ := json.Marshal(data["notifications"].(map[string]any)["devices"])
		if want := `[{"id":"` + d2 + `","platform":"web","provider":"fcm","registeredAt":` + itoa(h.Clock.Now().UnixMilli()) + `}]`; string(devs) != want {
			t.Fatalf("export devices %s, want %s", devs, want)
		}

		expect(t, h.do(req{Method: "DELETE", Path: notifPath(a, "/devices/"+d1), Token: a.Token}), 404, errBody("not_found", "device not found"))
		expect(t, h.do(req{Method: "DELETE", Path: notifPath(a, "/devices/nope"), Token: a.Token}), 404, errBody("not_found", "device not found"))
		expect(t, h.do(req{Method: "DELETE", Path: notifPath(b, "/devices/"+d1), Token: a.Token}), 403, errBody("forbidden", "you may only act on your own account"))
		expect(t, h.do(req{Method: "DELETE", Path: notifPath(a, "/devices/"+d2), Token: a.Token}), 200, `{"success":true}`)
		expect(t, h.do(req{Method: "DELETE", Path: notifPath(a, "/devices/"+d2), Token: a.Token}), 404, errBody("not_found", "device not found"))
		if total(a) != "0" || total(b) != "1" {
			t.Fatal("remove")
		}
	})
}

func TestDeviceRegistrationErrors(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		u, other := h.newUser("a@x.io"), h.newUser("b@x.io")
		path := notifPath(u, "/devices")
		dev := func(token, platform, provider any) map[string]any {
			return map[string]any{"token": token, "platform": platform, "provider": provider}
		}
		runScenarios(t, h, signedIn(u, []scenario{
			{name: "unknown platform", req: POST(path, dev("t", "tizen", "fcm")), status: 400,
				want: errInvalid("platform must be ios, android or web")},
			{name: "missing platform", req: POST(path, map[string]any{"token": "t", "provider": "fcm"}), status: 400,
				want: errInvalid("platform is required: ios, android or web")},
			{name: "unknown provider", req: POST(path, dev("t", "ios", "apns")), status: 400, want: errInvalid("provider must be expo or fcm")},
			{name: "missing provider", req: POST(path, map[string]any{"token": "t", "platform": "ios"}), status: 400,
				want: errInvalid("provider is required: expo or fcm")},
			{name: "missing token", req: POST(path, map[string]any{"platform": "ios", "provider": "fcm"}), status: 400,
				want: errInvalid("token is required")},
			{name: "token with a space", req: POST(path, dev("a b", "ios", "fcm")), status: 400,
				want: errInvalid("token must be printable ASCII without spaces")},
			{name: "token of 1025", req: POST(path, dev(strings.Repeat("t", 1025), "ios", "fcm")), status: 400,
				want: errInvalid("token must be at most 1024 characters")},
			{name: "expo token of the wrong form", req: POST(path, dev("fcm-looking", "ios", "expo")), status: 400,
				want: errInvalid("an expo token looks like ExponentPushToken[...]")},
			{name: "token not a string", req: POST(path, dev(12, "ios", "fcm")), status: 400, want: errInvalid("field token must be a string")},
			{name: "malformed JSON", req: POST(path, `{"token":`), status: 400, want: errInvalid("malformed JSON")},
			{name: "no token", req: POST(path, dev("t", "ios", "fcm")).anonymous(), status: 401, want: errNoToken},
			{name: "for someone else", req: POST(notifPath(other, "/devices"), dev("t", "ios", "fcm")), status: 403, want: errNotYours},
			{name: "delete without a token", req: DELETE(path + "/some-id").anonymous(), status: 401, want: errNoToken},
			{name: "delete someone else's", req: DELETE(notifPath(other, "/devices/some-id")), status: 403, want: errNotYours},
		}))
		// nothing stored: a test notification finds no device
		expect(t, h.sendTest(u, "mood"), 200, `{"success":true,"message":"notification saved; no device is registered","notificationType":"mood",`+
			`"userOptedIn":true,"saved":true,"sent":0,"total":0,"action":"saved_only"}`)
		expect(t, h.sendTest(other, "mood"), 200, `{"success":true,"message":"notification saved; no device is registered","notificationType":"mood",`+
			`"userOptedIn":true,"saved":true,"sent":0,"total":0,"action":"saved_only"}`)
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

// TestPushThroughExpo runs the app with TANDEM_PUSH=expo?url=<local Expo>:
// the request the app sends, the dead token it removes, and an fcm device
// that no configured provider serves (counted, not sent).
func TestPushThroughExpo(t *testing.T) {
	parallel(t)
	for _, p := range profiles(t) {
		t.Run(p.name, func(t *testing.T) {
			parallel(t)
			fake := expotest.Start(t)
			h := newHarness(t, p, withEnv("TANDEM_PUSH", "expo?url="+fake.SendURL()))
			u := h.newUser("a@x.io")
			h.registerDevice(u, "ExponentPushToken[live]", "ios", "expo")
			h.Clock.Advance(time.Second)
			h.registerDevice(u, "ExponentPushToken[gone]", "android", "expo")
			h.Clock.Advance(time.Second)
			h.registerDevice(u, "fcm-only-token", "android", "fcm")

			r := h.post(notifPath(u, "/send-test-notification"), u.Token, map[string]any{"title": "Hi", "message": "From Expo", "category": "events"})
			expect(t, r, 200, `{"success":true,"message":"notification saved; pushed to 1 of 3 devices","notificationType":"events",`+
				`"userOptedIn":true,"saved":true,"sent":1,"total":3,"action":"saved_and_sent"}`)
			id := h.get(notifPath(u, "/notifications"), u.Token).JSON(t)["notifications"].([]any)[0].(map[string]any)["id"].(string)

			reqs := fake.Requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests to Expo", len(reqs))
			}
			got := reqs[0]
			if got.Method != "POST" || got.Path != "/--/api/v2/push/send" || got.ContentType != "application/json" || got.Accept != "application/json" {
				t.Fatalf("request %+v", got)
			}
			body, _ := json.Marshal(fake.Batches()[0])
			msg := func(to string) string {
				return `{"body":"From Expo","data":{"category":"events","notificationId":"` + id + `"},"sound":"default","title":"Hi","to":"` + to + `"}`
			}
			if want := `[` + msg("ExponentPushToken[gone]") + `,` + msg("ExponentPushToken[live]") + `]`; string(body) != want {
				t.Fatalf("sent\n%s\nwant\n%s", body, want)
			}

			// the dead token's device is gone: the next send counts two devices
			expect(t, h.post(notifPath(u, "/send-test-notification"), u.Token, map[string]any{"title": "Again", "message": "m", "category": "events"}),
				200, `{"success":true,"message":"notification saved; pushed to 1 of 2 devices","notificationType":"events",`+
					`"userOptedIn":true,"saved":true,"sent":1,"total":2,"action":"saved_and_sent"}`)
			reqs, batches := fake.Requests(), fake.Batches()
			if len(reqs) != 2 || len(batches) != 2 || len(batches[1]) != 1 || batches[1][0]["to"] != "ExponentPushToken[live]" {
				t.Fatalf("second request %+v %v", reqs, batches)
			}
			data := h.get("/api/users/user/"+u.ID+"/export", u.Token).JSON(t)["data"].(map[string]any)
			if devs := data["notifications"].(map[string]any)["devices"].([]any); len(devs) != 2 {
				t.Fatalf("devices after the dead token: %v", devs)
			}
		})
	}
}
