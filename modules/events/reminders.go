package events

import (
	"context"
	"time"

	"tandem/core"
)

// ReminderBatch bounds one pass of the reminder job.
const ReminderBatch = 100

// schedule is when e's reminder is due, or zero when there is none to send:
// no lead time, or a due time already past when the event is written (a
// reminder for a moment gone by would only be noise).
func schedule(e Event, loc *time.Location, now time.Time) time.Time {
	at, ok := e.ReminderAt(loc)
	if !ok || !at.After(now) {
		return time.Time{}
	}
	return at.UTC()
}

// Reminders sends the owners' event reminders when they fall due. The job
// runs in every process: each reminder is claimed in the database first, so
// it goes out once (at most once: a crash after the claim loses it).
type Reminders struct {
	repo     Repository
	notifier Notifier
	clock    core.Clock
}

func NewReminders(repo Repository, notifier Notifier, clock core.Clock) *Reminders {
	return &Reminders{repo: repo, notifier: notifier, clock: clock}
}

// SendDue sends every reminder due by now and returns how many it sent.
func (r *Reminders) SendDue(ctx context.Context) (int, error) {
	sent := 0
	for {
		due, err := r.repo.DueReminders(ctx, r.clock.Now(), ReminderBatch)
		if err != nil || len(due) == 0 {
			return sent, err
		}
		for _, e := range due {
			claimed, err := r.repo.ClaimReminder(ctx, e.ID, e.RemindAt)
			if err != nil {
				return sent, err
			}
			if !claimed {
				continue // another process took it
			}
			if err := r.notifier.Notify(ctx, e.UserID, "events", ReminderText(e)); err != nil {
				return sent, err
			}
			sent++
		}
		if len(due) < ReminderBatch {
			return sent, nil
		}
	}
}

// ReminderText is e's reminder in the catalogs: its title, then "starts
// on <date> [at <time>]" and how soon, in the largest whole unit of its
// lead time ("event.reminder.<now|minutes|hours|days>[.at]"; the
// arguments: the title, the date, the count of units, the time, which the
// catalogs write with its preposition: "at 19:00", "a la 1:30").
func ReminderText(e Event) core.Message {
	unit, n := LeadUnit(e.Notify.Minutes)
	key := "event.reminder." + unit
	if e.StartTime.Set {
		key += ".at"
	}
	return core.Msg(key, e.Title, e.StartDate, n, e.StartTime.TimeOfDay)
}

// LeadUnit is a lead time of minutes in its largest whole unit: "now" for
// none, else days, hours or minutes and their count.
func LeadUnit(minutes int) (string, int) {
	switch {
	case minutes <= 0:
		return "now", 0
	case minutes%(24*60) == 0:
		return "days", minutes / (24 * 60)
	case minutes%60 == 0:
		return "hours", minutes / 60
	}
	return "minutes", minutes
}
