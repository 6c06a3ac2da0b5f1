package notifications_test

import (
	reflect "reflect"
	"strings"
	"testing"
	"time"

	"tandem/core"
	n "tandem/modules/notifications"
)

func wantInvalid(t *testing.T, what string, err error) {
	t.Helper()
	if core.KindOf(err) != core.KindInvalid || core.As(err).Code != "invalid_request" {
		t.Fatalf("%s: want 400 invalid_request, got %v", what, err)
	}
}

func TestParseSetting(t *testing.T) {
	t.Parallel()
	for _, ok := range []string{"pauseAll", "dailyReminders", "moodUpdates", "habitsReminder", "eventsNotification",
		"gamesNotification", "partnerActivity", "systemUpdates"} {
		if s, err := n.ParseSetting(ok); err != nil || string(s) != ok {
			t.Fatalf("%q: %q %v", ok, s, err)
		}
	}
	for _, bad := range []string{"", "PauseAll", "pause_all", "mood", "questions", "all"} {
		_, err := n.ParseSetting(bad)
		wantInvalid(t, bad, err)
	}
}

func TestCategoryMapsToItsSetting(t *testing.T) {
	t.Parallel()
	// The spec's mapping table, row by row.
	want := map[string]n.Setting{
		"mood": n.MoodUpdates, "moodUpdates": n.MoodUpdates,
		"habits": n.HabitsReminder, "habitsReminder": n.HabitsReminder,
		"events": n.EventsNotification, "eventsNotification": n.EventsNotification,
		"games": n.GamesNotification, "gamesNotification": n.GamesNotification,
		"questions": n.DailyReminders, "dailyReminders": n.DailyReminders,
		"notes": n.PartnerActivity, "partnerActivity": n.PartnerActivity,
		"systemUpdates": n.SystemUpdates,
	}
	for in, setting := range want {
		c, err := n.ParseCategory(in)
		if err != nil || string(c) != in || c.Setting() != setting {
			t.Fatalf("%q: %q → %q, %v", in, c, c.Setting(), err)
		}
	}
	for _, bad := range []string{"", "Mood", "pauseAll", "system", "partner", "question", "note"} {
		_, err := n.ParseCategory(bad)
		wantInvalid(t, bad, err)
	}
}

// TestValidateToken: what every token is, whatever its provider (a
// provider's own form is its adapter's: adapters/push).
func TestValidateToken(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		token string
		ok    bool
	}{
		{"a provider's token", "dQw4w9WgXcQ:APA91bH-" + strings.Repeat("x", 140), true},
		{"bracketed", "ExponentPushToken[abc]", true},
		{"of 1024", strings.Repeat("a", 1024), true},
		{"of 1025", strings.Repeat("a", 1025), false},
		{"empty", "", false},
		{"space inside", "abc def", false},
		{"non-ASCII", "tökén", false},
		{"control character", "abc\x00", false},
	}
	for _, tc := range cases {
		err := n.ValidateToken(tc.token)
		if tc.ok != (err == nil) {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !tc.ok {
			wantInvalid(t, tc.name, err)
		}
	}
}

// prefs builds Preferences with exactly the named types on.
func prefs(on ...n.Setting) n.Preferences {
	var p n.Preferences
	for _, k := range on {
		p.Set(k, true)
	}
	return p
}

