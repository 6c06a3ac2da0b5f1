package storetest

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"tandem/core"
	"tandem/modules/accounts"
)

// AccountRepository checks an accounts.Repository implementation.
func AccountRepository(t *testing.T, newRepo func(t *testing.T) accounts.Repository) {
	ctx := context.Background()
	now := time.Date(2025, 6, 15, 12, 0, 0, 0, time.UTC)
	acc := func(id, email string) accounts.Account {
		return accounts.Account{ID: id, Email: email, PasswordHash: "h-" + id, CreatedAt: now, UpdatedAt: now}
	}
	tok := func(hash, user string) accounts.Token {
		return accounts.Token{ID: "s-" + hash, Hash: hash, UserID: user, UserAgent: "ua-" + hash,
			CreatedAt: now, ExpiresAt: now.Add(time.Hour)}
	}
	newToken := func(t *testing.T, r accounts.Repository, tk accounts.Token) {
		t.Helper()
		revoked, err := r.CreateToken(ctx, tk, accounts.MaxSessions)
		must(t, err)
		if len(revoked) != 0 {
			t.Fatalf("revoked %v", revoked)
		}
	}

	t.Run("create, get by id and e-mail, unique e-mail", func(t *testing.T) {
		r := newRepo(t)
		must(t, r.Create(ctx, acc("u1", "a@x.io")))
		got, err := r.Get(ctx, "u1")
		must(t, err)
		if got.Email != "a@x.io" || got.PasswordHash != "h-u1" || got.Verified || !got.CreatedAt.Equal(now) {
			t.Fatalf("got %+v", got)
		}
		byEmail, err := r.GetByEmail(ctx, "a@x.io")
		must(t, err)
		if byEmail.ID != "u1" {
			t.Fatalf("by e-mail %+v", byEmail)
		}
		wantKind(t, r.Create(ctx, acc("u2", "a@x.io")), core.KindConflict)
		_, err = r.Get(ctx, "nope")
		wantKind(t, err, core.KindNotFound)
		_, err = r.GetByEmail(ctx, "nope@x.io")
		wantKind(t, err, core.KindNotFound)
		// Exact: no collation may hold a look-alike address equal (MySQL's
		// utf8mb4_general_ci ignores accents and case).
		for _, variant := range []string{"á@x.io", "A@x.io", "a@x.io "} {
			_, err = r.GetByEmail(ctx, variant)
			wantKind(t, err, core.KindNotFound)
			wantKind(t, r.SetAdmin(ctx, variant, true), core.KindNotFound)
		}
		if got, _ := r.Get(ctx, "u1"); got.Admin {
			t.Fatal("a look-alike address made the account an administrator")
		}
	})

	t.Run("profile and admin updates", func(t *testing.T) {
		r := newRepo(t)
		a := acc("u1", "a@x.io")
		must(t, r.Create(ctx, a))
		a.DisplayName, a.Timezone, a.UpdatedAt = "Ann", "Europe/Paris", now.Add(time.Minute)
		must(t, r.UpdateProfile(ctx, a))
		must(t, r.UpdateProfile(ctx, a)) // unchanged values still count as found
		must(t, r.SetAdmin(ctx, "a@x.io", true))
		got, _ := r.Get(ctx, "u1")
		if got.DisplayName != "Ann" || got.Timezone != "Europe/Paris" || got.PasswordHash != "h-u1" || !got.Admin {
			t.Fatalf("got %+v", got)
		}
		wantKind(t, r.SetAdmin(ctx, "ghost@x.io", true), core.KindNotFound)
	})

	t.Run("codes: put replaces, tries count, verified mark", func(t *testing.T) {
		r := newRepo(t)
		must(t, r.Create(ctx, acc("u1", "a@x.io")))
		c := accounts.Code{UserID: "u1", Purpose: accounts.PurposeReset, Hash: "c1", ExpiresAt: now.Add(15 * time.Minute), CreatedAt: now}
		must(t, putCode(r, c))
		for want := 1; want <= 2; want++ {
			taken, err := takeTry(r, "u1", accounts.PurposeReset)
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
		_, err = takeTry(r, "u1", accounts.PurposeVerify)
		wantKind(t, err, core.KindNotFound)
		c.Hash = "c2"
		must(t, putCode(r, c))
		got, _ = r.GetCode(ctx, "u1", accounts.PurposeReset)
		if got.Attempts != 0 || got.Hash != "c2" {
			t.Fatalf("replace: %+v", got)
		}
		_, err = takeTry(r, "u1", accounts.PurposeReset)
		must(t, err)
		wantKind(t, proveReset(r, "u1", "c1", "p1", now, now.Add(10*time.Minute)), core.KindInvalid) // replaced code
		must(t, proveReset(r, "u1", "c2", "p2", now, now.Add(10*time.Minute)))
		got, _ = r.GetCode(ctx, "u1", accounts.PurposeReset)
		if !got.VerifiedAt.Equal(now) || got.ProofHash != "p2" || !got.ProofExpiresAt.Equal(now.Add(10*time.Minute)) ||
			got.Attempts != 0 {
			t.Fatalf("verified (the proving try given back): %+v", got)
		}
		_, err = r.GetCode(ctx, "u1", accounts.PurposeVerify)
		wantKind(t, err, core.KindNotFound)
	})

	t.Run("concurrent tries each see their own count", func(t *testing.T) {
		r := newRepo(t)
		must(t, r.Create(ctx, acc("u1", "a@x.io")))
		must(t, putCode(r, accounts.Code{UserID: "u1", Purpose: accounts.PurposeVerify, Hash: "v", ExpiresAt: now.Add(time.Hour), CreatedAt: now}))
		const n = 12
		counts := make([]int, n)
		var wg sync.WaitGroup
		for i := range counts {
			wg.Add(1)
			go func() {
				defer wg.Done()
				c, err := takeTry(r, "u1", accounts.PurposeVerify)
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
	})

	t.Run("update code: a refusing decision writes nothing; no code or account is not found", func(t *testing.T) {
		r := newRepo(t)
		must(t, r.Create(ctx, acc("u1", "a@x.io")))
		c := accounts.Code{UserID: "u1", Purpose: accounts.PurposeVerify, Hash: "vc", ExpiresAt: now.Add(time.Hour), CreatedAt: now}
		must(t, putCode(r, c))
		refused := core.Invalid("no", "no")
		var seen accounts.Code
		var seenAcc accounts.Account
		_, err := r.UpdateCode(ctx, "u1", accounts.PurposeVerify, func(got accounts.Code, a accounts.Account) (accounts.CodeUpdate, error) {
			seen, seenAcc = got, a
			t2 := tok("t1", "u1")
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
		_, err = r.Session(ctx, "t1")
		wantKind(t, err, core.KindNotFound)
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
	})

	t.Run("concurrent spends of one code: exactly one wins", func(t *testing.T) {
		r := newRepo(t)
		must(t, r.Create(ctx, acc("u1", "a@x.io")))
		must(t, putCode(r, accounts.Code{UserID: "u1", Purpose: accounts.PurposeVerify, Hash: "vc", ExpiresAt: now.Add(time.Hour), CreatedAt: now}))
		const n = 6
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range errs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[i] = spendVerification(r, "u1", "vc", tok(fmt.Sprintf("t%d", i), "u1"))
			}()
		}
		wg.Wait()
		won := 0
		for i, err := range errs {
			switch {
			case err == nil:
				won++
				must(t, func() error { _, err := r.Session(ctx, fmt.Sprintf("t%d", i)); return err }())
			case !core.IsKind(err, core.KindNotFound):
				t.Fatalf("a losing spend: %v", err)
			}
		}
		if won != 1 {
			t.Fatalf("%d spends won: %v", won, errs)
		}
	})

	t.Run("verify consumes the code once and stores the token", func(t *testing.T) {
		r := newRepo(t)
		must(t, r.Create(ctx, acc("u1", "a@x.io")))
		must(t, putCode(r, accounts.Code{UserID: "u1", Purpose: accounts.PurposeVerify, Hash: "vc", ExpiresAt: now.Add(time.Hour), CreatedAt: now}))
		wantKind(t, spendVerification(r, "u1", "wrong", tok("t0", "u1")), core.KindInvalid)
		must(t, spendVerification(r, "u1", "vc", tok("t1", "u1")))
		wantKind(t, spendVerification(r, "u1", "vc", tok("t2", "u1")), core.KindNotFound) // spent
		a, _ := r.Get(ctx, "u1")
		s, err := r.Session(ctx, "t1")
		must(t, err)
		if !a.Verified || s.UserID != "u1" || s.Email != "a@x.io" || !s.ExpiresAt.Equal(now.Add(time.Hour)) {
			t.Fatalf("account %+v session %+v", a, s)
		}
		for _, h := range []string{"t0", "t2"} {
			_, err = r.Session(ctx, h)
			wantKind(t, err, core.KindNotFound)
		}
	})

	t.Run("reset needs the proven code and revokes every token", func(t *testing.T) {
		r := newRepo(t)
		must(t, r.Create(ctx, acc("u1", "a@x.io")))
		must(t, r.Create(ctx, acc("u2", "b@x.io")))
		newToken(t, r, tok("old1", "u1"))
		newToken(t, r, tok("old2", "u1"))
		newToken(t, r, tok("other", "u2"))
		code := accounts.Code{UserID: "u1", Purpose: accounts.PurposeReset, Hash: "rc", ExpiresAt: now.Add(time.Hour), CreatedAt: now}
		must(t, putCode(r, code))
		_, err := spendReset(r, "u1", "rc", "newhash", now, tok("new", "u1"))
		wantKind(t, err, core.KindInvalid) // not verified yet
		must(t, proveReset(r, "u1", "rc", "proof", now, now.Add(10*time.Minute)))
		_, err = spendReset(r, "u1", "other-code", "newhash", now, tok("new", "u1"))
		wantKind(t, err, core.KindInvalid) // another code than the one proven
		revoked, err := spendReset(r, "u1", "rc", "newhash", now, tok("new", "u1"))
		must(t, err)
		sort.Strings(revoked)
		if len(revoked) != 2 || revoked[0] != "old1" || revoked[1] != "old2" {
			t.Fatalf("revoked %v", revoked)
		}
		for _, h := range revoked {
			_, err := r.Session(ctx, h)
			wantKind(t, err, core.KindNotFound)
		}
		for _, h := range []string{"new", "other"} {
			_, err := r.Session(ctx, h)
			must(t, err)
		}
		a, _ := r.Get(ctx, "u1")
		if a.PasswordHash != "newhash" || !a.Verified {
			t.Fatalf("account %+v", a)
		}
		_, err = spendReset(r, "u1", "rc", "again", now, tok("again", "u1"))
		wantKind(t, err, core.KindNotFound) // single use: spent
	})

	t.Run("a pending password clears, a verified one never", func(t *testing.T) {
		r := newRepo(t)
		must(t, r.Create(ctx, acc("u1", "a@x.io")))
		must(t, r.Create(ctx, acc("u2", "b@x.io")))
		must(t, putCode(r, accounts.Code{UserID: "u2", Purpose: accounts.PurposeVerify, Hash: "vc", ExpiresAt: now.Add(time.Hour), CreatedAt: now}))
		must(t, spendVerification(r, "u2", "vc", tok("t2", "u2")))
		must(t, r.ClearPendingPassword(ctx, "u1"))
		must(t, r.ClearPendingPassword(ctx, "u1")) // already none
		must(t, r.ClearPendingPassword(ctx, "u2")) // verified: nothing
		a1, _ := r.Get(ctx, "u1")
		a2, _ := r.Get(ctx, "u2")
		if a1.PasswordHash != "" || a2.PasswordHash != "h-u2" || a1.Verified {
			t.Fatalf("pending %+v verified %+v", a1, a2)
		}
	})

	t.Run("set password revokes every token of the account and stores the new one", func(t *testing.T) {
		r := newRepo(t)
		must(t, r.Create(ctx, acc("u1", "a@x.io")))
		must(t, r.Create(ctx, acc("u2", "b@x.io")))
		newToken(t, r, tok("old1", "u1"))
		newToken(t, r, tok("other", "u2"))
		later := now.Add(time.Minute)
		revoked, err := r.SetPassword(ctx, "u1", "newhash", later, tok("new", "u1"))
		must(t, err)
		if len(revoked) != 1 || revoked[0] != "old1" {
			t.Fatalf("revoked %v", revoked)
		}
		_, err = r.Session(ctx, "old1")
		wantKind(t, err, core.KindNotFound)
		for _, h := range []string{"new", "other"} {
			_, err := r.Session(ctx, h)
			must(t, err)
		}
		a, _ := r.Get(ctx, "u1")
		if a.PasswordHash != "newhash" || a.Verified || !a.UpdatedAt.Equal(later) {
			t.Fatalf("account %+v", a)
		}
		_, err = r.SetPassword(ctx, "ghost", "h", later, tok("g", "ghost"))
		wantKind(t, err, core.KindNotFound)
	})

	t.Run("sessions: list newest first, the oldest beyond max revoked, delete by id for the owner only", func(t *testing.T) {
		r := newRepo(t)
		must(t, r.Create(ctx, acc("u1", "a@x.io")))
		must(t, r.Create(ctx, acc("u2", "b@x.io")))
		for i, h := range []string{"t1", "t2", "t3"} {
			tk := tok(h, "u1")
			tk.CreatedAt = now.Add(time.Duration(i) * time.Minute)
			revoked, err := r.CreateToken(ctx, tk, 2)
			must(t, err)
			if want := map[string]string{"t1": "", "t2": "", "t3": "t1"}[h]; strings.Join(revoked, ",") != want {
				t.Fatalf("create %s revoked %v, want %q", h, revoked, want)
			}
		}
		newToken(t, r, tok("x1", "u2"))
		list, err := r.Tokens(ctx, "u1")
		must(t, err)
		if len(list) != 2 || list[0].Hash != "t3" || list[1].Hash != "t2" || list[0].ID != "s-t3" ||
			list[0].UserAgent != "ua-t3" || !list[0].LastUsedAt.IsZero() {
			t.Fatalf("tokens %+v", list)
		}
		must(t, r.TouchToken(ctx, "t3", now.Add(time.Hour)))
		s, err := r.Session(ctx, "t3")
		must(t, err)
		if !s.LastUsedAt.Equal(now.Add(time.Hour)) {
			t.Fatalf("touched %+v", s)
		}
		_, err = r.DeleteSession(ctx, "u2", "s-t3") // not u2's
		wantKind(t, err, core.KindNotFound)
		h, err := r.DeleteSession(ctx, "u1", "s-t3")
		must(t, err)
		if h != "t3" {
			t.Fatalf("deleted hash %q", h)
		}
		revoked, err := r.DeleteTokens(ctx, "u1")
		must(t, err)
		if len(revoked) != 1 || revoked[0] != "t2" {
			t.Fatalf("delete all revoked %v", revoked)
		}
		if _, err := r.Session(ctx, "x1"); err != nil {
			t.Fatal("another user's token must stay")
		}
	})

	t.Run("purge drops expired tokens, codes, proofs and mail only", func(t *testing.T) {
		r := newRepo(t)
		must(t, r.Create(ctx, acc("u1", "a@x.io")))
		must(t, r.Create(ctx, acc("u2", "b@x.io")))
		newToken(t, r, tok("live", "u1"))
		dead := tok("dead", "u1")
		dead.ExpiresAt = now.Add(-time.Minute)
		newToken(t, r, dead)
		must(t, putCode(r, accounts.Code{UserID: "u1", Purpose: accounts.PurposeVerify, Hash: "old", ExpiresAt: now.Add(-time.Minute), CreatedAt: now}))
		// A reset code past its own expiry whose proof still lives must stay.
		must(t, putCode(r, accounts.Code{UserID: "u2", Purpose: accounts.PurposeReset, Hash: "rc", ExpiresAt: now.Add(-time.Minute), CreatedAt: now}))
		must(t, proveReset(r, "u2", "rc", "p", now, now.Add(5*time.Minute)))
		// A mail of a live code must stay.
		must(t, putCode(r, accounts.Code{UserID: "u1", Purpose: accounts.PurposeReset, Hash: "live", ExpiresAt: now.Add(time.Minute), CreatedAt: now}))
		n, err := r.Purge(ctx, now)
		must(t, err)
		if n != 4 { // the dead token, the old code, the mails of both expired codes
			t.Fatalf("purged %d", n)
		}
		_, err = r.Session(ctx, "dead")
		wantKind(t, err, core.KindNotFound)
		_, err = r.GetCode(ctx, "u1", accounts.PurposeVerify)
		wantKind(t, err, core.KindNotFound)
		must(t, func() error { _, err := r.Session(ctx, "live"); return err }())
		must(t, func() error { _, err := r.GetCode(ctx, "u2", accounts.PurposeReset); return err }())
		if n, _ := r.Purge(ctx, now.Add(10*time.Minute)); n != 3 { // the proof, the live code and its mail
			t.Fatalf("proof purge %d", n)
		}
	})

	t.Run("tokens: delete one; delete account takes codes and tokens", func(t *testing.T) {
		r := newRepo(t)
		must(t, r.Create(ctx, acc("u1", "a@x.io")))
		newToken(t, r, tok("t1", "u1"))
		newToken(t, r, tok("t2", "u1"))
		must(t, putCode(r, accounts.Code{UserID: "u1", Purpose: accounts.PurposeVerify, Hash: "c", ExpiresAt: now, CreatedAt: now}))
		must(t, r.DeleteToken(ctx, "t1"))
		_, err := r.Session(ctx, "t1")
		wantKind(t, err, core.KindNotFound)
		revoked, err := r.Delete(ctx, "u1")
		must(t, err)
		if len(revoked) != 1 || revoked[0] != "t2" {
			t.Fatalf("revoked %v", revoked)
		}
		_, err = r.Get(ctx, "u1")
		wantKind(t, err, core.KindNotFound)
		_, err = r.GetCode(ctx, "u1", accounts.PurposeVerify)
		wantKind(t, err, core.KindNotFound)
		must(t, r.Create(ctx, acc("u3", "a@x.io"))) // the e-mail is free again
		_, err = r.Delete(ctx, "u1")
		wantKind(t, err, core.KindNotFound)
	})
}

// putCode stores c with the mail that carries it: due at once, dropped at
// the code's expiry.
func putCode(r accounts.Repository, c accounts.Code) error {
	return r.PutCode(context.Background(), c, codeMail(c))
}

func codeMail(c accounts.Code) accounts.OutboxMail {
	return accounts.OutboxMail{ID: "m-" + c.UserID + "-" + string(c.Purpose) + "-" + c.Hash, UserID: c.UserID, Kind: c.Purpose,
		Mail:      accounts.Mail{To: c.UserID + "@x.io", Subject: "Your code", Text: "Your code is " + c.Hash + "."},
		CreatedAt: c.CreatedAt, NotAfter: c.ExpiresAt, NextAttemptAt: c.CreatedAt}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func wantKind(t *testing.T, err error, k core.Kind) {
	t.Helper()
	if !core.IsKind(err, k) {
		t.Fatalf("want kind %v, got %v", k, err)
	}
}

// The module's code decisions through UpdateCode, as the service runs them.

func takeTry(r accounts.Repository, userID string, p accounts.Purpose) (accounts.Code, error) {
	var taken accounts.Code
	_, err := r.UpdateCode(context.Background(), userID, p, func(c accounts.Code, a accounts.Account) (accounts.CodeUpdate, error) {
		u, err := accounts.CountTry(c, a)
		taken = *u.Code
		return u, err
	})
	return taken, err
}

func proveReset(r accounts.Repository, userID, codeHash, proofHash string, at, expires time.Time) error {
	_, err := r.UpdateCode(context.Background(), userID, accounts.PurposeReset, accounts.ProveReset(codeHash, proofHash, at, expires))
	return err
}

func spendVerification(r accounts.Repository, userID, codeHash string, t accounts.Token) error {
	_, err := r.UpdateCode(context.Background(), userID, accounts.PurposeVerify, accounts.SpendVerification(codeHash, t))
	return err
}

func spendReset(r accounts.Repository, userID, codeHash, hash string, at time.Time, t accounts.Token) ([]string, error) {
	return r.UpdateCode(context.Background(), userID, accounts.PurposeReset, accounts.SpendReset(codeHash, hash, at, t))
}
