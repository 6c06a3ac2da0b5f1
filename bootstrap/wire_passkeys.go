package bootstrap

import (
	"go.uber.org/fx"

	"tandem/adapters/httpapi"
	"tandem/adapters/memory"
	"tandem/adapters/sqlstore"
	"tandem/adapters/web"
	"tandem/modules/accounts"
	"tandem/modules/passkeys"
)

// wirePasskeys: the passkeys, their store, Accounts and routes (the relying
// party is chosen by relyingParty, TANDEM_PASSKEYS, in passkeys.go).
func wirePasskeys(db DBKind) fx.Option {
	return fx.Options(
		passkeys.Module,
		repos(db, memory.NewPasskeyRepo, sqlstore.NewPasskeyRepo, new(passkeys.Repository)),
		fx.Provide(
			func(a *accounts.Service) passkeys.Accounts { return passkeyAccounts{a} },
			web.AsRoute(httpapi.NewPasskeysHandler),
		),
	)
}
