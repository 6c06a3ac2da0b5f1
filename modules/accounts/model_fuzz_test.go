package accounts_test

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"tandem/core"
	"tandem/modules/accounts"
)

// zoneShape is what an IANA zone name looks like: "/"-separated segments,
// each starting with a letter and made of letters, digits, "_", "+" and "-"
// (Europe/Paris, America/Argentina/Buenos_Aires, Etc/GMT+5, EST5EDT).
var zoneShape = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_+-]*(/[A-Za-z][A-Za-z0-9_+-]*)*$`)

// FuzzValidateTimezone: a profile timezone is accepted only when it is ""
// (UTC) or a zone name in the IANA form that the time package loads, never
// the server's own zone ("Local", "localtime") nor a file path the zone
// loader merely happens to open ("./UTC", "Europe//Paris", "../..."). A
// refusal is a 400.
func FuzzValidateTimezone(f *testing.F) {
	for _, tz := range []string{"Europe/Paris", "America/Argentina/Buenos_Aires", "Etc/GMT+5", "UTC", "EST5EDT", "",
		"Local", "../../etc/passwd", "/etc/localtime", "Europe/Nowhere", "Europe/Paris\x00"} {
		f.Add(tz)
	}
	f.Fuzz(func(t *testing.T, tz string) {
		err := accounts.ValidateTimezone(tz)
		if err != nil {
			if e := core.As(err); e.Kind != core.KindInvalid || e.Code != "invalid_request" {
				t.Fatalf("ValidateTimezone(%q): %v, want 400 invalid_request", tz, err)
			}
			return
		}
		if tz == "" {
			return
		}
		if !zoneShape.MatchString(tz) || len(tz) > 64 || tz == "Local" || tz == "localtime" {
			t.Fatalf("ValidateTimezone accepted %q, which is not an IANA zone name", tz)
		}
		if _, err := time.LoadLocation(tz); err != nil {
			t.Fatalf("ValidateTimezone accepted %q, which does not load: %v", tz, err)
		}
	})
}

// FuzzCodes: a verification or reset code is accepted only when, trimmed,
// it is exactly the six ASCII digits that were mailed (never another
// spelling: full-width or Arabic-Indic digits, a sign, padding zeros), and
// the mailed code itself always is; a reset token is accepted only as the
// very string handed out. Refusals are 400 invalid_code (or 429 after five).
func FuzzCodes(f *testing.F) {
	f.Add("", "", true, "", false)
	f.Add(" ", "\n", true, "", true)
	f.Add("0", "", true, "", false)
	f.Add("", "", false, "１２３４５６", false)
	f.Add("", "x", true, "", true)
	f.Fuzz(func(t *testing.T, prefix, suffix string, useCode bool, other string, reset bool) {
		ctx := context.Background()
		fx := newFixture(t)
		id, err := fx.svc.SignUp(ctx, "fuzz@x.io", "password1", cl)
		if err != nil {
			t.Fatal(err)
		}
		if reset {
			if _, err := fx.svc.VerifyEmail(ctx, id, fx.mail.code(t, "fuzz@x.io"), cl); err != nil {
				t.Fatal(err)
			}
			if _, err := fx.svc.RequestReset(ctx, "fuzz@x.io", cl); err != nil {
				t.Fatal(err)
			}
		}
		code := fx.mail.code(t, "fuzz@x.io")
		if !regexp.MustCompile(`^[0-9]{6}$`).MatchString(code) {
			t.Fatalf("mailed code %q is not six digits", code)
		}
		input := other
		if useCode {
			input = prefix + code + suffix
		}
		var proof string
		if reset {
			proof, err = fx.svc.VerifyReset(ctx, id, input, cl)
		} else {
			_, err = fx.svc.VerifyEmail(ctx, id, input, cl)
		}
		want := strings.TrimSpace(input) == code
		switch {
		case err == nil && !want:
			t.Fatalf("code %q accepted for the mailed %q", input, code)
		case err != nil && want:
			t.Fatalf("code %q refused for the mailed %q: %v", input, code, err)
		case err != nil && (core.As(err).Kind != core.KindInvalid || core.As(err).Code != "invalid_code"):
			t.Fatalf("code %q: %v, want 400 invalid_code", input, err)
		}
		if !reset || err != nil {
			return
		}
		// The update step takes the reset token only as handed out.
		forged := prefix + proof + suffix
		_, err = fx.svc.UpdatePassword(ctx, id, "password2", accounts.ResetProof{ResetToken: forged}, cl)
		if (err == nil) != (strings.TrimSpace(forged) == proof) {
			t.Fatalf("reset token %q for %q: %v", forged, proof, err)
		}
	})
}

// FuzzNormalizeEmail: an e-mail is accepted only as what mail.ParseAddress
// reads back unchanged, trimmed and lower-cased, at most 254 bytes, with a
// dot in its domain and nothing a text field refuses; normalising is
// idempotent, so one mailbox has one spelling (the unique key).
func FuzzNormalizeEmail(f *testing.F) {
	for _, s := range []string{" Ann@Example.com", "ann", "a@b", "\"a b\"@x.io", "a@x.io\u202e", "A@X.IO.", "a@[127.0.0.1]", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e, err := accounts.NormalizeEmail(s)
		if err != nil {
			if ce := core.As(err); ce.Kind != core.KindInvalid || ce.Code != "invalid_request" {
				t.Fatalf("NormalizeEmail(%q): %v, want 400 invalid_request", s, err)
			}
			return
		}
		at := strings.LastIndex(e, "@")
		switch {
		case e != strings.ToLower(strings.TrimSpace(s)) || len(e) > accounts.MaxEmail:
			t.Fatalf("NormalizeEmail(%q) = %q", s, e)
		case at < 1 || !strings.Contains(e[at+1:], "."):
			t.Fatalf("NormalizeEmail(%q) = %q: no domain with a dot", s, e)
		case core.CheckText("email", e, false) != nil || strings.ContainsAny(e, " \t"):
			t.Fatalf("NormalizeEmail(%q) = %q holds what a text refuses", s, e)
		}
		if again, err := accounts.NormalizeEmail(e); err != nil || again != e {
			t.Fatalf("NormalizeEmail(%q) = %q, then %q, %v", s, e, again, err)
		}
	})
}
