// Package events holds calendar events: each user's own events, which the
// current partner may read one at a time and sees in date-range answers.
package events

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
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
)

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

// Validate checks every rule a stored event satisfies.
func (e Event) Validate() error {
	switch {
	case e.Title == "":
		return invalid("title is required")
	case utf8.RuneCountInString(e.Title) > MaxTitle:
		return invalid(fmt.Sprintf("title must be at most %d characters", MaxTitle))
	case utf8.RuneCountInString(e.Description) > MaxDescription:
		return invalid(fmt.Sprintf("description must be at most %d characters", MaxDescription))
	case utf8.RuneCountInString(e.Location) > MaxLocation:
		return invalid(fmt.Sprintf("location must be at most %d characters", MaxLocation))
	case e.StartDate.IsZero():
		return invalid("startDate is required (YYYY-MM-DD)")
	case e.StartDate.Before(MinDate) || e.EndDate.After(MaxDate) || e.EndDate.Before(MinDate):
		return core.Invalid("invalid_date", "dates must be between 1000-01-01 and 9999-12-31")
	case e.EndDate.Before(e.StartDate):
		return core.Invalid("invalid_date", "endDate must not be before startDate")
	case e.StartDate.DaysUntil(e.EndDate) > MaxSpanDays:
		return core.Invalid("invalid_date", fmt.Sprintf("an event may last at most %d days: endDate must be at most %d days after startDate", MaxSpanDays, MaxSpanDays))
	case e.StartDate == e.EndDate && e.StartTime.Set && e.EndTime.Set && e.EndTime.minutes() < e.StartTime.minutes():
		return core.Invalid("invalid_time", "endTime must not be before startTime on a one-day event")
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
		return invalid(notifyRule)
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

// Type is the kind of an event.
type Type string

const (
	TypeDate      Type = "date"
	TypeMeeting   Type = "meeting"
	TypeReminder  Type = "reminder"
	TypeTraveling Type = "traveling"
	TypeTask      Type = "task"
	TypeOther     Type = "other"
)

// ParseType accepts the spec's six types, exactly as written.
func ParseType(s string) (Type, error) {
	switch t := Type(s); t {
	case TypeDate, TypeMeeting, TypeReminder, TypeTraveling, TypeTask, TypeOther:
		return t, nil
	}
	return "", invalid("eventType must be one of date, meeting, reminder, traveling, task, other")
}

// Importance is an event's importance level.
type Importance string

const (
	ImportanceLow    Importance = "Low"
	ImportanceMedium Importance = "Medium"
	ImportanceHigh   Importance = "High"
)

// ParseImportance accepts Low, Medium and High, exactly as written.
func ParseImportance(s string) (Importance, error) {
	switch i := Importance(s); i {
	case ImportanceLow, ImportanceMedium, ImportanceHigh:
		return i, nil
	}
	return "", invalid("importanceLevel must be one of Low, Medium, High")
}

// WallTime is an optional time of day HH:mm; the zero value is "no time".
type WallTime struct {
	core.TimeOfDay
	Set bool
}

// ParseWallTime accepts "" (no time) or HH:mm (00:00 to 23:59); field names
// the input in the error.
func ParseWallTime(field, s string) (WallTime, error) {
	if s == "" {
		return WallTime{}, nil
	}
	t, err := core.ParseTimeOfDay(s)
	if err != nil {
		return WallTime{}, core.Invalid("invalid_time", field+" must be a time in the form HH:mm")
	}
	return WallTime{TimeOfDay: t, Set: true}, nil
}

// String is "HH:mm", or "" when unset.
func (t WallTime) String() string {
	if !t.Set {
		return ""
	}
	return t.TimeOfDay.String()
}

func (t WallTime) minutes() int { return t.Hour*60 + t.Minute }

// Notify is a reminder lead time in whole minutes before the event's start;
// the zero value is "no reminder".
type Notify struct {
	Minutes int
	Set     bool
}

const notifyRule = "notify must be a number of minutes before the start, from 0 to 40320 (4 weeks), or empty"

// ParseNotify accepts "" (no reminder) or decimal digits of minutes, at most
// MaxNotifyMinutes.
func ParseNotify(s string) (Notify, error) {
	if s == "" {
		return Notify{}, nil
	}
	if len(s) > 6 || strings.Trim(s, "0123456789") != "" {
		return Notify{}, invalid(notifyRule)
	}
	n, err := strconv.Atoi(s)
	if err != nil || n > MaxNotifyMinutes {
		return Notify{}, invalid(notifyRule)
	}
	return Notify{Minutes: n, Set: true}, nil
}

// String is the minutes in decimal, or "" without a reminder.
func (n Notify) String() string {
	if !n.Set {
		return ""
	}
	return strconv.Itoa(n.Minutes)
}

// NormalizeParticipants trims the user ids, drops repeats (keeping the first
// place) and checks them: at most MaxParticipants, none empty or longer than
// MaxParticipantID. It never returns nil for a valid list.
func NormalizeParticipants(ids []string) ([]string, error) {
	if len(ids) > MaxParticipants {
		return nil, invalid(fmt.Sprintf("participants may hold at most %d user ids", MaxParticipants))
	}
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		id = strings.TrimSpace(id)
		if id == "" || utf8.RuneCountInString(id) > MaxParticipantID {
			return nil, invalid(fmt.Sprintf("participants must be user ids of 1 to %d characters", MaxParticipantID))
		}
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out, nil
}

// Draft is a create request as sent: raw text, parsed and checked by Create.
// Only title and startDate are required; endDate defaults to startDate,
// eventType to other, importanceLevel to Medium, the rest to empty.
type Draft struct {
	Action          string // must be "create"
	Title           string
	Description     string
	StartDate       string
	EndDate         string
	StartTime       string
	EndTime         string
	Location        string
	EventType       string
	ImportanceLevel string
	Notify          string
	Participants    []string
}

// event builds the event d describes, validated.
func (d Draft) event() (Event, error) {
	if strings.TrimSpace(d.StartDate) == "" {
		return Event{}, invalid("startDate is required (YYYY-MM-DD)")
	}
	end := d.EndDate
	if end == "" {
		end = d.StartDate
	}
	p := Patch{Title: &d.Title, Description: &d.Description, StartDate: &d.StartDate, EndDate: &end,
		StartTime: &d.StartTime, EndTime: &d.EndTime, Location: &d.Location, Notify: &d.Notify,
		Participants: &d.Participants}
	if d.EventType != "" {
		p.EventType = &d.EventType
	}
	if d.ImportanceLevel != "" {
		p.ImportanceLevel = &d.ImportanceLevel
	}
	return p.apply(Event{Type: TypeOther, Importance: ImportanceMedium})
}

// Patch is an update request; nil fields stay as they are. An empty string
// clears an optional field (description, times, location, notify).
type Patch struct {
	Title           *string
	Description     *string
	StartDate       *string
	EndDate         *string
	StartTime       *string
	EndTime         *string
	Location        *string
	EventType       *string
	ImportanceLevel *string
	Notify          *string
	Participants    *[]string
}

func (p Patch) empty() bool {
	return p.Title == nil && p.Description == nil && p.StartDate == nil && p.EndDate == nil &&
		p.StartTime == nil && p.EndTime == nil && p.Location == nil && p.EventType == nil &&
		p.ImportanceLevel == nil && p.Notify == nil && p.Participants == nil
}

// apply returns e with p's fields, validated as a whole.
func (p Patch) apply(e Event) (Event, error) {
	var err error
	if p.Title != nil {
		e.Title = strings.TrimSpace(*p.Title)
	}
	if p.Description != nil {
		e.Description = strings.TrimSpace(*p.Description)
	}
	if p.Location != nil {
		e.Location = strings.TrimSpace(*p.Location)
	}
	if p.StartDate != nil {
		if e.StartDate, err = parseDate("startDate", *p.StartDate); err != nil {
			return Event{}, err
		}
	}
	if p.EndDate != nil {
		if e.EndDate, err = parseDate("endDate", *p.EndDate); err != nil {
			return Event{}, err
		}
	}
	if p.StartTime != nil {
		if e.StartTime, err = ParseWallTime("startTime", *p.StartTime); err != nil {
			return Event{}, err
		}
	}
	if p.EndTime != nil {
		if e.EndTime, err = ParseWallTime("endTime", *p.EndTime); err != nil {
			return Event{}, err
		}
	}
	if p.EventType != nil {
		if e.Type, err = ParseType(*p.EventType); err != nil {
			return Event{}, err
		}
	}
	if p.ImportanceLevel != nil {
		if e.Importance, err = ParseImportance(*p.ImportanceLevel); err != nil {
			return Event{}, err
		}
	}
	if p.Notify != nil {
		if e.Notify, err = ParseNotify(*p.Notify); err != nil {
			return Event{}, err
		}
	}
	if p.Participants != nil {
		if e.Participants, err = NormalizeParticipants(*p.Participants); err != nil {
			return Event{}, err
		}
	}
	if e.Participants == nil {
		e.Participants = []string{}
	}
	return e, e.Validate()
}

func parseDate(field, s string) (core.Date, error) {
	d, err := core.ParseDate(s)
	if err != nil {
		return core.Date{}, core.Invalid("invalid_date", field+" must be a date in the form YYYY-MM-DD")
	}
	return d, nil
}

// ParseRange reads the date-range query: both dates are required and must be
// YYYY-MM-DD. Their order is the service's rule (DateRange).
func ParseRange(startDate, endDate string) (from, to core.Date, err error) {
	if startDate == "" || endDate == "" {
		return core.Date{}, core.Date{}, invalid("startDate and endDate are required (YYYY-MM-DD)")
	}
	if from, err = parseDate("startDate", startDate); err != nil {
		return core.Date{}, core.Date{}, err
	}
	if to, err = parseDate("endDate", endDate); err != nil {
		return core.Date{}, core.Date{}, err
	}
	return from, to, nil
}

// Cursor is a position in the by-date order of a user's events (start date,
// then id): a page continues after it.
type Cursor struct {
	StartDate core.Date
	ID        string
}

// CursorAfter is the cursor that continues after e.
func CursorAfter(e Event) Cursor { return Cursor{StartDate: e.StartDate, ID: e.ID} }

// String is the opaque form handed to clients.
func (c Cursor) String() string { return core.EncodeCursor(c.StartDate.String(), c.ID) }

// ParseCursor reverses Cursor.String; anything else is a 400.
func ParseCursor(s string) (Cursor, error) {
	parts, err := core.DecodeCursor(s, 2)
	if err != nil {
		return Cursor{}, err
	}
	d, err := core.ParseDate(parts[0])
	if err != nil || parts[1] == "" {
		return Cursor{}, core.Invalid("invalid_request", "cursor is not one this server handed out")
	}
	return Cursor{StartDate: d, ID: parts[1]}, nil
}

// PageOf cuts evs, read in list order with one more than page.Size() asked
// for, to the page, and returns the next cursor when the caller pages and
// more follow. Repositories share it so every store pages alike.
func PageOf(evs []Event, page core.Page) ([]Event, string) {
	return core.CutPage(evs, page, func(e Event) string { return CursorAfter(e).String() })
}

// ListOrder compares events in list order: start date, then id.
func ListOrder(a, b Event) int {
	if c := a.StartDate.Time().Compare(b.StartDate.Time()); c != 0 {
		return c
	}
	return strings.Compare(a.ID, b.ID)
}

// After reports whether e comes after c in list order.
func (c Cursor) After(e Event) bool {
	return ListOrder(e, Event{StartDate: c.StartDate, ID: c.ID}) > 0
}

// Found is an event in a date-range answer; Partner marks the partner's.
type Found struct {
	Event
	Partner bool
}

// RangeReport is the date-range answer: the events of the caller and of the
// current partner that touch From..To, split into exact matches (same start
// and end dates as the request) and the others. Both lists are by date and
// never nil.
type RangeReport struct {
	From, To core.Date
	Exact    []Found
	Other    []Found
}

// Total is the number of events found.
func (r RangeReport) Total() int { return len(r.Exact) + len(r.Other) }

// Coverage is the earliest start and the latest end of the events found;
// ok is false when none was found.
func (r RangeReport) Coverage() (start, end core.Date, ok bool) {
	for _, list := range [][]Found{r.Exact, r.Other} {
		for _, f := range list {
			if !ok || f.StartDate.Before(start) {
				start = f.StartDate
			}
			if !ok || f.EndDate.After(end) {
				end = f.EndDate
			}
			ok = true
		}
	}
	return start, end, ok
}

// CoverageDays counts the days from the coverage start to its end, both
// included; 0 when nothing was found.
func (r RangeReport) CoverageDays() int {
	start, end, ok := r.Coverage()
	if !ok {
		return 0
	}
	return start.DaysUntil(end) + 1
}

// ExactMessage and OtherMessage describe the two categories.
func (r RangeReport) ExactMessage() string {
	return fmt.Sprintf("%s exactly from %s to %s", count(len(r.Exact)), r.From, r.To)
}

func (r RangeReport) OtherMessage() string {
	return fmt.Sprintf("%s overlapping %s to %s", count(len(r.Other)), r.From, r.To)
}

func count(n int) string {
	switch n {
	case 0:
		return "no events"
	case 1:
		return "1 event"
	}
	return strconv.Itoa(n) + " events"
}

// buildReport merges the caller's and the partner's overlapping events in
// date order, keeps at most core.MaxListItems, and splits them.
func buildReport(from, to core.Date, own, partner []Event) RangeReport {
	all := make([]Found, 0, len(own)+len(partner))
	for _, e := range own {
		all = append(all, Found{Event: e})
	}
	for _, e := range partner {
		all = append(all, Found{Event: e, Partner: true})
	}
	slices.SortStableFunc(all, func(a, b Found) int { return ListOrder(a.Event, b.Event) })
	if len(all) > core.MaxListItems {
		all = all[:core.MaxListItems]
	}
	r := RangeReport{From: from, To: to, Exact: []Found{}, Other: []Found{}}
	for _, f := range all {
		switch {
		case f.Matches(from, to):
			r.Exact = append(r.Exact, f)
		case f.Overlaps(from, to):
			r.Other = append(r.Other, f)
		}
	}
	return r
}

func invalid(msg string) error { return core.Invalid("invalid_request", msg) }

func errNotFound() error { return core.NotFound("event_not_found", "event not found") }
