package partners_test

import (
	"regexp"
	"strings"
	"testing"

	"tandem/core"
	"tandem/modules/partners"
)

var (
	pairingShape = regexp.MustCompile(`^[ABCDEFGHJKLMNPQRSTUVWXYZ23456789]{6}$`)
	newCodeShape = regexp.MustCompile(`^[A-Za-z0-9_-]{8,64}$`)
	asciiText    = regexp.MustCompile(`^[\x20-\x7e]*$`)
)

// FuzzPairingCode: what a person types as a pairing code is accepted only
// when, trimmed, it is six characters of the documented alphabet (no 0/O,
// 1/I) in either ASCII case, and it normalises to those six in upper case;
// a submit of the partner's code pairs only for such a spelling of that
// very code, and every drawn code has the documented alphabet and length.
func FuzzPairingCode(f *testing.F) {
	f.Add("", "", 0, "ABC234")
	f.Add(" ", "\t", 1, "")
	f.Add("", "", 2, "abc234")
	f.Add("", "", 3, "ABCDE1")
	f.Add("", "X", 0, "ÄBC234")
	f.Add("", "", 0, "ſſſſſſ") // strings.ToUpper makes the long s an S
	f.Fuzz(func(t *testing.T, prefix, suffix string, spelling int, other string) {
		if got, ok := partners.NormalizePairingCode(other); ok {
			typed := strings.TrimSpace(other)
			if !pairingShape.MatchString(got) || !asciiText.MatchString(typed) || strings.ToUpper(typed) != got {
				t.Fatalf("NormalizePairingCode(%q) = %q: not six characters of the alphabet as typed", other, got)
			}
		}
		fx := newFixture(t)
		code := fx.code(t, "owner")
		if !pairingShape.MatchString(code) {
			t.Fatalf("drawn code %q is not six characters of the alphabet", code)
		}
		input := other
		switch spelling % 4 {
		case 1:
			input = prefix + code + suffix
		case 2:
			input = prefix + strings.ToLower(code) + suffix
		case 3:
			input = prefix + code[:3] + strings.ToLower(code[3:]) + suffix
		}
		typed := strings.TrimSpace(input)
		want := asciiText.MatchString(typed) && strings.EqualFold(typed, code)
		out, err := fx.submit("guest", input)
		switch {
		case err == nil && (!want || out.PartnerID != "owner"):
			t.Fatalf("submit %q of the code %q: %+v", input, code, out)
		case err != nil && want:
			t.Fatalf("submit %q of the code %q refused: %v", input, code, err)
		case err != nil && core.As(err).Kind != core.KindInvalid:
			t.Fatalf("submit %q: %v, want a 400", input, err)
		}
	})
}

// FuzzConnectionCode: a new connection code is 8 to 64 of [A-Za-z0-9_-]
// that CheckConnectionStrength passes; a link names a code in the link's shape (4 to 64 of the same) and finds its
// owner's code only when it is that code ignoring ASCII case, never by
// another spelling (Unicode case folding, spaces).
func FuzzConnectionCode(f *testing.F) {
	f.Add("Zq7w-OurCode1", "", "", false)
	f.Add("abcdefg", " ", "", true)
	f.Add("Ab_9-z-Q", "", "\n", true)
	f.Add("Zq7w-OurCode1", "", "", true)
	f.Add("OurCode1", "", "", true) // the shape, but too easy to guess
	f.Fuzz(func(t *testing.T, code, prefix, suffix string, lower bool) {
		err := partners.ValidateConnectionCode(code)
		if (err == nil) != (newCodeShape.MatchString(code) && partners.CheckConnectionStrength(code) == nil) {
			t.Fatalf("ValidateConnectionCode(%q) = %v", code, err)
		}
		if err != nil {
			if e := core.As(err); e.Kind != core.KindInvalid || e.Code != "invalid_request" {
				t.Fatalf("ValidateConnectionCode(%q): %v, want 400 invalid_request", code, err)
			}
			return
		}
		if k := partners.ConnectionKey(code); k != strings.ToLower(code) || partners.ConnectionKey(k) != k {
			t.Fatalf("ConnectionKey(%q) = %q", code, k)
		}
		fx := newFixture(t)
		if _, err := fx.create("owner", code); err != nil {
			t.Fatal(err)
		}
		input := prefix + code + suffix
		if lower {
			input = prefix + strings.ToLower(code) + suffix
		}
		want := strings.EqualFold(input, code) && asciiText.MatchString(input)
		partner, err := fx.linkWith("guest", input)
		switch {
		case err == nil && (!want || partner != "owner"):
			t.Fatalf("link with %q found %q for the code %q", input, partner, code)
		case err != nil && want:
			t.Fatalf("link with %q refused for the code %q: %v", input, code, err)
		case err != nil && core.As(err).Kind != core.KindInvalid && core.As(err).Kind != core.KindNotFound:
			t.Fatalf("link with %q: %v, want a 400 or 404", input, err)
		}
	})
}
