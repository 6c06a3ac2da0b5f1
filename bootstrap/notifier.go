package bootstrap

import (
	"context"

	"go.uber.org/fx"
	"go.uber.org/zap"

	"tandem/core"
	"tandem/modules/notifications"
)

// Notifier is what the modules that trigger notifications (events reminders,
// memories, questions...) declare in their ports.go: each module's wiring
// (wire_<module>.go) binds it with
// `func(n *Notifier) <module>.Notifier { return n }`. A failed push or save
// is logged here and never fails the action that triggered it.
type Notifier struct {
	svc *notifications.Service
	log *zap.Logger
}

func newNotifier(svc *notifications.Service, log *zap.Logger) *Notifier {
	return &Notifier{svc: svc, log: log}
}

func (n *Notifier) Notify(ctx context.Context, userID, category string, text core.Message) error {
	if _, err := n.svc.Tell(ctx, userID, category, text); err != nil {
		n.log.Warn("notification failed", zap.String("user_id", userID), zap.String("category", category), zap.Error(err))
	}
	return nil
}

// NotifyActivity tells userID of their partner's activity, coalesced by the
// notifications module; like Notify, a failure is logged, never returned.
func (n *Notifier) NotifyActivity(ctx context.Context, userID, fromUserID, kind string) error {
	a := notifications.Activity{UserID: userID, From: fromUserID, Kind: notifications.ActivityKind(kind)}
	if _, err := n.svc.NotifyActivity(ctx, a); err != nil {
		n.log.Warn("notification failed", zap.String("user_id", userID), zap.String("activity", kind), zap.Error(err))
	}
	return nil
}

var notifier = fx.Provide(newNotifier)
