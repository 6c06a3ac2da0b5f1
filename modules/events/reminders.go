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
			if err := r.notifier.Notify(ctx, e.UserID, "events", e.Title, reminderText(e)); err != nil {
				return sent, err
			}
			sent++
		}
		if len(due) < ReminderBatch {
			return sent, nil
		}
	}
}

func reminderText(e Event) string {
	when := e.StartDate.String()
	if e.StartTime.Set {
		when += " at " + e.StartTime.String()
	}
	return "Starts " + when + " (in " + e.Notify.String() + " minutes)"
}
