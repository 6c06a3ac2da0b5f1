package bootstrap

import (
	"go.uber.org/fx"

	"tandem/adapters/memory"
	"tandem/adapters/sqlstore"
	"tandem/modules/throttle"
)

// wireThrottle: the rate-limit counters and their store.
func wireThrottle(db DBKind) fx.Option {
	return fx.Options(
		throttle.Module,
		repos(db, memory.NewThrottleRepo, sqlstore.NewThrottleRepo, new(throttle.Repository)),
	)
}
