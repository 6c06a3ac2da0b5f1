package storetest

import (
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
	ob := outboxSuite{newStore: newStore, ttl: accounts.CodeTTL}
	t.Run("a code is queued with its mail; a new code replaces the unsent mail of its kind", ob.queuedWithCode)
	t.Run("due: next attempt reached, code alive, no live claim; soonest first, limited", ob.due)
	t.Run("a claim is taken once under concurrency and held for its lease", ob.claimOnce)
	t.Run("several senders claiming a batch each send every mail once", ob.concurrentSenders)
	t.Run("a failed send waits for its backoff with its attempts counted", ob.failedSend)
	t.Run("sent mail is forgotten with its claim only", ob.sent)
	t.Run("expired mail is dropped without its text, unless a live claim holds it", ob.expired)
	t.Run("deleting the account deletes its pending mail", ob.deleteAccount)
}

// outboxSuite holds MailOutbox's helpers and subtests.
type outboxSuite struct {
	newStore func(t *testing.T) AccountStore
	ttl      time.Duration
}

// put stores a code of user u and purpose p with its mail, queued at at.
func (ob outboxSuite) put(t *testing.T, r AccountStore, u string, p accounts.Purpose, hash string, at time.Time) accounts.OutboxMail {
	t.Helper()
	c := accounts.Code{UserID: u, Purpose: p, Hash: hash, ExpiresAt: at.Add(ob.ttl), CreatedAt: at}
	m := codeMail(c)
	must(t, r.PutCode(ctx, c, m))
	return m
}

func (outboxSuite) users(t *testing.T, r AccountStore, ids ...string) {
	t.Helper()
	for _, id := range ids {
		must(t, r.Create(ctx, accounts.Account{ID: id, Email: id + "@x.io", PasswordHash: "h", CreatedAt: now, UpdatedAt: now}))
	}
}

func (outboxSuite) dueIDs(t *testing.T, r AccountStore, at time.Time) []string {
	t.Helper()
	due, err := r.DueMail(ctx, at, 100)
	must(t, err)
	ids := make([]string, len(due))
	for i, m := range due {
		ids[i] = m.ID
	}
	return ids
}

func (outboxSuite) pending(t *testing.T, r AccountStore, want int) {
	t.Helper()
	n, err := r.PendingMail(ctx)
	must(t, err)
	if n != want {
		t.Fatalf("%d mails pending, want %d", n, want)
	}
}

func (ob outboxSuite) queuedWithCode(t *testing.T) {
	r := ob.newStore(t)
	ob.users(t, r, "u1", "u2")
	m1 := ob.put(t, r, "u1", accounts.PurposeVerify, "c1", now)
	due, err := r.DueMail(ctx, now, 10)
	must(t, err)
	if len(due) != 1 || fmt.Sprint(due[0]) != fmt.Sprint(m1) {
		t.Fatalf("due %+v, want %+v", due, m1)
	}
	reset := ob.put(t, r, "u1", accounts.PurposeReset, "r1", now)
	other := ob.put(t, r, "u2", accounts.PurposeVerify, "c1", now)
	m2 := ob.put(t, r, "u1", accounts.PurposeVerify, "c2", now.Add(time.Second))
	ob.pending(t, r, 3)
	if got := fmt.Sprint(ob.dueIDs(t, r, now.Add(time.Second))); got != fmt.Sprint([]string{reset.ID, other.ID, m2.ID}) {
		t.Fatalf("due %s: the replaced mail must go, the others stay, soonest first", got)
	}
}

