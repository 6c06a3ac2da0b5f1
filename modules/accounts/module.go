package accounts

import (
	"go.uber.org/fx"

	"tandem/core"
)

// Module provides the account use cases. The repository, mailer, hasher and
// cache are bound by adapters; Admins and the data owners by bootstrap.
var Module = fx.Module("accounts", fx.Provide(
	func(d deps) (*Service, error) {
		return NewService(Deps{Repo: d.Repo, Mailer: d.Mailer, Hasher: d.Hasher, Cache: d.Cache, Limiter: d.Limiter,
			Bus: d.Bus, Clock: d.Clock, IDs: d.IDs, Admins: d.Admins})
	},
))

// deps lets fx fill Deps by type.
type deps struct {
	fx.In
	Repo    Repository
	Mailer  Mailer
	Hasher  PasswordHasher
	Cache   SessionCache
	Limiter core.Limiter
	Bus     core.Publisher
	Clock   core.Clock
	IDs     core.IDs
	Admins  Admins
}
