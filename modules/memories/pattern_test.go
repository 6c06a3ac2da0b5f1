package memories_test

import (
	"testing"

	"tandem/core/coretest"
	"tandem/modules/memories"
)

// TestDatePatternIsParseDay: of the real dates, the document's date pattern
// takes those ParseDay takes.
func TestDatePatternIsParseDay(t *testing.T) {
	re := coretest.Pattern(t, memories.DatePattern)
	for _, s := range []string{"0001-01-01", "1000-01-01", "1899-12-31", "1900-01-01", "1999-12-31", "2025-06-15", "9999-12-31"} {
		_, err := memories.ParseDay("date", s)
		if got := re.MatchString(s); got != (err == nil) {
			t.Errorf("%s: the pattern says %v, ParseDay %v", s, got, err)
		}
	}
}

// TestImagePatternIsAnOuterBound: every image address NormalizeImages
// takes matches the document's pattern.
func TestImagePatternIsAnOuterBound(t *testing.T) {
	re := coretest.Pattern(t, memories.ImagePattern)
	for _, base := range []string{"http://localhost:8080", "https://tandem.example/app"} {
		s := memories.Settings{PublicURL: base}
		for _, a := range []string{base + "/files/u/a/b.jpg", " " + base + "/files/u/a/b.jpg\t", base + "/files/x", base + "/files/.x",
			base + "/files/u//b.jpg", base + "/files/u/a/b.jpg?x=1", base + "/files/", "https://evil.example/files/u/a/b.jpg",
			base + "/files/u/a/b c.jpg", base + "/files/u/a/b-_.JPG"} {
			_, err := memories.NormalizeImages([]string{a}, s)
			if err == nil && !re.MatchString(a) {
				t.Errorf("%q: taken, but the pattern refuses it", a)
			}
		}
	}
}
