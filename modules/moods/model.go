// Package moods holds the users' daily mood check-ins: one mood, with an
// optional short note, per user and local day (the day in the user's
// profile timezone, as the daily question counts it). The current partner
// reads the moods checked in while the two were partners, and hears of each.
package moods

import (
	"cmp"
	"strings"
	"time"
	"unicode/utf8"

	"tandem/core"
)

// Level is how a user feels, one of five, spelled as on the wire.
type Level string

const (
	Great Level = "great"
	Good  Level = "good"
	Okay  Level = "okay"
	Low   Level = "low"
	Awful Level = "awful"
)

// Levels are the five moods, best first.
var Levels = [...]Level{Great, Good, Okay, Low, Awful}

const levelChoices = "great, good, okay, low or awful"

// ParseLevel accepts the five moods exactly (lower case, like every enum of
// the API).
func ParseLevel(s string) (Level, error) {
	if s == "" {
		return "", core.InvalidRequest("moods.moodRequiredGreatGoodOkay", "mood is required: "+levelChoices)
	}
	for _, l := range Levels {
		if Level(s) == l {
			return l, nil
		}
	}
	return "", core.InvalidRequest("moods.moodOneGreatGoodOkay", "mood must be one of "+levelChoices)
}

// CheckInsPerMinute and CheckInsPerDay are one user's write budget of
// check-ins (a check-in of the same day replaces the first, but each one is
// written and tells the partner): changing one's mind a few times passes, a
// script is stopped within its first minute.
const (
	CheckInsPerMinute = 10
	CheckInsPerDay    = 100
)

// DefaultBudget is the write budget of CheckIn unless Settings name another
// (TANDEM_WRITE_BUDGETS).
var DefaultBudget = core.WriteBudget{Kind: "moods", PerMinute: CheckInsPerMinute, PerDay: CheckInsPerDay}

// Settings are the module's configuration (bound in bootstrap).
type Settings struct {
	// Budget bounds the check-ins of one user; zero: DefaultBudget.
	Budget core.WriteBudget
}

// The limits of a check-in and of a listed range.
const (
	MaxNote = 280 // characters of a note
	// MaxSpan is the most days a listed range covers, both ends counted: a
	// year, leap day included, so a list is one bounded index range.
	MaxSpan = 366
	// DefaultSpan is the days a list covers when the caller names none: the
	// last 30 local days, today included.
	DefaultSpan = 30
)

// DatePattern is the years of MinDate to MaxDate as the API document states
// them, beside its format date.
const DatePattern = `^(?:19|[2-9][0-9])[0-9]{2}-[0-9]{2}-[0-9]{2}$`

// MinDate and MaxDate bound the dates of a query (MaxDate is the end of a
// MySQL DATE; no mood is older than MinDate).
var (
	MinDate = core.Date{Year: 1900, Month: time.January, Day: 1}
	MaxDate = core.Date{Year: 9999, Month: time.December, Day: 31}
)

// Mood is one user's check-in of one local day. A second check-in of the
// same day replaces it: the ID and CreatedAt stay, the rest is the new one's.
type Mood struct {
	ID     string
	UserID string
	Level  Level
	Note   string    // "" when none
	Date   core.Date // the user's own today when they checked in
	// PartnershipID is the partnership the user was in at the check-in,
	// "" unpaired: only that partnership's partner reads the mood, so
	// neither a former nor a later partner ever does.
	PartnershipID string
	CreatedAt     time.Time
	UpdatedAt     time.Time
}

// Draft is a check-in as sent: mood is required, note optional.
type Draft struct {
	Mood string
	Note string
}

// parse checks d and returns its mood and its trimmed note. The mood is
// taken exactly as written, as the document's enum says.
func (d Draft) parse() (Level, string, error) {
	level, err := ParseLevel(d.Mood)
	if err != nil {
		return "", "", err
	}
	note := strings.TrimSpace(d.Note)
	if utf8.RuneCountInString(note) > MaxNote {
		return "", "", core.TooLong("note", MaxNote)
	}
	if err := core.CheckText("note", note, true); err != nil {
		return "", "", err
	}
	return level, note, nil
}

// Query is a list request as sent: from and to are YYYY-MM-DD or "".
type Query struct{ From, To string }

// Span is an inclusive range of dates.
type Span struct{ From, To core.Date }

// Days counts the dates of s, both ends included.
func (s Span) Days() int { return s.From.DaysUntil(s.To) + 1 }

// Span resolves q against the caller's today: to defaults to today, from to
// the DefaultSpan days ending at to. from after to, or a range of more than
// MaxSpan days, is a 400 invalid_request; a malformed date a 400
// invalid_date.
func (q Query) Span(today core.Date) (Span, error) {
	s := Span{To: today}
	var err error
	if q.To != "" {
		if s.To, err = ParseDay("to", q.To); err != nil {
			return Span{}, err
		}
	}
	s.From = s.To.AddDays(1 - DefaultSpan)
	if q.From != "" {
		if s.From, err = ParseDay("from", q.From); err != nil {
			return Span{}, err
		}
	}
	switch {
	case s.From.After(s.To):
		return Span{}, core.InvalidRequest("moods.notAfter", "from must not be after to")
	case s.Days() > MaxSpan:
		return Span{}, core.InvalidRequest("moods.mayCoverMostDays", "from and to may cover at most {1|%[1]d day|%[1]d days}", MaxSpan)
	}
	return s, nil
}

// ParseDay reads the YYYY-MM-DD date named field of a query: anything that
// is not a real date between MinDate and MaxDate is a 400 invalid_date.
func ParseDay(field, s string) (core.Date, error) {
	d, err := core.ParseDate(strings.TrimSpace(s))
	if err != nil {
		return core.Date{}, core.Invalid("invalid_date", "moods.dateFormYYYYMMDD", "%s must be a date in the form YYYY-MM-DD", field)
	}
	if d.Before(MinDate) || d.After(MaxDate) {
		return core.Date{}, core.Invalid("invalid_date", "moods.between190001019999", "%s must be between 1900-01-01 and 9999-12-31", field)
	}
	return d, nil
}

// ListOrder orders a couple's moods for the reader: by date, and on one
// date the reader's own before the partner's.
func ListOrder(readerID string) func(a, b Mood) int {
	return func(a, b Mood) int {
		if c := a.Date.Time().Compare(b.Date.Time()); c != 0 {
			return c
		}
		if a.UserID != b.UserID {
			if a.UserID == readerID {
				return -1
			}
			if b.UserID == readerID {
				return 1
			}
		}
		return cmp.Compare(a.UserID, b.UserID)
	}
}
