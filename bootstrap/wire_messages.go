package bootstrap

import (
	"go.uber.org/fx"

	"tandem/adapters/httpapi"
	"tandem/adapters/memory"
	"tandem/adapters/sqlstore"
	"tandem/adapters/web"
	"tandem/modules/messages"
	"tandem/modules/partners"
)

// wireMessages: the couple's messages, their store, ports, settings and
// routes.
func wireMessages(db DBKind) fx.Option {
	return fx.Options(
		messages.Module,
		repos(db, memory.NewMessageRepo, sqlstore.NewMessageRepo, new(messages.Repository)),
		fx.Provide(
			func(p *partners.Service) messages.Partnerships { return p },
			func(n *Notifier) messages.Notifier { return n },
			func(c Config) messages.Settings { return messages.Settings{Budget: c.WriteBudgets.Messages} },
			web.AsRoute(httpapi.NewMessagesHandler),
		),
	)
}
