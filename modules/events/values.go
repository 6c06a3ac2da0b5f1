// The value types of an event's fields, each parsed from what a client sends.

package events

import (
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"tandem/core"
)

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
	return "", core.InvalidRequest("events.eventTypeOneDateMeetingReminder", "eventType must be one of date, meeting, reminder, traveling, task, other")
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
	return "", core.InvalidRequest("events.importanceLevelOneLowMediumHigh", "importanceLevel must be one of Low, Medium, High")
}

// WallTime is an optional time of day HH:mm; the zero value is "no time".
type WallTime struct {
	core.TimeOfDay
	Set bool
}

// WallTimePattern is ParseWallTime's rule as the API document states it.
const WallTimePattern = `^(?:(?:[01][0-9]|2[0-3]):[0-5][0-9])?$`

// ParseWallTime accepts "" (no time) or HH:mm (00:00 to 23:59); field names
// the input in the error.
func ParseWallTime(field, s string) (WallTime, error) {
	if s == "" {
		return WallTime{}, nil
	}
	t, err := core.ParseTimeOfDay(s)
	if err != nil {
		return WallTime{}, core.Invalid("invalid_time", "events.timeFormHHMm", "%s must be a time in the form HH:mm", field)
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

// NotifyPattern is ParseNotify's rule for a string as the API document
// states it (with maxLength MaxNotifyDigits): "" or digits of 0 to 40320.
const NotifyPattern = `^(?:0*(?:[0-9]{1,4}|[1-3][0-9]{4}|40[0-2][0-9]{2}|403[01][0-9]|40320))?$`

// ParseNotify accepts "" (no reminder) or decimal digits of minutes, at most
// MaxNotifyMinutes.
func ParseNotify(s string) (Notify, error) {
	if s == "" {
		return Notify{}, nil
	}
	if len(s) > MaxNotifyDigits || strings.Trim(s, "0123456789") != "" {
		return Notify{}, core.InvalidRequest("events.notifyNumberMinutesBeforeStart", notifyRule)
	}
	n, err := strconv.Atoi(s)
	if err != nil || n > MaxNotifyMinutes {
		return Notify{}, core.InvalidRequest("events.notifyNumberMinutesBeforeStart", notifyRule)
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
// MaxParticipantID, none holding what core.CheckText refuses (they are shown
// as labels). It never returns nil for a valid list.
func NormalizeParticipants(ids []string) ([]string, error) {
	if len(ids) > MaxParticipants {
		return nil, core.InvalidRequest("events.participantsMayHoldMostUser", "participants may hold at most {1|%[1]d user id|%[1]d user ids}", MaxParticipants)
	}
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		id = strings.TrimSpace(id)
		if id == "" || utf8.RuneCountInString(id) > MaxParticipantID {
			return nil, core.InvalidRequest("events.participantsUserIds1Characters", "participants must be user ids of 1 to {1|%[1]d character|%[1]d characters}", MaxParticipantID)
		}
		if err := core.CheckText("participants", id, false); err != nil {
			return nil, err
		}
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out, nil
}
