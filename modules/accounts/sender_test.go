package accounts_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"tandem/core"
	"tandem/modules/accounts"
)

func TestRetryAt(t *testing.T) {
	t.Parallel()
	now := time.Date(2025, 6, 15, 12, 0, 0, 0, time.UTC)
	far := now.Add(time.Hour)
	cases := []struct {
		name     string
		attempts int
		notAfter time.Time
		wait     time.Duration
		keep     bool
	}{
		{"first failure", 1, far, 5 * time.Second, true},
		{"second doubles", 2, far, 10 * time.Second, true},
		{"third", 3, far, 20 * time.Second, true},
		{"sixth", 6, far, 160 * time.Second, true},
		{"seventh is capped", 7, far, 5 * time.Minute, true},
		{"many stay capped", 1000, far, 5 * time.Minute, true},
		{"zero counts as the first", 0, far, 5 * time.Second, true},
		{"the next attempt just before the code dies", 1, now.Add(5*time.Second + time.Millisecond), 5 * time.Second, true},
		{"the next attempt when the code dies: dropped", 1, now.Add(5 * time.Second), 5 * time.Second, false},
		{"the next attempt after it: dropped", 7, now.Add(4 * time.Minute), 5 * time.Minute, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			next, keep := accounts.RetryAt(tc.attempts, now, tc.notAfter)
			if next.Sub(now) != tc.wait || keep != tc.keep {
				t.Fatalf("RetryAt(%d) = +%v, %v; want +%v, %v", tc.attempts, next.Sub(now), keep, tc.wait, tc.keep)
			}
		})
	}
}

