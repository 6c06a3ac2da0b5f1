// This file holds the tests of sign-up, of the mailed verification codes
// and of the password reset.

package accounts_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"tandem/core"
	"tandem/core/coretest"
	"tandem/modules/accounts"
)

func TestSignUpRules(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cases := []struct {
		name     string
		email    string
		password string
		kind     core.Kind
		code     string
	}{
		{"valid", " Ann@Example.COM ", "password1", 0, ""},
		{"empty e-mail", "", "password1", core.KindInvalid, "invalid_request"},
		{"not an address", "ann", "password1", core.KindInvalid, "invalid_request"},
		{"e-mail of 10 KB", strings.Repeat("a", 10240) + "@x.io", "password1", core.KindInvalid, "invalid_request"},
		{"password of 7", "b@x.io", "1234567", core.KindInvalid, "invalid_request"},
		{"password of 129", "b@x.io", strings.Repeat("p", 129), core.KindInvalid, "invalid_request"},
		{"password of 128 multibyte", "c@x.io", strings.Repeat("é", 128), 0, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			id, err := f.svc.SignUp(ctx, tc.email, tc.password, cl)
			if tc.code != "" {
				coretest.WantErr(t, err, tc.kind, tc.code)
				if len(f.mail.all()) != 0 {
					t.Fatal("mail sent for a refused sign-up")
				}
				return
			}
			if err != nil || id == "" {
				t.Fatalf("id %q err %v", id, err)
			}
			a, _ := f.repo.Get(ctx, id)
			if a.Email != strings.ToLower(strings.TrimSpace(tc.email)) || a.Verified || a.PasswordHash == tc.password {
				t.Fatalf("stored %+v", a)
			}
		})
	}
}

