package bootstrap

import (
	"go.uber.org/fx"

	"tandem/adapters/httpapi"
	"tandem/adapters/memory"
	"tandem/adapters/sqlstore"
	"tandem/adapters/web"
	"tandem/modules/partners"
)

// wirePartners: the pairing of two accounts, its store, Notifier, settings
// and routes.
func wirePartners(db DBKind) fx.Option {
	return fx.Options(
		partners.Module,
		repos(db, memory.NewPartnerRepo, sqlstore.NewPartnerRepo, new(partners.Repository)),
		fx.Provide(
			func(n *Notifier) partners.Notifier { return n },
			func(c Config) partners.Settings {
				return partners.Settings{FailsPerUser: c.PairingFailsUser, FailsPerIP: c.PairingFailsIP,
					ConnectionCodeTTL: c.ConnectionCodeTTL}
			},
			web.AsRoute(httpapi.NewPartnersHandler),
		),
	)
}
