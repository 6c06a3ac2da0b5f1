package bootstrap

import (
	"fmt"

	"go.uber.org/fx"
	"go.uber.org/zap"

	"tandem/adapters/cache"
	"tandem/adapters/httpapi"
	"tandem/adapters/mail/logmail"
	"tandem/adapters/mail/memmail"
	"tandem/adapters/mail/smtp"
	"tandem/adapters/memory"
	"tandem/adapters/password"
	"tandem/adapters/purchases"
	"tandem/adapters/sqlstore"
	"tandem/modules/accounts"
	"tandem/modules/premium"
)

// storage binds every repository port for the TANDEM_DB kind.
func storage(db DBConfig) fx.Option {
	switch db.Kind {
	case DBMemory:
		return fx.Options(memory.Module,
			fx.Provide(func(r memory.Ready) httpapi.Pinger { return r }))
	case DBSQLite, DBMySQL:
		return fx.Options(
			fx.Supply(sqlstore.Config{Dialect: sqlDialect(db.Kind), DSN: db.DSN}),
			sqlstore.Module,
			fx.Provide(func(d *sqlstore.DB) httpapi.Pinger { return d }))
	}
	return fx.Error(fmt.Errorf("TANDEM_DB: unknown kind %q", db.Kind))
}

func sqlDialect(k DBKind) sqlstore.Dialect {
	if k == DBMySQL {
		return sqlstore.MySQL
	}
	return sqlstore.SQLite
}

// mailer binds accounts.Mailer for TANDEM_MAIL.
func mailer(cfg Config) fx.Option {
	switch cfg.Mail.Kind {
	case "log":
		return fx.Provide(func(log *zap.Logger) accounts.Mailer { return logmail.New(log, cfg.MailFrom) })
	case "memory":
		return fx.Provide(memmail.New, func(o *memmail.Outbox) accounts.Mailer { return o })
	case "smtp":
		return fx.Provide(func() (accounts.Mailer, error) {
			c := smtp.Config{Addr: cfg.Mail.Host, Username: cfg.Mail.Username, Password: cfg.Mail.Password, From: cfg.MailFrom}
			if err := c.Validate(); err != nil {
				return nil, fmt.Errorf("TANDEM_MAIL / TANDEM_MAIL_FROM: %w", err)
			}
			return smtp.New(c), nil
		})
	}
	return fx.Error(fmt.Errorf("TANDEM_MAIL: unknown kind %q", cfg.Mail.Kind))
}

// security binds the password hasher and the session read cache.
func security(cfg Config) fx.Option {
	return fx.Provide(
		func() accounts.PasswordHasher { return password.New(password.DefaultParams) },
		func(lc fx.Lifecycle) (accounts.SessionCache, error) {
			c, err := cache.New(cfg.TokenCacheTTL, 16) // 16 MB: ~100k sessions
			if err == nil {
				lc.Append(fx.StopHook(c.Close))
			}
			return c, err
		},
		func() accounts.Admins { return accounts.Admins(cfg.AdminEmails) },
		func(s *accounts.Service) httpapi.Authenticator { return s },
	)
}

// purchaseVerifier binds premium.PurchaseVerifier for TANDEM_PURCHASES.
func purchaseVerifier(kind string) fx.Option {
	switch kind {
	case "trust":
		return fx.Provide(func() premium.PurchaseVerifier { return purchases.NewTrust() })
	}
	return fx.Error(fmt.Errorf("TANDEM_PURCHASES: unknown verifier %q", kind))
}
