package notifications

import (
	"context"
	"errors"
	"fmt"
	"time"

	"tandem/core"
)

// ReminderDue is the instant of the daily reminder of the local date day,
// at the wall time at in loc (UTC when nil): core.InstantOf, so daylight
// saving neither skips nor doubles it (a skipped time is due at the end of
// the gap, a repeated one at its first instant).
func ReminderDue(day core.Date, at core.TimeOfDay, loc *time.Location) time.Time {
	return core.InstantOf(day, at, loc)
}

// NextReminder is the first reminder instant after now: the one of today in
// loc (the local date of now) while it is still to come, else tomorrow's. A
// time set earlier than now so takes effect the next day.
func NextReminder(now time.Time, at core.TimeOfDay, loc *time.Location) time.Time {
	today := core.Today(now, loc)
	if due := ReminderDue(today, at, loc); due.After(now) {
		return due
	}
	return ReminderDue(today.AddDays(1), at, loc)
}

// DueReminder is a user's daily reminder as scheduled.
type DueReminder struct {
	UserID string
	At     time.Time
}

const (
	// ReminderBatch bounds one read of due reminders.
	ReminderBatch = 100
	// ReminderRetry is how long a reminder that could not be worked out (a
	// failed read or save) waits before the next try.
	ReminderRetry = 5 * time.Minute
	// ReminderDaysKept is how many days before today (UTC) a claim is kept:
	// a user whose timezone moves back across the date line finds their
	// date's claim still there, and is not reminded twice of it.
	ReminderDaysKept = 3
)

// ReminderText is the daily reminder's text in the catalogs.
var ReminderText = core.Msg("reminder.daily")

// Reminders sends each paired user one reminder a day, at their
// reminder time in their profile timezone, when they have not answered
// their couple's question of that date (category questions: the
// dailyReminders setting and pauseAll decide the push; the inbox keeps it
// either way). Each user's next due instant is stored, so the job reads the
// due ones only, and it is recomputed from the current settings and
// timezone whenever they change (Service) and again when it falls due: a
// time moved later is waited for, and a reminder whose time has come today
// goes out even late (after a retry, or a pause of the jobs). Each (user,
// local date) is claimed in the database first, so it goes out once however
// many processes run the job (at most once: a failed save after the claim
// loses that day's).
type Reminders struct {
	svc       *Service
	reminders DailyReminderRepository
	users     Users
	questions DailyQuestions
	clock     core.Clock
}

// NewReminders is a plain constructor, usable without fx.
func NewReminders(svc *Service, reminders DailyReminderRepository, users Users, questions DailyQuestions, clock core.Clock) *Reminders {
	return &Reminders{svc: svc, reminders: reminders, users: users, questions: questions, clock: clock}
}

// SendDue sends every daily reminder due by now and returns how many it
// sent. A user whose reminder cannot be worked out is tried again
// ReminderRetry later and does not stop the others; their errors are
// returned together. A failing reminder store ends the pass.
func (d *Reminders) SendDue(ctx context.Context) (int, error) {
	sent := 0
	var errs []error
	seen := map[string]bool{}
	for {
		now := d.clock.Now()
		due, err := d.reminders.DueReminders(ctx, now, ReminderBatch)
		if err != nil {
			return sent, errors.Join(append(errs, err)...)
		}
		fresh := 0
		for _, r := range due {
			if seen[r.UserID] {
				continue // rescheduled into the past meanwhile: the next pass takes it
			}
			seen[r.UserID] = true
			fresh++
			ok, err := d.remind(ctx, r, now)
			if ok {
				sent++
			}
			if err == nil {
				continue
			}
			errs = append(errs, fmt.Errorf("daily reminder of user %s: %w", r.UserID, err))
			if _, err := d.reminders.MoveReminder(ctx, r.UserID, r.At, now.Add(ReminderRetry)); err != nil {
				return sent, errors.Join(append(errs, err)...)
			}
		}
		if len(due) < ReminderBatch || fresh == 0 {
			return sent, errors.Join(errs...)
		}
	}
}

// remind handles one due reminder and reports whether it sent one.
func (d *Reminders) remind(ctx context.Context, r DueReminder, now time.Time) (bool, error) {
	loc, err := d.users.Location(ctx, r.UserID)
	if core.IsKind(err, core.KindNotFound) { // the account is gone
		_, err = d.reminders.ClearReminder(ctx, r.UserID, r.At)
		return false, err
	}
	if err != nil {
		return false, err
	}
	st, err := d.svc.Settings(ctx, r.UserID)
	if err != nil {
		return false, err
	}
	today := core.Today(now, loc)
	due := ReminderDue(today, st.ReminderTime, loc)
	if now.Before(due) { // a later time, or a timezone further west, since it was scheduled
		_, err := d.reminders.MoveReminder(ctx, r.UserID, r.At, due)
		return false, err
	}
	next := ReminderDue(today.AddDays(1), st.ReminderTime, loc)
	paired, answered, err := d.questions.AnsweredOn(ctx, r.UserID, today)
	switch {
	case err != nil:
		return false, err
	case !paired: // no daily question: no reminder until paired again
		_, err := d.reminders.ClearReminder(ctx, r.UserID, r.At)
		return false, err
	case answered:
		_, err := d.reminders.MoveReminder(ctx, r.UserID, r.At, next)
		return false, err
	}
	claimed, err := d.reminders.ClaimReminderDay(ctx, r.UserID, today, now)
	if err != nil {
		return false, err
	}
	if claimed {
		if _, err := d.svc.Tell(ctx, r.UserID, string(CategoryQuestions), ReminderText); err != nil {
			return false, err
		}
	}
	_, err = d.reminders.MoveReminder(ctx, r.UserID, r.At, next)
	return claimed, err
}

// Purge forgets the claims older than ReminderDaysKept days.
func (d *Reminders) Purge(ctx context.Context) (int, error) {
	return d.reminders.PurgeReminderDays(ctx, core.Today(d.clock.Now(), time.UTC).AddDays(-ReminderDaysKept))
}
