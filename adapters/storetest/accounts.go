package storetest

import (
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
	ac := accountSuite{newRepo: newRepo}
	t.Run("create, get by id and e-mail, unique e-mail", ac.createAndGet)
	t.Run("get many: the ids that exist, the unknown left out", ac.getMany)
	t.Run("search: an e-mail prefix in e-mail order, a page at a time; LIKE wildcards match themselves", ac.search)
	t.Run("profile and admin updates", ac.profileAndAdmin)
	t.Run("codes: put replaces, tries count, verified mark", ac.codes)
	t.Run("concurrent tries each see their own count", ac.concurrentTries)
	t.Run("update code: a refusing decision writes nothing; no code or account is not found", ac.refusedUpdate)
	t.Run("concurrent spends of one code: exactly one wins", ac.concurrentSpends)
	t.Run("verify consumes the code once and stores the token", ac.verify)
	t.Run("reset needs the proven code and revokes every token", ac.reset)
	t.Run("a pending password clears, a verified one never", ac.clearPendingPassword)
	t.Run("set password revokes every token of the account and stores the new one", ac.setPassword)
	t.Run("sessions: list newest first, the oldest beyond max revoked, delete by id for the owner only", ac.sessions)
	t.Run("purge drops expired tokens, codes, proofs and mail only", ac.purge)
	t.Run("tokens: delete one; delete account takes codes and tokens", ac.deleteTokenAndAccount)
	t.Run("sign-in: creates, links, signs in again, takes a pending account over", ac.signIn)
	t.Run("sign-in: a refusing decision writes nothing; the e-mail stays unique", ac.signInRefused)
	t.Run("concurrent first sign-ins of one subject make one account", ac.concurrentSignIns)
	t.Run("unlink: the decision sees every identity; delete account takes them", ac.unlink)
	t.Run("the first verification ends every earlier session and identity", ac.verifyUnlinks)
	t.Run("an ID token is spent once until its expiry, then purged", ac.spendIDToken)
}

// accountSuite holds AccountRepository's helpers and subtests.
type accountSuite struct {
	newRepo func(t *testing.T) accounts.Repository
}

func (accountSuite) acc(id, email string) accounts.Account {
	return accounts.Account{ID: id, Email: email, PasswordHash: "h-" + id, CreatedAt: now, UpdatedAt: now}
}

// repo is a new repository holding the accounts u1 (a@x.io), u2 (b@x.io)
// and so on, n of them.
func (ac accountSuite) repo(t *testing.T, n int) accounts.Repository {
	t.Helper()
	r := ac.newRepo(t)
	for i := range n {
		must(t, r.Create(ctx, ac.acc(fmt.Sprintf("u%d", i+1), string(rune('a'+i))+"@x.io")))
	}
	return r
}

func (accountSuite) tok(hash, user string) accounts.Token {
	return accounts.Token{ID: "s-" + hash, Hash: hash, UserID: user, UserAgent: "ua-" + hash,
		CreatedAt: now, ExpiresAt: now.Add(time.Hour)}
}

// newToken stores tk, which must revoke nothing.
func (accountSuite) newToken(t *testing.T, r accounts.Repository, tk accounts.Token) {
	t.Helper()
	revoked, err := r.CreateToken(ctx, tk, accounts.MaxSessions)
	must(t, err)
	if len(revoked) != 0 {
		t.Fatalf("revoked %v", revoked)
	}
}

// code is user's code of purpose p, created now.
func (accountSuite) code(user string, p accounts.Purpose, hash string, expires time.Time) accounts.Code {
	return accounts.Code{UserID: user, Purpose: p, Hash: hash, ExpiresAt: expires, CreatedAt: now}
}

// putCode stores c with the mail that carries it: due at once, dropped at
// the code's expiry.
func (accountSuite) putCode(t *testing.T, r accounts.Repository, c accounts.Code) {
	t.Helper()
	must(t, r.PutCode(ctx, c, codeMail(c)))
}

// codeMail is the mail that carries c (MailOutbox stores it too).
func codeMail(c accounts.Code) accounts.OutboxMail {
	return accounts.OutboxMail{ID: "m-" + c.UserID + "-" + string(c.Purpose) + "-" + c.Hash, UserID: c.UserID, Kind: c.Purpose,
		Mail:      accounts.Mail{To: c.UserID + "@x.io", Subject: "Your code", Text: "Your code is " + c.Hash + "."},
		CreatedAt: c.CreatedAt, NotAfter: c.ExpiresAt, NextAttemptAt: c.CreatedAt}
}

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

