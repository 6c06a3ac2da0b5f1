package moods_test

import (
	"slices"
	"testing"

	"tandem/core"
	"tandem/core/coretest"
	"tandem/modules/moods"
)

func day(t *testing.T, s string) core.Date {
	t.Helper()
	d, err := core.ParseDate(s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestParseLevel(t *testing.T) {
	t.Parallel()
	for _, l := range moods.Levels {
		if got, err := moods.ParseLevel(string(l)); err != nil || got != l {
			t.Errorf("ParseLevel(%q) = %q, %v", l, got, err)
		}
	}
	for in, msg := range map[string]string{
		"":      "mood is required: great, good, okay, low or awful",
		"Great": "mood must be one of great, good, okay, low or awful",
		"meh":   "mood must be one of great, good, okay, low or awful",
		"good ": "mood must be one of great, good, okay, low or awful",
	} {
		_, err := moods.ParseLevel(in)
		coretest.WantErrMessage(t, err, core.KindInvalid, "invalid_request", msg)
	}
}

// TestQuerySpan: the range rules of a list, against a today of 2025-06-15.
func TestQuerySpan(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, from, to   string
		wantFrom, wantTo string
		code, msg        string
	}{
		{name: "default: the last 30 days, today included", wantFrom: "2025-05-17", wantTo: "2025-06-15"},
		{name: "to only: the 30 days ending there", to: "2025-01-31", wantFrom: "2025-01-02", wantTo: "2025-01-31"},
		{name: "from only: until today", from: "2025-06-01", wantFrom: "2025-06-01", wantTo: "2025-06-15"},
		{name: "one day", from: "2025-06-15", to: "2025-06-15", wantFrom: "2025-06-15", wantTo: "2025-06-15"},
		{name: "the future may be asked (nothing is there)", from: "2025-07-01", to: "2025-07-31",
			wantFrom: "2025-07-01", wantTo: "2025-07-31"},
		{name: "366 days, leap year", from: "2024-01-01", to: "2024-12-31", wantFrom: "2024-01-01", wantTo: "2024-12-31"},
		{name: "367 days", from: "2024-01-01", to: "2025-01-01", code: "invalid_request",
			msg: "from and to may cover at most 366 days"},
		{name: "from alone too far back", from: "2024-06-14", code: "invalid_request",
			msg: "from and to may cover at most 366 days"},
		{name: "from after to", from: "2025-06-02", to: "2025-06-01", code: "invalid_request", msg: "from must not be after to"},
		{name: "from after today", from: "2025-06-16", code: "invalid_request", msg: "from must not be after to"},
		{name: "malformed from", from: "15/06/2025", code: "invalid_date", msg: "from must be a date in the form YYYY-MM-DD"},
		{name: "impossible to", to: "2025-02-30", code: "invalid_date", msg: "to must be a date in the form YYYY-MM-DD"},
		{name: "before 1900", from: "1899-12-31", to: "1900-01-01", code: "invalid_date",
			msg: "from must be between 1900-01-01 and 9999-12-31"},
	}
	today := day(t, "2025-06-15")
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, err := moods.Query{From: tc.from, To: tc.to}.Span(today)
			if tc.code != "" {
				coretest.WantErrMessage(t, err, core.KindInvalid, tc.code, tc.msg)
				return
			}
			if err != nil || s.From.String() != tc.wantFrom || s.To.String() != tc.wantTo {
				t.Fatalf("got %v..%v, %v", s.From, s.To, err)
			}
		})
	}
}

func TestListOrder(t *testing.T) {
	t.Parallel()
	ms := []moods.Mood{
		{ID: "b2", UserID: "b", Date: day(t, "2025-06-02")},
		{ID: "a2", UserID: "z", Date: day(t, "2025-06-02")},
		{ID: "a1", UserID: "z", Date: day(t, "2025-06-01")},
		{ID: "b1", UserID: "b", Date: day(t, "2025-06-01")},
	}
	slices.SortFunc(ms, moods.ListOrder("z"))
	var got []string
	for _, m := range ms {
		got = append(got, m.ID)
	}
	if !slices.Equal(got, []string{"a1", "b1", "a2", "b2"}) {
		t.Fatalf("order %v: by date, the reader (z) first", got)
	}
}
