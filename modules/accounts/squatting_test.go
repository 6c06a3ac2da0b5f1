package accounts_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"tandem/core"
	"tandem/core/coretest"
	"tandem/modules/accounts"
)

// Whoever types an address may not own it: a pending account whose
// sign-ups disagree on the password keeps none of them, and an
// administrator's password is never one chosen before the address was
// proven.
func TestDisputedSignUpKeepsNoPassword(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		email    string
		signUps  []string // passwords, in order; the owner verifies after the last
		required bool
	}{
		{"one sign-up", "a@x.io", []string{"owner-pass"}, false},
		{"the same password twice", "a@x.io", []string{"owner-pass", "owner-pass"}, false},
		{"a stranger first, then the owner", "a@x.io", []string{"stranger-pass", "owner-pass"}, true},
		{"the owner first, then a stranger", "a@x.io", []string{"owner-pass", "stranger-pass"}, true},
		{"stranger, owner, stranger again", "a@x.io", []string{"stranger-pass", "owner-pass", "stranger-pass"}, true},
		{"a configured administrator alone", "boss@x.io", []string{"owner-pass"}, true},
		{"a stranger squatting an administrator", "BOSS@x.io", []string{"stranger-pass", "owner-pass"}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			f := newFixture(t)
			var id string
			for i, p := range tc.signUps {
				got, err := f.svc.SignUp(ctx, tc.email, p, accounts.Client{IP: fmt.Sprintf("192.0.2.%d", i)})
				if err != nil || (id != "" && got != id) {
					t.Fatalf("sign-up %d: %s %v", i, got, err)
				}
				id = got
			}
			email := strings.ToLower(tc.email)
			v, err := f.svc.VerifyEmail(ctx, id, f.mail.code(t, email), cl)
			if err != nil || v.Token == "" || v.PasswordRequired != tc.required {
				t.Fatalf("verify: %+v %v, want passwordRequired %v", v, err, tc.required)
			}
			if _, err := f.svc.Authenticate(ctx, v.Token); err != nil {
				t.Fatalf("the verification token: %v", err)
			}
			if !tc.required {
				if _, _, err := f.svc.Login(ctx, email, "owner-pass", cl); err != nil {
					t.Fatalf("login: %v", err)
				}
				return
			}
			for _, p := range tc.signUps {
				_, _, err := f.svc.Login(ctx, email, p, cl)
				coretest.WantErr(t, err, core.KindUnauthorized, "invalid_credentials")
				_, _, err = f.svc.LoginAdmin(ctx, email, p, cl)
				coretest.WantErr(t, err, core.KindUnauthorized, "invalid_credentials")
			}
			if a, _ := f.svc.Profile(ctx, id); a.PasswordHash != "" {
				t.Fatalf("a password survived: %q", a.PasswordHash)
			}
			// The owner, signed in by the code, sets a password.
			tok, err := f.svc.ChangePassword(ctx, id, f.clock.Now(), "", "chosen-after", cl)
			if err != nil || tok == "" {
				t.Fatalf("set: %v", err)
			}
			if _, err := f.svc.Authenticate(ctx, v.Token); !core.IsKind(err, core.KindUnauthorized) {
				t.Fatalf("the earlier token survived the password change: %v", err)
			}
			if _, _, err := f.svc.Login(ctx, email, "chosen-after", cl); err != nil {
				t.Fatalf("login with the password set after: %v", err)
			}
			if _, _, err := f.svc.Login(ctx, email, tc.signUps[0], cl); !core.IsKind(err, core.KindUnauthorized) {
				t.Fatalf("the first sign-up's password: %v", err)
			}
		})
	}
}