func (ob outboxSuite) due(t *testing.T) {
	r := ob.newStore(t)
	ob.users(t, r, "u1", "u2", "u3", "u4")
	a := ob.put(t, r, "u1", accounts.PurposeVerify, "a", now.Add(-2*time.Minute))
	b := ob.put(t, r, "u2", accounts.PurposeVerify, "b", now.Add(-time.Minute))
	later := ob.put(t, r, "u3", accounts.PurposeVerify, "later", now.Add(time.Minute)) // next attempt ahead
	dead := ob.put(t, r, "u4", accounts.PurposeVerify, "dead", now.Add(-ob.ttl))       // code expires at now
	if got := ob.dueIDs(t, r, now); fmt.Sprint(got) != fmt.Sprint([]string{a.ID, b.ID}) {
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
}

func (ob outboxSuite) claimOnce(t *testing.T) {
	r := ob.newStore(t)
	ob.users(t, r, "u1")
	m := ob.put(t, r, "u1", accounts.PurposeVerify, "c", now)
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
	if got := ob.dueIDs(t, r, now.Add(time.Minute)); len(got) != 0 {
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
	ob.pending(t, r, 1)
	must(t, r.RetryMail(ctx, m.ID, "late", 1, now.Add(4*time.Minute)))
	due, err := r.DueMail(ctx, now.Add(4*time.Minute), 10)
	must(t, err)
	if len(due) != 1 || due[0].Attempts != 1 || due[0].Claim != "" || !due[0].ClaimedUntil.IsZero() {
		t.Fatalf("a lost claim changed the mail, or the holder's retry did not release it: %+v", due)
	}
}

func (ob outboxSuite) concurrentSenders(t *testing.T) {
	r := ob.newStore(t)
	const mails, senders = 20, 4
	var want []string
	for i := range mails {
		u := fmt.Sprintf("u%02d", i)
		ob.users(t, r, u)
		want = append(want, ob.put(t, r, u, accounts.PurposeVerify, "c", now.Add(-time.Duration(i)*time.Millisecond)).ID)
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
	ob.pending(t, r, 0)
}

func (ob outboxSuite) failedSend(t *testing.T) {
	r := ob.newStore(t)
	ob.users(t, r, "u1")
	m := ob.put(t, r, "u1", accounts.PurposeReset, "c", now)
	for attempt := 1; attempt <= 3; attempt++ {
		at := now.Add(time.Duration(attempt) * time.Minute)
		ok, err := r.ClaimMail(ctx, m.ID, "s", at, at.Add(2*time.Minute))
		must(t, err)
		if !ok {
			t.Fatalf("attempt %d: not claimable", attempt)
		}
		next, _ := accounts.RetryAt(attempt, at, m.NotAfter)
		must(t, r.RetryMail(ctx, m.ID, "s", attempt, next))
		if got := ob.dueIDs(t, r, next.Add(-time.Millisecond)); len(got) != 0 {
			t.Fatalf("attempt %d: due before its backoff ends", attempt)
		}
		due, err := r.DueMail(ctx, next, 10)
		must(t, err)
		if len(due) != 1 || due[0].Attempts != attempt || !due[0].NextAttemptAt.Equal(next) || due[0].Text != m.Text {
			t.Fatalf("attempt %d: due %+v", attempt, due)
		}
	}
}

func (ob outboxSuite) sent(t *testing.T) {
	r := ob.newStore(t)
	ob.users(t, r, "u1")
	m := ob.put(t, r, "u1", accounts.PurposeVerify, "c", now)
	must(t, r.ForgetMail(ctx, m.ID, "")) // no claim yet: nothing
	ob.pending(t, r, 1)
	ok, err := r.ClaimMail(ctx, m.ID, "s", now, now.Add(time.Minute))
	must(t, err)
	if !ok {
		t.Fatal("not claimed")
	}
	must(t, r.ForgetMail(ctx, m.ID, "other"))
	ob.pending(t, r, 1)
	must(t, r.ForgetMail(ctx, m.ID, "s"))
	ob.pending(t, r, 0)
}

func (ob outboxSuite) expired(t *testing.T) {
	r := ob.newStore(t)
	ob.users(t, r, "u1", "u2", "u3")
	gone := ob.put(t, r, "u1", accounts.PurposeVerify, "gone", now.Add(-ob.ttl-time.Minute))
	held := ob.put(t, r, "u2", accounts.PurposeVerify, "held", now.Add(-ob.ttl)) // expires at now, claimed before
	live := ob.put(t, r, "u3", accounts.PurposeVerify, "live", now)
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
	ob.pending(t, r, 2)
	if again, _ := r.DropExpiredMail(ctx, now, 10); len(again) != 0 {
		t.Fatalf("dropped twice: %+v", again)
	}
	dropped, err = r.DropExpiredMail(ctx, now.Add(2*time.Minute), 10) // the lease ran out
	must(t, err)
	if len(dropped) != 1 || dropped[0].ID != held.ID {
		t.Fatalf("dropped %+v", dropped)
	}
	if got := ob.dueIDs(t, r, now); fmt.Sprint(got) != fmt.Sprint([]string{live.ID}) {
		t.Fatalf("due %v", got)
	}
	for i := range 3 {
		u := fmt.Sprintf("x%d", i)
		ob.users(t, r, u)
		ob.put(t, r, u, accounts.PurposeReset, "old", now.Add(-ob.ttl))
	}
	dropped, err = r.DropExpiredMail(ctx, now, 2)
	must(t, err)
	if len(dropped) != 2 {
		t.Fatalf("limit 2 dropped %d", len(dropped))
	}
	ob.pending(t, r, 2)
}

func (ob outboxSuite) deleteAccount(t *testing.T) {
	r := ob.newStore(t)
	ob.users(t, r, "u1", "u2")
	ob.put(t, r, "u1", accounts.PurposeVerify, "c", now)
	ob.put(t, r, "u1", accounts.PurposeReset, "r", now)
	other := ob.put(t, r, "u2", accounts.PurposeVerify, "c", now)
	ob.pending(t, r, 3)
	_, err := r.Delete(ctx, "u1")
	must(t, err)
	ob.pending(t, r, 1)
	if got := ob.dueIDs(t, r, now); fmt.Sprint(got) != fmt.Sprint([]string{other.ID}) {
		t.Fatalf("due %v", got)
	}
}
