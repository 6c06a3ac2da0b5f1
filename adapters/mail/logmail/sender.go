// Package logmail is the development mailer: it writes each message, code
// included, to the log instead of sending it.
package logmail

import (
	"context"
	"regexp"
	"strings"

	"go.uber.org/zap"

	"tandem/core"
	"tandem/modules/accounts"
)

var _ accounts.Mailer = (*Sender)(nil)

// Sender logs mail at info level. Never use it in production: the log then
// holds every sign-up and reset code.
type Sender struct {
	log  *zap.Logger
	from string
}

// New returns a Sender that logs as if sending from from.
func New(log *zap.Logger, from string) *Sender {
	return &Sender{log: log, from: from}
}

// codeInText is a sign-up or reset code in a mail's text: six digits
// standing alone, in every language's text alike.
var codeInText = regexp.MustCompile(`(?:^|[^0-9])([0-9]{6})(?:[^0-9]|$)`)

// Send logs one "mail" line with from, to, subject and text, and, when the
// text holds one code (six digits standing alone), that code as "code": a
// script reads it from there whatever the recipient's language (the
// README's walkthrough: jq '.code'). Like the SMTP sender it refuses line
// breaks in To or Subject, so the development profile fails where
// production would.
func (s *Sender) Send(_ context.Context, m accounts.Mail) error {
	if strings.ContainsAny(m.To, "\r\n") || strings.ContainsAny(m.Subject, "\r\n") {
		return core.Invalid("invalid_request", "smtp.mailRecipientSubjectNotContain", "mail recipient and subject must not contain line breaks")
	}
	fields := []zap.Field{
		zap.String("from", s.from),
		zap.String("to", m.To),
		zap.String("subject", m.Subject),
		zap.String("text", m.Text),
	}
	if codes := codeInText.FindAllStringSubmatch(m.Text, 2); len(codes) == 1 {
		fields = append(fields, zap.String("code", codes[0][1]))
	}
	s.log.Info("mail", fields...)
	return nil
}
