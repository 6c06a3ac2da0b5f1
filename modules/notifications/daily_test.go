package notifications_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"tandem/core"
	n "tandem/modules/notifications"
)

// The daily reminder as an English reader reads it.
const (
	reminderTitle   = "Today's question"
	reminderMessage = "You have not answered today's question yet: your partner is waiting to hear from you."
)

func mustZone(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

func hm(h, m int) core.TimeOfDay { return core.TimeOfDay{Hour: h, Minute: m} }

func utc(y int, mo time.Month, d, h, m int) time.Time {
	return time.Date(y, mo, d, h, m, 0, 0, time.UTC)
}

// TestReminderDue is the due-time rule on ordinary days and on the DST days
// of Europe/Berlin and America/New_York in 2026, with reminder times inside
// and beside the spring-forward gap and the fall-back hour: a skipped time
// fires at the end of the gap, a repeated one at its first instant.
func TestReminderDue(t *testing.T) {
	t.Parallel()
	berlin, ny := mustZone(t, "Europe/Berlin"), mustZone(t, "America/New_York")
	d := func(y int, m time.Month, day int) core.Date { return core.Date{Year: y, Month: m, Day: day} }
	cases := []struct {
		name string
		loc  *time.Location
		day  core.Date
		at   core.TimeOfDay
		want time.Time
	}{
		{"no zone is UTC", nil, d(2026, 6, 15), hm(20, 0), utc(2026, 6, 15, 20, 0)},
		{"Berlin summer", berlin, d(2026, 6, 15), hm(20, 0), utc(2026, 6, 15, 18, 0)},
		{"Berlin winter", berlin, d(2026, 1, 15), hm(20, 0), utc(2026, 1, 15, 19, 0)},
		{"New York winter, the next UTC date", ny, d(2026, 1, 15), hm(20, 0), utc(2026, 1, 16, 1, 0)},
		{"midnight", berlin, d(2026, 6, 15), hm(0, 0), utc(2026, 6, 14, 22, 0)},
		{"last minute of the day", ny, d(2026, 6, 15), hm(23, 59), utc(2026, 6, 16, 3, 59)},

		// Europe/Berlin, 2026-03-29: 02:00 CET becomes 03:00 CEST (01:00 UTC).
		{"Berlin spring: before the gap", berlin, d(2026, 3, 29), hm(1, 59), utc(2026, 3, 29, 0, 59)},
		{"Berlin spring: the gap's first minute", berlin, d(2026, 3, 29), hm(2, 0), utc(2026, 3, 29, 1, 0)},
		{"Berlin spring: inside the gap", berlin, d(2026, 3, 29), hm(2, 30), utc(2026, 3, 29, 1, 0)},
		{"Berlin spring: the gap's last minute", berlin, d(2026, 3, 29), hm(2, 59), utc(2026, 3, 29, 1, 0)},
		{"Berlin spring: right after the gap", berlin, d(2026, 3, 29), hm(3, 0), utc(2026, 3, 29, 1, 0)},
		{"Berlin spring: after the gap", berlin, d(2026, 3, 29), hm(3, 30), utc(2026, 3, 29, 1, 30)},
		{"Berlin spring: the evening", berlin, d(2026, 3, 29), hm(20, 0), utc(2026, 3, 29, 18, 0)},
		{"Berlin spring: the day before", berlin, d(2026, 3, 28), hm(2, 30), utc(2026, 3, 28, 1, 30)},

		// Europe/Berlin, 2026-10-25: 03:00 CEST becomes 02:00 CET (01:00 UTC); 02:00-02:59 twice.
		{"Berlin fall: before the repeated hour", berlin, d(2026, 10, 25), hm(1, 59), utc(2026, 10, 24, 23, 59)},
		{"Berlin fall: the repeated hour's start, first time", berlin, d(2026, 10, 25), hm(2, 0), utc(2026, 10, 25, 0, 0)},
		{"Berlin fall: inside the repeated hour, first time", berlin, d(2026, 10, 25), hm(2, 30), utc(2026, 10, 25, 0, 30)},
		{"Berlin fall: the repeated hour's end, first time", berlin, d(2026, 10, 25), hm(2, 59), utc(2026, 10, 25, 0, 59)},
		{"Berlin fall: after the repeated hour", berlin, d(2026, 10, 25), hm(3, 0), utc(2026, 10, 25, 2, 0)},
		{"Berlin fall: the evening", berlin, d(2026, 10, 25), hm(20, 0), utc(2026, 10, 25, 19, 0)},

		// America/New_York, 2026-03-08: 02:00 EST becomes 03:00 EDT (07:00 UTC).
		{"New York spring: before the gap", ny, d(2026, 3, 8), hm(1, 59), utc(2026, 3, 8, 6, 59)},
		{"New York spring: the gap's first minute", ny, d(2026, 3, 8), hm(2, 0), utc(2026, 3, 8, 7, 0)},
		{"New York spring: inside the gap", ny, d(2026, 3, 8), hm(2, 30), utc(2026, 3, 8, 7, 0)},
		{"New York spring: right after the gap", ny, d(2026, 3, 8), hm(3, 0), utc(2026, 3, 8, 7, 0)},
		{"New York spring: after the gap", ny, d(2026, 3, 8), hm(3, 1), utc(2026, 3, 8, 7, 1)},
		{"New York spring: the evening", ny, d(2026, 3, 8), hm(20, 0), utc(2026, 3, 9, 0, 0)},

		// America/New_York, 2026-11-01: 02:00 EDT becomes 01:00 EST (06:00 UTC); 01:00-01:59 twice.
		{"New York fall: before the repeated hour", ny, d(2026, 11, 1), hm(0, 59), utc(2026, 11, 1, 4, 59)},
		{"New York fall: the repeated hour's start, first time", ny, d(2026, 11, 1), hm(1, 0), utc(2026, 11, 1, 5, 0)},
		{"New York fall: inside the repeated hour, first time", ny, d(2026, 11, 1), hm(1, 30), utc(2026, 11, 1, 5, 30)},
		{"New York fall: the repeated hour's end, first time", ny, d(2026, 11, 1), hm(1, 59), utc(2026, 11, 1, 5, 59)},
		{"New York fall: after the repeated hour", ny, d(2026, 11, 1), hm(2, 0), utc(2026, 11, 1, 7, 0)},
		{"New York fall: the evening", ny, d(2026, 11, 1), hm(20, 0), utc(2026, 11, 2, 1, 0)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := n.ReminderDue(tc.day, tc.at, tc.loc); !got.Equal(tc.want) || got.Location() != time.UTC {
				t.Fatalf("%s %s: %s, want %s", tc.day, tc.at, got, tc.want)
			}
		})
	}
}

