package relationship_test

import (
	"testing"

	"tandem/core"
	"tandem/modules/relationship"
)

func date(t *testing.T, s string) core.Date {
	t.Helper()
	d, err := core.ParseDate(s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestDurationCountsWholeCivilDays(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name       string
		start, end string // end "" while active
		today      string
		want       int
	}{
		{"started today", "2025-06-15", "", "2025-06-15", 0},
		{"one day", "2025-06-14", "", "2025-06-15", 1},
		{"into a leap day", "2024-02-28", "", "2024-03-01", 2},
		{"from a leap day to the day before its anniversary", "2024-02-29", "", "2025-02-28", 365},
		{"from a leap day to March 1st next year", "2024-02-29", "", "2025-03-01", 366},
		{"across the US spring-forward", "2025-03-08", "", "2025-03-10", 2},
		{"across the EU fall-back", "2025-10-25", "", "2025-10-27", 2},
		{"a start still tomorrow for the reader counts 0", "2025-06-16", "", "2025-06-15", 0},
		{"ended: counts to the end date, not today", "2024-02-14", "2025-02-14", "2030-01-01", 366},
		{"ended on its start day", "2025-01-01", "2025-01-01", "2025-06-15", 0},
	}
	for _, tc := range cases {
		r := relationship.Relationship{StartDate: date(t, tc.start), Active: tc.end == ""}
		if tc.end != "" {
			r.EndDate = date(t, tc.end)
		}
		d := r.DurationOn(date(t, tc.today))
		if d.Days != tc.want || d.StartDate != r.StartDate || d.EndDate != r.EndDate || d.Active != r.Active {
			t.Fatalf("%s: %+v, want %d days", tc.name, d, tc.want)
		}
	}
}
