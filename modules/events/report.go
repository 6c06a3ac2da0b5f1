// The date-range answer: the caller's and the partner's events that touch
// the range, split into exact matches and others.

package events

import (
	"slices"

	"tandem/core"
)

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

// buildReport merges the caller's and the partner's overlapping events in
// date order, keeps at most core.MaxListItems, and splits them.
func buildReport(from, to core.Date, userID string, found []Event) RangeReport {
	all := make([]Found, 0, len(found))
	for _, e := range found {
		all = append(all, Found{Event: e, Partner: e.UserID != userID})
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

func errNotFound() error {
	return core.NotFound("event_not_found", "events.eventNotFound", "event not found")
}
