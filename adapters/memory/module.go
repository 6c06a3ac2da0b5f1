package memory

import (
	"context"

	"go.uber.org/fx"

	"tandem/modules/accounts"
	"tandem/modules/events"
	"tandem/modules/images"
	"tandem/modules/notifications"
	"tandem/modules/partners"
	"tandem/modules/premium"
	"tandem/modules/relationship"
	"tandem/modules/throttle"
)

// Module binds every repository port to its in-memory implementation.
var Module = fx.Module("memory",
	fx.Provide(
		fx.Annotate(NewThrottleRepo, fx.As(new(throttle.Repository))),
		fx.Annotate(NewAccountRepo, fx.As(new(accounts.Repository))),
		fx.Annotate(NewPartnerRepo, fx.As(new(partners.Repository))),
		fx.Annotate(NewPremiumRepo, fx.As(new(premium.Repository))),
		fx.Annotate(NewRelationshipRepo, fx.As(new(relationship.Repository))),
		fx.Annotate(NewImageRepo, fx.As(new(images.Repository))),
		fx.Annotate(NewEventRepo, fx.As(new(events.Repository))),
		fx.Annotate(NewNotificationRepo, fx.As(new(notifications.Repository))),
		func() Ready { return Ready{} },
	),
)

// Ready answers readiness for the memory profile: there is no database to lose.
type Ready struct{}

func (Ready) Ping(context.Context) error { return nil }
