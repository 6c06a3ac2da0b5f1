// Package memmail is the recording mailer of the memory profile and of the
// tests: it keeps every message so a test or a QA run can read the code.
package memmail

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"sync"

	"tandem/core"
	"tandem/modules/accounts"
)

var _ accounts.Mailer = (*Outbox)(nil)

// codePattern is a one-time code: six digits standing alone.
var codePattern = regexp.MustCompile(`\b\d{6}\b`)

// Outbox records mail in the order sent. It is safe for concurrent use.
type Outbox struct {
	mu    sync.Mutex
	mails []accounts.Mail
}

// New returns an empty Outbox.
func New() *Outbox { return &Outbox{} }

// Send records m. Like the SMTP sender it refuses line breaks in To or
// Subject, and a cancelled context gives core.KindUnavailable.
func (o *Outbox) Send(ctx context.Context, m accounts.Mail) error {
	if strings.ContainsAny(m.To, "\r\n") || strings.ContainsAny(m.Subject, "\r\n") {
		return core.Invalid("invalid_request", "mail recipient and subject must not contain line breaks")
	}
	if err := ctx.Err(); err != nil {
		return core.Unavailable("mail_unavailable", "could not send the e-mail").Wrap(err)
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.mails = append(o.mails, m)
	return nil
}

// All returns a copy of every message, oldest first.
func (o *Outbox) All() []accounts.Mail {
	o.mu.Lock()
	defer o.mu.Unlock()
	return slices.Clone(o.mails)
}

// Last returns the newest message to to; addresses compare case-insensitively.
func (o *Outbox) Last(to string) (accounts.Mail, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for i := len(o.mails) - 1; i >= 0; i-- {
		if strings.EqualFold(o.mails[i].To, to) {
			return o.mails[i], true
		}
	}
	return accounts.Mail{}, false
}

// Code returns the last six-digit number in the newest message to to, or ""
// when there is no such message or number.
func (o *Outbox) Code(to string) string {
	m, ok := o.Last(to)
	if !ok {
		return ""
	}
	codes := codePattern.FindAllString(m.Text, -1)
	if len(codes) == 0 {
		return ""
	}
	return codes[len(codes)-1]
}