// TestReminderDueIsOncePerLocalDate: for every minute of the day, across the
// DST weekends of both zones, the due instants of consecutive dates fall on
// those local dates and strictly increase: no date is skipped, none doubled.
func TestReminderDueIsOncePerLocalDate(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"Europe/Berlin", "America/New_York"} {
		loc := mustZone(t, name)
		for _, first := range []core.Date{{Year: 2026, Month: 3, Day: 6}, {Year: 2026, Month: 10, Day: 23}} {
			for minute := 0; minute < 24*60; minute++ {
				at := hm(minute/60, minute%60)
				var prev time.Time
				for i := range 14 {
					day := first.AddDays(i)
					due := n.ReminderDue(day, at, loc)
					if got := core.DateOf(due.In(loc)); got != day {
						t.Fatalf("%s %s at %s: due %s falls on %s", name, day, at, due.In(loc), got)
					}
					if !prev.IsZero() && !due.After(prev) {
						t.Fatalf("%s %s at %s: due %s not after the day before's %s", name, day, at, due, prev)
					}
					prev = due
				}
			}
		}
	}
}

func TestNextReminder(t *testing.T) {
	t.Parallel()
	berlin, ny := mustZone(t, "Europe/Berlin"), mustZone(t, "America/New_York")
	cases := []struct {
		name string
		now  time.Time
		at   core.TimeOfDay
		loc  *time.Location
		want time.Time
	}{
		{"today's is still to come", utc(2025, 6, 15, 12, 0), hm(20, 0), berlin, utc(2025, 6, 15, 18, 0)},
		{"today's is now: tomorrow's", utc(2025, 6, 15, 18, 0), hm(20, 0), berlin, utc(2025, 6, 16, 18, 0)},
		{"today's is past: tomorrow's", utc(2025, 6, 15, 19, 0), hm(20, 0), berlin, utc(2025, 6, 16, 18, 0)},
		{"the local date, not UTC's", utc(2025, 6, 15, 23, 0), hm(20, 0), ny, utc(2025, 6, 16, 0, 0)},
		{"just after local midnight", utc(2025, 6, 15, 22, 30), hm(0, 15), berlin, utc(2025, 6, 16, 22, 15)},
		{"before the gap: its end", utc(2026, 3, 29, 0, 30), hm(2, 30), berlin, utc(2026, 3, 29, 1, 0)},
		{"at the gap's end: the next day", utc(2026, 3, 29, 1, 0), hm(2, 30), berlin, utc(2026, 3, 30, 0, 30)},
		{"the day before the gap", utc(2026, 3, 28, 12, 0), hm(2, 30), berlin, utc(2026, 3, 29, 1, 0)},
		{"before the repeated hour: its first time", utc(2026, 10, 24, 23, 0), hm(2, 30), berlin, utc(2026, 10, 25, 0, 30)},
		{"between the two times: the next day, not the second", utc(2026, 10, 25, 0, 45), hm(2, 30), berlin,
			utc(2026, 10, 26, 1, 30)},
		{"New York between the two 01:30s", utc(2026, 11, 1, 5, 45), hm(1, 30), ny, utc(2026, 11, 2, 6, 30)},
		{"New York before the gap", utc(2026, 3, 8, 5, 0), hm(2, 15), ny, utc(2026, 3, 8, 7, 0)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := n.NextReminder(tc.now, tc.at, tc.loc); !got.Equal(tc.want) {
				t.Fatalf("%s", got)
			}
		})
	}
}

