package bootstrap

import (
	"context"
	"tandem/adapters/web"

	"go.uber.org/fx"

	"tandem/adapters/httpapi"
	"tandem/adapters/memory"
	"tandem/adapters/sqlstore"
	"tandem/modules/flags"
	"tandem/modules/premium"
)

// wireFlags: the feature flags, their store, Premium and routes.
func wireFlags(db DBKind) fx.Option {
	return fx.Options(
		flags.Module,
		repos(db, memory.NewFlagRepo, sqlstore.NewFlagRepo, new(flags.Repository)),
		fx.Provide(
			func(p *premium.Service) flags.Premium { return premiumStatus{p} },
			web.AsRoute(httpapi.NewFlagsHandler),
		),
	)
}

// premiumStatus is flags.Premium on the premium module: a user is premium
// when their derived status says so (own subscription or the partner's).
type premiumStatus struct{ svc *premium.Service }

func (p premiumStatus) IsPremium(ctx context.Context, userID string) (bool, error) {
	st, err := p.svc.Status(ctx, userID)
	return st.IsPremium, err
}
