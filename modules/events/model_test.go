package events_test

import (
	"strings"
	"testing"
	"time"

	"tandem/core"
	"tandem/modules/events"
)

func date(t testing.TB, s string) core.Date {
	t.Helper()
	d, err := core.ParseDate(s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func wantInvalid(t *testing.T, what string, err error, code string) {
	t.Helper()
	if e := core.As(err); err == nil || e.Kind != core.KindInvalid || e.Code != code {
		t.Fatalf("%s: want invalid/%s, got %v", what, code, err)
	}
}

func TestParseTypeAndImportance(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"date", "meeting", "reminder", "traveling", "task", "other"} {
		if got, err := events.ParseType(s); err != nil || string(got) != s {
			t.Fatalf("%q: %q %v", s, got, err)
		}
	}
	for _, s := range []string{"", "Date", "travelling", "party"} {
		_, err := events.ParseType(s)
		wantInvalid(t, s, err, "invalid_request")
	}
	for _, s := range []string{"Low", "Medium", "High"} {
		if got, err := events.ParseImportance(s); err != nil || string(got) != s {
			t.Fatalf("%q: %q %v", s, got, err)
		}
	}
	for _, s := range []string{"", "low", "HIGH", "Urgent"} {
		_, err := events.ParseImportance(s)
		wantInvalid(t, s, err, "invalid_request")
	}
}

func TestParseNotify(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in   string
		want string // canonical form; "!" when refused
	}{
		{"", ""},
		{"0", "0"},
		{"15", "15"},
		{"0060", "60"},
		{"40320", "40320"}, // four weeks
		{"40321", "!"},
		{"-5", "!"},
		{"+5", "!"},
		{"1.5", "!"},
		{"15m", "!"},
		{" 15", "!"},
		{"1e3", "!"},
		{"99999999999999999999", "!"},
	}
	for _, tc := range cases {
		n, err := events.ParseNotify(tc.in)
		if tc.want == "!" {
			wantInvalid(t, tc.in, err, "invalid_request")
			continue
		}
		if err != nil || n.String() != tc.want || n.Set != (tc.in != "") {
			t.Fatalf("%q: %+v %v", tc.in, n, err)
		}
	}
}

func TestParseWallTime(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"", ""}, {"00:00", "00:00"}, {"23:59", "23:59"}, {"07:05", "07:05"},
		{"24:00", "!"}, {"7:05", "!"}, {"07:5", "!"}, {"12:60", "!"}, {"12:00:00", "!"}, {"noon", "!"},
	} {
		w, err := events.ParseWallTime("startTime", tc.in)
		if tc.want == "!" {
			wantInvalid(t, tc.in, err, "invalid_time")
			if !strings.HasPrefix(core.As(err).Message, "startTime ") {
				t.Fatalf("%q: the message does not name the field: %v", tc.in, err)
			}
			continue
		}
		if err != nil || w.String() != tc.want || w.Set != (tc.in != "") {
			t.Fatalf("%q: %+v %v", tc.in, w, err)
		}
	}
}

func TestNormalizeParticipants(t *testing.T) {
	t.Parallel()
	twenty := make([]string, 20)
	for i := range twenty {
		twenty[i] = "u" + string(rune('a'+i))
	}
	cases := []struct {
		name string
		in   []string
		want string // joined by ","; "!" when refused
	}{
		{"nil is empty", nil, ""},
		{"trimmed, repeats dropped in place", []string{" b ", "a", "b"}, "b,a"},
		{"twenty", twenty, strings.Join(twenty, ",")},
		{"twenty-one", append(append([]string{}, twenty...), "x"), "!"},
		{"empty id", []string{"a", " "}, "!"},
		{"id of 64", []string{strings.Repeat("i", 64)}, strings.Repeat("i", 64)},
		{"id of 65", []string{strings.Repeat("i", 65)}, "!"},
	}
	for _, tc := range cases {
		got, err := events.NormalizeParticipants(tc.in)
		if tc.want == "!" {
			wantInvalid(t, tc.name, err, "invalid_request")
			continue
		}
		if err != nil || got == nil || strings.Join(got, ",") != tc.want {
			t.Fatalf("%s: %q %v", tc.name, got, err)
		}
	}
}