// A pending account's password is never set by a later sign-up, so a
// squatter cannot put theirs back after the owner's sign-up cleared it.
func TestClearedPasswordStaysCleared(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	id, _ := f.svc.SignUp(ctx, "a@x.io", "stranger-pass", cl)
	_, _ = f.svc.SignUp(ctx, "a@x.io", "owner-pass", cl)
	_, _ = f.svc.SignUp(ctx, "a@x.io", "stranger-pass", cl)
	v, err := f.svc.VerifyEmail(ctx, id, f.mail.code(t, "a@x.io"), cl)
	if err != nil || !v.PasswordRequired {
		t.Fatalf("%+v %v", v, err)
	}
}

func TestChangePasswordRules(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cases := []struct {
		name, current, next string
		kind                core.Kind
		code                string
	}{
		{"the current password is required", "", "password2", core.KindInvalid, "invalid_request"},
		{"a wrong current password", "wrong-one", "password2", core.KindForbidden, "invalid_credentials"},
		{"a short new password", "password1", "short", core.KindInvalid, "invalid_request"},
		{"the right current password", "password1", "password2", 0, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			id, old := f.verified(t, "a@x.io")
			tok, err := f.svc.ChangePassword(ctx, id, f.clock.Now(), tc.current, tc.next, cl)
			if tc.kind != 0 {
				coretest.WantErr(t, err, tc.kind, tc.code)
				if _, _, err := f.svc.Login(ctx, "a@x.io", "password1", cl); err != nil {
					t.Fatalf("a refused change changed the password: %v", err)
				}
				if _, err := f.svc.Authenticate(ctx, old); err != nil {
					t.Fatalf("a refused change revoked the token: %v", err)
				}
				return
			}
			if _, err := f.svc.Authenticate(ctx, tok); err != nil {
				t.Fatalf("the new token: %v", err)
			}
			if _, err := f.svc.Authenticate(ctx, old); !core.IsKind(err, core.KindUnauthorized) {
				t.Fatalf("the old token survived: %v", err)
			}
			if _, _, err := f.svc.Login(ctx, "a@x.io", tc.next, cl); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// A stolen token guessing the current password is counted like a login.
func TestChangePasswordGuessesAreCounted(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	id, _ := f.verified(t, "a@x.io")
	for range 10 {
		_, err := f.svc.ChangePassword(ctx, id, f.clock.Now(), "wrong-one", "password2", cl)
		coretest.WantErr(t, err, core.KindForbidden, "invalid_credentials")
	}
	_, err := f.svc.ChangePassword(ctx, id, f.clock.Now(), "password1", "password2", cl)
	coretest.WantErr(t, err, core.KindRateLimited, "rate_limited")
}

// Wrong codes are counted per (code, client IP) first: a stranger's guesses
// from one address stop there and never spend the owner's code. The code
// still dies after CodeMaxAttempts wrong tries from anywhere.
func TestCodeTriesAreCountedPerIP(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	stranger := accounts.Client{IP: "203.0.113.9"}
	for _, p := range []accounts.Purpose{accounts.PurposeVerify, accounts.PurposeReset} {
		t.Run(string(p), func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			var id string
			if p == accounts.PurposeVerify {
				id, _ = f.svc.SignUp(ctx, "a@x.io", "password1", cl)
			} else {
				id, _ = f.verified(t, "a@x.io")
				_, _ = f.svc.RequestReset(ctx, "a@x.io", cl)
			}
			code := f.mail.code(t, "a@x.io")
			check := func(code string, c accounts.Client) error {
				if p == accounts.PurposeVerify {
					_, err := f.svc.VerifyEmail(ctx, id, code, c)
					return err
				}
				_, err := f.svc.VerifyReset(ctx, id, code, c)
				return err
			}
			wrong := wrongCode(code)
			for range accounts.CodeTriesPerIP {
				coretest.WantErr(t, check(wrong, stranger), core.KindInvalid, "invalid_code")
			}
			coretest.WantErr(t, check(code, stranger), core.KindRateLimited, "too_many_attempts")
			if err := check(code, cl); err != nil {
				t.Fatalf("the owner's code was spent by a stranger: %v", err)
			}
		})
	}
	t.Run("the code's ceiling across addresses", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		id, _ := f.svc.SignUp(ctx, "a@x.io", "password1", cl)
		code := f.mail.code(t, "a@x.io")
		for i := range accounts.CodeMaxAttempts {
			_, err := f.svc.VerifyEmail(ctx, id, wrongCode(code), accounts.Client{IP: fmt.Sprintf("203.0.113.%d", i)})
			coretest.WantErr(t, err, core.KindInvalid, "invalid_code")
		}
		_, err := f.svc.VerifyEmail(ctx, id, code, cl)
		coretest.WantErr(t, err, core.KindRateLimited, "too_many_attempts")
	})
}

// Requests for a mailed code are counted per (e-mail, client IP): a
// stranger's requests cannot stop the owner's from elsewhere, up to a
// ceiling per e-mail.
func TestCodeRequestsAreCountedPerIP(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	f.verified(t, "a@x.io")
	stranger := accounts.Client{IP: "203.0.113.9"}
	for range 5 {
		if _, err := f.svc.RequestReset(ctx, "a@x.io", stranger); err != nil {
			t.Fatal(err)
		}
	}
	_, err := f.svc.RequestReset(ctx, "a@x.io", stranger)
	coretest.WantErr(t, err, core.KindRateLimited, "rate_limited")
	before := len(f.mail.all())
	if _, err := f.svc.RequestReset(ctx, "a@x.io", cl); err != nil {
		t.Fatalf("the owner from another address: %v", err)
	}
	if n := len(f.mail.all()); n != before+1 {
		t.Fatalf("%d mails, want %d", n, before+1)
	}
	for i := range 3 { // the ceiling per e-mail: 10 in the hour, from anywhere
		if _, err := f.svc.RequestReset(ctx, "a@x.io", accounts.Client{IP: fmt.Sprintf("192.0.2.%d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	_, err = f.svc.RequestReset(ctx, "a@x.io", accounts.Client{IP: "192.0.2.200"})
	coretest.WantErr(t, err, core.KindRateLimited, "rate_limited")
}

func wrongCode(code string) string {
	if code == "000000" {
		return "000001"
	}
	return "000000"
}

func TestNormalizeEmailFolds(t *testing.T) {
	t.Parallel()
	cases := []struct{ in, want, code string }{
		{" Ann@Example.COM ", "ann@example.com", ""},
		{"ｖictim@example.com", "victim@example.com", ""},    // full-width v
		{"ＶＩＣＴＩＭ@ｅｘａｍｐｌｅ.com", "victim@example.com", ""},    // full-width upper case
		{"victim\u200b@example.com", "", "invalid_request"}, // zero-width space (Cf)
		{"\u2060victim@example.com", "", "invalid_request"}, // word joiner (Cf)
		{"vic\u00adtim@example.com", "", "invalid_request"}, // soft hyphen (Cf)
		{"victim@exa\ufeffmple.com", "", "invalid_request"}, // BOM (Cf)
	}
	for _, tc := range cases {
		got, err := accounts.NormalizeEmail(tc.in)
		if tc.code != "" {
			coretest.WantErr(t, err, core.KindInvalid, tc.code)
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("NormalizeEmail(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

// Two spellings of one address are one account, at sign-up and login.
func TestLookAlikeAddressesAreOneAccount(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	f.verified(t, "victim@example.com")
	_, err := f.svc.SignUp(ctx, "ｖictim@example.com", "password1", cl)
	coretest.WantErr(t, err, core.KindConflict, "email_already_registered")
	if _, _, err := f.svc.Login(ctx, "ＶICTIM@example.com", "password1", cl); err != nil {
		t.Fatalf("login with the full-width spelling: %v", err)
	}
}

func TestVerificationMailSaysToIgnoreIt(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	_, _ = f.svc.SignUp(context.Background(), "a@x.io", "password1", cl)
	m := f.mail.all()
	if len(m) != 1 || !strings.Contains(m[0].Text, "If you did not ask for it, ignore this e-mail") {
		t.Fatalf("%+v", m)
	}
}
