package tests

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/fx"

	"tandem/adapters/push/mempush"
	"tandem/modules/notifications"
)

// The daily reminder end to end: the dailyReminderTime setting, and the job
// that reminds a paired user who has not answered today's question.

// reminderApp is what the reminder tests take from the app.
type reminderApp struct {
	fx.In
	Job    *notifications.Reminders
	Pushes *mempush.Outbox
}

// reminders are the daily reminders pushed to u.
// The daily reminder as an English reader reads it.
const (
	reminderTitle   = "Today's question"
	reminderMessage = "You have not answered today's question yet: your partner is waiting to hear from you."
)

func reminders(pushes *mempush.Outbox, u user) []mempush.Push {
	var out []mempush.Push
	for _, p := range pushes.To(u.ID) {
		if p.Message.Title == reminderTitle {
			out = append(out, p)
		}
	}
	return out
}

// remindersInInbox counts the daily reminders in u's inbox.
func (h *harness) remindersInInbox(t *testing.T, u user) int {
	t.Helper()
	n := 0
	for _, x := range h.get(notifPath(u, "/notifications"), u.Token).JSON(t)["notifications"].([]any) {
		item := x.(map[string]any)
		if item["title"] == reminderTitle && item["category"] == "questions" {
			n++
		}
	}
	return n
}

func TestDailyReminderTimeSetting(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		u, other := h.newUser("a@x.io"), h.newUser("b@x.io")
		path := notifPath(u, "/notification-settings")
		expect(t, h.get(path, u.Token), 200, `{"success":true,"settings":`+settingsJSON(false)+`}`)
		step := settingsStep(u, path)
		runScenarios(t, h, signedIn(u, []scenario{
			step("the time alone", PUT(path, map[string]any{"dailyReminderTime": "07:30"}), settingsAt("07:30", false)),
			step("with a switch", PATCH(path, map[string]any{"dailyReminderTime": "23:59", "moodUpdates": false}),
				settingsAt("23:59", false, "moodUpdates")),
			step("pauseAll keeps it", PATCH(path, map[string]any{"pauseAll": true}), settingsAt("23:59", true)),
			step("midnight", PATCH(path, map[string]any{"dailyReminderTime": "00:00", "pauseAll": false}),
				settingsAt("00:00", false, "moodUpdates")),
		}))
		expect(t, h.get(notifPath(other, "/notification-settings"), other.Token), 200, `{"success":true,"settings":`+settingsJSON(false)+`}`)
		data := h.get("/api/users/user/"+u.ID+"/export", u.Token).JSON(t)["data"].(map[string]any)
		sameJSON(t, data["notifications"].(map[string]any)["settings"], settingsAt("00:00", false, "moodUpdates"))
	})
}

func TestDailyReminderTimeErrors(t *testing.T) {
	eachProfile(t, func(t *testing.T, h *harness) {
		u, other := h.newUser("a@x.io"), h.newUser("b@x.io")
		path := notifPath(u, "/notification-settings")
		expect(t, h.do(PUT(path, map[string]any{"dailyReminderTime": "21:15"}).by(u)), 200, "")
		badTime := errInvalid(`dailyReminderTime must be a time \"HH:MM\" from 00:00 to 23:59`)
		notString := errInvalid("field dailyReminderTime must be a string")
		unchanged := func(t *testing.T, h *harness) {
			expect(t, h.get(path, u.Token), 200, `{"success":true,"settings":`+settingsAt("21:15", false)+`}`)
			expect(t, h.get(notifPath(other, "/notification-settings"), other.Token), 200, `{"success":true,"settings":`+settingsJSON(false)+`}`)
		}
		rows := []scenario{
			{name: "hour 24", req: PUT(path, `{"dailyReminderTime":"24:00"}`), status: 400, want: badTime},
			{name: "minute 60", req: PATCH(path, `{"dailyReminderTime":"20:60"}`), status: 400, want: badTime},
			{name: "one-digit hour", req: PATCH(path, `{"dailyReminderTime":"8:00"}`), status: 400, want: badTime},
			{name: "with seconds", req: PATCH(path, `{"dailyReminderTime":"20:00:00"}`), status: 400, want: badTime},
			{name: "12-hour clock", req: PATCH(path, `{"dailyReminderTime":"08:00 PM"}`), status: 400, want: badTime},
			{name: "empty", req: PATCH(path, `{"dailyReminderTime":""}`), status: 400, want: badTime},
			{name: "padded", req: PATCH(path, `{"dailyReminderTime":" 20:00"}`), status: 400, want: badTime},
			{name: "a number", req: PATCH(path, `{"dailyReminderTime":2000}`), status: 400, want: notString},
			{name: "null", req: PATCH(path, `{"dailyReminderTime":null}`), status: 400, want: notString},
			{name: "an object", req: PUT(path, `{"dailyReminderTime":{"hour":20}}`), status: 400, want: notString},
			{name: "a bad time beside a good switch", req: PATCH(path, `{"moodUpdates":false,"dailyReminderTime":"25:00"}`),
				status: 400, want: badTime},
			{name: "the key in another case", req: PATCH(path, `{"DailyReminderTime":"20:00"}`), status: 400,
				want: errInvalid(`unknown setting \"DailyReminderTime\": use pauseAll, dailyReminders, moodUpdates, habitsReminder, eventsNotification, gamesNotification, partnerActivity, systemUpdates or dailyReminderTime`)},
			{name: "no token", req: PUT(path, `{"dailyReminderTime":"20:00"}`).anonymous(), status: 401, want: errNoToken},
			{name: "someone else's", req: PUT(notifPath(other, "/notification-settings"), `{"dailyReminderTime":"06:00"}`),
				status: 403, want: errNotYours},
		}
		runScenarios(t, h, afterEach(unchanged, signedIn(u, rows)))
	})
}

