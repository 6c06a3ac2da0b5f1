package storetest

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"tandem/modules/accounts"
)

// AccountStore is the accounts repository with its mail outbox: one store,
// since PutCode writes both in one transaction.
type AccountStore interface {
	accounts.Repository
	accounts.Outbox
}

// MailOutbox checks the accounts.Outbox of an AccountStore.
func MailOutbox(t *testing.T, newStore func(t *testing.T) AccountStore) {
	ctx := context.Background()
	now := time.Date(2025, 6, 15, 12, 0, 0, 0, time.UTC)
	ttl := accounts.CodeTTL
	// put stores a code of user u and purpose p with its mail, queued at at.
	put := func(t *testing.T, r AccountStore, u string, p accounts.Purpose, hash string, at time.Time) accounts.OutboxMail {
		t.Helper()
		c := accounts.Code{UserID: u, Purpose: p, Hash: hash, ExpiresAt: at.Add(ttl), CreatedAt: at}
		m := codeMail(c)
		must(t, r.PutCode(ctx, c, m))
		return m
	}
	users := func(t *testing.T, r AccountStore, ids ...string) {
		t.Helper()
		for _, id := range ids {
			must(t, r.Create(ctx, accounts.Account{ID: id, Email: id + "@x.io", PasswordHash: "h", CreatedAt: now, UpdatedAt: now}))
		}
	}
	dueIDs := func(t *testing.T, r AccountStore, at time.Time) []string {
		t.Helper()
		due, err := r.DueMail(ctx, at, 100)
		must(t, err)
		ids := make([]string, len(due))
		for i, m := range due {
			ids[i] = m.ID
		}
		return ids
	}
	pending := func(t *testing.T, r AccountStore, want int) {
		t.Helper()
		n, err := r.PendingMail(ctx)
		must(t, err)
		if n != want {
			t.Fatalf("%d mails pending, want %d", n, want)
		}
	}

	t.Run("a code is queued with its mail; a new code replaces the unsent mail of its kind", func(t *testing.T) {
		r := newStore(t)
		users(t, r, "u1", "u2")
		m1 := put(t, r, "u1", accounts.PurposeVerify, "c1", now)
		due, err := r.DueMail(ctx, now, 10)
		must(t, err)
		if len(due) != 1 || fmt.Sprint(due[0]) != fmt.Sprint(m1) {
			t.Fatalf("due %+v, want %+v", due, m1)
		}
		reset := put(t, r, "u1", accounts.PurposeReset, "r1", now)
		other := put(t, r, "u2", accounts.PurposeVerify, "c1", now)
		m2 := put(t, r, "u1", accounts.PurposeVerify, "c2", now.Add(time.Second))
		pending(t, r, 3)
		if got := fmt.Sprint(dueIDs(t, r, now.Add(time.Second))); got != fmt.Sprint([]string{reset.ID, other.ID, m2.ID}) {
			t.Fatalf("due %s: the replaced mail must go, the others stay, soonest first", got)
		}
	})

	t.Run("due: next attempt reached, code alive, no live claim; soonest first, limited", func(t *testing.T) {
		r := newStore(t)
		users(t, r, "u1", "u2", "u3", "u4")
		a := put(t, r, "u1", accounts.PurposeVerify, "a", now.Add(-2*time.Minute))
		b := put(t, r, "u2", accounts.PurposeVerify, "b", now.Add(-time.Minute))
		later := put(t, r, "u3", accounts.PurposeVerify, "later", now.Add(time.Minute)) // next attempt ahead
		dead := put(t, r, "u4", accounts.PurposeVerify, "dead", now.Add(-ttl))          // code expires at now
		if got := dueIDs(t, r, now); fmt.Sprint(got) != fmt.Sprint([]string{a.ID, b.ID}) {
			t.Fatalf("due %v", got)
		}
		one, err := r.DueMail(ctx, now, 1)
		must(t, err)
		if len(one) != 1 || one[0].ID != a.ID {
			t.Fatalf("limit 1: %+v", one)
		}
		if ok, err := r.ClaimMail(ctx, later.ID, "x", now, now.Add(time.Minute)); err != nil || ok {
			t.Fatalf("claimed a mail not due yet: %v %v", ok, err)
		}
		if ok, err := r.ClaimMail(ctx, dead.ID, "x", now, now.Add(time.Minute)); err != nil || ok {
			t.Fatalf("claimed a mail whose code expired: %v %v", ok, err)
		}
		if ok, err := r.ClaimMail(ctx, "no-such-mail", "x", now, now.Add(time.Minute)); err != nil || ok {
			t.Fatalf("claimed a mail that is not there: %v %v", ok, err)
		}
	})

	t.Run("a claim is taken once under concurrency and held for its lease", func(t *testing.T) {
		r := newStore(t)
		users(t, r, "u1")
		m := put(t, r, "u1", accounts.PurposeVerify, "c", now)
		const n = 12
		var won atomic.Int32
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ok, err := r.ClaimMail(ctx, m.ID, fmt.Sprintf("claim-%d", i), now, now.Add(2*time.Minute))
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
			t.Fatalf("%d of %d concurrent claims won, want 1", won.Load(), n)
		}
		if got := dueIDs(t, r, now.Add(time.Minute)); len(got) != 0 {
			t.Fatalf("a claimed mail is due again within its lease: %v", got)
		}
		// The lease runs out (the sender died): another takes it, and the
		// first claim's writes no longer touch it.
		ok, err := r.ClaimMail(ctx, m.ID, "late", now.Add(3*time.Minute), now.Add(5*time.Minute))
		must(t, err)
		if !ok {
			t.Fatal("a mail whose lease ran out could not be claimed again")
		}
		for i := range n {
			must(t, r.ForgetMail(ctx, m.ID, fmt.Sprintf("claim-%d", i)))
			must(t, r.RetryMail(ctx, m.ID, fmt.Sprintf("claim-%d", i), 7, now.Add(time.Hour)))
		}
		pending(t, r, 1)
		must(t, r.RetryMail(ctx, m.ID, "late", 1, now.Add(4*time.Minute)))
		due, err := r.DueMail(ctx, now.Add(4*time.Minute), 10)
		must(t, err)
		if len(due) != 1 || due[0].Attempts != 1 || due[0].Claim != "" || !due[0].ClaimedUntil.IsZero() {
			t.Fatalf("a lost claim changed the mail, or the holder's retry did not release it: %+v", due)
		}
	})

	t.Run("several senders claiming a batch each send every mail once", func(t *testing.T) {
		r := newStore(t)
		const mails, senders = 20, 4
		var want []string
		for i := range mails {
			u := fmt.Sprintf("u%02d", i)
			users(t, r, u)
			want = append(want, put(t, r, u, accounts.PurposeVerify, "c", now.Add(-time.Duration(i)*time.Millisecond)).ID)
		}
		var mu sync.Mutex
		var got []string
		var wg sync.WaitGroup
		for s := range senders {
			wg.Add(1)
			go func() {
				defer wg.Done()
				due, err := r.DueMail(ctx, now, mails)
				if err != nil {
					t.Error(err)
					return
				}
				for _, m := range due {
					claim := fmt.Sprintf("sender-%d", s)
					ok, err := r.ClaimMail(ctx, m.ID, claim, now, now.Add(time.Minute))
					if err != nil {
						t.Error(err)
						return
					}
					if ok {
						mu.Lock()
						got = append(got, m.ID)
						mu.Unlock()
						if err := r.ForgetMail(ctx, m.ID, claim); err != nil {
							t.Error(err)
						}
					}
				}
			}()
		}
		wg.Wait()
		sort.Strings(got)
		sort.Strings(want)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("sent %v, want each of %v once", got, want)
		}
		pending(t, r, 0)
	})

	t.Run("a failed send waits for its backoff with its attempts counted", func(t *testing.T) {
		r := newStore(t)
		users(t, r, "u1")
		m := put(t, r, "u1", accounts.PurposeReset, "c", now)
		for attempt := 1; attempt <= 3; attempt++ {
			at := now.Add(time.Duration(attempt) * time.Minute)
			ok, err := r.ClaimMail(ctx, m.ID, "s", at, at.Add(2*time.Minute))
			must(t, err)
			if !ok {
				t.Fatalf("attempt %d: not claimable", attempt)
			}
			next, _ := accounts.RetryAt(attempt, at, m.NotAfter)
			must(t, r.RetryMail(ctx, m.ID, "s", attempt, next))
			if got := dueIDs(t, r, next.Add(-time.Millisecond)); len(got) != 0 {
				t.Fatalf("attempt %d: due before its backoff ends", attempt)
			}
			due, err := r.DueMail(ctx, next, 10)
			must(t, err)
			if len(due) != 1 || due[0].Attempts != attempt || !due[0].NextAttemptAt.Equal(next) || due[0].Text != m.Text {
				t.Fatalf("attempt %d: due %+v", attempt, due)
			}
		}
	})

	t.Run("sent mail is forgotten with its claim only", func(t *testing.T) {
		r := newStore(t)
		users(t, r, "u1")
		m := put(t, r, "u1", accounts.PurposeVerify, "c", now)
		must(t, r.ForgetMail(ctx, m.ID, "")) // no claim yet: nothing
		pending(t, r, 1)
		ok, err := r.ClaimMail(ctx, m.ID, "s", now, now.Add(time.Minute))
		must(t, err)
		if !ok {
			t.Fatal("not claimed")
		}
		must(t, r.ForgetMail(ctx, m.ID, "other"))
		pending(t, r, 1)
		must(t, r.ForgetMail(ctx, m.ID, "s"))
		pending(t, r, 0)
	})

	t.Run("expired mail is dropped without its text, unless a live claim holds it", func(t *testing.T) {
		r := newStore(t)
		users(t, r, "u1", "u2", "u3")
		gone := put(t, r, "u1", accounts.PurposeVerify, "gone", now.Add(-ttl-time.Minute))
		held := put(t, r, "u2", accounts.PurposeVerify, "held", now.Add(-ttl)) // expires at now, claimed before
		live := put(t, r, "u3", accounts.PurposeVerify, "live", now)
		ok, err := r.ClaimMail(ctx, held.ID, "s", now.Add(-time.Second), now.Add(time.Minute))
		must(t, err)
		if !ok {
			t.Fatal("not claimed")
		}
		dropped, err := r.DropExpiredMail(ctx, now, 10)
		must(t, err)
		if len(dropped) != 1 || dropped[0].ID != gone.ID || dropped[0].UserID != "u1" || dropped[0].Kind != accounts.PurposeVerify ||
			dropped[0].Text != "" || dropped[0].To != "" || !dropped[0].NotAfter.Equal(gone.NotAfter) {
			t.Fatalf("dropped %+v", dropped)
		}
		pending(t, r, 2)
		if again, _ := r.DropExpiredMail(ctx, now, 10); len(again) != 0 {
			t.Fatalf("dropped twice: %+v", again)
		}
		dropped, err = r.DropExpiredMail(ctx, now.Add(2*time.Minute), 10) // the lease ran out
		must(t, err)
		if len(dropped) != 1 || dropped[0].ID != held.ID {
			t.Fatalf("dropped %+v", dropped)
		}
		if got := dueIDs(t, r, now); fmt.Sprint(got) != fmt.Sprint([]string{live.ID}) {
			t.Fatalf("due %v", got)
		}
		for i := range 3 {
			u := fmt.Sprintf("x%d", i)
			users(t, r, u)
			put(t, r, u, accounts.PurposeReset, "old", now.Add(-ttl))
		}
		dropped, err = r.DropExpiredMail(ctx, now, 2)
		must(t, err)
		if len(dropped) != 2 {
			t.Fatalf("limit 2 dropped %d", len(dropped))
		}
		pending(t, r, 2)
	})

	t.Run("deleting the account deletes its pending mail", func(t *testing.T) {
		r := newStore(t)
		users(t, r, "u1", "u2")
		put(t, r, "u1", accounts.PurposeVerify, "c", now)
		put(t, r, "u1", accounts.PurposeReset, "r", now)
		other := put(t, r, "u2", accounts.PurposeVerify, "c", now)
		pending(t, r, 3)
		_, err := r.Delete(ctx, "u1")
		must(t, err)
		pending(t, r, 1)
		if got := dueIDs(t, r, now); fmt.Sprint(got) != fmt.Sprint([]string{other.ID}) {
			t.Fatalf("due %v", got)
		}
	})
}
