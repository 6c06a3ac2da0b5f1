// Package memmail is the recording mailer of the memory profile and of the
// tests: it keeps every message so a test or a QA run can read the code.
package memmail

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"tandem/core"
	"tandem/modules/accounts"
)

// MaxWait is how long a read waits for the queued mail to arrive: long
// enough for a loaded CI machine (2 s was not), and only spent while mail
// is still queued.
const MaxWait = 10 * time.Second

// Backlog is where mail waits before it reaches the Outbox (accounts'
// database outbox, emptied by its Sender).
type Backlog interface {
	PendingMail(ctx context.Context) (int, error)
}

var _ accounts.Mailer = (*Outbox)(nil)

// codePattern is a one-time code: six digits standing alone.
var codePattern = regexp.MustCompile(`\b\d{6}\b`)

// Outbox records mail in the order sent. It is safe for concurrent use.
type Outbox struct {
	mu      sync.Mutex
	mails   []accounts.Mail
	backlog Backlog
}

// New returns an empty Outbox.
func New() *Outbox { return &Outbox{} }

// SetBacklog makes every read (All, Last, Code) first wait, up to MaxWait,
// until b holds no mail: the mail a request queued arrives a moment after
// its answer, so a reader right after it would otherwise see the mail
// before. Call it before the first read.
func (o *Outbox) SetBacklog(b Backlog) { o.backlog = b }

// settle waits until the backlog is empty, or MaxWait, or the backlog fails.
func (o *Outbox) settle() {
	if o.backlog == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), MaxWait)
	defer cancel()
	for {
		n, err := o.backlog.PendingMail(ctx)
		if err != nil || n == 0 {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// Send records m. Like the SMTP sender it refuses line breaks in To or
// Subject, and a cancelled context gives core.KindUnavailable.
func (o *Outbox) Send(ctx context.Context, m accounts.Mail) error {
	if strings.ContainsAny(m.To, "\r\n") || strings.ContainsAny(m.Subject, "\r\n") {
		return core.Invalid("invalid_request", "smtp.mailRecipientSubjectNotContain", "mail recipient and subject must not contain line breaks")
	}
	if err := ctx.Err(); err != nil {
		return core.Unavailable("mail_unavailable", "smtp.couldNotSendMail", "could not send the e-mail").Wrap(err)
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.mails = append(o.mails, m)
	return nil
}

// All returns a copy of every message, oldest first.
func (o *Outbox) All() []accounts.Mail {
	o.settle()
	o.mu.Lock()
	defer o.mu.Unlock()
	return slices.Clone(o.mails)
}

// Last returns the newest message to to; addresses compare case-insensitively.
func (o *Outbox) Last(to string) (accounts.Mail, bool) {
	o.settle()
	o.mu.Lock()
	defer o.mu.Unlock()
	for i := len(o.mails) - 1; i >= 0; i-- {
		if strings.EqualFold(o.mails[i].To, to) {
			return o.mails[i], true
		}
	}
	return accounts.Mail{}, false
}

// Code returns the last six-digit number in the newest message to to that
// holds one (a notice, which holds none, may come after a code), or ""
// when there is none.
func (o *Outbox) Code(to string) string {
	o.settle()
	o.mu.Lock()
	defer o.mu.Unlock()
	for i := len(o.mails) - 1; i >= 0; i-- {
		if !strings.EqualFold(o.mails[i].To, to) {
			continue
		}
		if codes := codePattern.FindAllString(o.mails[i].Text, -1); len(codes) > 0 {
			return codes[len(codes)-1]
		}
	}
	return ""
}
