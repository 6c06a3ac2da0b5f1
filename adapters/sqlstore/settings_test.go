package sqlstore_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"tandem/adapters/sqlstore"
	"tandem/adapters/sqlstore/sqltest"
	"tandem/adapters/storetest"
	"tandem/core"
)

func TestSettings(t *testing.T) {
	eachDialect(t, func(t *testing.T, newDB func(*testing.T) *sqlstore.DB) {
		storetest.Settings(t, func(t *testing.T) core.Settings { return sqlstore.NewSettingsRepo(newDB(t)) })
	})
}

// Processes starting together on an empty database, each with its own
// connections, end with one value: the first insert's.
func TestSettingsAgreeAcrossConnections(t *testing.T) {
	for _, d := range sqltest.Dialects(t) {
		t.Run(string(d), func(t *testing.T) {
			ctx := context.Background()
			cfg := sqltest.Config(t, d)
			first, err := sqlstore.Open(ctx, cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer first.Close()
			if err := sqlstore.Migrate(ctx, first, nil); err != nil {
				t.Fatal(err)
			}
			const n = 4
			got := make([]string, n)
			errs := make([]error, n)
			var wg sync.WaitGroup
			for i := range n {
				db := first
				if i > 0 {
					if db, err = sqlstore.Open(ctx, cfg); err != nil {
						t.Fatal(err)
					}
					defer db.Close()
				}
				wg.Add(1)
				go func() {
					defer wg.Done()
					got[i], errs[i] = sqlstore.NewSettingsRepo(db).Ensure(ctx, "console_secret", fmt.Sprint("process-", i))
				}()
			}
			wg.Wait()
			for i := range n {
				if errs[i] != nil || got[i] != got[0] {
					t.Fatalf("processes got %q, errors %v", got, errs)
				}
			}
		})
	}
}
