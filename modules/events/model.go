// Package events holds calendar events: each user's own events, which the
// current partner may read one at a time and sees in date-range answers.
package events

import (
	"time"
	"unicode/utf8"

	"tandem/core"
)

// The limits of an event's fields.
const (
	MaxTitle         = 200  // characters
	MaxDescription   = 2000 // characters
	MaxLocation      = 200  // characters
	MaxParticipants  = 20
	MaxParticipantID = 64 // characters of one participant's user id
	// MaxSpanDays bounds endDate − startDate, so an event overlapping a day
	// starts at most MaxSpanDays before it: the date-range query is a bounded
	// index range instead of a scan of the whole history.
	MaxSpanDays = 366
	// MaxNotifyMinutes is the longest reminder lead time: four weeks.
	MaxNotifyMinutes = 4 * 7 * 24 * 60
	// MaxNotifyDigits bounds notify's digits (leading zeros included).
	MaxNotifyDigits = 6
)

// CreatesPerMinute and CreatesPerDay are one user's write budget of new
// events: far above what a couple plans in a day, a script is stopped
// within its first minute and the day's cap bounds what it stores.
const (
	CreatesPerMinute = 20
	CreatesPerDay    = 200
)

// DefaultBudget is the write budget of Create unless Settings name another
// (TANDEM_WRITE_BUDGETS).
var DefaultBudget = core.WriteBudget{Kind: "events", PerMinute: CreatesPerMinute, PerDay: CreatesPerDay}

// Settings are the module's configuration (bound in bootstrap).
type Settings struct {
	// Budget bounds the events one user creates; zero: DefaultBudget.
	Budget core.WriteBudget
}

// DatePattern is the years of MinDate to MaxDate as the API document states
// them, beside its format date.
const DatePattern = `^[1-9][0-9]{3}-[0-9]{2}-[0-9]{2}$`

// MinDate and MaxDate bound every event date (the range of a MySQL DATE).
var (
	MinDate = core.Date{Year: 1000, Month: time.January, Day: 1}
	MaxDate = core.Date{Year: 9999, Month: time.December, Day: 31}
)

// Event is one calendar event, owned by UserID.
type Event struct {
	ID           string
	UserID       string
	Title        string
	Description  string
	StartDate    core.Date
	EndDate      core.Date
	StartTime    WallTime // unset: no time of day (an all-day event)
	EndTime      WallTime
	Location     string
	Type         Type
	Importance   Importance
	Notify       Notify   // unset: no reminder
	Participants []string // user ids; never nil once validated
	CreatedAt    time.Time
	UpdatedAt    time.Time
	// RemindAt is when the owner's reminder is due; zero when it was sent,
	// or when there is none still to send (see Service.schedule).
	RemindAt time.Time
}

// Read is an event as one reader's single read shows it: Partner is true
// when the reader is the owner's current partner (isPartnerEvent).
type Read struct {
	Event
	Partner bool
}

// Validate checks every rule a stored event satisfies.
func (e Event) Validate() error {
	switch {
	case e.Title == "":
		return core.Required("title")
	case utf8.RuneCountInString(e.Title) > MaxTitle:
		return core.TooLong("title", MaxTitle)
	case utf8.RuneCountInString(e.Description) > MaxDescription:
		return core.TooLong("description", MaxDescription)
	case utf8.RuneCountInString(e.Location) > MaxLocation:
		return core.TooLong("location", MaxLocation)
	case e.StartDate.IsZero():
		return core.InvalidRequest("events.startDateRequiredYYYYMMDD", "startDate is required (YYYY-MM-DD)")
	case e.StartDate.Before(MinDate) || e.EndDate.After(MaxDate) || e.EndDate.Before(MinDate):
		return core.Invalid("invalid_date", "events.datesBetween10000101", "dates must be between 1000-01-01 and 9999-12-31")
	case e.EndDate.Before(e.StartDate):
		return core.Invalid("invalid_date", "events.endDateNotBeforeStartDate", "endDate must not be before startDate")
	case e.StartDate.DaysUntil(e.EndDate) > MaxSpanDays:
		return core.Invalid("invalid_date", "events.eventMayLastMostDays", "an event may last at most {1|%[1]d day|%[1]d days}: endDate must be at most {1|%[2]d day|%[2]d days} after startDate", MaxSpanDays, MaxSpanDays)
	case e.StartDate == e.EndDate && e.StartTime.Set && e.EndTime.Set && e.EndTime.minutes() < e.StartTime.minutes():
		return core.Invalid("invalid_time", "events.endTimeNotBeforeStartTimeOne", "endTime must not be before startTime on a one-day event")
	}
	if err := checkText(e); err != nil {
		return err
	}
	if _, err := ParseType(string(e.Type)); err != nil {
		return err
	}
	if _, err := ParseImportance(string(e.Importance)); err != nil {
		return err
	}
	if e.Notify.Set && (e.Notify.Minutes < 0 || e.Notify.Minutes > MaxNotifyMinutes) {
		return core.InvalidRequest("events.notifyNumberMinutesBeforeStart", notifyRule)
	}
	_, err := NormalizeParticipants(e.Participants)
	return err
}

// checkText refuses control and bidirectional override characters in the
// event's texts (core.CheckText); only the description may hold line breaks.
func checkText(e Event) error {
	if err := core.CheckText("title", e.Title, false); err != nil {
		return err
	}
	if err := core.CheckText("description", e.Description, true); err != nil {
		return err
	}
	return core.CheckText("location", e.Location, false)
}

// Overlaps reports whether e touches the days from..to, bounds included:
// a multi-day event that only partly overlaps counts.
func (e Event) Overlaps(from, to core.Date) bool {
	return !e.EndDate.Before(from) && !e.StartDate.After(to)
}

// Matches reports whether e starts on from and ends on to exactly.
func (e Event) Matches(from, to core.Date) bool { return e.StartDate == from && e.EndDate == to }

// ReminderAt is when the owner's reminder is due: Notify minutes before the
// start (startTime on startDate, or midnight for an all-day event) in loc,
// the owner's timezone (UTC when nil). ok is false without a reminder. The
// notifications module dispatches it; this package only stores what it needs.
func (e Event) ReminderAt(loc *time.Location) (at time.Time, ok bool) {
	if !e.Notify.Set {
		return time.Time{}, false
	}
	if loc == nil {
		loc = time.UTC
	}
	d := e.StartDate
	start := time.Date(d.Year, d.Month, d.Day, e.StartTime.Hour, e.StartTime.Minute, 0, 0, loc)
	return start.Add(-time.Duration(e.Notify.Minutes) * time.Minute), true
}

// StartBound is the earliest start date of an event that overlaps from:
// events last at most MaxSpanDays, so the overlap query reads start dates
// from StartBound(from) to the end of the range, never the whole history.
func StartBound(from core.Date) core.Date {
	lo := from.AddDays(-MaxSpanDays)
	if lo.Before(MinDate) {
		return MinDate
	}
	return lo
}