func TestEventValidate(t *testing.T) {
	t.Parallel()
	at := func(h, m int) events.WallTime {
		return events.WallTime{TimeOfDay: core.TimeOfDay{Hour: h, Minute: m}, Set: true}
	}
	ok := events.Event{Title: "t", StartDate: date(t, "2025-03-01"), EndDate: date(t, "2025-03-01"),
		Type: events.TypeOther, Importance: events.ImportanceMedium, Participants: []string{}}
	cases := []struct {
		name string
		edit func(e *events.Event)
		code string // "" when valid
	}{
		{"minimal", func(*events.Event) {}, ""},
		{"title of 200 multibyte characters", func(e *events.Event) { e.Title = strings.Repeat("é", 200) }, ""},
		{"title of 201", func(e *events.Event) { e.Title = strings.Repeat("t", 201) }, "invalid_request"},
		{"no title", func(e *events.Event) { e.Title = "" }, "invalid_request"},
		{"description of 2000", func(e *events.Event) { e.Description = strings.Repeat("d", 2000) }, ""},
		{"description of 2001", func(e *events.Event) { e.Description = strings.Repeat("d", 2001) }, "invalid_request"},
		{"location of 201", func(e *events.Event) { e.Location = strings.Repeat("l", 201) }, "invalid_request"},
		{"no start date", func(e *events.Event) { e.StartDate = core.Date{} }, "invalid_request"},
		{"end before start", func(e *events.Event) { e.EndDate = date(t, "2025-02-28") }, "invalid_date"},
		{"spans 366 days (leap year)", func(e *events.Event) {
			e.StartDate, e.EndDate = date(t, "2024-01-01"), date(t, "2025-01-01")
		}, ""},
		{"spans 367 days", func(e *events.Event) {
			e.StartDate, e.EndDate = date(t, "2024-01-01"), date(t, "2025-01-02")
		}, "invalid_date"},
		{"before year 1000", func(e *events.Event) { e.StartDate = date(t, "0999-12-31") }, "invalid_date"},
		{"year 9999", func(e *events.Event) { e.StartDate, e.EndDate = date(t, "9999-12-31"), date(t, "9999-12-31") }, ""},
		{"times in order", func(e *events.Event) { e.StartTime, e.EndTime = at(9, 0), at(9, 0) }, ""},
		{"end time before start time on one day", func(e *events.Event) { e.StartTime, e.EndTime = at(9, 0), at(8, 59) }, "invalid_time"},
		{"end time before start time over two days", func(e *events.Event) {
			e.EndDate, e.StartTime, e.EndTime = date(t, "2025-03-02"), at(22, 0), at(2, 0)
		}, ""},
		{"only an end time", func(e *events.Event) { e.EndTime = at(8, 0) }, ""},
		{"unknown type", func(e *events.Event) { e.Type = "party" }, "invalid_request"},
		{"unknown importance", func(e *events.Event) { e.Importance = "Critical" }, "invalid_request"},
		{"notify of four weeks", func(e *events.Event) { e.Notify = events.Notify{Minutes: 40320, Set: true} }, ""},
		{"notify over four weeks", func(e *events.Event) { e.Notify = events.Notify{Minutes: 40321, Set: true} }, "invalid_request"},
		{"21 participants", func(e *events.Event) { e.Participants = make([]string, 21) }, "invalid_request"},
	}
	for _, tc := range cases {
		e := ok
		tc.edit(&e)
		err := e.Validate()
		if tc.code == "" {
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			continue
		}
		wantInvalid(t, tc.name, err, tc.code)
	}
}

func TestOverlapsAndMatches(t *testing.T) {
	t.Parallel()
	from, to := date(t, "2025-03-01"), date(t, "2025-03-03")
	cases := []struct {
		start, end       string
		overlaps, matchs bool
	}{
		{"2025-03-01", "2025-03-03", true, true},
		{"2025-03-01", "2025-03-04", true, false},
		{"2025-02-28", "2025-03-03", true, false},
		{"2025-03-02", "2025-03-02", true, false},
		{"2025-02-01", "2025-03-01", true, false}, // ends on the first day
		{"2025-03-03", "2025-04-01", true, false}, // starts on the last day
		{"2025-02-01", "2025-05-01", true, false}, // covers it
		{"2025-02-01", "2025-02-28", false, false},
		{"2025-03-04", "2025-03-04", false, false},
	}
	for _, tc := range cases {
		e := events.Event{StartDate: date(t, tc.start), EndDate: date(t, tc.end)}
		if e.Overlaps(from, to) != tc.overlaps || e.Matches(from, to) != tc.matchs {
			t.Fatalf("%s..%s: overlaps %v matches %v", tc.start, tc.end, e.Overlaps(from, to), e.Matches(from, to))
		}
	}
}