// questionsFake answers DailyQuestions: paired users, the (user, date)
// pairs answered, and an error for the users in fail.
type questionsFake struct {
	mu       sync.Mutex
	paired   map[string]bool
	answered map[string]bool // user|date
	fail     map[string]bool
}

func newQuestionsFake(paired ...string) *questionsFake {
	q := &questionsFake{paired: map[string]bool{}, answered: map[string]bool{}, fail: map[string]bool{}}
	for _, u := range paired {
		q.paired[u] = true
	}
	return q
}

func (q *questionsFake) answer(user string, day core.Date) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.answered[user+"|"+day.String()] = true
}

func (q *questionsFake) AnsweredOn(_ context.Context, userID string, day core.Date) (bool, bool, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.fail[userID] {
		return false, false, errors.New("questions down")
	}
	return q.paired[userID], q.paired[userID] && q.answered[userID+"|"+day.String()], nil
}

// reminderFixture is the Reminders job on the fixture's service.
type reminderFixture struct {
	*fixture
	job       *n.Reminders
	questions *questionsFake
}

func newReminderFixture(t *testing.T, paired ...string) *reminderFixture {
	t.Helper()
	f := newFixture(t)
	q := newQuestionsFake(paired...)
	return &reminderFixture{fixture: f, questions: q, job: n.NewReminders(f.svc, f.reminders, f.zones, q, f.clock)}
}

// pair schedules the users as a new couple does (the partnership listener).
func (f *reminderFixture) pair(t *testing.T, a, b string) {
	t.Helper()
	f.questions.mu.Lock()
	f.questions.paired[a], f.questions.paired[b] = true, true
	f.questions.mu.Unlock()
	if err := f.svc.Listener().Handle(context.Background(), core.PartnershipStarted{PartnershipID: "p", UserIDs: [2]string{a, b}}); err != nil {
		t.Fatal(err)
	}
}

// run runs the job at now and returns how many it sent.
func (f *reminderFixture) run(t *testing.T, now time.Time) int {
	t.Helper()
	f.clock.Set(now)
	sent, err := f.job.SendDue(context.Background())
	if err != nil {
		t.Fatalf("at %s: %v", now, err)
	}
	return sent
}

// reminded lists the user's daily reminders in the inbox, as their times.
func (f *reminderFixture) reminded(t *testing.T, user string) []string {
	t.Helper()
	var out []string
	for _, x := range f.inbox(t, user) {
		if x.Title == reminderTitle && x.Message == reminderMessage && x.Category == n.CategoryQuestions {
			out = append([]string{x.CreatedAt.UTC().Format("01-02 15:04")}, out...)
		}
	}
	return out
}

