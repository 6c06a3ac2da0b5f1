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
	func(d revokerDeps) *Revoker {
		return NewRevoker(d.Queue, d.Grants, d.Sealer, d.Log, d.Clock, d.IDs)
	},
	func(d deps) (*Service, error) {
		return NewService(Deps{Repo: d.Repo, Sender: d.Sender, Hasher: d.Hasher, Cache: d.Cache, Limiter: d.Limiter,
			Bus: d.Bus, Clock: d.Clock, IDs: d.IDs, Admins: d.Admins, IDTokens: d.IDTokens, Texts: d.Texts,
			Report: d.Report, Grants: d.Grants, Sealer: d.Sealer, Revoker: d.Revoker})
	},
))

// revokerDeps lets fx fill the Revoker: Grants and Sealer are bound by
// bootstrap when Apple's team key is configured.
type revokerDeps struct {
	fx.In
	Queue  Revocations
	Grants ProviderGrants `optional:"true"`
	Sealer Sealer         `optional:"true"`
	Log    RevocationLog
	Clock  core.Clock
	IDs    core.IDs
}

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
	// Grants and Sealer are bound by bootstrap with Apple's team key.
	Grants  ProviderGrants `optional:"true"`
	Sealer  Sealer         `optional:"true"`
	Revoker *Revoker
}
