package memory

import (
	"context"

	"go.uber.org/fx"

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

// Module binds every repository port to its in-memory implementation.
var Module = fx.Module("memory",
	fx.Provide(
		fx.Annotate(NewThrottleRepo, fx.As(new(throttle.Repository))),
		fx.Annotate(NewIdempotencyRepo, fx.As(new(idempotency.Repository))),
		fx.Annotate(NewAccountRepoWith, fx.As(fx.Self()), fx.As(new(accounts.Repository)), fx.As(new(accounts.Outbox)),
			fx.As(new(accounts.Revocations))),
		fx.Annotate(NewPartnerRepo, fx.As(fx.Self()), fx.As(new(partners.Repository))),
		fx.Annotate(NewPremiumRepo, fx.As(fx.Self()), fx.As(new(premium.Repository))),
		fx.Annotate(NewRelationshipRepo, fx.As(new(relationship.Repository)), fx.As(new(relationship.MilestoneRepository))),
		fx.Annotate(NewImageRepo, fx.As(fx.Self()), fx.As(new(images.Repository))),
		fx.Annotate(NewEventRepo, fx.As(new(events.Repository))),
		fx.Annotate(NewNotificationRepo, fx.As(new(notifications.Repository))),
		fx.Annotate(NewTicketRepo, fx.As(new(notifications.TicketRepository))),
		fx.Annotate(NewDailyReminderRepo, fx.As(new(notifications.DailyReminderRepository))),
		fx.Annotate(NewMemoryRepo, fx.As(new(memories.Repository))),
		fx.Annotate(NewMessageRepo, fx.As(new(messages.Repository))),
		fx.Annotate(NewQuestionRepo, fx.As(new(questions.Repository))),
		fx.Annotate(NewVersionRepo, fx.As(new(versions.Repository))),
		fx.Annotate(NewFlagRepo, fx.As(new(flags.Repository))),
		fx.Annotate(NewAdviceRepo, fx.As(new(advice.Repository))),
		fx.Annotate(NewFeedbackRepo, fx.As(new(feedback.Repository))),
		fx.Annotate(NewMoodRepo, fx.As(new(moods.Repository))),
		fx.Annotate(NewPasskeyRepo, fx.As(fx.Self()), fx.As(new(passkeys.Repository))),
		fx.Annotate(NewAuditRepo, fx.As(new(admin.AuditLog))),
		fx.Annotate(NewStatsRepo, fx.As(new(admin.Stats))),
		func() Ready { return Ready{} },
	),
)

// Ready answers readiness for the memory profile: there is no database to lose.
type Ready struct{}

func (Ready) Ping(context.Context) error { return nil }

// Open is the breaker of a store in the process's memory: never open.
func (Ready) Open() bool { return false }

// Guard: a breaker that never opens cancels nothing.
func (Ready) Guard(ctx context.Context) (context.Context, func()) { return ctx, func() {} }
