package events_test

import (
	"fmt"
	"testing"

	"tandem/core"
	"tandem/core/coretest"
	"tandem/modules/events"
)

// TestNotifyPatternIsParseNotify: the document's notify pattern with its
// maxLength takes exactly the strings ParseNotify takes: every string of
// up to MaxNotifyDigits digits, some longer, and some that are no digits.
func TestNotifyPatternIsParseNotify(t *testing.T) {
	re := coretest.Pattern(t, events.NotifyPattern)
	check := func(s string) {
		_, err := events.ParseNotify(s)
		if got := re.MatchString(s) && len(s) <= events.MaxNotifyDigits; got != (err == nil) {
			t.Fatalf("%q: the document says %v, ParseNotify %v", s, got, err)
		}
	}
	for _, s := range []string{"", "+1", "-1", " 1", "1 ", "1.0", "1e3", "a", "٣"} {
		check(s)
	}
	limit := 1
	for n := 1; n <= events.MaxNotifyDigits; n++ {
		limit *= 10
		for i := range limit {
			check(fmt.Sprintf("%0*d", n, i))
		}
	}
	for _, s := range []string{"0000000", "0040320", "1000000", "9999999"} {
		check(s)
	}
}

// TestWallTimePatternIsParseWallTime: every HH:MM of two digits each, and
// other shapes.
func TestWallTimePatternIsParseWallTime(t *testing.T) {
	rule := func(s string) bool { _, err := events.ParseWallTime("startTime", s); return err == nil }
	var extra []string
	for h := range 100 {
		for m := range 100 {
			extra = append(extra, fmt.Sprintf("%02d:%02d", h, m))
		}
	}
	extra = append(extra, "7:30", "07:3", " 07:30", "07:30 ", "0730", "07-30", "07:30:00", "24:00")
	coretest.SamePattern(t, events.WallTimePattern, 0, rule, []rune{'0', '9', ':'}, 4, extra...)
}

// TestDatePatternIsTheEventRange: of the real dates, the document's date
// pattern takes those an event may have.
func TestDatePatternIsTheEventRange(t *testing.T) {
	re := coretest.Pattern(t, events.DatePattern)
	for _, s := range []string{"0001-01-01", "0999-12-31", "1000-01-01", "1970-06-15", "2025-02-28", "9999-12-31"} {
		d, err := core.ParseDate(s)
		if err != nil {
			t.Fatal(err)
		}
		e := events.Event{Title: "t", StartDate: d, EndDate: d, Type: events.TypeOther, Importance: events.ImportanceMedium,
			Participants: []string{}}
		if got, want := re.MatchString(s), e.Validate() == nil; got != want {
			t.Errorf("%s: the pattern says %v, Validate %v", s, got, e.Validate())
		}
	}
}
