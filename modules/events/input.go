// Draft and Patch: a create or update request as sent, turned into an Event
// in one step by the service.

package events

import (
	"strings"

	"tandem/core"
)

// Draft is a create request as sent: raw text, parsed and checked by Create.
// Only title and startDate are required; endDate defaults to startDate,
// eventType (nil) to other, importanceLevel (nil) to Medium, the rest to
// empty. A type or importance sent is one of the spec's, "" included: an
// empty one is no default, it is refused.
type Draft struct {
	Title           string
	Description     string
	StartDate       string
	EndDate         string
	StartTime       string
	EndTime         string
	Location        string
	EventType       *string
	ImportanceLevel *string
	Notify          string
	Participants    []string
}

// event builds the event d describes, validated.
func (d Draft) event() (Event, error) {
	if strings.TrimSpace(d.StartDate) == "" {
		return Event{}, core.InvalidRequest("events.startDateRequiredYYYYMMDD", "startDate is required (YYYY-MM-DD)")
	}
	end := d.EndDate
	if end == "" {
		end = d.StartDate
	}
	p := Patch{Title: &d.Title, Description: &d.Description, StartDate: &d.StartDate, EndDate: &end,
		StartTime: &d.StartTime, EndTime: &d.EndTime, Location: &d.Location, Notify: &d.Notify,
		Participants: &d.Participants, EventType: d.EventType, ImportanceLevel: d.ImportanceLevel}
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
		return core.Date{}, core.Invalid("invalid_date", "moods.dateFormYYYYMMDD", "%s must be a date in the form YYYY-MM-DD", field)
	}
	return d, nil
}

// ParseRange reads the date-range query: both dates are required and must be
// YYYY-MM-DD. Their order is the service's rule (DateRange).
func ParseRange(startDate, endDate string) (from, to core.Date, err error) {
	if startDate == "" || endDate == "" {
		return core.Date{}, core.Date{}, core.InvalidRequest("events.startDateEndDateRequiredYYYYMM", "startDate and endDate are required (YYYY-MM-DD)")
	}
	if from, err = parseDate("startDate", startDate); err != nil {
		return core.Date{}, core.Date{}, err
	}
	if to, err = parseDate("endDate", endDate); err != nil {
		return core.Date{}, core.Date{}, err
	}
	return from, to, nil
}
