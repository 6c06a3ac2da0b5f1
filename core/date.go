package core

import (
	"fmt"
	"time"
)

// Date is a civil date (no time, no zone), written YYYY-MM-DD on the wire.
type Date struct {
	Year  int
	Month time.Month
	Day   int
}

// ParseDate accepts exactly YYYY-MM-DD and refuses impossible dates (2025-02-30).
func ParseDate(s string) (Date, error) {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil || len(s) != len(time.DateOnly) {
		return Date{}, Invalid("invalid_date", "core.notDateFormYYYYMM", "%q is not a date in the form YYYY-MM-DD", s)
	}
	return DateOf(t), nil
}

// DateOf is the calendar date of t in t's own location.
func DateOf(t time.Time) Date {
	y, m, d := t.Date()
	return Date{y, m, d}
}

// Today is the calendar date of now in loc (UTC when loc is nil).
func Today(now time.Time, loc *time.Location) Date {
	if loc == nil {
		loc = time.UTC
	}
	return DateOf(now.In(loc))
}

func (d Date) IsZero() bool { return d == Date{} }

func (d Date) String() string {
	if d.Year < 0 || d.Year > 9999 || d.Month < 0 || d.Month > 99 || d.Day < 0 || d.Day > 99 { // beyond the fast path's digits
		return fmt.Sprintf("%04d-%02d-%02d", d.Year, d.Month, d.Day)
	}
	// Every list of events formats two dates per event: one allocation, not
	// fmt's three.
	b := [10]byte{'0' + byte(d.Year/1000), '0' + byte(d.Year/100%10), '0' + byte(d.Year/10%10), '0' + byte(d.Year%10), '-',
		'0' + byte(d.Month/10), '0' + byte(d.Month%10), '-', '0' + byte(d.Day/10), '0' + byte(d.Day%10)}
	return string(b[:])
}

// Time is midnight UTC of d; day arithmetic on it never meets DST.
func (d Date) Time() time.Time { return time.Date(d.Year, d.Month, d.Day, 0, 0, 0, 0, time.UTC) }

func (d Date) AddDays(n int) Date { return DateOf(d.Time().AddDate(0, 0, n)) }

func (d Date) Before(o Date) bool { return d.Time().Before(o.Time()) }
func (d Date) After(o Date) bool  { return d.Time().After(o.Time()) }

// DaysUntil counts whole days from d to o (negative when o is earlier).
func (d Date) DaysUntil(o Date) int { return int(o.Time().Sub(d.Time()).Hours() / 24) }

// TimeOfDay is a wall-clock time HH:mm.
type TimeOfDay struct{ Hour, Minute int }

func ParseTimeOfDay(s string) (TimeOfDay, error) {
	t, err := time.Parse("15:04", s)
	if err != nil || len(s) != 5 {
		return TimeOfDay{}, Invalid("invalid_time", "core.notTimeFormHHMm", "%q is not a time in the form HH:mm", s)
	}
	return TimeOfDay{t.Hour(), t.Minute()}, nil
}

func (t TimeOfDay) String() string { return fmt.Sprintf("%02d:%02d", t.Hour, t.Minute) }
