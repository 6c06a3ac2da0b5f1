package sqlstore_test

import (
	"testing"

	"tandem/adapters/httpapi"
	"tandem/adapters/sqlstore"
	"tandem/adapters/storetest"
)

func TestSettings(t *testing.T) {
	eachDialect(t, func(t *testing.T, newDB func(*testing.T) *sqlstore.DB) {
		storetest.Settings(t, func(t *testing.T) httpapi.Settings { return sqlstore.NewSettingsRepo(newDB(t)) })
	})
}
