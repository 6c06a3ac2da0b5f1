package storetest

import (
	"fmt"
	"sort"
	"strings"
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
	t.Run("administrators' changes", func(t *testing.T) { AccountBlocks(t, newRepo) })
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
	revoked, err := r.CreateToken(ctx, tk, accounts.KeepSessions(tk, accounts.MaxSessions))
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
	a.DisplayName, a.Nickname, a.Timezone, a.UpdatedAt = "Ann", "Nan", "Europe/Paris", now.Add(time.Minute)
	must(t, r.UpdateProfile(ctx, a))
	must(t, r.UpdateProfile(ctx, a)) // unchanged values still count as found
	must(t, r.SetAdmin(ctx, "a@x.io", true))
	got, _ := r.Get(ctx, "u1")
	if got.DisplayName != "Ann" || got.Nickname != "Nan" || got.Timezone != "Europe/Paris" || got.PasswordHash != "h-u1" || !got.Admin {
		t.Fatalf("got %+v", got)
	}
	wantKind(t, r.SetAdmin(ctx, "ghost@x.io", true), core.KindNotFound)
}
