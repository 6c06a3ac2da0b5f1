package memories_test

import (
	"testing"
	"time"

	"tandem/core"
	"tandem/modules/memories"
)

// FuzzParseCursor: a memories list cursor parses only in the form
// Cursor.String makes (date, creation milliseconds, id), so a parsed cursor
// re-encodes to the same string; the cursor after any memory parses back to
// it. A refusal is a 400.
func FuzzParseCursor(f *testing.F) {
	f.Add(memories.Cursor{Date: core.Date{Year: 2025, Month: time.June, Day: 15}, CreatedAt: 1750000000000, ID: "m-1"}.String(), int32(0), int64(0), "m-2")
	f.Add(core.EncodeCursor("2025-06-15", "x", "m-1"), int32(40000), int64(-1), "m")
	f.Add(core.EncodeCursor("2025-06-15", "1"), int32(-5), int64(1<<62), "")
	f.Fuzz(func(t *testing.T, s string, day int32, at int64, id string) {
		c, err := memories.ParseCursor(s)
		if err == nil {
			if c.String() != s || c.ID == "" {
				t.Fatalf("ParseCursor(%q) = %+v, which encodes as %q", s, c, c.String())
			}
		} else if e := core.As(err); e.Kind != core.KindInvalid || e.Code != "invalid_request" {
			t.Fatalf("ParseCursor(%q): %v, want 400 invalid_request", s, err)
		}
		if day < 0 || id == "" || core.CheckText("", id, false) != nil {
			return
		}
		d := memories.MinDate.AddDays(int(day) % (memories.MinDate.DaysUntil(memories.MaxDate) + 1))
		m := memories.Memory{ID: id, Date: d, CreatedAt: core.FromMillis(at % 253402300799999)}
		in := memories.CursorAfter(m)
		if back, err := memories.ParseCursor(in.String()); err != nil || back != in {
			t.Fatalf("the cursor after %+v is %q, which parses as %+v, %v", in, in.String(), back, err)
		}
	})
}
