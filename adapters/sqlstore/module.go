package sqlstore

import (
	"context"

	"go.uber.org/fx"
	"go.uber.org/zap"

	"tandem/modules/changes"
)

// Module opens the database named by Config, migrates it at start and
// guards it with the breaker. Each module's wiring
// (bootstrap/wire_<module>.go) binds its own repository ports to the stores
// of this package.
var Module = fx.Module("sql", fx.Provide(newLifecycleDB, NewBreaker))

// newLifecycleDB opens and migrates during construction (so `fx.New` fails fast
// on a bad database) and closes with the app.
func newLifecycleDB(lc fx.Lifecycle, cfg Config, log *zap.Logger, rec changes.Recording) (*DB, error) {
	ctx := context.Background()
	db, err := Open(ctx, cfg)
	if err != nil {
		return nil, err
	}
	db.RecordChangesWith(rec)
	if err := Migrate(ctx, db, log); err != nil {
		db.Close()
		return nil, err
	}
	lc.Append(fx.StopHook(db.Close))
	return db, nil
}
