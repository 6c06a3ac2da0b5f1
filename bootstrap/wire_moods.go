package bootstrap

import (
	"go.uber.org/fx"

	"tandem/adapters/httpapi"
	"tandem/adapters/memory"
	"tandem/adapters/sqlstore"
	"tandem/adapters/web"
	"tandem/modules/accounts"
	"tandem/modules/moods"
	"tandem/modules/partners"
)

// wireMoods: the daily mood check-ins, their store, ports, settings and
// routes.
func wireMoods(db DBKind) fx.Option {
	return fx.Options(
		moods.Module,
		repos(db, memory.NewMoodRepo, sqlstore.NewMoodRepo, new(moods.Repository)),
		fx.Provide(
			func(a *accounts.Service) moods.Users { return a },
			func(p *partners.Service) moods.Partnerships { return p },
			func(n *Notifier) moods.Notifier { return n },
			func(c Config) moods.Settings { return moods.Settings{Budget: c.WriteBudgets.Moods} },
			web.AsRoute(httpapi.NewMoodsHandler),
		),
	)
}