// TestSenderRules drives the Sender by hand (as the woken loop would) over a
// mailbox that fails while told to.
func TestSenderRules(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	down := core.Unavailable("mail_unavailable", "accounts.couldNotSendMail", "could not send the e-mail")

	t.Run("sign-up answers while the relay is down; the code arrives once it recovers", func(t *testing.T) {
		f := newFixture(t)
		f.mail.failWith(down)
		id, err := f.svc.SignUp(ctx, "a@x.io", "password1", cl)
		if err != nil {
			t.Fatalf("sign-up waited for the relay: %v", err)
		}
		if n, _ := f.sender.SendDue(ctx); n != 0 || len(f.log.failures()) != 1 {
			t.Fatalf("sent %d, failures %v", n, f.log.failures())
		}
		if next := f.log.failures()[0].next; !next.Equal(f.clock.Now().Add(accounts.MailRetryFirst)) {
			t.Fatalf("next attempt %v", next)
		}
		f.mail.failWith(nil)
		if n, _ := f.sender.SendDue(ctx); n != 0 {
			t.Fatal("retried before the backoff ended")
		}
		f.clock.Advance(accounts.MailRetryFirst)
		if _, err := f.svc.VerifyEmail(ctx, id, f.mail.code(t, "a@x.io"), cl); err != nil {
			t.Fatal(err)
		}
		if n := len(f.mail.all()); n != 1 {
			t.Fatalf("%d mails, want 1", n)
		}
	})

	t.Run("a failed send ends the pass; the rest go on the next", func(t *testing.T) {
		f := newFixture(t)
		f.mail.failWith(down)
		for _, e := range []string{"a@x.io", "b@x.io", "c@x.io"} {
			if _, err := f.svc.SignUp(ctx, e, "password1", cl); err != nil {
				t.Fatal(err)
			}
		}
		f.sender.SendDue(ctx)
		if n := len(f.log.failures()); n != 1 {
			t.Fatalf("%d sends tried while the relay is down, want 1", n)
		}
		f.mail.failWith(nil)
		if n, _ := f.sender.SendDue(ctx); n != 2 {
			t.Fatalf("next pass sent %d, want the other 2", n)
		}
	})

	t.Run("backoff grows until the code would be dead, then the mail is dropped", func(t *testing.T) {
		f := newFixture(t)
		f.mail.failWith(down)
		start := f.clock.Now()
		if _, err := f.svc.SignUp(ctx, "a@x.io", "password1", cl); err != nil {
			t.Fatal(err)
		}
		var waits []string
		for range 20 {
			f.sender.SendDue(ctx)
			fs := f.log.failures()
			last := fs[len(fs)-1]
			if last.next.IsZero() {
				break
			}
			waits = append(waits, last.next.Sub(f.clock.Now()).String())
			f.clock.Set(last.next)
		}
		if got := strings.Join(waits, " "); got != "5s 10s 20s 40s 1m20s 2m40s 5m0s" {
			t.Fatalf("waits %s", got)
		}
		// the eighth failure comes at 10m15s: the next try (15m15s) would be after the code's 15 minutes
		if at := f.clock.Now().Sub(start); at != 10*time.Minute+15*time.Second || len(f.log.failures()) != 8 {
			t.Fatalf("gave up after %d failures at +%v", len(f.log.failures()), at)
		}
		if d := f.log.dropped(); len(d) != 1 || !strings.Contains(d[0], "expires before the next attempt") {
			t.Fatalf("dropped %v", d)
		}
		if n, _ := f.repo.PendingMail(ctx); n != 0 {
			t.Fatalf("%d mails left", n)
		}
	})

	t.Run("a code that expires before it could be sent is dropped, never sent", func(t *testing.T) {
		f := newFixture(t)
		if _, err := f.svc.SignUp(ctx, "a@x.io", "password1", cl); err != nil {
			t.Fatal(err)
		}
		f.clock.Advance(accounts.CodeTTL)
		if n, err := f.sender.SendDue(ctx); n != 0 || err != nil {
			t.Fatalf("sent %d, %v", n, err)
		}
		if d := f.log.dropped(); len(d) != 1 || !strings.Contains(d[0], "expired before it could be sent") {
			t.Fatalf("dropped %v", d)
		}
		if len(f.mail.all()) != 0 {
			t.Fatal("an expired code was mailed")
		}
	})

	t.Run("signing up again replaces the unsent mail: only the live code goes", func(t *testing.T) {
		f := newFixture(t)
		f.mail.failWith(down)
		id, _ := f.svc.SignUp(ctx, "a@x.io", "password1", cl)
		f.sender.SendDue(ctx)
		if _, err := f.svc.SignUp(ctx, "a@x.io", "password1", cl); err != nil {
			t.Fatal(err)
		}
		f.mail.failWith(nil)
		if all := f.mail.all(); len(all) != 1 {
			t.Fatalf("%d mails, want the second code only", len(all))
		}
		if _, err := f.svc.VerifyEmail(ctx, id, f.mail.code(t, "a@x.io"), cl); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("a mail the mailer refuses for good is dropped at once and the pass goes on", func(t *testing.T) {
		f := newFixture(t)
		f.mail.failWith(core.Invalid("invalid_request", "accounts.mailRecipientNotValidAddress", "mail recipient is not a valid address"))
		f.svc.SignUp(ctx, "a@x.io", "password1", cl)
		f.svc.SignUp(ctx, "b@x.io", "password1", cl)
		f.sender.SendDue(ctx)
		if d := f.log.dropped(); len(d) != 2 || len(f.log.failures()) != 0 {
			t.Fatalf("dropped %v, failures %v", d, f.log.failures())
		}
	})

	t.Run("deleting the account deletes its unsent mail", func(t *testing.T) {
		f := newFixture(t)
		f.mail.failWith(down)
		id, _ := f.svc.SignUp(ctx, "a@x.io", "password1", cl)
		if err := f.svc.Delete(ctx, id); err != nil {
			t.Fatal(err)
		}
		f.mail.failWith(nil)
		f.clock.Advance(accounts.MailRetryMax)
		if n := len(f.mail.all()); n != 0 {
			t.Fatalf("%d mails to a deleted account", n)
		}
	})

	t.Run("three senders on one store send each mail once", func(t *testing.T) {
		f := newFixture(t)
		const users = 30
		for i := range users {
			if _, err := f.svc.SignUp(ctx, fmt.Sprintf("u%d@x.io", i), "password1", cl); err != nil {
				t.Fatal(err)
			}
		}
		box := &outbox{}
		var wg sync.WaitGroup
		for range 3 {
			s := accounts.NewSender(f.repo, box, &mailLog{}, f.clock, core.NewUUIDv7(), accounts.SenderSettings{})
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := s.SendDue(ctx); err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		seen := map[string]int{}
		for _, m := range box.all() {
			seen[m.To]++
		}
		for i := range users {
			if n := seen[fmt.Sprintf("u%d@x.io", i)]; n != 1 {
				t.Fatalf("u%d got %d mails", i, n)
			}
		}
	})

	t.Run("waking never blocks and wakes made meanwhile give one pass", func(t *testing.T) {
		f := newFixture(t)
		for range 3 {
			f.sender.Wake()
		}
		n := 0
		for {
			select {
			case <-f.sender.Woken():
				n++
				continue
			default:
			}
			break
		}
		if n != 1 {
			t.Fatalf("woken %d times, want 1", n)
		}
	})
}

// mailLog records what the Sender reports.
type mailLog struct {
	mu    sync.Mutex
	fails []failure
	drops []string
	sent  int
}

type failure struct {
	err  error
	next time.Time
}

func (l *mailLog) MailSent(context.Context, accounts.OutboxMail) {
	l.mu.Lock()
	l.sent++
	l.mu.Unlock()
}
func (l *mailLog) MailFailed(_ context.Context, m accounts.OutboxMail, err error, next time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if m.Text != "" || m.To != "" {
		panic("the log was handed the mail's text or recipient")
	}
	l.fails = append(l.fails, failure{err, next})
}
func (l *mailLog) MailDropped(_ context.Context, m accounts.OutboxMail, reason string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if m.Text != "" || m.To != "" {
		panic("the log was handed the mail's text or recipient")
	}
	l.drops = append(l.drops, m.ID+": "+reason)
}

func (l *mailLog) failures() []failure {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]failure(nil), l.fails...)
}

func (l *mailLog) dropped() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.drops...)
}
