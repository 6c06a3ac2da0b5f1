package accounts

import (
	"go.uber.org/fx"

	"tandem/core"
)

// Module provides the account use cases and the mail Sender. The repository,
// outbox, mailer, hasher and cache are bound by adapters; Admins, the
// MailLog, the SenderSettings and the data owners by bootstrap, which also
// runs the Sender.
var Module = fx.Module("accounts", fx.Provide(
	NewSender,
	func(d deps) (*Service, error) {
		return NewService(Deps{Repo: d.Repo, Sender: d.Sender, Hasher: d.Hasher, Cache: d.Cache, Limiter: d.Limiter,
			Bus: d.Bus, Clock: d.Clock, IDs: d.IDs, Admins: d.Admins, IDTokens: d.IDTokens, Texts: d.Texts,
			Report: d.Report})
	},
))

// deps lets fx fill Deps by type.
type deps struct {
	fx.In
	Repo    Repository
	Sender  *Sender
	Hasher  PasswordHasher
	Cache   SessionCache
	Limiter core.Limiter
	Bus     core.Publisher
	Clock   core.Clock
	IDs     core.IDs
	Admins  Admins
	// IDTokens is bound by bootstrap when TANDEM_SIGNIN names a provider.
	IDTokens IDTokenVerifier `optional:"true"`
	Texts    core.Translator
	Report   Reporter `optional:"true"`
}
