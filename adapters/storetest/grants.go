package storetest

import (
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"tandem/core"
	"tandem/modules/accounts"
)

// GrantStore is the accounts repository with its queue of grants to
// revoke: one store, since a removal of an identity writes both in one
// transaction.
type GrantStore interface {
	accounts.Repository
	accounts.Revocations
}

// ProviderGrants checks that an identity's grant (Apple's sealed refresh
// token) is kept with it and never lost: every removal of the identity
// queues it for revocation in its own transaction, and the queue is
// emptied with leases, each revocation once.
func ProviderGrants(t *testing.T, newStore func(t *testing.T) GrantStore) {
	g := grantSuite{newStore: newStore}
	t.Run("unlinking queues the identity's grant, and only its", g.unlink)
	t.Run("a later sign-in's grant replaces the identity's; one without keeps it", g.replace)
	t.Run("deleting the account queues every grant, and the queue outlives the account", g.deleteAccount)
	t.Run("ending every way in, by the panic button or a proof, queues the grants", g.endWaysIn)
	t.Run("a take-over keeps the grant of the identity it links again and queues the others", g.takeOver)
	t.Run("a refused sign-in or unlink writes and queues nothing", g.refused)
	t.Run("a grant is queued once; due soonest first; a claim is taken once and leased", g.queue)
	t.Run("a failed revocation waits for its backoff; it is forgotten with its claim only", g.retry)
}

// grantSuite holds ProviderGrants' helpers and subtests.
type grantSuite struct {
	newStore func(t *testing.T) GrantStore
	ac       accountSuite
}

// store holds u1 (a@x.io, with a password) and u2 (b@x.io).
func (g grantSuite) store(t *testing.T) GrantStore {
	t.Helper()
	r := g.newStore(t)
	must(t, r.Create(ctx, g.ac.acc("u1", "a@x.io")))
	must(t, r.Create(ctx, g.ac.acc("u2", "b@x.io")))
	return r
}

// link links (provider, subject) to user with grant ("" none), as a first
// sign-in does.
func (g grantSuite) link(t *testing.T, r GrantStore, user, provider, subject, grant string) {
	t.Helper()
	_, err := r.SignIn(ctx, provider, subject, "", func(accounts.SignInState) (accounts.SignInUpdate, error) {
		return accounts.SignInUpdate{Account: g.ac.acc(user, user+"@x.io"), RefreshToken: grant,
			Link: &accounts.Identity{Provider: provider, Subject: subject, UserID: user, CreatedAt: now}}, nil
	})
	must(t, err)
}

// again signs the linked subject in again, bringing grant ("" none).
func (g grantSuite) again(t *testing.T, r GrantStore, user, provider, subject, grant string) {
	t.Helper()
	_, err := r.SignIn(ctx, provider, subject, "", func(st accounts.SignInState) (accounts.SignInUpdate, error) {
		if st.Identity == nil || st.Linked == nil || st.Linked.ID != user {
			return accounts.SignInUpdate{}, fmt.Errorf("%s/%s is not linked to %s: %+v", provider, subject, user, st)
		}
		return accounts.SignInUpdate{Account: *st.Linked, RefreshToken: grant}, nil
	})
	must(t, err)
}

// queued is the queue due at at, as "provider/subject/user/grant" in grant order,
// each with the id RevocationID gives its grant.
func (grantSuite) queued(t *testing.T, r GrantStore, at time.Time) []string {
	t.Helper()
	due, err := r.DueRevocations(ctx, at, 100)
	must(t, err)
	n, err := r.PendingRevocations(ctx)
	must(t, err)
	if n != len(due) {
		t.Fatalf("%d pending, %d due", n, len(due))
	}
	sort.Slice(due, func(i, j int) bool { return due[i].Token < due[j].Token })
	var out []string
	for _, rv := range due {
		if rv.ID != accounts.RevocationID(rv.Token) {
			t.Fatalf("revocation %+v: its id is not its grant's", rv)
		}
		out = append(out, rv.Provider+"/"+rv.Subject+"/"+rv.UserID+"/"+rv.Token)
	}
	return out
}

