// This file holds AccountRepository's subtests of sign-in with a provider:
// create, link and take over, refusals, concurrent first sign-ins, unlink,
// the first verification's unlinking, and ID tokens spent once.

package storetest

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"tandem/core"
	"tandem/modules/accounts"
)

// signInAs runs the module's sign-in rule for claim as the repository loads it.
func (accountSuite) signInAs(r accounts.Repository, c accounts.IdentityClaim, newID string) (accounts.SignInUpdate, error) {
	return r.SignIn(ctx, c.Provider, c.Subject, c.Email, accounts.DecideSignIn(c, newID, now))
}

func (ac accountSuite) signIn(t *testing.T) {
	r := ac.repo(t, 2) // u1 a@x.io pending, u2 b@x.io verified below
	ac.putCode(t, r, ac.code("u2", accounts.PurposeVerify, "vc", now.Add(time.Hour)))
	must(t, ac.spendVerification(r, "u2", "vc", ac.tok("t2", "u2")))
	ac.putCode(t, r, ac.code("u1", accounts.PurposeVerify, "vc1", now.Add(time.Hour)))

	fresh := accounts.IdentityClaim{Provider: accounts.ProviderApple, Subject: "s-new", Email: "new@x.io", EmailVerified: true}
	u, err := ac.signInAs(r, fresh, "n1")
	must(t, err)
	if !u.Create || u.Account.ID != "n1" {
		t.Fatalf("first sign-in %+v", u)
	}
	a, err := r.GetByEmail(ctx, "new@x.io")
	must(t, err)
	if a.ID != "n1" || !a.Verified || a.PasswordHash != "" {
		t.Fatalf("created %+v", a)
	}
	u, err = ac.signInAs(r, fresh, "n2")
	must(t, err)
	if u.Create || u.Link != nil || u.Account.ID != "n1" {
		t.Fatalf("second sign-in %+v", u)
	}

	joins := accounts.IdentityClaim{Provider: accounts.ProviderGoogle, Subject: "g-b", Email: "b@x.io", EmailVerified: true}
	u, err = ac.signInAs(r, joins, "n3")
	must(t, err)
	if u.Create || u.Account.ID != "u2" {
		t.Fatalf("join %+v", u)
	}
	if a, _ := r.Get(ctx, "u2"); a.PasswordHash != "h-u2" {
		t.Fatalf("the verified account's password changed: %+v", a)
	}

	takes := accounts.IdentityClaim{Provider: accounts.ProviderGoogle, Subject: "g-a", Email: "a@x.io", EmailVerified: true}
	u, err = ac.signInAs(r, takes, "n4")
	must(t, err)
	if u.Create || !u.TakeOver || u.Account.ID != "u1" {
		t.Fatalf("take over %+v", u)
	}
	a, _ = r.Get(ctx, "u1")
	if !a.Verified || a.PasswordHash != "" {
		t.Fatalf("taken over %+v", a)
	}
	if _, err := r.GetCode(ctx, "u1", accounts.PurposeVerify); !core.IsKind(err, core.KindNotFound) {
		t.Fatalf("the pending sign-up's code survived: %v", err)
	}

	ids, err := r.Identities(ctx, "u2")
	must(t, err)
	if len(ids) != 1 || ids[0].Provider != accounts.ProviderGoogle || ids[0].Subject != "g-b" || ids[0].Email != "b@x.io" ||
		!ids[0].CreatedAt.Equal(now) {
		t.Fatalf("identities %+v", ids)
	}
	if ids, _ := r.Identities(ctx, "nobody"); len(ids) != 0 {
		t.Fatalf("nobody's identities %+v", ids)
	}
}

func (ac accountSuite) signInRefused(t *testing.T) {
	r := ac.repo(t, 1)
	unverified := accounts.IdentityClaim{Provider: accounts.ProviderGoogle, Subject: "g-a", Email: "a@x.io"}
	if _, err := ac.signInAs(r, unverified, "n1"); !core.IsKind(err, core.KindForbidden) {
		t.Fatalf("an unverified claim on a taken e-mail: %v", err)
	}
	if ids, _ := r.Identities(ctx, "u1"); len(ids) != 0 {
		t.Fatalf("linked %+v", ids)
	}
	// A decision that creates an account with a taken e-mail is refused by
	// the store, and nothing of it is written.
	_, err := r.SignIn(ctx, "apple", "s-x", "", func(accounts.SignInState) (accounts.SignInUpdate, error) {
		a := ac.acc("n2", "a@x.io")
		return accounts.SignInUpdate{Account: a, Create: true,
			Link: &accounts.Identity{Provider: "apple", Subject: "s-x", UserID: "n2", CreatedAt: now}}, nil
	})
	if !core.IsKind(err, core.KindConflict) {
		t.Fatalf("taken e-mail: %v", err)
	}
	if _, err := r.Get(ctx, "n2"); !core.IsKind(err, core.KindNotFound) {
		t.Fatalf("n2: %v", err)
	}
}

