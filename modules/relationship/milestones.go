package relationship

import (
	"context"
	"fmt"
	"time"

	"tandem/core"
)

// MilestoneKind says what a milestone counts: days since the start, or
// whole years (an anniversary).
type MilestoneKind string

const (
	MilestoneDays        MilestoneKind = "days"
	MilestoneAnniversary MilestoneKind = "anniversary"
)

// Milestone is a day of a relationship worth celebrating: day 100, 200,
// 365, 500, 1000 and every 1000th after (2000, 3000...), and each yearly
// anniversary.
type Milestone struct {
	Date  core.Date
	Days  int // the relationship's day count on Date, as Duration counts it (the start is day 0)
	Years int // whole years, anniversaries only
	Kind  MilestoneKind
}

// Label names the milestone for people: "100 days", "1 year", "2 years".
func (m Milestone) Label() string {
	switch {
	case m.Kind == MilestoneDays:
		return fmt.Sprintf("%d days", m.Days)
	case m.Years == 1:
		return "1 year"
	}
	return fmt.Sprintf("%d years", m.Years)
}

const (
	// DefaultMilestones is how many milestones a list shows unless asked.
	DefaultMilestones = 5
	// MaxMilestones bounds one list.
	MaxMilestones = 50
	// FirstMilestoneDays is the first day count celebrated: no milestone
	// counts fewer days (the first anniversary counts 365).
	FirstMilestoneDays = 100
)

// dayMilestones are the day counts celebrated before the every-1000 rule
// takes over.
var dayMilestones = [...]int{FirstMilestoneDays, 200, 365, 500, 1000}

// nextDayMilestone is the first celebrated day count at or after n.
func nextDayMilestone(n int) int {
	for _, d := range dayMilestones {
		if d >= n {
			return d
		}
	}
	return (n + 999) / 1000 * 1000
}

// Anniversary is the date years whole years after start: the same month and
// day, except that a start on 29 February has its anniversary on 1 March in
// a year without one. 1 March is the first day on which the year is really
// complete (28 February is day 365 of a 366-day year), and it is what Go's
// AddDate gives.
func Anniversary(start core.Date, years int) core.Date {
	return core.DateOf(start.Time().AddDate(years, 0, 0))
}

// MilestonesFrom returns the first n milestones of a relationship that
// started on start, from the date from on (from's included), in date order.
// When a day count and an anniversary fall on the same date (365 days and
// 1 year, in a year without 29 February) both are listed, the anniversary
// first: they count different things, and a client that wants one entry
// per date keeps the first.
func MilestonesFrom(start, from core.Date, n int) []Milestone {
	out := make([]Milestone, 0, n)
	if n <= 0 {
		return out
	}
	days := nextDayMilestone(max(1, start.DaysUntil(from)))
	years := max(1, from.Year-start.Year)
	if Anniversary(start, years).Before(from) {
		years++
	}
	for len(out) < n {
		byDays := start.AddDays(days)
		byYears := Anniversary(start, years)
		if byYears.After(byDays) {
			out = append(out, Milestone{Date: byDays, Days: days, Kind: MilestoneDays})
			days = nextDayMilestone(days + 1)
			continue
		}
		out = append(out, Milestone{Date: byYears, Days: start.DaysUntil(byYears), Years: years, Kind: MilestoneAnniversary})
		years++
	}
	return out
}

// MilestonesOn returns the milestones of a relationship that started on
// start that fall on day (none, one, or an anniversary and a day count), in
// MilestonesFrom's order.
func MilestonesOn(start, day core.Date) []Milestone {
	var out []Milestone
	for _, m := range MilestonesFrom(start, day, 2) {
		if m.Date == day {
			out = append(out, m)
		}
	}
	return out
}

// MilestoneTime is when, in each partner's own timezone, the push of a
// milestone goes out on its morning.
var MilestoneTime = core.TimeOfDay{Hour: 9}

// MilestoneText is the push of the milestones of one date (one push per
// date: the first names it, the day count says how long).
func MilestoneText(start core.Date, ms []Milestone) core.Message {
	m := ms[0]
	if m.Kind == MilestoneAnniversary {
		return core.Msg("milestone.anniversary", m.Years, m.Days, start)
	}
	return core.Msg("milestone.days", m.Days, start)
}

// MilestoneCheck is an active relationship whose milestone pushes are due
// to be looked at, At being when (MilestoneRepository).
type MilestoneCheck struct {
	Relationship Relationship
	At           time.Time
}

func errMilestoneLimit() error {
	return core.BadLimit(MaxMilestones)
}

// Milestones returns the next limit (1 to MaxMilestones) milestones of the
// couple's active relationship, from the caller's today (in their
// timezone) on, today's included. Unpaired: 409 not_paired; no active
// relationship (none yet, or it ended): 404 not_found.
func (s *Service) Milestones(ctx context.Context, userID string, limit int) ([]Milestone, error) {
	if limit < 1 || limit > MaxMilestones {
		return nil, errMilestoneLimit()
	}
	partnershipID, _, err := s.partnership(ctx, userID)
	if err != nil {
		return nil, err
	}
	r, err := s.latest(ctx, partnershipID)
	if core.IsKind(err, core.KindNotFound) || (err == nil && !r.Active) {
		return nil, errNoActive()
	}
	if err != nil {
		return nil, err
	}
	today, err := s.today(ctx, userID)
	if err != nil {
		return nil, err
	}
	return MilestonesFrom(r.StartDate, today, limit), nil
}

// NextMilestone is the couple's next milestone from the caller's today on
// (today's included), for the home screen; nil, and no error, when the
// caller has no active relationship (unpaired included): there is nothing
// to show.
func (s *Service) NextMilestone(ctx context.Context, userID string) (*Milestone, error) {
	ms, err := s.Milestones(ctx, userID, 1)
	if err != nil {
		if code := core.As(err).Code; code == "not_paired" || code == "not_found" {
			return nil, nil
		}
		return nil, err
	}
	return &ms[0], nil
}
