package memmail_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"tandem/adapters/mail/memmail"
	"tandem/core"
	"tandem/modules/accounts"
)

func TestOutboxRecords(t *testing.T) {
	t.Parallel()
	o := memmail.New()
	if got := o.All(); len(got) != 0 {
		t.Fatalf("new outbox has %d mails", len(got))
	}
	sent := []accounts.Mail{
		{To: "a@example.com", Subject: "Verify", Text: "Your code is 111111."},
		{To: "b@example.com", Subject: "Verify", Text: "Your code is 222222."},
		{To: "a@example.com", Subject: "Reset", Text: "Your code is 333333."},
	}
	for _, m := range sent {
		if err := o.Send(context.Background(), m); err != nil {
			t.Fatalf("Send: %v", err)
		}
	}
	all := o.All()
	if fmt.Sprint(all) != fmt.Sprint(sent) {
		t.Errorf("All() = %v, want %v", all, sent)
	}
	all[0].To = "changed@example.com"
	if o.All()[0].To != "a@example.com" {
		t.Errorf("All() exposes the outbox's own slice")
	}
	last, ok := o.Last("A@Example.com")
	if !ok || last != sent[2] {
		t.Errorf("Last(a) = %v, %v; want %v", last, ok, sent[2])
	}
	if _, ok := o.Last("nobody@example.com"); ok {
		t.Errorf("Last(nobody) found a mail")
	}
}

func TestOutboxCode(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		texts []string // sent to a@example.com in order
		other []string // sent to b@example.com afterwards
		want  string
	}{
		{name: "no mail", want: ""},
		{name: "one code", texts: []string{"Your code is 482913. It expires in 15 minutes."}, want: "482913"},
		{name: "leading zeros kept", texts: []string{"Code: 000042"}, want: "000042"},
		{name: "newest mail wins", texts: []string{"Code 111111", "Code 222222"}, want: "222222"},
		{name: "last number in the mail", texts: []string{"Ignore 123456, use 654321"}, want: "654321"},
		{name: "longer and shorter numbers are not codes", texts: []string{"Order 1234567 on 2025-03-01 ref 12345"}, want: ""},
		{name: "a notice after the code leaves the code", texts: []string{"Code 111111", "Your account was secured."}, want: "111111"},
		{name: "mail to someone else is ignored", texts: []string{"Code 111111"}, other: []string{"Code 999999"}, want: "111111"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			o := memmail.New()
			for _, text := range tc.texts {
				mustSend(t, o, accounts.Mail{To: "a@example.com", Subject: "s", Text: text})
			}
			for _, text := range tc.other {
				mustSend(t, o, accounts.Mail{To: "b@example.com", Subject: "s", Text: text})
			}
			if got := o.Code("a@example.com"); got != tc.want {
				t.Errorf("Code = %q, want %q", got, tc.want)
			}
		})
	}
}

func mustSend(t *testing.T, o *memmail.Outbox, m accounts.Mail) {
	t.Helper()
	if err := o.Send(context.Background(), m); err != nil {
		t.Fatalf("Send: %v", err)
	}
}

func TestOutboxRefuses(t *testing.T) {
	t.Parallel()
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	cases := []struct {
		name string
		ctx  context.Context
		mail accounts.Mail
		want core.Kind
	}{
		{"LF in To", context.Background(), accounts.Mail{To: "a@example.com\nBcc: b@example.com"}, core.KindInvalid},
		{"CR in Subject", context.Background(), accounts.Mail{To: "a@example.com", Subject: "x\ry"}, core.KindInvalid},
		{"cancelled context", cancelled, accounts.Mail{To: "a@example.com", Text: "Code 123456"}, core.KindUnavailable},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			o := memmail.New()
			if err := o.Send(tc.ctx, tc.mail); !core.IsKind(err, tc.want) {
				t.Errorf("err = %v, want kind %v", err, tc.want)
			}
			if n := len(o.All()); n != 0 {
				t.Errorf("recorded %d mails, want none", n)
			}
		})
	}
}

func TestOutboxConcurrent(t *testing.T) {
	t.Parallel()
	o := memmail.New()
	const senders, each = 8, 50
	var wg sync.WaitGroup
	for i := range senders {
		wg.Go(func() {
			to := fmt.Sprintf("u%d@example.com", i)
			for j := range each {
				if err := o.Send(context.Background(), accounts.Mail{To: to, Subject: "s", Text: fmt.Sprintf("Code %06d", j)}); err != nil {
					t.Errorf("Send: %v", err) // not Fatal: this is not the test goroutine
					return
				}
				_ = o.Code(to)
				_ = o.All()
			}
		})
	}
	wg.Wait()
	if n := len(o.All()); n != senders*each {
		t.Errorf("recorded %d mails, want %d", n, senders*each)
	}
	for i := range senders {
		if got, want := o.Code(fmt.Sprintf("u%d@example.com", i)), fmt.Sprintf("%06d", each-1); got != want {
			t.Errorf("Code(u%d) = %q, want %q", i, got, want)
		}
	}
}

// backlog is a queue of n mails that the test empties by hand.
type backlog struct {
	mu  sync.Mutex
	n   int
	err error
}

func (b *backlog) PendingMail(context.Context) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.n, b.err
}

func (b *backlog) set(n int) { b.mu.Lock(); b.n = n; b.mu.Unlock() }

// TestReadsWaitForTheBacklog: the request that queued a mail has answered
// before the sender delivers it; a read right then waits for it.
func TestReadsWaitForTheBacklog(t *testing.T) {
	t.Parallel()
	o := memmail.New()
	q := &backlog{}
	o.SetBacklog(q)
	ctx := context.Background()
	if err := o.Send(ctx, accounts.Mail{To: "a@example.com", Subject: "Verify", Text: "Code 111111"}); err != nil {
		t.Fatal(err)
	}
	q.set(1) // a reset code queued, not sent yet
	go func() {
		time.Sleep(50 * time.Millisecond)
		_ = o.Send(ctx, accounts.Mail{To: "a@example.com", Subject: "Reset", Text: "Code 222222"})
		q.set(0)
	}()
	if got := o.Code("a@example.com"); got != "222222" {
		t.Fatalf("Code = %q, want the queued mail's 222222", got)
	}
	if n := len(o.All()); n != 2 {
		t.Fatalf("All has %d mails", n)
	}

	q.mu.Lock()
	q.n, q.err = 1, errors.New("database gone")
	q.mu.Unlock()
	start := time.Now()
	if got := o.Code("a@example.com"); got != "222222" || time.Since(start) > time.Second {
		t.Fatalf("a failing backlog: Code = %q after %v; want an answer at once", got, time.Since(start))
	}
}
