package bootstrap

import (
	"go.uber.org/fx"

	"tandem/adapters/httpapi"
	"tandem/adapters/memory"
	"tandem/adapters/sqlstore"
	"tandem/adapters/web"
	"tandem/modules/versions"
)

// wireVersions: the app versions, their store and routes.
func wireVersions(db DBKind) fx.Option {
	return fx.Options(
		versions.Module,
		repos(db, memory.NewVersionRepo, sqlstore.NewVersionRepo, new(versions.Repository)),
		fx.Provide(web.AsRoute(httpapi.NewVersionsHandler)),
	)
}