func TestApplySettingsPatch(t *testing.T) {
	t.Parallel()
	allOn := n.AllOn()
	withoutMood := allOn
	withoutMood.MoodUpdates = false
	paused := func(resume n.Preferences) n.Settings { return n.Settings{PauseAll: true, Resume: resume} }
	active := func(p n.Preferences) n.Settings { return n.Settings{Preferences: p} }
	cases := []struct {
		name  string
		from  n.Settings
		patch n.Patch
		want  n.Settings
	}{
		{"one type off", active(allOn), n.Patch{n.MoodUpdates: false}, active(withoutMood)},
		{"one type on", active(prefs()), n.Patch{n.GamesNotification: true}, active(prefs(n.GamesNotification))},
		{"the same value again changes nothing", active(allOn), n.Patch{n.SystemUpdates: true}, active(allOn)},
		{"pauseAll true turns every other setting off and remembers them",
			active(withoutMood), n.Patch{n.PauseAll: true}, paused(withoutMood)},
		{"pauseAll true wins over types turned on in the same request",
			active(prefs()), n.Patch{n.PauseAll: true, n.MoodUpdates: true}, paused(prefs(n.MoodUpdates))},
		{"pauseAll false brings the remembered choices back",
			paused(withoutMood), n.Patch{n.PauseAll: false}, active(withoutMood)},
		{"pauseAll false with types applies them on top",
			paused(withoutMood), n.Patch{n.PauseAll: false, n.MoodUpdates: true, n.SystemUpdates: false},
			active(func() n.Preferences { p := allOn; p.SystemUpdates = false; return p }())},
		{"turning a type on while paused ends the pause",
			paused(prefs(n.DailyReminders)), n.Patch{n.MoodUpdates: true}, active(prefs(n.DailyReminders, n.MoodUpdates))},
		{"turning a type off while paused keeps the pause and remembers it",
			paused(allOn), n.Patch{n.MoodUpdates: false}, paused(withoutMood)},
		{"pausing again keeps what was remembered",
			paused(withoutMood), n.Patch{n.PauseAll: true}, paused(withoutMood)},
		{"pauseAll false while not paused changes nothing", active(withoutMood), n.Patch{n.PauseAll: false}, active(withoutMood)},
		{"a pause with nothing remembered comes back all off", paused(prefs()), n.Patch{n.PauseAll: false}, active(prefs())},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.from.Apply(tc.patch)
			if got != tc.want {
				t.Fatalf("got  %+v\nwant %+v", got, tc.want)
			}
			if got.PauseAll && len(got.On()) != 0 {
				t.Fatal("paused with a type on")
			}
		})
	}
}

func TestSettingsAllowByCategory(t *testing.T) {
	t.Parallel()
	def := n.DefaultSettings("u")
	if def.PauseAll || len(def.On()) != 7 || def.Resume != (n.Preferences{}) {
		t.Fatalf("defaults %+v", def)
	}
	off := def.Apply(n.Patch{n.HabitsReminder: false})
	pausedAll := def.Apply(n.Patch{n.PauseAll: true})
	cases := []struct {
		s    n.Settings
		cat  n.Category
		want bool
	}{
		{def, "habits", true},
		{off, "habits", false},
		{off, "habitsReminder", false},
		{off, "mood", true},
		{pausedAll, "systemUpdates", false},
		{pausedAll, "questions", false},
		{def, "questions", true},
	}
	for i, tc := range cases {
		if got := tc.s.Allows(tc.cat); got != tc.want {
			t.Fatalf("%d: %s → %v", i, tc.cat, got)
		}
	}
	if !pausedAll.Value(n.PauseAll) || pausedAll.Value(n.MoodUpdates) || !def.Value(n.MoodUpdates) {
		t.Fatal("Value")
	}
}

func TestResultAction(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		r    n.Result
		want n.Action
	}{
		{n.Result{OptedIn: true, Sent: 1, Total: 2}, n.ActionSavedAndSent},
		{n.Result{OptedIn: true, Sent: 0, Total: 2}, n.ActionSavedOnly},
		{n.Result{OptedIn: true}, n.ActionSavedOnly},
		{n.Result{OptedIn: false, Total: 3}, n.ActionSavedOnly},
	} {
		if got := tc.r.Action(); got != tc.want {
			t.Fatalf("%+v: %s", tc.r, got)
		}
	}
}

