// This file holds AccountRepository's subtests of mailed codes: put, tries,
// decisions through UpdateCode (concurrent ones included), verification,
// reset and passwords.

package storetest

import (
	"fmt"
	"sort"
	"sync"
	"testing"
	"time"

	"tandem/core"
	"tandem/modules/accounts"
)

// The module's code decisions through UpdateCode, as the service runs them.

func (accountSuite) takeTry(r accounts.Repository, userID string, p accounts.Purpose) (accounts.Code, error) {
	var taken accounts.Code
	_, err := r.UpdateCode(ctx, userID, p, func(c accounts.Code, a accounts.Account) (accounts.CodeUpdate, error) {
		u, err := accounts.CountTry(c, a)
		taken = *u.Code
		return u, err
	})
	return taken, err
}

func (accountSuite) proveReset(r accounts.Repository, userID, codeHash, proofHash string, at, expires time.Time) error {
	_, err := r.UpdateCode(ctx, userID, accounts.PurposeReset, accounts.ProveReset(codeHash, proofHash, at, expires))
	return err
}

func (accountSuite) spendVerification(r accounts.Repository, userID, codeHash string, t accounts.Token) error {
	_, err := r.UpdateCode(ctx, userID, accounts.PurposeVerify, accounts.SpendVerification(codeHash, t))
	return err
}

func (accountSuite) spendReset(r accounts.Repository, userID, codeHash, hash string, at time.Time, t accounts.Token) ([]string, error) {
	removed, err := r.UpdateCode(ctx, userID, accounts.PurposeReset, accounts.SpendReset(codeHash, hash, at, t))
	return removed.Sessions, err
}

func (ac accountSuite) codes(t *testing.T) {
	r := ac.repo(t, 1)
	c := ac.code("u1", accounts.PurposeReset, "c1", now.Add(15*time.Minute))
	ac.putCode(t, r, c)
	for want := 1; want <= 2; want++ {
		taken, err := ac.takeTry(r, "u1", accounts.PurposeReset)
		must(t, err)
		if taken.Attempts != want || taken.Hash != "c1" || !taken.ExpiresAt.Equal(c.ExpiresAt) {
			t.Fatalf("try %d: %+v", want, taken)
		}
	}
	got, err := r.GetCode(ctx, "u1", accounts.PurposeReset)
	must(t, err)
	if got.Attempts != 2 || got.Hash != "c1" || !got.VerifiedAt.IsZero() || !got.ExpiresAt.Equal(c.ExpiresAt) {
		t.Fatalf("got %+v", got)
	}
	_, err = ac.takeTry(r, "u1", accounts.PurposeVerify)
	wantKind(t, err, core.KindNotFound)
	c.Hash = "c2"
	ac.putCode(t, r, c)
	got, _ = r.GetCode(ctx, "u1", accounts.PurposeReset)
	if got.Attempts != 0 || got.Hash != "c2" {
		t.Fatalf("replace: %+v", got)
	}
	_, err = ac.takeTry(r, "u1", accounts.PurposeReset)
	must(t, err)
	wantKind(t, ac.proveReset(r, "u1", "c1", "p1", now, now.Add(10*time.Minute)), core.KindInvalid) // replaced code
	must(t, ac.proveReset(r, "u1", "c2", "p2", now, now.Add(10*time.Minute)))
	got, _ = r.GetCode(ctx, "u1", accounts.PurposeReset)
	if !got.VerifiedAt.Equal(now) || got.ProofHash != "p2" || !got.ProofExpiresAt.Equal(now.Add(10*time.Minute)) ||
		got.Attempts != 0 {
		t.Fatalf("verified (the proving try given back): %+v", got)
	}
	_, err = r.GetCode(ctx, "u1", accounts.PurposeVerify)
	wantKind(t, err, core.KindNotFound)
}

