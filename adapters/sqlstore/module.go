package sqlstore

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

// Module opens the database named by Config, migrates it at start and binds
// every repository port to its SQL implementation.
var Module = fx.Module("sql",
	fx.Provide(newLifecycleDB),
	fx.Provide(
		fx.Annotate(NewThrottleRepo, fx.As(new(throttle.Repository))),
		fx.Annotate(NewAccountRepo, fx.As(new(accounts.Repository))),
		fx.Annotate(NewPartnerRepo, fx.As(new(partners.Repository))),
		fx.Annotate(NewPremiumRepo, fx.As(new(premium.Repository))),
		fx.Annotate(NewRelationshipRepo, fx.As(new(relationship.Repository))),
		fx.Annotate(NewImageRepo, fx.As(new(images.Repository))),
		fx.Annotate(NewEventRepo, fx.As(new(events.Repository))),
		fx.Annotate(NewNotificationRepo, fx.As(new(notifications.Repository))),
	),
)

// newLifecycleDB opens and migrates during construction (so `fx.New` fails fast
// on a bad database) and closes with the app.
func newLifecycleDB(lc fx.Lifecycle, cfg Config) (*DB, error) {
	ctx := context.Background()
	db, err := Open(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if err := Migrate(ctx, db); err != nil {
		db.Close()
		return nil, err
	}
	lc.Append(fx.StopHook(db.Close))
	return db, nil
}