// wantSessions checks that each hash is a live session.
func (accountSuite) wantSessions(t *testing.T, r accounts.Repository, hashes ...string) {
	t.Helper()
	for _, h := range hashes {
		_, err := r.Session(ctx, h)
		must(t, err)
	}
}

// wantNoSessions checks that no hash is a session.
func (accountSuite) wantNoSessions(t *testing.T, r accounts.Repository, hashes ...string) {
	t.Helper()
	for _, h := range hashes {
		_, err := r.Session(ctx, h)
		wantKind(t, err, core.KindNotFound)
	}
}

func (ac accountSuite) createAndGet(t *testing.T) {
	r := ac.repo(t, 1)
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
	wantKind(t, r.Create(ctx, ac.acc("u2", "a@x.io")), core.KindConflict)
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
}

func (ac accountSuite) getMany(t *testing.T) {
	r := ac.repo(t, 3)
	got, err := r.GetMany(ctx, []string{"u3", "nope", "u1"})
	must(t, err)
	ids := make([]string, len(got))
	for i, a := range got {
		ids[i] = a.ID + "=" + a.Email
	}
	sort.Strings(ids)
	if strings.Join(ids, ",") != "u1=a@x.io,u3=c@x.io" {
		t.Fatalf("got %v", ids)
	}
	if got, err := r.GetMany(ctx, nil); err != nil || len(got) != 0 {
		t.Fatalf("no ids: %v %v", got, err)
	}
}

