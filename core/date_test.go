package core_test

import (
	"fmt"
	"regexp"
	"testing"
	"time"

	"tandem/core"
)

var (
	dateShape = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}$`)
	timeShape = regexp.MustCompile(`^([01][0-9]|2[0-3]):[0-5][0-9]$`)
)

// FuzzParseDate: a date is accepted only in the documented form YYYY-MM-DD
// and only when it is a real calendar date; what is accepted formats back to
// the very same string (parse(format(x)) == x both ways), and any refusal is
// a 400 invalid_date.
func FuzzParseDate(f *testing.F) {
	for _, s := range []string{"2024-02-29", "2025-02-29", "2025-13-01", "2025-1-01", "0000-01-01", "9999-12-31",
		"2025-06-15T00:00:00Z", "+2025-06-15", "2025-06-15 ", " 2025-06-15", "2025-06-31", "２０２５-０６-１５", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := core.ParseDate(s)
		if err != nil {
			if e := core.As(err); e.Kind != core.KindInvalid || e.Code != "invalid_date" {
				t.Fatalf("ParseDate(%q): %v, want 400 invalid_date", s, err)
			}
			return
		}
		if !dateShape.MatchString(s) {
			t.Fatalf("ParseDate(%q) accepted a string that is not YYYY-MM-DD", s)
		}
		if d.String() != s {
			t.Fatalf("ParseDate(%q) = %v, which formats as %q", s, d, d.String())
		}
		if core.DateOf(d.Time()) != d {
			t.Fatalf("ParseDate(%q) = %+v is not a real date", s, d)
		}
	})
}

// FuzzDateArithmetic: every date of years 0 to 9999 formats to a string that
// parses back to it, and AddDays and DaysUntil agree.
func FuzzDateArithmetic(f *testing.F) {
	f.Add(int64(0), int32(1))
	f.Add(int64(20254), int32(-366))
	f.Add(int64(-719162), int32(3_652_058))
	f.Fuzz(func(t *testing.T, day int64, n int32) {
		const span = 3_652_059 // days of years 1 to 9999
		d := core.DateOf(time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, int(((day%span)+span)%span)))
		back, err := core.ParseDate(d.String())
		if err != nil || back != d {
			t.Fatalf("%+v formats as %q, which parses as %+v, %v", d, d.String(), back, err)
		}
		m := int(n % 400_000)
		if got := d.DaysUntil(d.AddDays(m)); got != m {
			t.Fatalf("%v.DaysUntil(%v.AddDays(%d)) = %d", d, d, m, got)
		}
	})
}

// FuzzParseTimeOfDay: a time of day is accepted only as HH:mm from 00:00 to
// 23:59 and formats back to the same string; a refusal is a 400 invalid_time.
func FuzzParseTimeOfDay(f *testing.F) {
	for _, s := range []string{"00:00", "23:59", "24:00", "7:05", "07:5", "07:05:00", "12:60", "-1:00", "+1:00", "1:000", "٠٧:٠٥", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tod, err := core.ParseTimeOfDay(s)
		if err != nil {
			if e := core.As(err); e.Kind != core.KindInvalid || e.Code != "invalid_time" {
				t.Fatalf("ParseTimeOfDay(%q): %v, want 400 invalid_time", s, err)
			}
			return
		}
		if !timeShape.MatchString(s) || tod.String() != s {
			t.Fatalf("ParseTimeOfDay(%q) = %+v (%q): not the documented HH:mm", s, tod, tod.String())
		}
		if tod.Hour < 0 || tod.Hour > 23 || tod.Minute < 0 || tod.Minute > 59 {
			t.Fatalf("ParseTimeOfDay(%q) = %+v: out of range", s, tod)
		}
	})
}

func TestDateStringIsFmtsZeroPaddedForm(t *testing.T) {
	t.Parallel()
	for _, d := range []core.Date{{}, {Year: 1, Month: 1, Day: 1}, {Year: 999, Month: 9, Day: 9}, {Year: 2024, Month: 2, Day: 29},
		{Year: 9999, Month: 12, Day: 31}, {Year: 10000, Month: 1, Day: 1}, {Year: -1, Month: 1, Day: 1}, {Year: 2025, Month: 100, Day: 7}} {
		if got, want := d.String(), fmt.Sprintf("%04d-%02d-%02d", d.Year, d.Month, d.Day); got != want {
			t.Errorf("%+v.String() = %q, want %q", d, got, want)
		}
	}
}
