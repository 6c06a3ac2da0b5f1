package questions_test

import (
	"testing"
	"time"

	"tandem/core"
	"tandem/modules/questions"
)

// FuzzParseHistoryCursor: a daily question history cursor parses only in
// the form HistoryCursor makes of a real date, so it re-encodes to the same
// string; the cursor of any date of years 1 to 9999 parses back to it.
func FuzzParseHistoryCursor(f *testing.F) {
	f.Add(questions.HistoryCursor(core.Date{Year: 2025, Month: time.June, Day: 15}), int32(0))
	f.Add(core.EncodeCursor("2025-06-31"), int32(-1))
	f.Add(core.EncodeCursor("2025-06-15", "x"), int32(3_000_000))
	f.Fuzz(func(t *testing.T, s string, day int32) {
		d, err := questions.ParseHistoryCursor(s)
		if err == nil {
			if questions.HistoryCursor(d) != s {
				t.Fatalf("ParseHistoryCursor(%q) = %v, which encodes as %q", s, d, questions.HistoryCursor(d))
			}
		} else if e := core.As(err); e.Kind != core.KindInvalid || e.Code != "invalid_request" {
			t.Fatalf("ParseHistoryCursor(%q): %v, want 400 invalid_request", s, err)
		}
		if day < 0 {
			return
		}
		in := core.DateOf(time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, int(day)%3_652_059))
		if back, err := questions.ParseHistoryCursor(questions.HistoryCursor(in)); err != nil || back != in {
			t.Fatalf("%v encodes as %q, which parses as %v, %v", in, questions.HistoryCursor(in), back, err)
		}
	})
}
