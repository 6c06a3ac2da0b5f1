package bootstrap

import (
	"go.uber.org/fx"

	"tandem/adapters/httpapi"
	"tandem/adapters/memory"
	"tandem/adapters/sqlstore"
	"tandem/adapters/web"
	"tandem/modules/accounts"
	"tandem/modules/advice"
)

// wireAdvice: the daily advice, its store, Users and routes.
func wireAdvice(db DBKind) fx.Option {
	return fx.Options(
		advice.Module,
		repos(db, memory.NewAdviceRepo, sqlstore.NewAdviceRepo, new(advice.Repository)),
		fx.Provide(
			func(a *accounts.Service) advice.Users { return a },
			web.AsRoute(httpapi.NewAdviceHandler),
		),
	)
}