// TestDailyReminderRules runs the job through one day (2025-06-15, ann in
// Berlin and bob in New York, paired at 12:00 UTC) every minute, with a
// change applied at the start, and checks who is reminded when.
func TestDailyReminderRules(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	day := core.Date{Year: 2025, Month: 6, Day: 15}
	cases := []struct {
		name   string
		change func(t *testing.T, f *reminderFixture)
		ann    string // ann's reminders (UTC "01-02 15:04", comma-separated)
		bob    string
		pushes int // pushes of the reminders
	}{
		{"nobody answered: each at 20:00 local", nil, "06-15 18:00", "06-16 00:00", 2},
		{"ann answered: only bob", func(t *testing.T, f *reminderFixture) { f.questions.answer("ann", day) },
			"", "06-16 00:00", 1},
		{"an answer of another date does not count", func(t *testing.T, f *reminderFixture) {
			f.questions.answer("ann", day.AddDays(-1))
		}, "06-15 18:00", "06-16 00:00", 2},
		{"ann's own time", func(t *testing.T, f *reminderFixture) {
			at := hm(21, 30)
			if _, err := f.svc.UpdateSettings(ctx, "ann", n.Changes{ReminderTime: &at}); err != nil {
				t.Fatal(err)
			}
		}, "06-15 19:30", "06-16 00:00", 2},
		{"a time already past today: from tomorrow", func(t *testing.T, f *reminderFixture) {
			at := hm(9, 0)
			if _, err := f.svc.UpdateSettings(ctx, "ann", n.Changes{ReminderTime: &at}); err != nil {
				t.Fatal(err)
			}
		}, "06-16 07:00", "06-16 00:00", 2},
		{"dailyReminders off: saved, not pushed", func(t *testing.T, f *reminderFixture) {
			if _, err := f.svc.UpdateSettings(ctx, "ann", n.Changes{Switches: n.Patch{n.DailyReminders: false}}); err != nil {
				t.Fatal(err)
			}
		}, "06-15 18:00", "06-16 00:00", 1},
		{"pauseAll: saved, not pushed", func(t *testing.T, f *reminderFixture) {
			if _, err := f.svc.UpdateSettings(ctx, "bob", n.Changes{Switches: n.Patch{n.PauseAll: true}}); err != nil {
				t.Fatal(err)
			}
		}, "06-15 18:00", "06-16 00:00", 1},
		{"a timezone moved east, announced", func(t *testing.T, f *reminderFixture) {
			f.zones.Set("bob", mustZone(t, "Asia/Tokyo"))
			if err := f.svc.Listener().Handle(ctx, core.TimezoneChanged{UserID: "bob", Timezone: "Asia/Tokyo"}); err != nil {
				t.Fatal(err)
			}
		}, "06-15 18:00", "06-16 11:00", 2}, // Tokyo's 06-15 20:00 was past at 12:00 UTC: its 06-16
		{"a timezone moved west, unannounced: found at send time", func(t *testing.T, f *reminderFixture) {
			f.zones.Set("ann", mustZone(t, "America/Los_Angeles"))
		}, "06-16 03:00", "06-16 00:00", 2},
		{"unpaired: none, and no longer scheduled", func(t *testing.T, f *reminderFixture) {
			f.questions.mu.Lock()
			delete(f.questions.paired, "bob")
			f.questions.mu.Unlock()
		}, "06-15 18:00", "", 1},
		{"a deleted account: none", func(t *testing.T, f *reminderFixture) { f.zones.Unknown("bob") },
			"06-15 18:00", "", 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newReminderFixture(t)
			f.register(t, "ann", "ann-phone")
			f.register(t, "bob", "bob-phone")
			f.zones.Set("ann", mustZone(t, "Europe/Berlin"))
			f.zones.Set("bob", mustZone(t, "America/New_York"))
			f.pair(t, "ann", "bob")
			if tc.change != nil {
				tc.change(t, f)
			}
			total := 0
			for now := utc(2025, 6, 15, 12, 0); !now.After(utc(2025, 6, 16, 11, 59)); now = now.Add(time.Minute) {
				total += f.run(t, now)
			}
			ann, bob := strings.Join(f.reminded(t, "ann"), ","), strings.Join(f.reminded(t, "bob"), ",")
			if ann != tc.ann || bob != tc.bob {
				t.Fatalf("ann %q, bob %q; want %q, %q", ann, bob, tc.ann, tc.bob)
			}
			if want := len(f.reminded(t, "ann")) + len(f.reminded(t, "bob")); total != want {
				t.Fatalf("the job said %d sent, the inboxes hold %d", total, want)
			}
			pushes := 0
			for _, c := range f.pusher.all() {
				if c.m.Title == reminderTitle && c.m.Category == n.CategoryQuestions {
					pushes += len(c.to)
				}
			}
			if pushes != tc.pushes {
				t.Fatalf("%d pushes, want %d", pushes, tc.pushes)
			}
			if tc.bob == "" {
				if due, _ := f.reminders.DueReminders(ctx, utc(2030, 1, 1, 0, 0), 10); len(due) != 1 || due[0].UserID != "ann" {
					t.Fatalf("still scheduled: %+v", due)
				}
			}
		})
	}
}

