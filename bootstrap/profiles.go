package bootstrap

import (
	"fmt"

	"go.uber.org/fx"

	"tandem/adapters/httpapi"
	"tandem/adapters/memory"
	"tandem/adapters/sqlstore"
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
