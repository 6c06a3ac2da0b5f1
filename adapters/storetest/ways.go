package storetest

import (
	"sort"
	"testing"
	"time"

	"tandem/core"
	"tandem/modules/accounts"
	"tandem/modules/passkeys"
)

// WaysInStores are an account store and the passkey store beside it (one
// database, or memory stores wired together).
type WaysInStores struct {
	Accounts accounts.Repository
	Passkeys passkeys.Repository
}

// WaysIn checks that an account's ways in (tokens, identities, passkeys)
// end and go together: the panic button and a proof end them all, in one
// transaction; a removal decides on all of them.
func WaysIn(t *testing.T, newStores func(t *testing.T) WaysInStores) {
	ac := accountSuite{}
	setup := func(t *testing.T) WaysInStores {
		s := newStores(t)
		for _, id := range []string{"u1", "u2"} {
			a := ac.acc(id, id+"@x.io")
			a.PasswordHash = "" // passwordless: the passkeys and the provider are its only ways in
			must(t, s.Accounts.Create(ctx, a))
		}
		for _, u := range []string{"u1", "u2"} {
			ac.newToken(t, s.Accounts, ac.tok("t-"+u, u))
			_, err := s.Accounts.SignIn(ctx, accounts.ProviderApple, "s-"+u, "", func(accounts.SignInState) (accounts.SignInUpdate, error) {
				return accounts.SignInUpdate{Account: ac.acc(u, u+"@x.io"),
					Link: &accounts.Identity{Provider: accounts.ProviderApple, Subject: "s-" + u, UserID: u, CreatedAt: now}}, nil
			})
			must(t, err)
			for _, k := range []string{"k1-", "k2-"} {
				must(t, s.Passkeys.Create(ctx, passkeys.Passkey{ID: k + u, UserID: u, CredentialID: []byte(k + u),
					PublicKey: []byte("pk"), Details: []byte("{}"), CreatedAt: now}, 20))
			}
		}
		return s
	}
	wantLeft := func(t *testing.T, s WaysInStores, user string, tokens, ids, keys int) {
		t.Helper()
		ts, _ := s.Accounts.Tokens(ctx, user)
		is, _ := s.Accounts.Identities(ctx, user)
		ks, _ := s.Passkeys.List(ctx, user)
		if len(ts) != tokens || len(is) != ids || len(ks) != keys {
			t.Fatalf("%s holds %d tokens, %d identities, %d passkeys; want %d, %d, %d", user, len(ts), len(is), len(ks), tokens, ids, keys)
		}
	}
	t.Run("ending every way in takes the user's tokens, identities and passkeys, and no one else's", func(t *testing.T) {
		s := setup(t)
		r, err := s.Accounts.EndWaysIn(ctx, "u1")
		must(t, err)
		if len(r.Sessions) != 1 || r.Sessions[0] != "t-u1" || len(r.Providers) != 1 || r.Providers[0] != "apple" || r.Passkeys != 2 {
			t.Fatalf("removed %+v", r)
		}
		wantLeft(t, s, "u1", 0, 0, 0)
		wantLeft(t, s, "u2", 1, 1, 2)
		_, err = s.Accounts.EndWaysIn(ctx, "nobody")
		wantKind(t, err, core.KindNotFound)
	})
	t.Run("a reset ends them all and keeps its own new token", func(t *testing.T) {
		s := setup(t)
		ac.putCode(t, s.Accounts, ac.code("u1", accounts.PurposeReset, "rc", now.Add(time.Hour)))
		must(t, ac.proveReset(s.Accounts, "u1", "rc", "proof", now, now.Add(time.Minute)))
		removed, err := s.Accounts.UpdateCode(ctx, "u1", accounts.PurposeReset, accounts.SpendReset("rc", "h2", now, ac.tok("new", "u1")))
		must(t, err)
		if len(removed.Sessions) != 1 || removed.Passkeys != 2 || len(removed.Providers) != 1 {
			t.Fatalf("removed %+v", removed)
		}
		wantLeft(t, s, "u1", 1, 0, 0)
		ac.wantSessions(t, s.Accounts, "new")
	})
	t.Run("removing a way in sees every passkey; the last one stays", func(t *testing.T) {
		s := setup(t)
		var seen []string
		decide := func(w accounts.WayIn) accounts.WayDecision {
			return func(a accounts.Account, ids []accounts.Identity, keys []string) error {
				seen = append([]string(nil), keys...)
				return accounts.DecideRemoveWay(w)(a, ids, keys)
			}
		}
		for _, w := range []accounts.WayIn{{Passkey: "k1-u1"}, {Provider: accounts.ProviderApple}} {
			must(t, s.Accounts.RemoveWayIn(ctx, "u1", w, decide(w)))
		}
		sort.Strings(seen)
		if len(seen) != 1 || seen[0] != "k2-u1" {
			t.Fatalf("the last decision saw passkeys %v", seen)
		}
		last := accounts.WayIn{Passkey: "k2-u1"}
		err := s.Accounts.RemoveWayIn(ctx, "u1", last, accounts.DecideRemoveWay(last))
		if core.As(err).Code != "last_signin_method" {
			t.Fatalf("the last way in: %v", err)
		}
		other := accounts.WayIn{Passkey: "k1-u2"}
		wantKind(t, s.Accounts.RemoveWayIn(ctx, "u1", other, accounts.DecideRemoveWay(other)), core.KindNotFound)
		wantLeft(t, s, "u1", 1, 0, 1)
		wantLeft(t, s, "u2", 1, 1, 2)
	})
}