// TestDailyRemindersAcrossDST runs the job every minute through the DST
// weekends of 2026 with reminder times inside the gap and the repeated hour:
// one reminder per local date, at the due instant.
func TestDailyRemindersAcrossDST(t *testing.T) {
	t.Parallel()
	cases := []struct {
		zone     string
		at       core.TimeOfDay
		from, to time.Time // the run, UTC
		want     string    // reminders (UTC "01-02 15:04")
	}{
		{"Europe/Berlin", hm(2, 30), utc(2026, 3, 27, 12, 0), utc(2026, 3, 30, 12, 0), "03-28 01:30,03-29 01:00,03-30 00:30"},
		{"Europe/Berlin", hm(3, 0), utc(2026, 3, 27, 12, 0), utc(2026, 3, 30, 12, 0), "03-28 02:00,03-29 01:00,03-30 01:00"},
		{"Europe/Berlin", hm(2, 30), utc(2026, 10, 23, 12, 0), utc(2026, 10, 26, 12, 0), "10-24 00:30,10-25 00:30,10-26 01:30"},
		{"Europe/Berlin", hm(20, 0), utc(2026, 10, 23, 12, 0), utc(2026, 10, 26, 12, 0), "10-23 18:00,10-24 18:00,10-25 19:00"},
		{"America/New_York", hm(2, 30), utc(2026, 3, 6, 12, 0), utc(2026, 3, 9, 12, 0), "03-07 07:30,03-08 07:00,03-09 06:30"},
		{"America/New_York", hm(1, 30), utc(2026, 10, 30, 12, 0), utc(2026, 11, 2, 12, 0), "10-31 05:30,11-01 05:30,11-02 06:30"},
		{"America/New_York", hm(20, 0), utc(2026, 10, 30, 12, 0), utc(2026, 11, 2, 12, 0), "10-31 00:00,11-01 00:00,11-02 01:00"},
	}
	for _, tc := range cases {
		t.Run(tc.zone+" "+tc.at.String()+" "+tc.from.Format("01-02"), func(t *testing.T) {
			t.Parallel()
			f := newReminderFixture(t)
			f.clock.Set(tc.from)
			f.zones.Set("ann", mustZone(t, tc.zone))
			if _, err := f.svc.UpdateSettings(context.Background(), "ann", n.Changes{ReminderTime: &tc.at}); err != nil {
				t.Fatal(err)
			}
			f.pair(t, "ann", "bob")
			for now := tc.from; now.Before(tc.to); now = now.Add(time.Minute) {
				f.run(t, now)
			}
			if got := strings.Join(f.reminded(t, "ann"), ","); got != tc.want {
				t.Fatalf("reminded at %s, want %s", got, tc.want)
			}
		})
	}
}

