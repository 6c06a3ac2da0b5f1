package bootstrap

import (
	"go.uber.org/fx"

	"tandem/adapters/httpapi"
	"tandem/adapters/memory"
	"tandem/adapters/sqlstore"
	"tandem/adapters/web"
	"tandem/modules/partners"
	"tandem/modules/premium"
)

// wirePremium: the subscriptions, their store, Partners, the policy and
// routes (the store verifiers are chosen by purchaseVerifier, purchases.go).
func wirePremium(db DBKind) fx.Option {
	return fx.Options(
		premium.Module,
		repos(db, memory.NewPremiumRepo, sqlstore.NewPremiumRepo, new(premium.Repository)),
		fx.Provide(
			func(p *partners.Service) premium.Partners { return p },
			func(c Config) premium.Policy { return c.Premium },
			web.AsRoute(httpapi.NewPremiumHandler),
		),
	)
}
