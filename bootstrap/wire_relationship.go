package bootstrap

import (
	"go.uber.org/fx"

	"tandem/adapters/httpapi"
	"tandem/adapters/memory"
	"tandem/adapters/sqlstore"
	"tandem/adapters/web"
	"tandem/modules/accounts"
	"tandem/modules/partners"
	"tandem/modules/relationship"
)

// wireRelationship: the relationship and its milestones, their store,
// ports and routes.
func wireRelationship(db DBKind) fx.Option {
	return fx.Options(
		relationship.Module,
		repos(db, memory.NewRelationshipRepo, sqlstore.NewRelationshipRepo,
			new(relationship.Repository), new(relationship.MilestoneRepository)),
		fx.Provide(
			func(p *partners.Service) relationship.Partnerships { return p },
			func(a *accounts.Service) relationship.Users { return a },
			func(n *Notifier) relationship.Notifier { return n },
			func(n *Notifier) relationship.MilestoneNotifier { return n },
			web.AsRoute(httpapi.NewRelationshipHandler),
		),
	)
}
