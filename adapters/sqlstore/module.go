package sqlstore

import (
	"context"

	"go.uber.org/fx"
	"go.uber.org/zap"

	"tandem/modules/accounts"
	"tandem/modules/admin"
	"tandem/modules/advice"
	"tandem/modules/events"
	"tandem/modules/feedback"
	"tandem/modules/flags"
	"tandem/modules/idempotency"
	"tandem/modules/images"
	"tandem/modules/memories"
	"tandem/modules/messages"
	"tandem/modules/moods"
	"tandem/modules/notifications"
	"tandem/modules/partners"
	"tandem/modules/passkeys"
	"tandem/modules/premium"
	"tandem/modules/questions"
	"tandem/modules/relationship"
	"tandem/modules/throttle"
	"tandem/modules/versions"
)

// Module opens the database named by Config, migrates it at start and binds
// every repository port to its SQL implementation.
var Module = fx.Module("sql",
	fx.Provide(newLifecycleDB, NewBreaker),
	fx.Provide(
		fx.Annotate(NewThrottleRepo, fx.As(new(throttle.Repository))),
		fx.Annotate(NewIdempotencyRepo, fx.As(new(idempotency.Repository))),
		fx.Annotate(NewVersionRepo, fx.As(new(versions.Repository))),
		fx.Annotate(NewFlagRepo, fx.As(new(flags.Repository))),
		fx.Annotate(NewAccountRepo, fx.As(new(accounts.Repository)), fx.As(new(accounts.Outbox)),
			fx.As(new(accounts.Revocations))),
		fx.Annotate(NewPartnerRepo, fx.As(new(partners.Repository))),
		fx.Annotate(NewPremiumRepo, fx.As(new(premium.Repository))),
		fx.Annotate(NewRelationshipRepo, fx.As(new(relationship.Repository)), fx.As(new(relationship.MilestoneRepository))),
		fx.Annotate(NewImageRepo, fx.As(new(images.Repository))),
		fx.Annotate(NewEventRepo, fx.As(new(events.Repository))),
		fx.Annotate(NewNotificationRepo, fx.As(new(notifications.Repository))),
		fx.Annotate(NewTicketRepo, fx.As(new(notifications.TicketRepository))),
		fx.Annotate(NewDailyReminderRepo, fx.As(new(notifications.DailyReminderRepository))),
		fx.Annotate(NewMemoryRepo, fx.As(new(memories.Repository))),
		fx.Annotate(NewMessageRepo, fx.As(new(messages.Repository))),
		fx.Annotate(NewQuestionRepo, fx.As(new(questions.Repository))),
		fx.Annotate(NewAdviceRepo, fx.As(new(advice.Repository))),
		fx.Annotate(NewFeedbackRepo, fx.As(new(feedback.Repository))),
		fx.Annotate(NewMoodRepo, fx.As(new(moods.Repository))),
		fx.Annotate(NewPasskeyRepo, fx.As(new(passkeys.Repository))),
		fx.Annotate(NewAuditRepo, fx.As(new(admin.AuditLog))),
		fx.Annotate(NewStatsRepo, fx.As(new(admin.Stats))),
	),
)

// newLifecycleDB opens and migrates during construction (so `fx.New` fails fast
// on a bad database) and closes with the app.
func newLifecycleDB(lc fx.Lifecycle, cfg Config, log *zap.Logger) (*DB, error) {
	ctx := context.Background()
	db, err := Open(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if err := Migrate(ctx, db, log); err != nil {
		db.Close()
		return nil, err
	}
	lc.Append(fx.StopHook(db.Close))
	return db, nil
}
