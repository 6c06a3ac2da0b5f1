package accounts

import (
	"context"
	"time"

	"tandem/core"
)

// OutboxMail is a mail waiting in the Outbox: queued by the request that
// stored its code, in the code's transaction, and sent by the Sender.
type OutboxMail struct {
	ID     string
	UserID string
	Kind   Purpose // the code it carries
	Mail
	CreatedAt time.Time
	// NotAfter is the code's expiry: a mail not sent by then is dropped.
	NotAfter      time.Time
	Attempts      int // failed sends so far
	NextAttemptAt time.Time
	// Claim and ClaimedUntil are the lease of the process sending it;
	// empty and zero when none holds it.
	Claim        string
	ClaimedUntil time.Time
}

// withoutContent is m for the log: no recipient, no text (it holds the code).
func (m OutboxMail) withoutContent() OutboxMail {
	m.To, m.Text = "", ""
	return m
}

const (
	// MailRetryFirst is the wait after a mail's first failed send; each
	// further failure doubles it, up to MailRetryMax.
	MailRetryFirst = 5 * time.Second
	MailRetryMax   = 5 * time.Minute
	// DefaultMailTimeout bounds one delivery (the mailer's own dial and
	// per-command timeouts come first); a claim's lease is twice it.
	DefaultMailTimeout = time.Minute
	mailBatch          = 50  // mails read per query
	mailDropBatch      = 100 // expired mails dropped per pass, at most
	// mailBookkeeping bounds the outbox write after a send, which must
	// happen even while the pass is being cancelled (the relay has the mail).
	mailBookkeeping = 5 * time.Second
)

// RetryAt is when a mail whose send failed for the attempts-th time at now
// is tried again: MailRetryFirst after the first failure, doubled after
// each further one, at most MailRetryMax. false when that is not before
// notAfter: its code would be dead by then, so the mail is dropped.
func RetryAt(attempts int, now, notAfter time.Time) (time.Time, bool) {
	wait := MailRetryFirst
	for i := 1; i < attempts && wait < MailRetryMax; i++ {
		wait *= 2
	}
	next := now.Add(min(wait, MailRetryMax))
	return next, next.Before(notAfter)
}

// SenderSettings configure the Sender; zero values take the defaults.
type SenderSettings struct {
	// Timeout bounds one delivery (DefaultMailTimeout).
	Timeout time.Duration
}

// Sender empties the Outbox through the Mailer, off every request: the
// request that queues a mail wakes it after its commit, and bootstrap also
// runs it periodically (mail of other processes, retries, what a restart
// left). Each mail is claimed alone, for twice the delivery timeout, just
// before it is sent, so several processes send each mail once (a process
// that stalls past its lease may lead to a second copy, never to none). A
// failed send is retried with backoff (RetryAt) and ends the pass: the relay
// is likely down, and the rest should not each wait for its timeout. A mail
// whose code expires first is dropped.
type Sender struct {
	outbox  Outbox
	mailer  Mailer
	log     MailLog
	clock   core.Clock
	ids     core.IDs
	timeout time.Duration
	wake    chan struct{}
}

// NewSender is a plain constructor, usable without fx.
func NewSender(outbox Outbox, mailer Mailer, log MailLog, clock core.Clock, ids core.IDs, s SenderSettings) *Sender {
	if s.Timeout <= 0 {
		s.Timeout = DefaultMailTimeout
	}
	return &Sender{outbox: outbox, mailer: mailer, log: log, clock: clock, ids: ids, timeout: s.Timeout,
		wake: make(chan struct{}, 1)}
}

// Wake asks for a pass at once; it never blocks, and wakes made while a
// pass runs give one more pass.
func (s *Sender) Wake() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// Woken is where the loop running SendDue hears Wake.
func (s *Sender) Woken() <-chan struct{} { return s.wake }

// SendDue runs one pass: it drops the mail whose code expired, then sends
// every due mail until one fails. It returns how many it sent; an error is
// the Outbox's (a failed send is the MailLog's).
func (s *Sender) SendDue(ctx context.Context) (int, error) {
	if err := s.dropExpired(ctx); err != nil {
		return 0, err
	}
	sent := 0
	for {
		due, err := s.outbox.DueMail(ctx, s.clock.Now(), mailBatch)
		if err != nil {
			return sent, err
		}
		for _, m := range due {
			ok, goOn, err := s.send(ctx, m)
			if ok {
				sent++
			}
			if err != nil || !goOn {
				return sent, err
			}
		}
		if len(due) < mailBatch {
			return sent, nil
		}
	}
}

func (s *Sender) dropExpired(ctx context.Context) error {
	for {
		gone, err := s.outbox.DropExpiredMail(ctx, s.clock.Now(), mailDropBatch)
		if err != nil {
			return err
		}
		for _, m := range gone {
			s.log.MailDropped(ctx, m.withoutContent(), "its code expired before it could be sent")
		}
		if len(gone) < mailDropBatch {
			return nil
		}
	}
}

// send claims and sends one mail. sent says the relay took it; goOn is
// false when the pass should end (the send failed, or the pass is cancelled).
func (s *Sender) send(ctx context.Context, m OutboxMail) (sent, goOn bool, err error) {
	now := s.clock.Now()
	claim := s.ids.New()
	ok, err := s.outbox.ClaimMail(ctx, m.ID, claim, now, now.Add(2*s.timeout))
	if err != nil || !ok {
		return false, err == nil, err
	}
	sendCtx, cancel := context.WithTimeout(ctx, s.timeout)
	sendErr := s.mailer.Send(sendCtx, m.Mail)
	cancel()
	// The outbox is written even while the pass is cancelled: the relay
	// may have the mail, and a claim left behind holds it for the lease.
	bctx, done := context.WithTimeout(context.WithoutCancel(ctx), mailBookkeeping)
	defer done()
	switch {
	case sendErr == nil:
		s.log.MailSent(ctx, m.withoutContent())
		return true, true, s.outbox.ForgetMail(bctx, m.ID, claim)
	case ctx.Err() != nil: // stopping: the mail goes untouched to the next pass, here or elsewhere
		return false, false, s.outbox.RetryMail(bctx, m.ID, claim, m.Attempts, m.NextAttemptAt)
	case core.IsKind(sendErr, core.KindInvalid): // the mailer will never take it
		s.log.MailDropped(ctx, m.withoutContent(), "the mailer refused it: "+sendErr.Error())
		return false, true, s.outbox.ForgetMail(bctx, m.ID, claim)
	}
	m.Attempts++
	next, keep := RetryAt(m.Attempts, s.clock.Now(), m.NotAfter)
	if !keep {
		s.log.MailFailed(ctx, m.withoutContent(), sendErr, time.Time{})
		s.log.MailDropped(ctx, m.withoutContent(), "its code expires before the next attempt")
		return false, false, s.outbox.ForgetMail(bctx, m.ID, claim)
	}
	s.log.MailFailed(ctx, m.withoutContent(), sendErr, next)
	return false, false, s.outbox.RetryMail(bctx, m.ID, claim, m.Attempts, next)
}
