// This file holds AccountRepository's subtests of tokens and sessions: the
// session list and its cap, the purge of what expired, and deleting a token
// or the account.

package storetest

import (
	"strings"
	"testing"
	"time"

	"tandem/core"
	"tandem/modules/accounts"
)

func (ac accountSuite) sessions(t *testing.T) {
	r := ac.repo(t, 2)
	for i, h := range []string{"t1", "t2", "t3"} {
		tk := ac.tok(h, "u1")
		tk.CreatedAt = now.Add(time.Duration(i) * time.Minute)
		revoked, err := r.CreateToken(ctx, tk, accounts.KeepSessions(tk, 2))
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
