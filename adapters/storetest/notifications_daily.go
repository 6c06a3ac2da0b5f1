package storetest

import (
	"strings"
	"sync"
	"testing"
	"time"

	"tandem/core"
	"tandem/modules/notifications"
)

// DailyReminderRepository checks a notifications.DailyReminderRepository
// implementation.
func DailyReminderRepository(t *testing.T, newRepo func(t *testing.T) notifications.DailyReminderRepository) {
	s := reminderSuite{newRepo: newRepo, day: core.Date{Year: 2025, Month: 6, Day: 15}}
	t.Run("schedule: due ones earliest first, ties by user, replaced by a new schedule", s.schedule)
	t.Run("move and clear only from the instant read", s.moveAndClear)
	t.Run("a user and date is claimed once, even at once", s.claimDayOnce)
	t.Run("purge forgets the claims before a date", s.purgeDays)
	t.Run("delete user removes their reminder and claims only", s.deleteUser)
}

// reminderSuite holds DailyReminderRepository's helpers and subtests.
type reminderSuite struct {
	newRepo func(t *testing.T) notifications.DailyReminderRepository
	day     core.Date
}

func (reminderSuite) due(t *testing.T, r notifications.DailyReminderRepository, at time.Time, limit int) string {
	t.Helper()
	ds, err := r.DueReminders(ctx, at, limit)
	must(t, err)
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = d.UserID + "@" + d.At.UTC().Format("15:04:05.000")
	}
	return strings.Join(out, ",")
}

func (s reminderSuite) schedule(t *testing.T) {
	r := s.newRepo(t)
	must(t, r.ScheduleReminder(ctx, "u3", now.Add(2*time.Hour)))
	must(t, r.ScheduleReminder(ctx, "u2", now.Add(time.Hour+123*time.Millisecond)))
	must(t, r.ScheduleReminder(ctx, "u1", now.Add(time.Hour+123*time.Millisecond)))
	must(t, r.ScheduleReminder(ctx, "u4", now.Add(-24*time.Hour)))
	if got := s.due(t, r, now, 10); got != "u4@12:00:00.000" {
		t.Fatalf("due %s", got)
	}
	if got := s.due(t, r, now.Add(time.Hour+123*time.Millisecond), 10); got != "u4@12:00:00.000,u1@13:00:00.123,u2@13:00:00.123" {
		t.Fatalf("due %s", got)
	}
	if got := s.due(t, r, now.Add(3*time.Hour), 2); got != "u4@12:00:00.000,u1@13:00:00.123" {
		t.Fatalf("limited %s", got)
	}
	must(t, r.ScheduleReminder(ctx, "u4", now.Add(3*time.Hour))) // later: replaced
	must(t, r.ScheduleReminder(ctx, "u3", now.Add(time.Hour)))   // earlier: replaced
	if got := s.due(t, r, now.Add(2*time.Hour), 10); got != "u3@13:00:00.000,u1@13:00:00.123,u2@13:00:00.123" {
		t.Fatalf("after rescheduling %s", got)
	}
}

func (s reminderSuite) moveAndClear(t *testing.T) {
	r := s.newRepo(t)
	at := now.Add(time.Hour)
	must(t, r.ScheduleReminder(ctx, "u1", at))
	must(t, r.ScheduleReminder(ctx, "u2", at))
	ok, err := r.MoveReminder(ctx, "u1", now, now.Add(5*time.Hour))
	must(t, err)
	if ok {
		t.Fatal("moved from another instant")
	}
	if ok, _ := r.MoveReminder(ctx, "u1", at, now.Add(5*time.Hour)); !ok {
		t.Fatal("not moved")
	}
	if ok, _ := r.MoveReminder(ctx, "u1", at, now.Add(6*time.Hour)); ok {
		t.Fatal("moved twice from one read")
	}
	if ok, _ := r.MoveReminder(ctx, "nobody", at, now); ok {
		t.Fatal("moved a reminder nobody has")
	}
	if ok, _ := r.ClearReminder(ctx, "u2", now); ok {
		t.Fatal("cleared from another instant")
	}
	if ok, _ := r.ClearReminder(ctx, "u2", at); !ok {
		t.Fatal("not cleared")
	}
	if ok, _ := r.ClearReminder(ctx, "u2", at); ok {
		t.Fatal("cleared twice")
	}
	if got := s.due(t, r, now.Add(24*time.Hour), 10); got != "u1@17:00:00.000" {
		t.Fatalf("due %s", got)
	}
}

func (s reminderSuite) claimDayOnce(t *testing.T) {
	r := s.newRepo(t)
	var mu sync.Mutex
	won := 0
	fns := make([]func() error, 8)
	for i := range fns {
		fns[i] = func() error {
			ok, err := r.ClaimReminderDay(ctx, "u1", s.day, now)
			if ok {
				mu.Lock()
				won++
				mu.Unlock()
			}
			return err
		}
	}
	for _, err := range race(fns...) {
		must(t, err)
	}
	if won != 1 {
		t.Fatalf("%d claims won", won)
	}
	for _, c := range []struct {
		user string
		day  core.Date
	}{{"u1", s.day.AddDays(1)}, {"u1", s.day.AddDays(-1)}, {"u2", s.day}} {
		if ok, err := r.ClaimReminderDay(ctx, c.user, c.day, now); !ok || err != nil {
			t.Fatalf("%s %s: %v %v", c.user, c.day, ok, err)
		}
	}
}

func (s reminderSuite) purgeDays(t *testing.T) {
	r := s.newRepo(t)
	for i := range 5 {
		ok, err := r.ClaimReminderDay(ctx, "u1", s.day.AddDays(-i), now)
		if !ok || err != nil {
			t.Fatal(ok, err)
		}
	}
	n, err := r.PurgeReminderDays(ctx, s.day.AddDays(-2))
	must(t, err)
	if n != 2 {
		t.Fatalf("purged %d", n)
	}
	if n, _ := r.PurgeReminderDays(ctx, s.day.AddDays(-2)); n != 0 {
		t.Fatalf("purged again %d", n)
	}
	if ok, _ := r.ClaimReminderDay(ctx, "u1", s.day.AddDays(-2), now); ok {
		t.Fatal("the first kept date was purged")
	}
	if ok, _ := r.ClaimReminderDay(ctx, "u1", s.day.AddDays(-3), now); !ok {
		t.Fatal("a purged date is still claimed")
	}
}

func (s reminderSuite) deleteUser(t *testing.T) {
	r := s.newRepo(t)
	for _, u := range []string{"u1", "u2"} {
		must(t, r.ScheduleReminder(ctx, u, now))
		if ok, err := r.ClaimReminderDay(ctx, u, s.day, now); !ok || err != nil {
			t.Fatal(ok, err)
		}
	}
	must(t, r.DeleteUserReminders(ctx, "u1"))
	must(t, r.DeleteUserReminders(ctx, "u1"))
	if got := s.due(t, r, now, 10); got != "u2@12:00:00.000" {
		t.Fatalf("due %s", got)
	}
	if ok, _ := r.ClaimReminderDay(ctx, "u1", s.day, now); !ok {
		t.Fatal("u1's claim survived")
	}
	if ok, _ := r.ClaimReminderDay(ctx, "u2", s.day, now); ok {
		t.Fatal("u2's claim was deleted")
	}
}
