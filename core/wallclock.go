package core

import "time"

// InstantOf is the instant of the wall time at on the local date day in loc
// (UTC when nil), for things due at a local time of day (the daily reminder,
// a milestone's morning push). Daylight saving neither skips nor doubles
// it: a time the day skips (inside the spring-forward gap) is due at the
// first instant after the gap, and a time the day has twice (inside the
// fall-back hour) at the first of the two.
func InstantOf(day Date, at TimeOfDay, loc *time.Location) time.Time {
	if loc == nil {
		loc = time.UTC
	}
	want := time.Date(day.Year, day.Month, day.Day, at.Hour, at.Minute, 0, 0, time.UTC)
	t := time.Date(day.Year, day.Month, day.Day, at.Hour, at.Minute, 0, 0, loc)
	// Go resolves a skipped wall time to either side of the gap; the gap
	// begins where t's zone period begins (resolved after it) or ends.
	switch wall := wallClock(t); {
	case wall.After(want):
		start, _ := t.ZoneBounds()
		return start.UTC()
	case wall.Before(want):
		_, end := t.ZoneBounds()
		return end.UTC()
	}
	// A repeated wall time may resolve to its second instant: take the
	// first, in the period before t's when that one's offset was larger.
	if start, _ := t.ZoneBounds(); !start.IsZero() {
		_, off := t.Zone()
		_, before := start.Add(-time.Second).Zone()
		if first := t.Add(-time.Duration(before-off) * time.Second); before > off && first.Before(start) && wallClock(first.In(loc)).Equal(want) {
			return first.UTC()
		}
	}
	return t.UTC()
}

// wallClock is t's date and time of day in its own location, as a UTC value
// (for comparing wall times).
func wallClock(t time.Time) time.Time {
	y, m, d := t.Date()
	return time.Date(y, m, d, t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), time.UTC)
}
