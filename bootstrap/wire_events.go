package bootstrap

import (
	"go.uber.org/fx"

	"tandem/adapters/httpapi"
	"tandem/adapters/memory"
	"tandem/adapters/sqlstore"
	"tandem/adapters/web"
	"tandem/modules/accounts"
	"tandem/modules/events"
	"tandem/modules/partners"
)

// wireEvents: the calendar events, their store, ports, settings and routes.
func wireEvents(db DBKind) fx.Option {
	return fx.Options(
		events.Module,
		repos(db, memory.NewEventRepo, sqlstore.NewEventRepo, new(events.Repository)),
		fx.Provide(
			func(p *partners.Service) events.Partners { return p },
			func(a *accounts.Service) events.Users { return a },
			func(n *Notifier) events.Notifier { return n },
			func(n *Notifier) events.PartnerNotifier { return n },
			func(c Config) events.Settings { return events.Settings{Budget: c.WriteBudgets.Events} },
			web.AsRoute(httpapi.NewEventsHandler),
		),
	)
}