// TestDailyReminderReachesTheOneWhoDidNotAnswer: two partners in Berlin,
// one answered today's question; past 20:00 local the job pushes one
// reminder to the other, none to the one who answered, and nothing when
// run again.
func TestDailyReminderReachesTheOneWhoDidNotAnswer(t *testing.T) {
	eachProfileWith(t, func(t *testing.T, h *harness, app reminderApp) {
		ctx := context.Background()
		a, b, single := h.newUser("a@x.io"), h.newUser("b@x.io"), h.newUser("c@x.io")
		setTimezone(t, h, a, "Europe/Berlin")
		h.pair(a, b)
		setTimezone(t, h, b, "Europe/Berlin") // after pairing: the timezone change reschedules
		for _, u := range []user{a, b, single} {
			h.registerDevice(u, "ExponentPushToken["+u.ID+"]", "ios", "expo")
		}
		// 2025-06-15 12:00 UTC is 14:00 in Berlin: a answers today's question.
		expect(t, h.dqPost(a, map[string]any{"action": "answer", "text": "Pancakes"}), 200, "")

		h.Clock.Set(time.Date(2025, 6, 15, 17, 59, 0, 0, time.UTC)) // 19:59 in Berlin
		if _, err := app.Job.SendDue(ctx); err != nil {
			t.Fatal(err)
		}
		if len(reminders(app.Pushes, b)) != 0 {
			t.Fatal("reminded before 20:00")
		}
		h.Clock.Set(time.Date(2025, 6, 15, 18, 1, 0, 0, time.UTC)) // 20:01 in Berlin
		if _, err := app.Job.SendDue(ctx); err != nil {
			t.Fatal(err)
		}
		got := reminders(app.Pushes, b)
		if len(got) != 1 || got[0].Message.Body != reminderMessage || got[0].Message.Category != notifications.CategoryQuestions {
			t.Fatalf("pushes to b %+v", got)
		}
		if len(reminders(app.Pushes, a)) != 0 || len(reminders(app.Pushes, single)) != 0 {
			t.Fatal("a reminder to one who answered, or to one without a partner")
		}
		h.Clock.Advance(time.Hour)
		if n, err := app.Job.SendDue(ctx); n != 0 || err != nil {
			t.Fatalf("again: %d %v", n, err)
		}
		if len(reminders(app.Pushes, b)) != 1 || h.remindersInInbox(t, b) != 1 || h.remindersInInbox(t, a) != 0 {
			t.Fatal("reminded twice")
		}
		// the reminder is in b's inbox like any notification
		expect(t, h.get(notifPath(b, "/notifications?limit=1"), b.Token), 200, `{"success":true,"notifications":[`+
			notificationJSON("<string>", reminderTitle, reminderMessage, "questions", false,
				time.Date(2025, 6, 15, 18, 1, 0, 0, time.UTC))+`]}`)

		// the next day, neither answered: both, once each
		h.Clock.Set(time.Date(2025, 6, 16, 18, 0, 0, 0, time.UTC))
		for range 2 {
			if _, err := app.Job.SendDue(ctx); err != nil {
				t.Fatal(err)
			}
		}
		if len(reminders(app.Pushes, a)) != 1 || len(reminders(app.Pushes, b)) != 2 || len(reminders(app.Pushes, single)) != 0 {
			t.Fatalf("day two: a %d, b %d", len(reminders(app.Pushes, a)), len(reminders(app.Pushes, b)))
		}
	})
}