func (g grantSuite) wantQueued(t *testing.T, r GrantStore, want ...string) {
	t.Helper()
	if got := g.queued(t, r, now); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("queued %v, want %v", got, want)
	}
}

func allow(accounts.Account, []accounts.Identity, []string) error { return nil }

func (g grantSuite) unlink(t *testing.T) {
	r := g.store(t)
	g.link(t, r, "u1", accounts.ProviderApple, "s-1", "g1")
	g.link(t, r, "u1", accounts.ProviderGoogle, "s-2", "")
	g.link(t, r, "u2", accounts.ProviderApple, "s-3", "g3")
	g.wantQueued(t, r)
	must(t, r.RemoveWayIn(ctx, "u1", accounts.WayIn{Provider: accounts.ProviderGoogle}, allow))
	g.wantQueued(t, r) // an identity without a grant queues nothing
	must(t, r.RemoveWayIn(ctx, "u1", accounts.WayIn{Provider: accounts.ProviderApple}, allow))
	g.wantQueued(t, r, "apple/s-1/u1/g1")
	if ids, _ := r.Identities(ctx, "u1"); len(ids) != 0 {
		t.Fatalf("identities left %+v", ids)
	}
	// Linked again (a sign-in with a new code), unlinked again: its new grant.
	g.link(t, r, "u1", accounts.ProviderApple, "s-1", "g4")
	must(t, r.RemoveWayIn(ctx, "u1", accounts.WayIn{Provider: accounts.ProviderApple}, allow))
	g.wantQueued(t, r, "apple/s-1/u1/g1", "apple/s-1/u1/g4")
}

func (g grantSuite) replace(t *testing.T) {
	r := g.store(t)
	g.link(t, r, "u1", accounts.ProviderApple, "s-1", "g1")
	g.again(t, r, "u1", accounts.ProviderApple, "s-1", "g2")
	g.again(t, r, "u1", accounts.ProviderApple, "s-1", "")
	g.wantQueued(t, r) // replaced, not revoked: one authorization
	must(t, r.RemoveWayIn(ctx, "u1", accounts.WayIn{Provider: accounts.ProviderApple}, allow))
	g.wantQueued(t, r, "apple/s-1/u1/g2")
	// A grant first brought by a later sign-in is kept too.
	g.link(t, r, "u2", accounts.ProviderApple, "s-3", "")
	g.again(t, r, "u2", accounts.ProviderApple, "s-3", "g3")
	must(t, r.RemoveWayIn(ctx, "u2", accounts.WayIn{Provider: accounts.ProviderApple}, allow))
	g.wantQueued(t, r, "apple/s-1/u1/g2", "apple/s-3/u2/g3")
}

func (g grantSuite) deleteAccount(t *testing.T) {
	r := g.store(t)
	g.link(t, r, "u1", accounts.ProviderApple, "s-1", "g1")
	g.link(t, r, "u1", accounts.ProviderGoogle, "s-2", "g2")
	g.link(t, r, "u2", accounts.ProviderApple, "s-3", "g3")
	_, err := r.Delete(ctx, "u1")
	must(t, err)
	g.wantQueued(t, r, "apple/s-1/u1/g1", "google/s-2/u1/g2")
	if _, err := r.Get(ctx, "u1"); !core.IsKind(err, core.KindNotFound) {
		t.Fatalf("u1: %v", err)
	}
	if ids, _ := r.Identities(ctx, "u2"); len(ids) != 1 {
		t.Fatalf("u2's identities %+v", ids)
	}
}

func (g grantSuite) endWaysIn(t *testing.T) {
	r := g.store(t)
	g.link(t, r, "u1", accounts.ProviderApple, "s-1", "g1")
	removed, err := r.EndWaysIn(ctx, "u1")
	must(t, err)
	if len(removed.Providers) != 1 {
		t.Fatalf("removed %+v", removed)
	}
	g.wantQueued(t, r, "apple/s-1/u1/g1")
	// A reset code spent ends them the same way, in its own transaction.
	g.link(t, r, "u2", accounts.ProviderApple, "s-2", "g2")
	g.ac.putCode(t, r, g.ac.code("u2", accounts.PurposeReset, "rc", now.Add(time.Hour)))
	must(t, g.ac.proveReset(r, "u2", "rc", "proof", now, now.Add(time.Minute)))
	_, err = r.UpdateCode(ctx, "u2", accounts.PurposeReset, accounts.SpendReset("rc", "h2", now, g.ac.tok("new", "u2")))
	must(t, err)
	g.wantQueued(t, r, "apple/s-1/u1/g1", "apple/s-2/u2/g2")
}

