package bootstrap

import (
	"go.uber.org/fx"

	"tandem/adapters/httpapi"
	"tandem/adapters/memory"
	"tandem/adapters/sqlstore"
	"tandem/adapters/web"
	"tandem/modules/memories"
	"tandem/modules/partners"
	"tandem/modules/premium"
)

// wireMemories: the couple's memories, their store, ports, settings and
// routes.
func wireMemories(db DBKind) fx.Option {
	return fx.Options(
		memories.Module,
		repos(db, memory.NewMemoryRepo, sqlstore.NewMemoryRepo, new(memories.Repository)),
		fx.Provide(
			func(p *partners.Service) memories.Partners { return p },
			func(n *Notifier) memories.Notifier { return n },
			func(p *premium.Service) memories.Limits { return premiumLimits{p} },
			func(c Config) memories.Settings {
				return memories.Settings{PublicURL: c.HTTP.PublicURL, Budget: c.WriteBudgets.Memories}
			},
			web.AsRoute(httpapi.NewMemoriesHandler),
		),
	)
}
