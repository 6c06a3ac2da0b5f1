package bootstrap

import (
	"go.uber.org/fx"

	"tandem/adapters/memory"
	"tandem/adapters/sqlstore"
	adminmod "tandem/modules/admin"
)

// wireAdmin: the console's audit log and overview, and their stores.
func wireAdmin(db DBKind) fx.Option {
	return fx.Options(
		adminmod.Module,
		repos(db, memory.NewAuditRepo, sqlstore.NewAuditRepo, new(adminmod.AuditLog)),
		repos(db, memory.NewStatsRepo, sqlstore.NewStatsRepo, new(adminmod.Stats)),
	)
}
