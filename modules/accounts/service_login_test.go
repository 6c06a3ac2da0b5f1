// This file holds the tests of login and tokens: the rules, the lock after
// ten failures, the console's own sign-in and its counter, and console
// sessions kept apart from app tokens.

package accounts_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"tandem/core"
	"tandem/core/coretest"
	"tandem/modules/accounts"
)

func TestLoginRules(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	id, _ := f.verified(t, "a@x.io")
	_, _ = f.svc.SignUp(ctx, "pending@x.io", "password1", cl)

	cases := []struct {
		name, email, password string
		kind                  core.Kind
		code                  string
	}{
		{"missing e-mail", "", "password1", core.KindInvalid, "invalid_request"},
		{"missing password", "a@x.io", "", core.KindInvalid, "invalid_request"},
		{"wrong password", "a@x.io", "nope-nope", core.KindUnauthorized, "invalid_credentials"},
		{"unknown e-mail", "ghost@x.io", "password1", core.KindUnauthorized, "invalid_credentials"},
		{"unverified", "pending@x.io", "password1", core.KindForbidden, "email_not_verified"},
	}
	for _, tc := range cases {
		_, _, err := f.svc.Login(ctx, tc.email, tc.password, cl)
		coretest.WantErr(t, err, tc.kind, tc.code)
	}
	uid, tok, err := f.svc.Login(ctx, " A@X.io ", "password1", cl)
	if err != nil || uid != id || tok == "" {
		t.Fatalf("login: %s %s %v", uid, tok, err)
	}
}

func TestTenFailedLoginsIn15MinutesLockTheEmail(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	f.verified(t, "a@x.io")
	for i := 0; i < 10; i++ {
		_, _, err := f.svc.Login(ctx, "a@x.io", "wrong-password", cl)
		coretest.WantErr(t, err, core.KindUnauthorized, "invalid_credentials")
	}
	_, _, err := f.svc.Login(ctx, "a@x.io", "password1", cl)
	coretest.WantErr(t, err, core.KindRateLimited, "rate_limited")
	f.clock.Advance(15 * time.Minute)
	if _, _, err := f.svc.Login(ctx, "a@x.io", "password1", cl); err != nil {
		t.Fatal(err)
	}
}

func TestTokens(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	id, tok := f.verified(t, "a@x.io")

	if _, err := f.svc.Authenticate(ctx, tok); err != nil {
		t.Fatal(err)
	}
	if _, ok := f.cache.m[accounts.HashToken(tok)]; !ok {
		t.Fatal("a resolved token is cached, by its hash")
	}
	if err := f.svc.Logout(ctx, id, tok, false); err != nil {
		t.Fatal(err)
	}
	_, err := f.svc.Authenticate(ctx, tok)
	coretest.WantErr(t, err, core.KindUnauthorized, "unauthorized")

	_, tok2, _ := f.svc.Login(ctx, "a@x.io", "password1", cl)
	if _, err := f.svc.Authenticate(ctx, tok2); err != nil { // cached from here on
		t.Fatal(err)
	}
	f.clock.Advance(accounts.TokenTTL)
	if _, ok := f.cache.m[accounts.HashToken(tok2)]; !ok {
		t.Fatal("the expired session is still in the cache: the service must judge it by its own clock")
	}
	_, err = f.svc.Authenticate(ctx, tok2)
	coretest.WantErr(t, err, core.KindUnauthorized, "unauthorized")
	_, err = f.svc.Authenticate(ctx, "")
	coretest.WantErr(t, err, core.KindUnauthorized, "unauthorized")
	_ = id
}

