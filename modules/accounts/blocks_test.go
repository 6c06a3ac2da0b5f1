package accounts_test

import (
	"context"
	"strings"
	"testing"

	"tandem/core"
	"tandem/core/coretest"
	"tandem/modules/accounts"
)

// A blocked account: its tokens are dead at once, and every way in that
// hands out a session refuses it with 403 account_blocked once the caller
// proved who they are; a wrong password still says only that. Unblocked,
// it signs in again.
func TestABlockedAccountGetsNoSession(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	id, tok := f.verified(t, "ann@x.io")
	f.tokens["google/ann"] = accounts.IdentityClaim{Provider: "google", Subject: "g1", Email: "ann@x.io", EmailVerified: true}
	if _, _, _, err := f.svc.SignIn(ctx, accounts.SignInRequest{Provider: "google", IDToken: "ann"}, cl); err != nil {
		t.Fatal(err) // linked while unblocked
	}
	if _, err := f.svc.Authenticate(ctx, tok); err != nil {
		t.Fatal(err)
	}
	if err := f.svc.SetBlocked(ctx, id, true); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.Authenticate(ctx, tok); !core.IsKind(err, core.KindUnauthorized) {
		t.Fatalf("the old token: %v", err)
	}
	if ss, _ := f.svc.Sessions(ctx, id); len(ss) != 0 {
		t.Fatalf("sessions left: %+v", ss)
	}
	_, _, err := f.svc.Login(ctx, "ann@x.io", "password1", cl)
	coretest.WantErr(t, err, core.KindForbidden, "account_blocked")
	_, _, err = f.svc.Login(ctx, "ann@x.io", "wrong-password", cl)
	coretest.WantErr(t, err, core.KindUnauthorized, "invalid_credentials")
	_, _, _, err = f.svc.SignIn(ctx, accounts.SignInRequest{Provider: "google", IDToken: "ann"}, cl)
	coretest.WantErr(t, err, core.KindForbidden, "account_blocked")
	_, err = f.svc.StartSession(ctx, id, cl) // a passkey's sign-in
	coretest.WantErr(t, err, core.KindForbidden, "account_blocked")
	if _, err := f.svc.RequestReset(ctx, "ann@x.io", cl); err != nil {
		t.Fatal(err)
	}
	_, err = f.svc.UpdatePassword(ctx, id, "password2", accounts.ResetProof{Code: f.mail.code(t, "ann@x.io")}, cl)
	coretest.WantErr(t, err, core.KindForbidden, "account_blocked")
	if ss, _ := f.svc.Sessions(ctx, id); len(ss) != 0 {
		t.Fatalf("a refused way in left a session: %+v", ss)
	}

	if err := f.svc.SetBlocked(ctx, id, false); err != nil {
		t.Fatal(err)
	}
	_, tok, err = f.svc.Login(ctx, "ann@x.io", "password1", cl)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.Authenticate(ctx, tok); err != nil {
		t.Fatal(err)
	}
	coretest.WantErr(t, f.svc.SetBlocked(ctx, "nobody", true), core.KindNotFound, "user_not_found")
}

// A pending account that is blocked cannot verify its way to a session.
func TestABlockedPendingAccountIsNotSignedInByItsCode(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	id, err := f.svc.SignUp(ctx, "kim@x.io", "password1", cl)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.svc.SetBlocked(ctx, id, true); err != nil {
		t.Fatal(err)
	}
	_, err = f.svc.VerifyEmail(ctx, id, f.mail.code(t, "kim@x.io"), cl)
	coretest.WantErr(t, err, core.KindForbidden, "account_blocked")
}

func TestDecideSignInRefusesABlockedAccount(t *testing.T) {
	t.Parallel()
	blocked := accounts.Account{ID: "u1", Email: "a@x.io", Verified: true, Blocked: true}
	c := accounts.IdentityClaim{Provider: "google", Subject: "g1", Email: "a@x.io", EmailVerified: true}
	for name, st := range map[string]accounts.SignInState{
		"linked":      {Identity: &accounts.Identity{Provider: "google", Subject: "g1", UserID: "u1"}, Linked: &blocked},
		"by e-mail":   {ByEmail: &blocked},
		"a take-over": {ByEmail: &accounts.Account{ID: "u1", Email: "a@x.io", Blocked: true}},
	} {
		_, err := accounts.DecideSignIn(c, "new", coretest.NewClock(blocked.CreatedAt).Now())(st)
		if !core.IsKind(err, core.KindForbidden) || core.As(err).Code != "account_blocked" {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestAdministratorsChanges(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	ann, tok := f.verified(t, "ann@x.io")
	pending, err := f.svc.SignUp(ctx, "kim@x.io", "password1", cl)
	if err != nil {
		t.Fatal(err)
	}

	if err := f.svc.EndSessions(ctx, ann); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.Authenticate(ctx, tok); !core.IsKind(err, core.KindUnauthorized) {
		t.Fatalf("a session survived: %v", err)
	}
	if _, _, err := f.svc.Login(ctx, "ann@x.io", "password1", cl); err != nil {
		t.Fatalf("ending sessions took a way in: %v", err)
	}

	if err := f.svc.MarkVerified(ctx, pending); err != nil {
		t.Fatal(err)
	}
	if a, _ := f.svc.Profile(ctx, pending); !a.Verified {
		t.Fatalf("%+v", a)
	}
	coretest.WantErr(t, f.svc.MarkVerified(ctx, pending), core.KindConflict, "already_verified")

	before := len(f.mail.all())
	if err := f.svc.StartReset(ctx, ann); err != nil {
		t.Fatal(err)
	}
	all := f.mail.all()
	if len(all) != before+1 || all[len(all)-1].To != "ann@x.io" || !strings.Contains(all[len(all)-1].Subject, "eset") {
		t.Fatalf("mails %+v", all[before:])
	}
	if _, err := f.svc.VerifyReset(ctx, ann, f.mail.code(t, "ann@x.io"), cl); err != nil {
		t.Fatalf("the mailed code does not reset: %v", err)
	}

	as, next, err := f.svc.List(ctx, core.Page{Limit: 1})
	if err != nil || len(as) != 1 || next == "" {
		t.Fatalf("%+v %q %v", as, next, err)
	}
	if !f.svc.IsConfiguredAdmin(accounts.Account{Email: "boss@x.io"}) || f.svc.IsConfiguredAdmin(accounts.Account{Email: "ann@x.io"}) {
		t.Fatal("configured administrators")
	}
}
