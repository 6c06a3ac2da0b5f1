package bootstrap

import (
	"go.uber.org/fx"

	"tandem/adapters/memory"
	"tandem/adapters/sqlstore"
	"tandem/modules/idempotency"
)

// wireIdempotency: the Idempotency-Key records, their store and settings.
func wireIdempotency(db DBKind) fx.Option {
	return fx.Options(
		idempotency.Module,
		repos(db, memory.NewIdempotencyRepo, sqlstore.NewIdempotencyRepo, new(idempotency.Repository)),
		fx.Provide(func(c Config) idempotency.Settings {
			// A running key is renewed by its request every third of the
			// lease: one whose request is gone (a dead process, a claim that
			// met a hung database) frees its key within the lease.
			return idempotency.Settings{Lease: idempotency.DefaultLease, Budget: c.WriteBudgets.IdempotencyKeys}
		}),
	)
}
