package sqlstore

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"
)

// TestPreparingWritersNeverWaitOutTheBusyTimeout: many more writers than
// connections, each transaction preparing statements it has not run
// before (a transaction holds a connection, and preparing takes another),
// beside writes of their own. Every one must commit, and quickly: with
// transactions preparing freely, the pool ran dry now and then and a
// writer failed on the 10 s busy timeout.
func TestPreparingWritersNeverWaitOutTheBusyTimeout(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	d, err := Open(ctx, Config{Dialect: SQLite, DSN: filepath.Join(t.TempDir(), "w.db")})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if _, err := d.ExecContext(ctx, "CREATE TABLE w (k TEXT PRIMARY KEY, n INTEGER)"); err != nil {
		t.Fatal(err)
	}
	const writers, each = 32, 40
	var wg sync.WaitGroup
	errs := make(chan error, writers*each)
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				key := fmt.Sprintf("k%d-%d", w, i)
				// A new text per writer and round: every transaction prepares.
				err := d.inTx(ctx, func(tx *sqlx.Tx) error {
					if err := d.exec(ctx, tx, d.sb.Insert("w").Columns("k", "n").Values(key, i)); err != nil {
						return err
					}
					var n int
					return d.get(ctx, tx, &n, d.sb.Select(fmt.Sprintf("n + %d", w)).From("w").Where("k = ?", key))
				})
				if err == nil {
					err = d.exec(ctx, d, d.sb.Update("w").Set("n", i+1).Where("k = ?", key))
				}
				if err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	var rows int
	if err := d.get(ctx, d, &rows, d.sb.Select("COUNT(*)").From("w").Where("n > 0")); err != nil || rows != writers*each {
		t.Fatalf("%d rows updated, %v", rows, err)
	}
}
