package accounts_test

import (
	"strings"
	"testing"

	"tandem/core/coretest"
	"tandem/modules/accounts"
)

// TestTimezonePatternIsAnOuterBound: every timezone ValidateTimezone takes
// matches the document's pattern (the zone must also exist, which no
// pattern says), and the forms it refuses for their shape the pattern
// refuses too.
func TestTimezonePatternIsAnOuterBound(t *testing.T) {
	re := coretest.Pattern(t, accounts.TimezonePattern)
	for _, tz := range []string{"", "UTC", "Europe/Paris", "America/Argentina/Buenos_Aires", "Etc/GMT+5", "Etc/GMT-14",
		"America/Port-au-Prince", "Asia/Ho_Chi_Minh"} {
		if accounts.ValidateTimezone(tz) != nil || !re.MatchString(tz) {
			t.Errorf("%q: ValidateTimezone %v, pattern %v", tz, accounts.ValidateTimezone(tz), re.MatchString(tz))
		}
	}
	for _, tz := range []string{"Etc//GMT", "./UTC", "/UTC", "UTC/", "1UTC", "Europe/Paris ", "Europe/../Paris", "Europe\\Paris"} {
		if re.MatchString(tz) {
			t.Errorf("%q matches the pattern", tz)
		}
	}
	var walk func(s string)
	walk = func(s string) {
		if accounts.ValidateTimezone(s) == nil && (!re.MatchString(s) || len(s) > accounts.MaxTimezone) {
			t.Errorf("%q: taken, but the document refuses it", s)
		}
		if len(s) == 4 {
			return
		}
		for _, c := range []string{"U", "T", "C", "/", "0", "+", "-", "_", ".", " "} {
			walk(s + c)
		}
	}
	walk("")
	if accounts.ValidateTimezone("Etc/"+strings.Repeat("A", accounts.MaxTimezone)) == nil {
		t.Error("a zone over MaxTimezone bytes was taken")
	}
}
