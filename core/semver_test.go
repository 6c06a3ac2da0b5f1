package core_test

import (
	"regexp"
	"strings"
	"testing"

	"tandem/core"
)

// versionShape is the documented grammar: MAJOR.MINOR[.PATCH][+BUILD] with an
// optional "v", each number 1 to 9 digits, around optional white space.
var versionShape = regexp.MustCompile(`^v?[0-9]{1,9}\.[0-9]{1,9}(\.[0-9]{1,9})?(\+[0-9]{1,9})?$`)

// FuzzParseVersion: a version is accepted only in the documented grammar;
// what is accepted formats to a canonical string that parses back to the
// same version; Compare is an order (reflexive, antisymmetric) and agrees
// with the canonical forms.
func FuzzParseVersion(f *testing.F) {
	for _, s := range []string{"1.2.3", "v1.2", "1.2.3+45", " 1.2.3 ", "1.2.3.4", "-1.2.3", "1.2.3+b",
		"999999999.999999999.999999999+999999999", "1000000000.0.0", "v", "1..3", "０.１"} {
		f.Add(s, "1.2.3")
	}
	f.Fuzz(func(t *testing.T, s, other string) {
		v, err := core.ParseVersion(s)
		if err != nil {
			if e := core.As(err); e.Kind != core.KindInvalid || e.Code != "invalid_version" {
				t.Fatalf("ParseVersion(%q): %v, want 400 invalid_version", s, err)
			}
			return
		}
		if !versionShape.MatchString(strings.TrimSpace(s)) {
			t.Fatalf("ParseVersion(%q) = %+v: accepted outside MAJOR.MINOR[.PATCH][+BUILD]", s, v)
		}
		back, err := core.ParseVersion(v.String())
		if err != nil || back != v {
			t.Fatalf("ParseVersion(%q) = %+v formats as %q, which parses as %+v, %v", s, v, v.String(), back, err)
		}
		if v.Compare(v) != 0 {
			t.Fatalf("%v.Compare(itself) != 0", v)
		}
		if o, err := core.ParseVersion(other); err == nil {
			if v.Compare(o) != -o.Compare(v) {
				t.Fatalf("Compare is not antisymmetric: %v vs %v", v, o)
			}
			if (v.Compare(o) == 0) != (v.String() == o.String()) {
				t.Fatalf("%v and %v compare %d but format %q and %q", v, o, v.Compare(o), v.String(), o.String())
			}
		}
	})
}
