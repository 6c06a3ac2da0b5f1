package bootstrap

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/fx"
	"go.uber.org/zap"

	"tandem/adapters/httpapi"
	"tandem/modules/accounts"
)

// mailSendSteps bounds one mail's whole delivery in TANDEM_MAIL_TIMEOUTs:
// the dial and the SMTP commands each have one, and a relay answering every
// step just in time must not hold the Sender longer.
const mailSendSteps = 6

// mailSending provides the Sender's settings and its MailLog.
func mailSending(cfg Config) fx.Option {
	return fx.Provide(
		func() accounts.SenderSettings {
			return accounts.SenderSettings{Timeout: mailSendSteps * cfg.MailTimeout}
		},
		func(log *zap.Logger, m *httpapi.Metrics) accounts.MailLog {
			mails := prometheus.NewCounterVec(prometheus.CounterOpts{
				Name: "tandem_mail_total", Help: "Queued mail by outcome: sent, failed (a send that will be retried or given up) and dropped (never sent).",
			}, []string{"result"})
			m.MustRegister(mails)
			return mailLog{log: log, mails: mails}
		},
	)
}

// mailLog logs what became of queued mail, by id, user and kind: never its
// recipient or text (the text holds the code).
type mailLog struct {
	log   *zap.Logger
	mails *prometheus.CounterVec
}

func mailFields(m accounts.OutboxMail) []zap.Field {
	return []zap.Field{zap.String("mail_id", m.ID), zap.String("user_id", m.UserID), zap.String("kind", string(m.Kind)),
		zap.Int("attempts", m.Attempts), zap.Time("queued_at", m.CreatedAt)}
}

func (l mailLog) MailSent(_ context.Context, m accounts.OutboxMail) {
	l.mails.WithLabelValues("sent").Inc()
	l.log.Debug("mail sent", mailFields(m)...)
}

func (l mailLog) MailFailed(_ context.Context, m accounts.OutboxMail, err error, next time.Time) {
	l.mails.WithLabelValues("failed").Inc()
	fields := append(mailFields(m), zap.Error(err))
	if !next.IsZero() {
		fields = append(fields, zap.Time("next_attempt_at", next))
	}
	l.log.Warn("mail not sent", fields...)
}

func (l mailLog) MailDropped(_ context.Context, m accounts.OutboxMail, reason string) {
	l.mails.WithLabelValues("dropped").Inc()
	l.log.Error("mail dropped: the code it carried never reached the user", append(mailFields(m), zap.String("reason", reason))...)
}

// requireMail refuses to serve with no mail configured: production's
// default, where log and memory are refused (they keep the codes).
func (c MailConfig) requireMail() error {
	if c.Kind == "" {
		return fmt.Errorf("%s: set smtp://[USER:PASS@]HOST:PORT; sign-up and password reset codes go by mail "+
			"(log and memory, which keep them in the log or in memory, need TANDEM_ENV=development)", mailVar)
	}
	return nil
}

// errNoMail is what a mail fails with when TANDEM_MAIL is unset: serve
// never starts so, but migrate, backup and the admin commands may build the
// app, and send nothing.
var errNoMail = errors.New(mailVar + " is not set: no mail is sent")

type noMail struct{}

func (noMail) Send(context.Context, accounts.Mail) error { return errNoMail }