func (g grantSuite) takeOver(t *testing.T) {
	r := g.newStore(t)
	pending := g.ac.acc("p1", "p@x.io") // never verified
	must(t, r.Create(ctx, pending))
	g.link(t, r, "p1", accounts.ProviderApple, "s-1", "g1")
	g.link(t, r, "p1", accounts.ProviderGoogle, "s-2", "g2")
	// Apple's subject proves the e-mail: a take-over that links it again.
	takeOver := func(grant string) accounts.SignInDecision {
		return func(st accounts.SignInState) (accounts.SignInUpdate, error) {
			if st.Identity == nil || st.Linked == nil {
				return accounts.SignInUpdate{}, fmt.Errorf("not linked: %+v", st)
			}
			a, link := *st.Linked, *st.Identity
			a.Verified, a.PasswordHash, a.UpdatedAt = true, "", now
			return accounts.SignInUpdate{Account: a, Link: &link, TakeOver: true, RefreshToken: grant}, nil
		}
	}
	u, err := r.SignIn(ctx, accounts.ProviderApple, "s-1", "p@x.io", takeOver(""))
	must(t, err)
	if !u.TakeOver {
		t.Fatalf("%+v", u)
	}
	g.wantQueued(t, r, "google/s-2/p1/g2") // Apple's grant stays with its identity
	if ids, _ := r.Identities(ctx, "p1"); len(ids) != 1 || ids[0].Provider != accounts.ProviderApple {
		t.Fatalf("identities %+v", ids)
	}
	_, err = r.Delete(ctx, "p1")
	must(t, err)
	g.wantQueued(t, r, "apple/s-1/p1/g1", "google/s-2/p1/g2")

	// The same with a new grant: it replaces the kept one.
	must(t, r.Create(ctx, g.ac.acc("p2", "q@x.io")))
	g.link(t, r, "p2", accounts.ProviderApple, "s-5", "g5")
	_, err = r.SignIn(ctx, accounts.ProviderApple, "s-5", "q@x.io", takeOver("g6"))
	must(t, err)
	_, err = r.Delete(ctx, "p2")
	must(t, err)
	g.wantQueued(t, r, "apple/s-1/p1/g1", "google/s-2/p1/g2", "apple/s-5/p2/g6")
}

func (g grantSuite) refused(t *testing.T) {
	r := g.store(t)
	refuse := core.Conflict("no", "storetest.no", "no")
	_, err := r.SignIn(ctx, accounts.ProviderApple, "s-1", "", func(accounts.SignInState) (accounts.SignInUpdate, error) {
		return accounts.SignInUpdate{RefreshToken: "g1"}, refuse
	})
	if err != refuse {
		t.Fatalf("refused: %v", err)
	}
	g.link(t, r, "u1", accounts.ProviderApple, "s-1", "g1")
	if err := r.RemoveWayIn(ctx, "u1", accounts.WayIn{Provider: accounts.ProviderApple},
		func(accounts.Account, []accounts.Identity, []string) error { return refuse }); err != refuse {
		t.Fatalf("refused unlink: %v", err)
	}
	g.wantQueued(t, r)
	must(t, r.RemoveWayIn(ctx, "u1", accounts.WayIn{Provider: accounts.ProviderApple}, allow))
	g.wantQueued(t, r, "apple/s-1/u1/g1")
}

