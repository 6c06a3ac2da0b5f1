// Package logpush is the development pusher: it writes each push to the log
// instead of sending it, and counts it as delivered.
package logpush

import (
	"context"

	"go.uber.org/zap"

	"tandem/modules/notifications"
)

var _ notifications.Pusher = (*Sender)(nil)

// Sender logs pushes at info level.
type Sender struct{ log *zap.Logger }

func New(log *zap.Logger) *Sender { return &Sender{log: log} }

// Push logs one "push" line per device; the token is shortened, it is a
// credential of sorts.
func (s *Sender) Push(_ context.Context, m notifications.Message, to []notifications.Device) []notifications.Delivery {
	out := make([]notifications.Delivery, len(to))
	for i, d := range to {
		s.log.Info("push",
			zap.String("user_id", d.UserID),
			zap.String("device_id", d.ID),
			zap.String("provider", d.Provider),
			zap.String("token", shorten(d.Token)),
			zap.String("category", string(m.Category)),
			zap.String("title", m.Title),
			zap.String("body", m.Body),
		)
		out[i] = notifications.Delivery{Outcome: notifications.OutcomeDelivered}
	}
	return out
}

func shorten(token string) string {
	if len(token) <= 12 {
		return token
	}
	return token[:12] + "…"
}
