package bootstrap

import (
	"context"
	"tandem/adapters/web"

	"go.uber.org/fx"
	"go.uber.org/zap"

	"tandem/adapters/httpapi"
	"tandem/adapters/memory"
	"tandem/adapters/sqlstore"
	"tandem/modules/accounts"
	"tandem/modules/passkeys"
)

// wireAccounts: accounts, its stores (accounts, outbox, revocations), its
// Reporter and routes; accountsLinks adds passkeys and the Notifier.
func wireAccounts(db DBKind) fx.Option {
	return fx.Options(
		accounts.Module,
		repos(db, memory.NewAccountRepoWith, sqlstore.NewAccountRepo,
			new(accounts.Repository), new(accounts.Outbox), new(accounts.Revocations)),
		fx.Provide(
			func(log *zap.Logger) accounts.Reporter { return afterCommitLog{log} },
			web.AsRoute(httpapi.NewAccountsHandler),
		),
	)
}

// accountsLinks gives accounts its passkeys and Notifier once the graph is
// built: both are built on accounts (passkeys.Accounts, notifications.Users),
// so the constructor cannot take them. Options runs it with connect, after
// the server is built, as it always ran.
var accountsLinks = fx.Invoke(func(acc *accounts.Service, keys *passkeys.Service, n *Notifier) {
	acc.UsePasskeys(keys) // passkeys are sign-in methods too (the profile, unlinking the last provider)
	acc.UseNotifier(n)    // a way in added is shown in a notification
})

// afterCommitLog logs what failed after an account change committed (a
// notice mail not queued): the change stands, an operator should know.
type afterCommitLog struct{ log *zap.Logger }

func (a afterCommitLog) AfterCommitFailed(_ context.Context, what string, err error) {
	a.log.Warn("accounts: "+what+" failed after the commit", zap.Error(err))
}