func (ac accountSuite) concurrentTries(t *testing.T) {
	r := ac.repo(t, 1)
	ac.putCode(t, r, ac.code("u1", accounts.PurposeVerify, "v", now.Add(time.Hour)))
	const n = 12
	counts := make([]int, n)
	var wg sync.WaitGroup
	for i := range counts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := ac.takeTry(r, "u1", accounts.PurposeVerify)
			if err != nil {
				t.Error(err)
			}
			counts[i] = c.Attempts
		}()
	}
	wg.Wait()
	sort.Ints(counts)
	for i, c := range counts {
		if c != i+1 {
			t.Fatalf("counts %v: two tries saw the same count", counts)
		}
	}
}

func (ac accountSuite) refusedUpdate(t *testing.T) {
	r := ac.repo(t, 1)
	ac.putCode(t, r, ac.code("u1", accounts.PurposeVerify, "vc", now.Add(time.Hour)))
	refused := core.Invalid("no", "storetest.no", "no")
	var seen accounts.Code
	var seenAcc accounts.Account
	_, err := r.UpdateCode(ctx, "u1", accounts.PurposeVerify, func(got accounts.Code, a accounts.Account) (accounts.CodeUpdate, error) {
		seen, seenAcc = got, a
		t2 := ac.tok("t1", "u1")
		return accounts.CodeUpdate{Consume: true, Verify: true, Token: &t2}, refused
	})
	if err != refused {
		t.Fatalf("decide's error is returned as it is: %v", err)
	}
	if seen.Hash != "vc" || seen.UserID != "u1" || seenAcc.ID != "u1" || seenAcc.Email != "a@x.io" {
		t.Fatalf("loaded %+v %+v", seen, seenAcc)
	}
	if got, err := r.GetCode(ctx, "u1", accounts.PurposeVerify); err != nil || got.Hash != "vc" {
		t.Fatalf("code after a refusal: %+v %v", got, err)
	}
	if a, _ := r.Get(ctx, "u1"); a.Verified {
		t.Fatal("a refused decision verified the account")
	}
	ac.wantNoSessions(t, r, "t1")
	ran := false
	never := func(accounts.Code, accounts.Account) (accounts.CodeUpdate, error) {
		ran = true
		return accounts.CodeUpdate{}, nil
	}
	_, err = r.UpdateCode(ctx, "u1", accounts.PurposeReset, never)
	wantKind(t, err, core.KindNotFound)
	_, err = r.UpdateCode(ctx, "ghost", accounts.PurposeVerify, never)
	wantKind(t, err, core.KindNotFound)
	if ran {
		t.Fatal("decide ran without a code")
	}
}

func (ac accountSuite) concurrentSpends(t *testing.T) {
	r := ac.repo(t, 1)
	ac.putCode(t, r, ac.code("u1", accounts.PurposeVerify, "vc", now.Add(time.Hour)))
	const n = 6
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = ac.spendVerification(r, "u1", "vc", ac.tok(fmt.Sprintf("t%d", i), "u1"))
		}()
	}
	wg.Wait()
	won := 0
	for i, err := range errs {
		switch {
		case err == nil:
			won++
			ac.wantSessions(t, r, fmt.Sprintf("t%d", i))
		case !core.IsKind(err, core.KindNotFound):
			t.Fatalf("a losing spend: %v", err)
		}
	}
	if won != 1 {
		t.Fatalf("%d spends won: %v", won, errs)
	}
}

func (ac accountSuite) verify(t *testing.T) {
	r := ac.repo(t, 1)
	ac.putCode(t, r, ac.code("u1", accounts.PurposeVerify, "vc", now.Add(time.Hour)))
	wantKind(t, ac.spendVerification(r, "u1", "wrong", ac.tok("t0", "u1")), core.KindInvalid)
	must(t, ac.spendVerification(r, "u1", "vc", ac.tok("t1", "u1")))
	wantKind(t, ac.spendVerification(r, "u1", "vc", ac.tok("t2", "u1")), core.KindNotFound) // spent
	a, _ := r.Get(ctx, "u1")
	s, err := r.Session(ctx, "t1")
	must(t, err)
	if !a.Verified || s.UserID != "u1" || s.Email != "a@x.io" || !s.ExpiresAt.Equal(now.Add(time.Hour)) {
		t.Fatalf("account %+v session %+v", a, s)
	}
	ac.wantNoSessions(t, r, "t0", "t2")
}