func TestLoginAdminRules(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, email, password string
		grant                 bool
		wantKind              core.Kind
		wantCode              string
	}{
		{name: "a configured administrator", email: "boss@x.io", password: "password1"},
		{name: "a granted administrator", email: "ann@x.io", password: "password1", grant: true},
		{name: "a user who is no administrator", email: "ann@x.io", password: "password1", wantKind: core.KindForbidden, wantCode: "forbidden"},
		{name: "a wrong password", email: "boss@x.io", password: "password2", wantKind: core.KindUnauthorized, wantCode: "invalid_credentials"},
		{name: "an unknown e-mail", email: "ghost@x.io", password: "password1", wantKind: core.KindUnauthorized, wantCode: "invalid_credentials"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			f := newFixture(t)
			f.verified(t, "boss@x.io")
			annID, _ := f.verified(t, "ann@x.io")
			if tc.grant {
				if err := f.svc.SetAdmin(ctx, "ann@x.io", true); err != nil {
					t.Fatal(err)
				}
			}
			before, _ := f.svc.Sessions(ctx, annID)
			p, token, err := f.svc.LoginAdmin(ctx, tc.email, tc.password, cl)
			if tc.wantKind != 0 {
				coretest.WantErr(t, err, tc.wantKind, tc.wantCode)
				if after, _ := f.svc.Sessions(ctx, annID); token != "" || len(after) != len(before) {
					t.Fatalf("a refused sign-in got a session: %q, %d sessions", token, len(after))
				}
				return
			}
			got, aerr := f.svc.AuthenticateConsole(ctx, token)
			if err != nil || aerr != nil || !p.Admin || got != p || !strings.HasPrefix(token, accounts.ConsolePrefix) {
				t.Fatalf("got %+v %v, authenticates as %+v %v", p, err, got, aerr)
			}
		})
	}
}

// A console session and an app token never open each other's door, and a
// console session ends after ConsoleTTL.
func TestConsoleSessionsAndAppTokensAreApart(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	f.verified(t, "boss@x.io")
	_, console, err := f.svc.LoginAdmin(ctx, "boss@x.io", "password1", cl)
	if err != nil {
		t.Fatal(err)
	}
	_, app, err := f.svc.Login(ctx, "boss@x.io", "password1", cl)
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.svc.Authenticate(ctx, console)
	coretest.WantErr(t, err, core.KindUnauthorized, "unauthorized")
	_, err = f.svc.AuthenticateConsole(ctx, app)
	coretest.WantErr(t, err, core.KindUnauthorized, "unauthorized")
	if _, err := f.svc.Authenticate(ctx, app); err != nil {
		t.Fatalf("the app token: %v", err)
	}
	f.clock.Advance(accounts.ConsoleTTL)
	_, err = f.svc.AuthenticateConsole(ctx, console)
	coretest.WantErr(t, err, core.KindUnauthorized, "unauthorized")
}

// The console counts its own sign-ins: a stranger's failed API logins for
// an administrator's e-mail never lock the console (nor the reverse), and
// the console's own failures lock it per (e-mail, client IP).
func TestLoginAdminHasItsOwnAttemptCounter(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	f.verified(t, "boss@x.io")
	for i := range 110 {
		stranger := accounts.Client{IP: fmt.Sprintf("203.0.113.%d", i/10)}
		_, _, err := f.svc.Login(ctx, "boss@x.io", "wrong-one", stranger)
		if !core.IsKind(err, core.KindUnauthorized) && !core.IsKind(err, core.KindRateLimited) {
			t.Fatalf("login %d: %v", i, err)
		}
	}
	if _, _, err := f.svc.LoginAdmin(ctx, "boss@x.io", "password1", cl); err != nil {
		t.Fatalf("the console is locked by API failures: %v", err)
	}
	for range 10 {
		_, _, err := f.svc.LoginAdmin(ctx, "boss@x.io", "wrong-one", cl)
		coretest.WantErr(t, err, core.KindUnauthorized, "invalid_credentials")
	}
	_, _, err := f.svc.LoginAdmin(ctx, "boss@x.io", "password1", cl)
	coretest.WantErr(t, err, core.KindRateLimited, "rate_limited")
	if _, _, err := f.svc.LoginAdmin(ctx, "boss@x.io", "password1", accounts.Client{IP: "192.0.2.99"}); err != nil {
		t.Fatalf("the owner from another address: %v", err)
	}
}
