package events_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"tandem/adapters/i18n"
	"tandem/core"
	"tandem/modules/events"
)

// inbox records notifications.
type inbox struct {
	mu   sync.Mutex
	sent []string // "user|category|title|message"
}

// english writes the notifications as the English reader reads them.
var english = i18n.MustLoad(nil)

func (b *inbox) Notify(_ context.Context, userID, category string, text core.Message) error {
	title, message := english.Note("en", text)
	b.mu.Lock()
	defer b.mu.Unlock()
	b.sent = append(b.sent, userID+"|"+category+"|"+title+"|"+message)
	return nil
}

func (b *inbox) all() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.sent...)
}

func TestReminderScheduleRules(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	// The fixture clock is 2025-06-15 12:00 UTC.
	cases := []struct {
		name, zone, start, time, notify string
		want                            string // RFC 3339 UTC, "" for none
	}{
		{"no lead time, no reminder", "", "2025-06-20", "10:00", "", ""},
		{"30 minutes before 10:00 UTC", "", "2025-06-20", "10:00", "30", "2025-06-20T09:30:00Z"},
		{"the owner's zone counts", "Europe/Paris", "2025-06-20", "10:00", "30", "2025-06-20T07:30:00Z"},
		{"all-day event: before midnight", "America/New_York", "2025-06-20", "", "60", "2025-06-20T03:00:00Z"},
		{"lead time is absolute across the DST end (Paris, 26 October)", "Europe/Paris", "2025-10-26", "10:00", "1440", "2025-10-25T09:00:00Z"},
		{"already past when written: none", "", "2025-06-15", "12:10", "30", ""},
		{"a week ahead", "", "2025-06-29", "09:00", "10080", "2025-06-22T09:00:00Z"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			if tc.zone != "" {
				loc, err := time.LoadLocation(tc.zone)
				if err != nil {
					t.Fatal(err)
				}
				f.zones.Set("me", loc)
			}
			e, err := f.svc.Create(ctx, "me", events.Draft{Title: "t", StartDate: tc.start,
				StartTime: tc.time, Notify: tc.notify})
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			if !e.RemindAt.IsZero() {
				got = e.RemindAt.Format(time.RFC3339)
			}
			if got != tc.want {
				t.Fatalf("remind at %q, want %q", got, tc.want)
			}
		})
	}
}

func TestRemindersAreSentOnceWhenDue(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	box := &inbox{}
	rem := events.NewReminders(f.repo, box, f.clock)
	e, err := f.svc.Create(ctx, "me", events.Draft{Title: "Dinner", StartDate: "2025-06-16",
		StartTime: "19:00", Notify: "30"})
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := rem.SendDue(ctx); n != 0 {
		t.Fatalf("sent %d before it was due", n)
	}
	f.clock.Set(time.Date(2025, 6, 16, 18, 30, 0, 0, time.UTC))
	if n, err := rem.SendDue(ctx); n != 1 || err != nil {
		t.Fatalf("sent %d %v", n, err)
	}
	if n, _ := rem.SendDue(ctx); n != 0 {
		t.Fatal("a reminder went out twice")
	}
	want := "me|events|Dinner|Starts on 16 June 2025 at 19:00, in 30 minutes."
	if got := box.all(); len(got) != 1 || got[0] != want {
		t.Fatalf("sent %v", got)
	}

	// Moving the event re-arms its reminder; removing the lead time disarms it.
	start := "2025-06-18"
	if _, err := f.svc.Update(ctx, "me", e.ID, events.Patch{StartDate: &start, EndDate: &start}); err != nil {
		t.Fatal(err)
	}
	none := ""
	if u, _ := f.svc.Update(ctx, "me", e.ID, events.Patch{Notify: &none}); !u.RemindAt.IsZero() {
		t.Fatal("no lead time must mean no reminder")
	}
	f.clock.Set(time.Date(2025, 6, 19, 0, 0, 0, 0, time.UTC))
	if n, _ := rem.SendDue(ctx); n != 0 {
		t.Fatal("a disarmed reminder was sent")
	}
}