func (ac accountSuite) reset(t *testing.T) {
	r := ac.repo(t, 2)
	ac.newToken(t, r, ac.tok("old1", "u1"))
	ac.newToken(t, r, ac.tok("old2", "u1"))
	ac.newToken(t, r, ac.tok("other", "u2"))
	ac.putCode(t, r, ac.code("u1", accounts.PurposeReset, "rc", now.Add(time.Hour)))
	_, err := ac.spendReset(r, "u1", "rc", "newhash", now, ac.tok("new", "u1"))
	wantKind(t, err, core.KindInvalid) // not verified yet
	must(t, ac.proveReset(r, "u1", "rc", "proof", now, now.Add(10*time.Minute)))
	_, err = ac.spendReset(r, "u1", "other-code", "newhash", now, ac.tok("new", "u1"))
	wantKind(t, err, core.KindInvalid) // another code than the one proven
	revoked, err := ac.spendReset(r, "u1", "rc", "newhash", now, ac.tok("new", "u1"))
	must(t, err)
	sort.Strings(revoked)
	if len(revoked) != 2 || revoked[0] != "old1" || revoked[1] != "old2" {
		t.Fatalf("revoked %v", revoked)
	}
	ac.wantNoSessions(t, r, revoked...)
	ac.wantSessions(t, r, "new", "other")
	a, _ := r.Get(ctx, "u1")
	if a.PasswordHash != "newhash" || !a.Verified {
		t.Fatalf("account %+v", a)
	}
	_, err = ac.spendReset(r, "u1", "rc", "again", now, ac.tok("again", "u1"))
	wantKind(t, err, core.KindNotFound) // single use: spent
}

func (ac accountSuite) clearPendingPassword(t *testing.T) {
	r := ac.repo(t, 2)
	ac.putCode(t, r, ac.code("u2", accounts.PurposeVerify, "vc", now.Add(time.Hour)))
	must(t, ac.spendVerification(r, "u2", "vc", ac.tok("t2", "u2")))
	must(t, r.ClearPendingPassword(ctx, "u1"))
	must(t, r.ClearPendingPassword(ctx, "u1")) // already none
	must(t, r.ClearPendingPassword(ctx, "u2")) // verified: nothing
	a1, _ := r.Get(ctx, "u1")
	a2, _ := r.Get(ctx, "u2")
	if a1.PasswordHash != "" || a2.PasswordHash != "h-u2" || a1.Verified {
		t.Fatalf("pending %+v verified %+v", a1, a2)
	}
}

func (ac accountSuite) setPassword(t *testing.T) {
	r := ac.repo(t, 2)
	ac.newToken(t, r, ac.tok("old1", "u1"))
	ac.newToken(t, r, ac.tok("other", "u2"))
	later := now.Add(time.Minute)
	revoked, err := r.SetPassword(ctx, "u1", "newhash", later, ac.tok("new", "u1"))
	must(t, err)
	if len(revoked) != 1 || revoked[0] != "old1" {
		t.Fatalf("revoked %v", revoked)
	}
	ac.wantNoSessions(t, r, "old1")
	ac.wantSessions(t, r, "new", "other")
	a, _ := r.Get(ctx, "u1")
	if a.PasswordHash != "newhash" || a.Verified || !a.UpdatedAt.Equal(later) {
		t.Fatalf("account %+v", a)
	}
	_, err = r.SetPassword(ctx, "ghost", "h", later, ac.tok("g", "ghost"))
	wantKind(t, err, core.KindNotFound)
}
