package sqlstore

import (
	"context"
	"fmt"

	"github.com/jmoiron/sqlx"
)

// inTx runs fn in one transaction: commit when fn returns nil, roll back on an
// error or a panic. On SQLite it is IMMEDIATE (see openSQLite).
func (d *DB) inTx(ctx context.Context, fn func(tx *sqlx.Tx) error) (err error) {
	tx, err := d.BeginTxx(ctx, nil)
	if err != nil {
		return mapErr(err)
	}
	defer func() {
		if p := recover(); p != nil {
			_ = tx.Rollback()
			panic(p)
		}
		if err != nil {
			_ = tx.Rollback()
		}
	}()
	if err = fn(tx); err != nil {
		return err
	}
	if err = tx.Commit(); err != nil {
		return mapErr(fmt.Errorf("commit: %w", err))
	}
	return nil
}