// TestActivityText: every kind has its own entry for one occurrence and for
// several (counted), and none names what the partner wrote.
func TestActivityText(t *testing.T) {
	t.Parallel()
	cases := []struct {
		kind           n.ActivityKind
		count          int
		title, message string
	}{
		{n.ActivityMemoryAdded, 1, "New memory", "Your partner added a memory."},
		{n.ActivityMemoryAdded, 3, "New memories", "Your partner added 3 memories."},
		{n.ActivityMessageSent, 1, "New message", "Your partner sent you a message."},
		{n.ActivityMessageSent, 12, "New messages", "Your partner sent you 12 messages."},
		{n.ActivityEventAdded, 1, "New event", "Your partner added an event to the calendar."},
		{n.ActivityEventAdded, 2, "New events", "Your partner added 2 events to the calendar."},
		{n.ActivityEventChanged, 1, "Event changed", "Your partner changed an event in the calendar."},
		{n.ActivityEventChanged, 4, "Events changed", "Your partner changed 4 events in the calendar."},
		{n.ActivityRelationshipStarted, 1, "Relationship started", "Your partner started counting your days together."},
		{n.ActivityRelationshipStarted, 2, "Relationship started", "Your partner started counting your days together."},
		{n.ActivityMoodShared, 1, "Mood check-in", "Your partner shared how they feel today."},
		{n.ActivityMoodShared, 3, "Mood check-ins", "Your partner shared how they feel 3 times."},
		{"somethingNew", 1, "Partner activity", "Your partner has been active."},
	}
	for _, tc := range cases {
		title, message := english.Note("en", tc.kind.Text(tc.count))
		if title != tc.title || message != tc.message {
			t.Errorf("%s × %d: %q %q, want %q %q", tc.kind, tc.count, title, message, tc.title, tc.message)
		}
	}
	for _, k := range n.ActivityKinds {
		if got, err := n.ParseActivityKind(string(k)); err != nil || got != k {
			t.Errorf("ParseActivityKind(%q) = %q, %v", k, got, err)
		}
		if k.Text(1).Key == "activity.other" {
			t.Errorf("%s has no text of its own", k)
		}
		want := n.CategoryPartnerActivity
		if k == n.ActivityMoodShared {
			want = n.CategoryMood
		}
		if c := k.Category(); c != want || c.Setting() == "" {
			t.Errorf("%s: category %q", k, c)
		}
	}
	for _, s := range []string{"", "memoryDeleted", "MessageSent"} {
		if _, err := n.ParseActivityKind(s); !core.IsKind(err, core.KindInvalid) {
			t.Errorf("ParseActivityKind(%q): %v", s, err)
		}
	}
}

// TestCollect: the rule of one more activity, on what the inbox holds.
func TestCollect(t *testing.T) {
	t.Parallel()
	at := time.Date(2025, 6, 15, 12, 0, 0, 0, time.UTC)
	quiet := 10 * time.Minute
	a := n.Activity{UserID: "u1", From: "u2", Kind: n.ActivityMemoryAdded}
	fresh := n.Notification{ID: "new", Category: n.CategoryPartnerActivity, CreatedAt: at}
	old := n.Notification{ID: "old", UserID: "u1", Category: n.CategoryPartnerActivity, CreatedAt: at.Add(-time.Hour), Title: "x"}
	cases := []struct {
		name      string
		held      n.Collected
		wantID    string
		wantCount int
		push      bool
	}{
		{"the first: a new entry, pushed", n.Collected{}, "new", 1, true},
		{"a read entry starts again; the last push still counts", n.Collected{PushedAt: at.Add(-time.Minute), Count: 4},
			"new", 1, false},
		{"the unread entry counts one more, quietly", n.Collected{Entry: &old, Count: 2, PushedAt: at.Add(-9 * time.Minute)},
			"old", 3, false},
		{"the quiet period ends at its very instant", n.Collected{Entry: &old, Count: 1, PushedAt: at.Add(-quiet)},
			"old", 2, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := tc.held
			next, push := n.Collect(tc.held, a, fresh, quiet)
			e := next.Entry
			if e == nil || e.ID != tc.wantID || e.UserID != "u1" || next.Count != tc.wantCount || e.Text.Key != "activity.memoryAdded" ||
				!reflect.DeepEqual(e.Text.Args, []any{tc.wantCount}) ||
				!e.CreatedAt.Equal(at) || push != tc.push {
				t.Fatalf("got %+v %+v push %v", next, e, push)
			}
			if wantPushed := map[bool]time.Time{true: at, false: tc.held.PushedAt}[push]; !next.PushedAt.Equal(wantPushed) {
				t.Fatalf("pushed at %v, want %v", next.PushedAt, wantPushed)
			}
			if tc.held.Entry != nil && (!reflect.DeepEqual(*tc.held.Entry, old) || before.Count != tc.held.Count) {
				t.Fatal("Collect changed what was held")
			}
		})
	}
}