func (ac accountSuite) search(t *testing.T) {
	r := ac.newRepo(t)
	// Each wildcard stands where, as a wildcard, it would match another
	// address too: "an_" matches "anna@", "an%" everything from "an".
	emails := []string{"ann@x.io", "anna@x.io", "annie@x.io", "an_a@x.io", "an%b@x.io", "an!c@x.io", `an\d@x.io`,
		"ben@x.io", "zed@x.io"}
	for i, e := range emails {
		must(t, r.Create(ctx, ac.acc(fmt.Sprintf("u%d", i+1), e)))
	}
	search := func(prefix string, page core.Page) ([]string, string) {
		t.Helper()
		as, next, err := r.Search(ctx, prefix, page)
		must(t, err)
		out := []string{}
		for _, a := range as {
			out = append(out, a.Email)
		}
		return out, next
	}
	want := func(got []string, want ...string) {
		t.Helper()
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Fatalf("got %q, want %q", got, want)
		}
	}

	first, next := search("ann", core.Page{Limit: 2})
	want(first, "ann@x.io", "anna@x.io")
	if next == "" {
		t.Fatal("no cursor after a full page")
	}
	second, last := search("ann", core.Page{Limit: 2, Cursor: next})
	want(second, "annie@x.io")
	if last != "" {
		t.Fatalf("a cursor after the last page: %q", last)
	}
	all, next := search("an", core.Page{})
	want(all, "an!c@x.io", "an%b@x.io", `an\d@x.io`, "an_a@x.io", "ann@x.io", "anna@x.io", "annie@x.io")
	if next != "" {
		t.Fatalf("unpaged, with a cursor %q", next)
	}
	for prefix, only := range map[string]string{"an_": "an_a@x.io", "an%": "an%b@x.io", "an!": "an!c@x.io", `an\`: `an\d@x.io`,
		"ben@x.io": "ben@x.io"} {
		got, _ := search(prefix, core.Page{Limit: 10})
		want(got, only)
	}
	for _, prefix := range []string{"anz", "%", "_", "a%n", "zed@x.io.", "á"} {
		got, _ := search(prefix, core.Page{Limit: 10})
		want(got)
	}
	_, _, err := r.Search(ctx, "an", core.Page{Limit: 2, Cursor: "nonsense"})
	wantKind(t, err, core.KindInvalid)
}

func (ac accountSuite) profileAndAdmin(t *testing.T) {
	r := ac.repo(t, 1)
	a := ac.acc("u1", "a@x.io")
	a.DisplayName, a.Timezone, a.UpdatedAt = "Ann", "Europe/Paris", now.Add(time.Minute)
	must(t, r.UpdateProfile(ctx, a))
	must(t, r.UpdateProfile(ctx, a)) // unchanged values still count as found
	must(t, r.SetAdmin(ctx, "a@x.io", true))
	got, _ := r.Get(ctx, "u1")
	if got.DisplayName != "Ann" || got.Timezone != "Europe/Paris" || got.PasswordHash != "h-u1" || !got.Admin {
		t.Fatalf("got %+v", got)
	}
	wantKind(t, r.SetAdmin(ctx, "ghost@x.io", true), core.KindNotFound)
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
	refused := core.Invalid("no", "no")
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

func (ac accountSuite) sessions(t *testing.T) {
	r := ac.repo(t, 2)
	for i, h := range []string{"t1", "t2", "t3"} {
		tk := ac.tok(h, "u1")
		tk.CreatedAt = now.Add(time.Duration(i) * time.Minute)
		revoked, err := r.CreateToken(ctx, tk, 2)
		must(t, err)
		if want := map[string]string{"t1": "", "t2": "", "t3": "t1"}[h]; strings.Join(revoked, ",") != want {
			t.Fatalf("create %s revoked %v, want %q", h, revoked, want)
		}
	}
	ac.newToken(t, r, ac.tok("x1", "u2"))
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
	removed, err := r.EndWaysIn(ctx, "u1")
	must(t, err)
	if len(removed.Sessions) != 1 || removed.Sessions[0] != "t2" {
		t.Fatalf("ending every way in revoked %v", removed.Sessions)
	}
	if _, err := r.Session(ctx, "x1"); err != nil {
		t.Fatal("another user's token must stay")
	}
}

func (ac accountSuite) purge(t *testing.T) {
	r := ac.repo(t, 2)
	ac.newToken(t, r, ac.tok("live", "u1"))
	dead := ac.tok("dead", "u1")
	dead.ExpiresAt = now.Add(-time.Minute)
	ac.newToken(t, r, dead)
	ac.putCode(t, r, ac.code("u1", accounts.PurposeVerify, "old", now.Add(-time.Minute)))
	// A reset code past its own expiry whose proof still lives must stay.
	ac.putCode(t, r, ac.code("u2", accounts.PurposeReset, "rc", now.Add(-time.Minute)))
	must(t, ac.proveReset(r, "u2", "rc", "p", now, now.Add(5*time.Minute)))
	// A mail of a live code must stay.
	ac.putCode(t, r, ac.code("u1", accounts.PurposeReset, "live", now.Add(time.Minute)))
	n, err := r.Purge(ctx, now)
	must(t, err)
	if n != 4 { // the dead token, the old code, the mails of both expired codes
		t.Fatalf("purged %d", n)
	}
	ac.wantNoSessions(t, r, "dead")
	_, err = r.GetCode(ctx, "u1", accounts.PurposeVerify)
	wantKind(t, err, core.KindNotFound)
	ac.wantSessions(t, r, "live")
	must(t, func() error { _, err := r.GetCode(ctx, "u2", accounts.PurposeReset); return err }())
	if n, _ := r.Purge(ctx, now.Add(10*time.Minute)); n != 3 { // the proof, the live code and its mail
		t.Fatalf("proof purge %d", n)
	}
}

func (ac accountSuite) deleteTokenAndAccount(t *testing.T) {
	r := ac.repo(t, 1)
	ac.newToken(t, r, ac.tok("t1", "u1"))
	ac.newToken(t, r, ac.tok("t2", "u1"))
	ac.putCode(t, r, ac.code("u1", accounts.PurposeVerify, "c", now))
	must(t, r.DeleteToken(ctx, "t1"))
	ac.wantNoSessions(t, r, "t1")
	revoked, err := r.Delete(ctx, "u1")
	must(t, err)
	if len(revoked) != 1 || revoked[0] != "t2" {
		t.Fatalf("revoked %v", revoked)
	}
	_, err = r.Get(ctx, "u1")
	wantKind(t, err, core.KindNotFound)
	_, err = r.GetCode(ctx, "u1", accounts.PurposeVerify)
	wantKind(t, err, core.KindNotFound)
	must(t, r.Create(ctx, ac.acc("u3", "a@x.io"))) // the e-mail is free again
	_, err = r.Delete(ctx, "u1")
	wantKind(t, err, core.KindNotFound)
}

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
	refuse := core.Conflict("no", "no")
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