// TestDailyReminderFollowsTheSettings: the user's own time in their own
// timezone; dailyReminders off saves it unpushed; a partnership ended
// stops it.
func TestDailyReminderFollowsTheSettings(t *testing.T) {
	eachProfileWith(t, func(t *testing.T, h *harness, app reminderApp) {
		ctx := context.Background()
		a, b := h.newUser("a@x.io"), h.newUser("b@x.io")
		h.pair(a, b)
		setTimezone(t, h, a, "America/New_York")
		h.registerDevice(a, "ExponentPushToken[a]", "ios", "expo")
		h.registerDevice(b, "ExponentPushToken[b]", "ios", "expo")
		expect(t, h.do(PATCH(notifPath(a, "/notification-settings"), map[string]any{"dailyReminderTime": "08:15"}).by(a)), 200, "")
		expect(t, h.do(PATCH(notifPath(b, "/notification-settings"), map[string]any{"dailyReminders": false}).by(b)), 200, "")

		run := func(at time.Time) {
			t.Helper()
			h.Clock.Set(at)
			if _, err := app.Job.SendDue(ctx); err != nil {
				t.Fatal(err)
			}
		}
		// the clock is 2025-06-15 12:00 UTC, 08:00 in New York
		run(time.Date(2025, 6, 15, 12, 14, 0, 0, time.UTC))
		if h.remindersInInbox(t, a) != 0 {
			t.Fatal("a reminded early")
		}
		run(time.Date(2025, 6, 15, 12, 15, 0, 0, time.UTC)) // 08:15 in New York
		if h.remindersInInbox(t, a) != 1 || len(reminders(app.Pushes, a)) != 1 || h.remindersInInbox(t, b) != 0 {
			t.Fatal("a not reminded at 08:15 New York")
		}
		run(time.Date(2025, 6, 15, 20, 0, 0, 0, time.UTC)) // b's 20:00 UTC: saved, not pushed
		if h.remindersInInbox(t, b) != 1 || len(reminders(app.Pushes, b)) != 0 || h.remindersInInbox(t, a) != 1 {
			t.Fatal("b: dailyReminders off saves without a push")
		}
		expect(t, h.do(POST("/api/users/user/"+a.ID+"/pairing/unpair", nil).by(a)), 200, "")
		run(time.Date(2025, 6, 16, 12, 15, 0, 0, time.UTC))
		run(time.Date(2025, 6, 16, 20, 0, 0, 0, time.UTC))
		if h.remindersInInbox(t, a) != 1 || h.remindersInInbox(t, b) != 1 {
			t.Fatal("reminded without a partner")
		}
	})
}

// TestDailyReminderOnceAcrossThreeInstances: three app instances on one
// database (a SQLite file; MySQL when TANDEM_TEST_MYSQL_DSN is set) run the
// job at the same moment; each user gets one reminder.
func TestDailyReminderOnceAcrossThreeInstances(t *testing.T) {
	eachSharedProfile(t, func(t *testing.T, p profile) {
		quiet := withEnv("TANDEM_REMINDER_INTERVAL", "24h") // only the test runs the job
		apps := make([]reminderApp, 3)
		first := newHarness(t, p, quiet, withFx(fx.Populate(&apps[0])))
		hs := []*harness{first,
			newHarness(t, p, quiet, sharingDB(first), withFx(fx.Populate(&apps[1]))),
			newHarness(t, p, quiet, sharingDB(first), withFx(fx.Populate(&apps[2])))}
		var users []user // enough that the three jobs overlap
		for i := range 24 {
			u := hs[i%3].newUser(fmt.Sprintf("u%d@x.io", i)) // each instance serves some
			hs[i%3].registerDevice(u, fmt.Sprintf("ExponentPushToken[u%d]", i), "android", "expo")
			users = append(users, u)
		}
		for i := 0; i < len(users); i += 2 {
			hs[i%3].pair(users[i], users[i+1])
		}
		for _, h := range hs {
			h.Clock.Set(time.Date(2025, 6, 15, 20, 0, 0, 0, time.UTC))
		}
		for round, want := range []int{len(users), 0} { // the second finds nothing to send
			var wg sync.WaitGroup
			var sent atomic.Int64
			start := make(chan struct{})
			for _, app := range apps {
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-start
					n, err := app.Job.SendDue(context.Background())
					if err != nil {
						t.Error(err)
					}
					sent.Add(int64(n))
				}()
			}
			close(start)
			wg.Wait()
			if sent.Load() != int64(want) {
				t.Fatalf("round %d: the three jobs sent %d, want %d", round, sent.Load(), want)
			}
			for _, u := range users {
				pushed := 0
				for _, app := range apps {
					pushed += len(reminders(app.Pushes, u))
				}
				if pushed != 1 || first.remindersInInbox(t, u) != 1 {
					t.Fatalf("round %d: %s got %d pushes, %d in the inbox", round, u.ID, pushed, first.remindersInInbox(t, u))
				}
			}
		}
	})
}