func (g grantSuite) queue(t *testing.T) {
	r := g.newStore(t)
	a := accounts.RevocationOf(accounts.ProviderApple, "s-a", "u1", "ga")
	b := accounts.RevocationOf(accounts.ProviderApple, "s-b", "gone", "gb")
	b.NextAttemptAt = now.Add(-time.Minute)
	later := accounts.RevocationOf(accounts.ProviderApple, "s-c", "u3", "gc")
	later.NextAttemptAt = now.Add(time.Minute)
	for _, rv := range []accounts.Revocation{a, b, later, a} {
		must(t, r.QueueRevocation(ctx, rv))
	}
	if n, _ := r.PendingRevocations(ctx); n != 3 {
		t.Fatalf("%d pending: a grant is queued once", n)
	}
	due, err := r.DueRevocations(ctx, now, 10)
	must(t, err)
	if len(due) != 2 || due[0].ID != a.ID || due[1].ID != b.ID || due[0].Token != "ga" || due[1].UserID != "gone" {
		t.Fatalf("due %+v: a (due at once) then b, not the later one", due)
	}
	if one, _ := r.DueRevocations(ctx, now, 1); len(one) != 1 || one[0].ID != a.ID {
		t.Fatalf("limit 1: %+v", one)
	}
	if ok, err := r.ClaimRevocation(ctx, later.ID, "x", now, now.Add(time.Minute)); err != nil || ok {
		t.Fatalf("claimed one not due: %v %v", ok, err)
	}
	const n = 12
	var won atomic.Int32
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ok, err := r.ClaimRevocation(ctx, a.ID, fmt.Sprintf("claim-%d", i), now, now.Add(time.Minute))
			if err != nil {
				t.Error(err)
			}
			if ok {
				won.Add(1)
			}
		}()
	}
	wg.Wait()
	if won.Load() != 1 {
		t.Fatalf("%d of %d concurrent claims won", won.Load(), n)
	}
	if due, _ := r.DueRevocations(ctx, now.Add(30*time.Second), 10); len(due) != 1 || due[0].ID != b.ID {
		t.Fatalf("a claimed revocation is due within its lease: %+v", due)
	}
	// The lease runs out (the process died): another takes it.
	if ok, err := r.ClaimRevocation(ctx, a.ID, "late", now.Add(2*time.Minute), now.Add(3*time.Minute)); err != nil || !ok {
		t.Fatalf("a revocation whose lease ran out: %v %v", ok, err)
	}
}

func (g grantSuite) retry(t *testing.T) {
	r := g.newStore(t)
	rv := accounts.RevocationOf(accounts.ProviderApple, "s-a", "u1", "ga")
	must(t, r.QueueRevocation(ctx, rv))
	for attempt := 1; attempt <= 3; attempt++ {
		at := now.Add(time.Duration(attempt) * time.Hour)
		ok, err := r.ClaimRevocation(ctx, rv.ID, "s", at, at.Add(time.Minute))
		must(t, err)
		if !ok {
			t.Fatalf("attempt %d: not claimable", attempt)
		}
		next := accounts.RevokeRetryAt(attempt, at)
		must(t, r.RetryRevocation(ctx, rv.ID, "other", 9, at)) // a lost claim changes nothing
		must(t, r.RetryRevocation(ctx, rv.ID, "s", attempt, next))
		if due, _ := r.DueRevocations(ctx, next.Add(-time.Millisecond), 10); len(due) != 0 {
			t.Fatalf("attempt %d: due before its backoff ends", attempt)
		}
		due, err := r.DueRevocations(ctx, next, 10)
		must(t, err)
		if len(due) != 1 || due[0].Attempts != attempt || !due[0].NextAttemptAt.Equal(next) || due[0].Claim != "" ||
			due[0].Token != "ga" {
			t.Fatalf("attempt %d: due %+v", attempt, due)
		}
	}
	at := now.Add(5 * time.Hour)
	must(t, r.ForgetRevocation(ctx, rv.ID, "")) // no claim: nothing
	ok, err := r.ClaimRevocation(ctx, rv.ID, "s2", at, at.Add(time.Minute))
	must(t, err)
	if !ok {
		t.Fatal("not claimed")
	}
	must(t, r.ForgetRevocation(ctx, rv.ID, "other"))
	if n, _ := r.PendingRevocations(ctx); n != 1 {
		t.Fatalf("forgotten by another claim: %d pending", n)
	}
	must(t, r.ForgetRevocation(ctx, rv.ID, "s2"))
	if n, _ := r.PendingRevocations(ctx); n != 0 {
		t.Fatalf("%d pending", n)
	}
}
