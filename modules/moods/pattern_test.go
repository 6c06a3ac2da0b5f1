package moods_test

import (
	"testing"

	"tandem/core/coretest"
	"tandem/modules/moods"
)

// TestDatePatternIsParseDay: of the real dates, the document's date pattern
// takes those ParseDay takes.
func TestDatePatternIsParseDay(t *testing.T) {
	re := coretest.Pattern(t, moods.DatePattern)
	for _, s := range []string{"0001-01-01", "1000-01-01", "1899-12-31", "1900-01-01", "1999-12-31", "2025-06-15", "9999-12-31"} {
		_, err := moods.ParseDay("from", s)
		if got := re.MatchString(s); got != (err == nil) {
			t.Errorf("%s: the pattern says %v, ParseDay %v", s, got, err)
		}
	}
}
