package accounts_test

import (
	"context"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"tandem/core"
	"tandem/core/coretest"
	"tandem/modules/accounts"
)

// The sign-in and unlink decisions on what a repository loads: no adapter,
// no service.

func TestDecideSignIn(t *testing.T) {
	t.Parallel()
	now := time.Date(2025, 6, 15, 12, 0, 0, 0, time.UTC)
	verified := accounts.Account{ID: "u1", Email: "a@x.io", PasswordHash: "h", Verified: true}
	pending := accounts.Account{ID: "u2", Email: "a@x.io", PasswordHash: "stranger's"}
	linked := accounts.Identity{Provider: "apple", Subject: "s", UserID: "u1"}
	linkedPending := accounts.Identity{Provider: "apple", Subject: "s", UserID: "u2", Email: "a@x.io"}
	claim := func(email string, ok bool) accounts.IdentityClaim {
		return accounts.IdentityClaim{Provider: "apple", Subject: "s", Email: email, EmailVerified: ok, Name: "Ann"}
	}
	link := func(user, email string) *accounts.Identity {
		return &accounts.Identity{Provider: "apple", Subject: "s", UserID: user, Email: email, CreatedAt: now}
	}
	takenOver := pending
	takenOver.Verified, takenOver.PasswordHash, takenOver.UpdatedAt = true, "", now
	for _, tc := range []struct {
		name  string
		claim accounts.IdentityClaim
		st    accounts.SignInState
		want  accounts.SignInUpdate
		err   string
	}{
		{"a linked subject signs in, whatever its e-mail", claim("b@x.io", false),
			accounts.SignInState{Identity: &linked, Linked: &verified}, accounts.SignInUpdate{Account: verified}, ""},
		{"a verified e-mail joins the verified account", claim("a@x.io", true),
			accounts.SignInState{ByEmail: &verified}, accounts.SignInUpdate{Account: verified, Link: link("u1", "a@x.io")}, ""},
		{"a verified e-mail takes the pending account over, its password dropped", claim("a@x.io", true),
			accounts.SignInState{ByEmail: &pending}, accounts.SignInUpdate{Account: takenOver, Link: link("u2", "a@x.io"), TakeOver: true}, ""},
		{"an unverified e-mail never joins a verified account", claim("a@x.io", false),
			accounts.SignInState{ByEmail: &verified}, accounts.SignInUpdate{}, "email_not_verified"},
		{"nor a pending one", claim("a@x.io", false),
			accounts.SignInState{ByEmail: &pending}, accounts.SignInUpdate{}, "email_not_verified"},
		{"nor makes an account for a free address", claim("n@x.io", false), accounts.SignInState{},
			accounts.SignInUpdate{}, "email_not_verified"},
		{"a subject linked to a pending account signs in only by proving its e-mail", claim("a@x.io", false),
			accounts.SignInState{Identity: &linkedPending, Linked: &pending}, accounts.SignInUpdate{}, "email_not_verified"},
		{"another e-mail, even verified, proves nothing of it", claim("b@x.io", true),
			accounts.SignInState{Identity: &linkedPending, Linked: &pending}, accounts.SignInUpdate{}, "email_not_verified"},
		{"its own e-mail verified takes it over", claim("a@x.io", true),
			accounts.SignInState{Identity: &linkedPending, Linked: &pending},
			accounts.SignInUpdate{Account: takenOver, Link: &linkedPending, TakeOver: true}, ""},
		{"a free verified e-mail: a new verified account without a password", claim("n@x.io", true), accounts.SignInState{},
			accounts.SignInUpdate{Account: accounts.Account{ID: "new", Email: "n@x.io", Verified: true, Profile: accounts.Profile{DisplayName: "Ann"}, CreatedAt: now, UpdatedAt: now},
				Create: true, Link: link("new", "n@x.io")}, ""},
		{"no e-mail at all on a first sign-in", claim("", true), accounts.SignInState{}, accounts.SignInUpdate{}, "email_required"},
		{"an identity whose account is gone", claim("", true), accounts.SignInState{Identity: &linked}, accounts.SignInUpdate{}, "internal_error"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := accounts.DecideSignIn(tc.claim, "new", now)(tc.st)
			if tc.err != "" {
				if core.As(err).Code != tc.err {
					t.Fatalf("want %s, got %+v %v", tc.err, got, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if (got.Link == nil) != (tc.want.Link == nil) || got.Link != nil && *got.Link != *tc.want.Link {
				t.Fatalf("link %+v, want %+v", got.Link, tc.want.Link)
			}
			got.Link, tc.want.Link = nil, nil
			if got.Account != tc.want.Account || got.Create != tc.want.Create || got.TakeOver != tc.want.TakeOver {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestDecideRemoveWay(t *testing.T) {
	t.Parallel()
	withPassword := accounts.Account{ID: "u1", PasswordHash: "h"}
	without := accounts.Account{ID: "u1"}
	apple := accounts.Identity{Provider: "apple", UserID: "u1"}
	google := accounts.Identity{Provider: "google", UserID: "u1"}
	appleWay, googleWay := accounts.WayIn{Provider: "apple"}, accounts.WayIn{Provider: "google"}
	for _, tc := range []struct {
		name     string
		a        accounts.Account
		ids      []accounts.Identity
		passkeys []string
		way      accounts.WayIn
		err      string
	}{
		{"a password remains", withPassword, []accounts.Identity{apple}, nil, appleWay, ""},
		{"another provider remains", without, []accounts.Identity{apple, google}, nil, appleWay, ""},
		{"a passkey remains", without, []accounts.Identity{apple}, []string{"k1"}, appleWay, ""},
		{"the last provider", without, []accounts.Identity{apple}, nil, appleWay, "last_signin_method"},
		{"not linked", withPassword, []accounts.Identity{apple}, nil, googleWay, "not_found"},
		{"another passkey remains", without, nil, []string{"k1", "k2"}, accounts.WayIn{Passkey: "k1"}, ""},
		{"a provider remains beside the passkey", without, []accounts.Identity{apple}, []string{"k1"}, accounts.WayIn{Passkey: "k1"}, ""},
		{"the last passkey", without, nil, []string{"k1"}, accounts.WayIn{Passkey: "k1"}, "last_signin_method"},
		{"a passkey not the user's", withPassword, nil, []string{"k1"}, accounts.WayIn{Passkey: "k9"}, "passkey_not_found"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := accounts.DecideRemoveWay(tc.way)(tc.a, tc.ids, tc.passkeys)
			if tc.err == "" && err != nil || tc.err != "" && core.As(err).Code != tc.err {
				t.Fatalf("want %q, got %v", tc.err, err)
			}
		})
	}
}

func TestSignInMethods(t *testing.T) {
	t.Parallel()
	ids := []accounts.Identity{{Provider: "google"}, {Provider: "apple"}}
	if got := accounts.SignInMethods(accounts.Account{PasswordHash: "h"}, ids, 0); !slices.Equal(got, []string{"password", "google", "apple"}) {
		t.Fatal(got)
	}
	if got := accounts.SignInMethods(accounts.Account{}, ids[:1], 2); !slices.Equal(got, []string{"google", "passkey"}) {
		t.Fatal(got)
	}
	if got := accounts.SignInMethods(accounts.Account{}, nil, 0); got == nil || len(got) != 0 {
		t.Fatalf("%#v: want an empty list, never null", got)
	}
}

// fakeIDTokens verifies the tokens it holds: "provider/token" → claim; an
// unknown token is 401, the token "down" 503. Each verify is another
// token (its own hash) unless the claim names one.
type fakeIDTokens map[string]accounts.IdentityClaim

var fakeTokenSeq atomic.Int64

func (f fakeIDTokens) Verify(_ context.Context, provider, token, _ string) (accounts.IdentityClaim, error) {
	if token == "down" {
		return accounts.IdentityClaim{}, core.Unavailable("unavailable", "accounts.keysUnavailable", "keys unavailable")
	}
	c, ok := f[provider+"/"+token]
	if !ok {
		return accounts.IdentityClaim{}, core.Unauthorized("invalid_token", "signin.iDTokenNotValid", "the ID token is not valid")
	}
	if c.TokenHash == "" {
		c.TokenHash = fmt.Sprintf("%s/%s#%d", provider, token, fakeTokenSeq.Add(1))
	}
	return c, nil
}

func TestAnIDTokenSignsInOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	f.tokens["apple/once"] = accounts.IdentityClaim{Provider: "apple", Subject: "a1", Email: "kim@x.io", EmailVerified: true,
		TokenHash: "h-once", ExpiresAt: f.clock.Now().Add(10 * time.Minute)}
	in := accounts.SignInRequest{Provider: "apple", IDToken: "once"}
	id, _, _, err := f.svc.SignIn(ctx, in, accounts.Client{IP: "ip1"})
	if err != nil {
		t.Fatal(err)
	}
	before, _ := f.svc.Sessions(ctx, id)
	_, tok, _, err := f.svc.SignIn(ctx, in, accounts.Client{IP: "ip2"})
	coretest.WantErr(t, err, core.KindUnauthorized, "invalid_token")
	if after, _ := f.svc.Sessions(ctx, id); tok != "" || len(after) != len(before) {
		t.Fatalf("a replayed token got a session: %q, %d sessions", tok, len(after))
	}
}

func TestSignInRules(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	f.tokens["google/ann"] = accounts.IdentityClaim{Provider: "google", Subject: "g1", Email: " Ann@X.io", EmailVerified: true}
	signIn := func(token, ip string) (string, bool, error) {
		id, tok, created, err := f.svc.SignIn(ctx, accounts.SignInRequest{Provider: "google", IDToken: token},
			accounts.Client{IP: ip})
		if err == nil && tok == "" {
			t.Fatal("signed in without a token")
		}
		return id, created, err
	}
	id, created, err := signIn("ann", "ip1")
	if err != nil || !created {
		t.Fatalf("%v %v", created, err)
	}
	if a, _ := f.svc.Profile(ctx, id); a.Email != "ann@x.io" || !a.Verified || a.PasswordHash != "" {
		t.Fatalf("the provider's e-mail is stored folded: %+v", a)
	}
	if again, created, err := signIn("ann", "ip1"); err != nil || created || again != id {
		t.Fatalf("again: %s %v %v", again, created, err)
	}
	if _, _, err := signIn("down", "ip1"); !core.IsKind(err, core.KindUnavailable) {
		t.Fatalf("keys unavailable: %v", err)
	}
	// 10 attempts per IP that do not sign in; a sign-in gives its own back.
	for range 8 {
		if _, _, err := signIn("forged", "ip1"); core.As(err).Code != "invalid_token" {
			t.Fatalf("forged: %v", err)
		}
	}
	if _, _, err := signIn("ann", "ip1"); err != nil {
		t.Fatalf("the tenth attempt signs in: %v", err)
	}
	if _, _, err := signIn("forged", "ip1"); core.As(err).Code != "invalid_token" {
		t.Fatalf("the tenth refused attempt: %v", err)
	}
	if _, _, err := signIn("ann", "ip1"); !core.IsKind(err, core.KindRateLimited) {
		t.Fatalf("over the limit, even a good token waits: %v", err)
	}
	if _, _, err := signIn("ann", "ip2"); err != nil {
		t.Fatalf("another IP: %v", err)
	}
}