func (ac accountSuite) concurrentSignIns(t *testing.T) {
	r := ac.repo(t, 0)
	c := accounts.IdentityClaim{Provider: accounts.ProviderApple, Subject: "s-race", Email: "race@x.io", EmailVerified: true}
	const n = 8
	var wg sync.WaitGroup
	got := make([]string, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for try := 0; try < 2; try++ { // as the service: a conflict is decided once more
				u, err := ac.signInAs(r, c, fmt.Sprintf("n%d", i))
				if core.IsKind(err, core.KindConflict) {
					continue
				}
				if err != nil {
					t.Error(err)
				}
				got[i] = u.Account.ID
				return
			}
		}()
	}
	wg.Wait()
	for _, id := range got {
		if id != got[0] || id == "" {
			t.Fatalf("one subject, accounts %v", got)
		}
	}
	ids, _ := r.Identities(ctx, got[0])
	if len(ids) != 1 {
		t.Fatalf("identities %+v", ids)
	}
}

func (ac accountSuite) unlink(t *testing.T) {
	r := ac.repo(t, 1)
	for _, p := range []string{accounts.ProviderApple, accounts.ProviderGoogle} {
		_, err := r.SignIn(ctx, p, "s-"+p, "", func(accounts.SignInState) (accounts.SignInUpdate, error) {
			return accounts.SignInUpdate{Account: ac.acc("u1", "a@x.io"),
				Link: &accounts.Identity{Provider: p, Subject: "s-" + p, UserID: "u1", CreatedAt: now}}, nil
		})
		must(t, err)
	}
	var seen []accounts.Identity
	refuse := core.Conflict("no", "storetest.no", "no")
	apple := accounts.WayIn{Provider: accounts.ProviderApple}
	err := r.RemoveWayIn(ctx, "u1", apple, func(a accounts.Account, ids []accounts.Identity, _ []string) error {
		seen = ids
		return refuse
	})
	if err != refuse || len(seen) != 2 {
		t.Fatalf("refused unlink: %v, saw %+v", err, seen)
	}
	allow := func(accounts.Account, []accounts.Identity, []string) error { return nil }
	must(t, r.RemoveWayIn(ctx, "u1", apple, allow))
	ids, _ := r.Identities(ctx, "u1")
	if len(ids) != 1 || ids[0].Provider != accounts.ProviderGoogle {
		t.Fatalf("after unlink %+v", ids)
	}
	if err := r.RemoveWayIn(ctx, "nobody", apple, allow); !core.IsKind(err, core.KindNotFound) {
		t.Fatalf("unknown account: %v", err)
	}
	_, err = r.Delete(ctx, "u1")
	must(t, err)
	if ids, _ := r.Identities(ctx, "u1"); len(ids) != 0 {
		t.Fatalf("after delete %+v", ids)
	}
	u, err := r.SignIn(ctx, accounts.ProviderGoogle, "s-google", "", func(st accounts.SignInState) (accounts.SignInUpdate, error) {
		if st.Identity != nil {
			t.Errorf("the deleted account's identity is still there: %+v", st.Identity)
		}
		return accounts.SignInUpdate{}, nil
	})
	must(t, err)
	_ = u
}

func (ac accountSuite) verifyUnlinks(t *testing.T) {
	r := ac.repo(t, 1) // u1 pending, linked (as a sign-in before this rule could) and holding a token
	_, err := r.SignIn(ctx, accounts.ProviderGoogle, "g-x", "", func(accounts.SignInState) (accounts.SignInUpdate, error) {
		return accounts.SignInUpdate{Account: ac.acc("u1", "a@x.io"),
			Link: &accounts.Identity{Provider: accounts.ProviderGoogle, Subject: "g-x", UserID: "u1", CreatedAt: now}}, nil
	})
	must(t, err)
	ac.newToken(t, r, ac.tok("squatter", "u1"))
	ac.putCode(t, r, ac.code("u1", accounts.PurposeVerify, "vc", now.Add(time.Hour)))
	removed, err := r.UpdateCode(ctx, "u1", accounts.PurposeVerify, accounts.SpendVerification("vc", ac.tok("t1", "u1")))
	must(t, err)
	if len(removed.Sessions) != 1 || removed.Sessions[0] != "squatter" || len(removed.Providers) != 1 {
		t.Fatalf("removed %+v", removed)
	}
	if ids, _ := r.Identities(ctx, "u1"); len(ids) != 0 {
		t.Fatalf("the mailbox's owner inherited %+v", ids)
	}
	ac.wantNoSessions(t, r, "squatter")
	ac.wantSessions(t, r, "t1")
	if a, _ := r.Get(ctx, "u1"); !a.Verified {
		t.Fatalf("%+v", a)
	}
}

func (ac accountSuite) spendIDToken(t *testing.T) {
	r := ac.repo(t, 0)
	must(t, r.SpendIDToken(ctx, "h1", now.Add(time.Minute)))
	wantKind(t, r.SpendIDToken(ctx, "h1", now.Add(time.Minute)), core.KindConflict)
	must(t, r.SpendIDToken(ctx, "h2", now.Add(time.Hour)))
	if _, err := r.Purge(ctx, now.Add(2*time.Minute)); err != nil {
		t.Fatal(err)
	}
	must(t, r.SpendIDToken(ctx, "h1", now.Add(3*time.Minute))) // forgotten after its expiry
	wantKind(t, r.SpendIDToken(ctx, "h2", now.Add(time.Hour)), core.KindConflict)
}