func TestStartBound(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ from, want string }{
		{"2025-03-01", "2024-02-29"}, // 366 days back, across a leap day
		{"2026-01-01", "2024-12-31"},
		{"1000-06-01", "1000-01-01"}, // clamped at MinDate
		{"0001-01-01", "1000-01-01"},
	} {
		if got := events.StartBound(date(t, tc.from)).String(); got != tc.want {
			t.Fatalf("%s: %s, want %s", tc.from, got, tc.want)
		}
	}
}

func TestReminderAt(t *testing.T) {
	t.Parallel()
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Fatal(err)
	}
	e := events.Event{StartDate: date(t, "2025-03-30"), StartTime: events.WallTime{TimeOfDay: core.TimeOfDay{Hour: 9}, Set: true}}
	if _, ok := e.ReminderAt(nil); ok {
		t.Fatal("a reminder without notify")
	}
	cases := []struct {
		name   string
		notify int
		allDay bool
		loc    *time.Location
		want   time.Time
	}{
		{"at the start, UTC", 0, false, nil, time.Date(2025, 3, 30, 9, 0, 0, 0, time.UTC)},
		{"an hour before, UTC", 60, false, nil, time.Date(2025, 3, 30, 8, 0, 0, 0, time.UTC)},
		// Paris springs forward at 02:00 that morning: 09:00 CEST is 07:00 UTC
		{"an hour before, in the owner's zone across DST", 60, false, paris, time.Date(2025, 3, 30, 6, 0, 0, 0, time.UTC)},
		{"all-day: from midnight", 30, true, nil, time.Date(2025, 3, 29, 23, 30, 0, 0, time.UTC)},
		{"four weeks", 40320, false, nil, time.Date(2025, 3, 2, 9, 0, 0, 0, time.UTC)},
	}
	for _, tc := range cases {
		e := e
		e.Notify = events.Notify{Minutes: tc.notify, Set: true}
		if tc.allDay {
			e.StartTime = events.WallTime{}
		}
		got, ok := e.ReminderAt(tc.loc)
		if !ok || !got.Equal(tc.want) {
			t.Fatalf("%s: %v %v, want %v", tc.name, got.UTC(), ok, tc.want)
		}
	}
}

func TestParseRange(t *testing.T) {
	t.Parallel()
	cases := []struct {
		start, end string
		code       string // "" when accepted
		msg        string
	}{
		{"2025-03-01", "2025-03-03", "", ""},
		{"2025-03-05", "2025-03-01", "", ""}, // order is the service's rule
		{"", "2025-03-03", "invalid_request", "startDate and endDate are required (YYYY-MM-DD)"},
		{"2025-03-01", "", "invalid_request", "startDate and endDate are required (YYYY-MM-DD)"},
		{"03/01/2025", "2025-03-03", "invalid_date", "startDate must be a date in the form YYYY-MM-DD"},
		{"2025-03-01", "2025-02-30", "invalid_date", "endDate must be a date in the form YYYY-MM-DD"},
	}
	for _, tc := range cases {
		from, to, err := events.ParseRange(tc.start, tc.end)
		if tc.code == "" {
			if err != nil || from.String() != tc.start || to.String() != tc.end {
				t.Fatalf("%s..%s: %v %v %v", tc.start, tc.end, from, to, err)
			}
			continue
		}
		wantInvalid(t, tc.start+".."+tc.end, err, tc.code)
		if core.As(err).Message != tc.msg {
			t.Fatalf("%s..%s: %q", tc.start, tc.end, core.As(err).Message)
		}
	}
}

func TestCursorRoundTripAndForgery(t *testing.T) {
	t.Parallel()
	e := events.Event{ID: "id-7", StartDate: date(t, "2025-03-01")}
	c, err := events.ParseCursor(events.CursorAfter(e).String())
	if err != nil || c.ID != "id-7" || c.StartDate != e.StartDate {
		t.Fatalf("%+v %v", c, err)
	}
	if !c.After(events.Event{ID: "id-8", StartDate: e.StartDate}) || c.After(e) ||
		!c.After(events.Event{ID: "id-0", StartDate: date(t, "2025-03-02")}) {
		t.Fatal("After")
	}
	for _, bad := range []string{"", "!!", core.EncodeCursor("2025-03-01"), core.EncodeCursor("03/01/2025", "x"),
		core.EncodeCursor("2025-03-01", "")} {
		_, err := events.ParseCursor(bad)
		wantInvalid(t, bad, err, "invalid_request")
	}
}
