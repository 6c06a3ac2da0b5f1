package events_test

import (
	"testing"
	"time"

	"tandem/core"
	"tandem/modules/events"
)

// FuzzParseCursor: an events list cursor parses only in the form
// Cursor.String makes (a parsed cursor re-encodes to the same string) and
// names a real date and an id; the cursor after any stored event parses
// back to it. A refusal is a 400.
func FuzzParseCursor(f *testing.F) {
	f.Add(events.Cursor{StartDate: core.Date{Year: 2025, Month: time.June, Day: 15}, ID: "0190a1b2-0000-7000-8000-000000000001"}.String(), int32(0), "id-1")
	f.Add(core.EncodeCursor("2025-02-30", "id-1"), int32(-1), "id-2")
	f.Add(core.EncodeCursor("2025-06-15"), int32(366), "")
	f.Add("not a cursor", int32(1<<30), "x")
	f.Fuzz(func(t *testing.T, s string, day int32, id string) {
		c, err := events.ParseCursor(s)
		if err == nil {
			if c.String() != s || c.ID == "" || core.DateOf(c.StartDate.Time()) != c.StartDate {
				t.Fatalf("ParseCursor(%q) = %+v, which encodes as %q", s, c, c.String())
			}
		} else if e := core.As(err); e.Kind != core.KindInvalid || e.Code != "invalid_request" {
			t.Fatalf("ParseCursor(%q): %v, want 400 invalid_request", s, err)
		}
		start := events.MinDate.AddDays(int(day) % (events.MinDate.DaysUntil(events.MaxDate) + 1))
		if start.Before(events.MinDate) || id == "" || core.CheckText("", id, false) != nil {
			return
		}
		in := events.CursorAfter(events.Event{ID: id, StartDate: start})
		if back, err := events.ParseCursor(in.String()); err != nil || back != in {
			t.Fatalf("the cursor after %+v is %q, which parses as %+v, %v", in, in.String(), back, err)
		}
	})
}