func TestVerificationCodeRules(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("correct code verifies once, then is spent", func(t *testing.T) {
		f := newFixture(t)
		id, _ := f.svc.SignUp(ctx, "a@x.io", "password1", cl)
		code := f.mail.code(t, "a@x.io")
		tok, err := f.svc.VerifyEmail(ctx, id, code, cl)
		if err != nil || tok.Token == "" || tok.PasswordRequired {
			t.Fatal(err)
		}
		_, err = f.svc.VerifyEmail(ctx, id, code, cl)
		coretest.WantErr(t, err, core.KindInvalid, "invalid_code")
	})
	t.Run("expires after 15 minutes", func(t *testing.T) {
		f := newFixture(t)
		id, _ := f.svc.SignUp(ctx, "a@x.io", "password1", cl)
		code := f.mail.code(t, "a@x.io")
		f.clock.Advance(15 * time.Minute)
		_, err := f.svc.VerifyEmail(ctx, id, code, cl)
		coretest.WantErr(t, err, core.KindInvalid, "invalid_code")
	})
	t.Run("dead after 5 wrong tries, even for the right code", func(t *testing.T) {
		f := newFixture(t)
		id, _ := f.svc.SignUp(ctx, "a@x.io", "password1", cl)
		code := f.mail.code(t, "a@x.io")
		wrong := "000000"
		if code == wrong {
			wrong = "111111"
		}
		for i := 0; i < 5; i++ {
			_, err := f.svc.VerifyEmail(ctx, id, wrong, cl)
			coretest.WantErr(t, err, core.KindInvalid, "invalid_code")
		}
		_, err := f.svc.VerifyEmail(ctx, id, code, cl)
		coretest.WantErr(t, err, core.KindRateLimited, "too_many_attempts")
		if core.As(err).RetryAfter <= 0 {
			t.Fatal("no Retry-After")
		}
	})
	t.Run("signing up again sends a new code and kills the old one", func(t *testing.T) {
		f := newFixture(t)
		id, _ := f.svc.SignUp(ctx, "a@x.io", "password1", cl)
		old := f.mail.code(t, "a@x.io")
		id2, err := f.svc.SignUp(ctx, "a@x.io", "password1", cl)
		if err != nil || id2 != id {
			t.Fatalf("id %s/%s err %v", id, id2, err)
		}
		fresh := f.mail.code(t, "a@x.io")
		if old != fresh {
			_, err = f.svc.VerifyEmail(ctx, id, old, cl)
			coretest.WantErr(t, err, core.KindInvalid, "invalid_code")
		}
		if _, err := f.svc.VerifyEmail(ctx, id, fresh, cl); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("a verified e-mail is taken", func(t *testing.T) {
		f := newFixture(t)
		f.verified(t, "a@x.io")
		_, err := f.svc.SignUp(ctx, "A@x.io", "password1", cl)
		coretest.WantErr(t, err, core.KindConflict, "email_already_registered")
	})
	t.Run("at most 5 codes per e-mail per hour", func(t *testing.T) {
		f := newFixture(t)
		for i := 0; i < 5; i++ {
			if _, err := f.svc.SignUp(ctx, "a@x.io", "password1", cl); err != nil {
				t.Fatal(err)
			}
			f.mail.all() // each sent before the next replaces it
		}
		_, err := f.svc.SignUp(ctx, "a@x.io", "password1", cl)
		coretest.WantErr(t, err, core.KindRateLimited, "rate_limited")
		_, err = f.svc.RequestReset(ctx, "a@x.io", cl)
		coretest.WantErr(t, err, core.KindRateLimited, "rate_limited")
		if n := len(f.mail.all()); n != 5 {
			t.Fatalf("%d mails", n)
		}
		f.clock.Advance(time.Hour)
		if _, err := f.svc.SignUp(ctx, "a@x.io", "password1", cl); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("unknown user", func(t *testing.T) {
		f := newFixture(t)
		_, err := f.svc.VerifyEmail(ctx, "ghost", "123456", cl)
		coretest.WantErr(t, err, core.KindNotFound, "user_not_found")
	})
}

func TestResetRules(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("request, verify, update revokes every older token", func(t *testing.T) {
		f := newFixture(t)
		id, tok1 := f.verified(t, "a@x.io")
		_, tok2, _ := f.svc.Login(ctx, "a@x.io", "password1", cl)
		if _, err := f.svc.Authenticate(ctx, tok1); err != nil { // warm the cache
			t.Fatal(err)
		}
		rid, err := f.svc.RequestReset(ctx, "A@x.io", cl)
		if err != nil || rid != id {
			t.Fatalf("%s %v", rid, err)
		}
		code := f.mail.code(t, "a@x.io")
		_, err = f.svc.UpdatePassword(ctx, id, "new-password", accounts.ResetProof{Code: code}, cl)
		coretest.WantErr(t, err, core.KindInvalid, "invalid_code") // not verified yet
		proof, err := f.svc.VerifyReset(ctx, id, code, cl)
		if err != nil || len(proof) < 40 {
			t.Fatalf("proof %q: %v", proof, err)
		}
		tok3, err := f.svc.UpdatePassword(ctx, id, "new-password", accounts.ResetProof{ResetToken: proof}, cl)
		if err != nil || tok3 == "" {
			t.Fatal(err)
		}
		for _, old := range []string{tok1, tok2} {
			_, err := f.svc.Authenticate(ctx, old)
			coretest.WantErr(t, err, core.KindUnauthorized, "unauthorized")
		}
		if p, err := f.svc.Authenticate(ctx, tok3); err != nil || p.UserID != id {
			t.Fatal(err)
		}
		_, _, err = f.svc.Login(ctx, "a@x.io", "password1", cl)
		coretest.WantErr(t, err, core.KindUnauthorized, "invalid_credentials")
		_, err = f.svc.UpdatePassword(ctx, id, "another-password", accounts.ResetProof{ResetToken: proof}, cl)
		coretest.WantErr(t, err, core.KindInvalid, "invalid_code") // the proof is spent
		_, err = f.svc.UpdatePassword(ctx, id, "another-password", accounts.ResetProof{Code: code}, cl)
		coretest.WantErr(t, err, core.KindInvalid, "invalid_code") // and so is the code
	})
	t.Run("unknown e-mail", func(t *testing.T) {
		f := newFixture(t)
		_, err := f.svc.RequestReset(ctx, "ghost@x.io", cl)
		coretest.WantErr(t, err, core.KindNotFound, "user_not_found")
	})
	t.Run("wrong and expired codes", func(t *testing.T) {
		f := newFixture(t)
		id, _ := f.verified(t, "a@x.io")
		_, _ = f.svc.RequestReset(ctx, "a@x.io", cl)
		code := f.mail.code(t, "a@x.io")
		wrong := "000000"
		if code == wrong {
			wrong = "111111"
		}
		_, err := f.svc.VerifyReset(ctx, id, wrong, cl)
		coretest.WantErr(t, err, core.KindInvalid, "invalid_code")
		f.clock.Advance(16 * time.Minute)
		_, err = f.svc.VerifyReset(ctx, id, code, cl)
		coretest.WantErr(t, err, core.KindInvalid, "invalid_code")
	})
	t.Run("the update step needs proof: none, wrong, or expired is invalid_code and changes nothing", func(t *testing.T) {
		f := newFixture(t)
		id, _ := f.verified(t, "a@x.io")
		_, _ = f.svc.RequestReset(ctx, "a@x.io", cl)
		code := f.mail.code(t, "a@x.io")
		proof, err := f.svc.VerifyReset(ctx, id, code, cl)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range []accounts.ResetProof{{}, {Code: "not-it"}, {ResetToken: "forged-token"}} {
			_, err := f.svc.UpdatePassword(ctx, id, "new-password", p, cl)
			coretest.WantErr(t, err, core.KindInvalid, "invalid_code")
		}
		f.clock.Advance(accounts.ResetProofTTL)
		_, err = f.svc.UpdatePassword(ctx, id, "new-password", accounts.ResetProof{ResetToken: proof}, cl)
		coretest.WantErr(t, err, core.KindInvalid, "invalid_code") // the token lives 10 minutes
		f.clock.Advance(5 * time.Minute)
		_, err = f.svc.UpdatePassword(ctx, id, "new-password", accounts.ResetProof{Code: code}, cl)
		coretest.WantErr(t, err, core.KindInvalid, "invalid_code") // the code lives 15
		if _, _, err := f.svc.Login(ctx, "a@x.io", "password1", cl); err != nil {
			t.Fatalf("the password must be unchanged: %v", err)
		}
	})
	t.Run("wrong proofs count against the code", func(t *testing.T) {
		f := newFixture(t)
		id, _ := f.verified(t, "a@x.io")
		_, _ = f.svc.RequestReset(ctx, "a@x.io", cl)
		code := f.mail.code(t, "a@x.io")
		if _, err := f.svc.VerifyReset(ctx, id, code, cl); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < accounts.CodeMaxAttempts; i++ {
			_, _ = f.svc.UpdatePassword(ctx, id, "new-password", accounts.ResetProof{ResetToken: "guess"}, cl)
		}
		_, err := f.svc.UpdatePassword(ctx, id, "new-password", accounts.ResetProof{Code: code}, cl)
		coretest.WantErr(t, err, core.KindRateLimited, "too_many_attempts")
	})
	t.Run("a reset of a never-verified account verifies the e-mail", func(t *testing.T) {
		f := newFixture(t)
		id, _ := f.svc.SignUp(ctx, "a@x.io", "password1", cl)
		_, _ = f.svc.RequestReset(ctx, "a@x.io", cl)
		code := f.mail.code(t, "a@x.io")
		if _, err := f.svc.VerifyReset(ctx, id, code, cl); err != nil {
			t.Fatal(err)
		}
		if _, err := f.svc.UpdatePassword(ctx, id, "new-password", accounts.ResetProof{Code: code}, cl); err != nil {
			t.Fatal(err)
		}
		if _, _, err := f.svc.Login(ctx, "a@x.io", "new-password", cl); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("new password is validated", func(t *testing.T) {
		f := newFixture(t)
		id, _ := f.verified(t, "a@x.io")
		_, err := f.svc.UpdatePassword(ctx, id, "short", accounts.ResetProof{Code: "123456"}, cl)
		coretest.WantErr(t, err, core.KindInvalid, "invalid_request")
	})
}
