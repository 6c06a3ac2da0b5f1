package storetest

import (
	"slices"
	"testing"
	"time"

	"tandem/core"
	"tandem/modules/accounts"
)

// AccountBlocks checks what administrators do to accounts: the list, a
// block, ending every session and a verification vouched for.
func AccountBlocks(t *testing.T, newRepo func(t *testing.T) accounts.Repository) {
	ac := accountSuite{newRepo: newRepo}
	t.Run("list: every account newest first, a page at a time; a forged cursor is invalid", ac.list)
	t.Run("block: the flag is stored, every token goes; unblock keeps the tokens made since", ac.block)
	t.Run("delete tokens: every session of the user, no other's", ac.deleteTokens)
	t.Run("mark verified: verified, every earlier way in ended; no account is not found", ac.markVerified)
}

func (ac accountSuite) list(t *testing.T) {
	r := ac.newRepo(t)
	// Three at one millisecond (ordered by id), one older, one newer.
	at := []time.Time{now, now, now, now.Add(-time.Minute), now.Add(time.Minute)}
	for i, id := range []string{"u1", "u3", "u2", "u0", "u9"} {
		a := ac.acc(id, id+"@x.io")
		a.CreatedAt = at[i]
		must(t, r.Create(ctx, a))
	}
	var got []string
	page := core.Page{Limit: 2}
	for n := 0; ; n++ {
		as, next, err := r.List(ctx, page)
		must(t, err)
		if len(as) > 2 || n > 3 {
			t.Fatalf("page %d of %d accounts", n, len(as))
		}
		for _, a := range as {
			got = append(got, a.ID)
		}
		if next == "" {
			break
		}
		page.Cursor = next
	}
	if want := []string{"u9", "u3", "u2", "u1", "u0"}; !slices.Equal(got, want) {
		t.Fatalf("listed %v, want %v", got, want)
	}
	all, next, err := r.List(ctx, core.Page{Limit: 10})
	must(t, err)
	if len(all) != 5 || next != "" || all[0].Email != "u9@x.io" {
		t.Fatalf("%+v %q", all, next)
	}
	_, _, err = r.List(ctx, core.Page{Limit: 2, Cursor: "bm9wZQ"})
	wantKind(t, err, core.KindInvalid)
	empty, _, err := ac.newRepo(t).List(ctx, core.Page{Limit: 2})
	must(t, err)
	if len(empty) != 0 {
		t.Fatalf("%+v", empty)
	}
}

func (ac accountSuite) block(t *testing.T) {
	r := ac.repo(t, 2)
	ac.newToken(t, r, ac.tok("t1", "u1"))
	ac.newToken(t, r, ac.tok("t1b", "u1"))
	ac.newToken(t, r, ac.tok("t2", "u2"))
	revoked, err := r.SetBlocked(ctx, "u1", true)
	must(t, err)
	slices.Sort(revoked)
	if !slices.Equal(revoked, []string{"t1", "t1b"}) {
		t.Fatalf("revoked %v", revoked)
	}
	ac.wantNoSessions(t, r, "t1", "t1b")
	ac.wantSessions(t, r, "t2")
	a, err := r.Get(ctx, "u1")
	must(t, err)
	if !a.Blocked || a.Email != "a@x.io" {
		t.Fatalf("%+v", a)
	}
	if b, _ := r.Get(ctx, "u2"); b.Blocked {
		t.Fatalf("another account blocked: %+v", b)
	}
	// A token that raced the block resolves to a blocked session.
	ac.newToken(t, r, ac.tok("late", "u1"))
	s, err := r.Session(ctx, "late")
	must(t, err)
	if !s.Blocked {
		t.Fatalf("%+v", s)
	}
	// The profile's update leaves the block as it is.
	a.DisplayName = "Ann"
	a.Blocked = false
	must(t, r.UpdateProfile(ctx, a))
	if a, _ = r.Get(ctx, "u1"); !a.Blocked || a.DisplayName != "Ann" {
		t.Fatalf("%+v", a)
	}
	revoked, err = r.SetBlocked(ctx, "u1", false)
	must(t, err)
	if len(revoked) != 0 {
		t.Fatalf("unblock revoked %v", revoked)
	}
	ac.wantSessions(t, r, "late")
	if s, _ = r.Session(ctx, "late"); s.Blocked {
		t.Fatalf("%+v", s)
	}
	_, err = r.SetBlocked(ctx, "nobody", true)
	wantKind(t, err, core.KindNotFound)
}

func (ac accountSuite) deleteTokens(t *testing.T) {
	r := ac.repo(t, 2)
	ac.newToken(t, r, ac.tok("t1", "u1"))
	ac.newToken(t, r, ac.tok("t2", "u2"))
	revoked, err := r.DeleteTokens(ctx, "u1")
	must(t, err)
	if !slices.Equal(revoked, []string{"t1"}) {
		t.Fatalf("revoked %v", revoked)
	}
	ac.wantNoSessions(t, r, "t1")
	ac.wantSessions(t, r, "t2")
	revoked, err = r.DeleteTokens(ctx, "u1")
	must(t, err)
	if len(revoked) != 0 {
		t.Fatalf("revoked %v", revoked)
	}
}

func (ac accountSuite) markVerified(t *testing.T) {
	r := ac.repo(t, 1) // u1 pending, linked (as a sign-in before this rule could) and holding a token
	_, err := r.SignIn(ctx, accounts.ProviderGoogle, "g-x", "", func(accounts.SignInState) (accounts.SignInUpdate, error) {
		return accounts.SignInUpdate{Account: ac.acc("u1", "a@x.io"),
			Link: &accounts.Identity{Provider: accounts.ProviderGoogle, Subject: "g-x", UserID: "u1", CreatedAt: now}}, nil
	})
	must(t, err)
	ac.newToken(t, r, ac.tok("squatter", "u1"))
	removed, err := r.MarkVerified(ctx, "u1")
	must(t, err)
	if !slices.Equal(removed.Sessions, []string{"squatter"}) || !slices.Equal(removed.Providers, []string{accounts.ProviderGoogle}) {
		t.Fatalf("removed %+v", removed)
	}
	ac.wantNoSessions(t, r, "squatter")
	if a, _ := r.Get(ctx, "u1"); !a.Verified || a.PasswordHash != "h-u1" {
		t.Fatalf("%+v", a)
	}
	_, err = r.MarkVerified(ctx, "nobody")
	wantKind(t, err, core.KindNotFound)
}