// TestDailyReminderJobRunsAtOnceInManyProcesses: five jobs on one store at
// once send each user's reminder once.
func TestDailyReminderJobRunsAtOnceInManyProcesses(t *testing.T) {
	t.Parallel()
	f := newReminderFixture(t)
	users := make([]string, 2*n.ReminderBatch+10)
	for i := range users {
		users[i] = fmt.Sprintf("u%03d", i)
	}
	for i := 0; i < len(users); i += 2 {
		f.pair(t, users[i], users[i+1])
	}
	f.clock.Set(utc(2025, 6, 15, 20, 0))
	jobs := make([]*n.Reminders, 5)
	for i := range jobs {
		jobs[i] = n.NewReminders(f.svc, f.reminders, f.zones, f.questions, f.clock)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	total := 0
	for _, j := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sent, err := j.SendDue(context.Background())
			if err != nil {
				t.Error(err)
			}
			mu.Lock()
			total += sent
			mu.Unlock()
		}()
	}
	wg.Wait()
	if total != len(users) {
		t.Fatalf("sent %d for %d users", total, len(users))
	}
	for _, u := range users {
		if got := f.reminded(t, u); len(got) != 1 {
			t.Fatalf("%s reminded %v", u, got)
		}
	}
}

// TestAFailingUserDoesNotStopTheJob: a user whose date cannot be checked is
// tried again ReminderRetry later; the others are reminded, and the error
// is returned.
func TestAFailingUserDoesNotStopTheJob(t *testing.T) {
	t.Parallel()
	f := newReminderFixture(t)
	f.pair(t, "ann", "bob")
	f.questions.fail["ann"] = true
	f.clock.Set(utc(2025, 6, 15, 20, 0))
	sent, err := f.job.SendDue(context.Background())
	if sent != 1 || err == nil || !strings.Contains(err.Error(), "questions down") || len(f.reminded(t, "bob")) != 1 {
		t.Fatalf("sent %d, %v", sent, err)
	}
	due, _ := f.reminders.DueReminders(context.Background(), utc(2030, 1, 1, 0, 0), 10)
	if len(due) != 2 || due[0].UserID != "ann" || !due[0].At.Equal(utc(2025, 6, 15, 20, 5)) {
		t.Fatalf("schedule %+v", due)
	}
	f.questions.mu.Lock()
	f.questions.fail["ann"] = false
	f.questions.mu.Unlock()
	if sent := f.run(t, utc(2025, 6, 15, 20, 4)); sent != 0 {
		t.Fatal("retried early")
	}
	if sent := f.run(t, utc(2025, 6, 15, 20, 5)); sent != 1 || len(f.reminded(t, "ann")) != 1 {
		t.Fatalf("retry sent %d", sent)
	}
}

// TestClaimsArePurgedAfterThreeDays: Purge forgets the claims of dates
// before three days ago (UTC).
func TestClaimsArePurgedAfterThreeDays(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newReminderFixture(t)
	for _, d := range []int{13, 12, 11} {
		if ok, err := f.reminders.ClaimReminderDay(ctx, "ann", core.Date{Year: 2025, Month: 6, Day: d}, f.clock.Now()); !ok || err != nil {
			t.Fatal(ok, err)
		}
	}
	if n, err := f.job.Purge(ctx); n != 1 || err != nil { // 2025-06-11; the clock is 2025-06-15
		t.Fatalf("purged %d, %v", n, err)
	}
	if ok, _ := f.reminders.ClaimReminderDay(ctx, "ann", core.Date{Year: 2025, Month: 6, Day: 12}, f.clock.Now()); ok {
		t.Fatal("a kept claim was purged")
	}
}

// TestAccountDeletionRemovesTheReminder: the user's schedule and claims go
// with the account.
func TestAccountDeletionRemovesTheReminder(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newReminderFixture(t)
	f.pair(t, "ann", "bob")
	if _, err := f.reminders.ClaimReminderDay(ctx, "ann", core.Date{Year: 2025, Month: 6, Day: 15}, f.clock.Now()); err != nil {
		t.Fatal(err)
	}
	if err := f.svc.Listener().Handle(ctx, core.AccountDeleted{UserID: "ann"}); err != nil {
		t.Fatal(err)
	}
	due, _ := f.reminders.DueReminders(ctx, utc(2030, 1, 1, 0, 0), 10)
	if len(due) != 1 || due[0].UserID != "bob" {
		t.Fatalf("schedule %+v", due)
	}
	if ok, _ := f.reminders.ClaimReminderDay(ctx, "ann", core.Date{Year: 2025, Month: 6, Day: 15}, f.clock.Now()); !ok {
		t.Fatal("the claim survived")
	}
	if err := f.svc.PurgeUser(ctx, "ann"); err != nil {
		t.Fatalf("purging again: %v", err)
	}
}
