package sqlstore

import (
	"context"
	"errors"
	"fmt"

	"github.com/pressly/goose/v3"
	"go.uber.org/zap"

	"tandem/migrations"
)

// Migrate brings the schema up to the newest version through goose's Provider
// API (no global state, so parallel tests on several databases are safe),
// holding the migration lock (migrate_lock.go) for the whole of it:
// processes started together take turns, and log on log (nil: nowhere)
// while they wait. The lock is ours, not goose's: goose's Up first asks
// HasPending without its locker, which can read another process's version
// table between its creation and its first row ("missing zero version").
func Migrate(ctx context.Context, db *DB, log *zap.Logger) (err error) {
	unlock, err := lockMigrations(ctx, db, log)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, unlock()) }()
	p, err := provider(db)
	if err != nil {
		return err
	}
	if _, err := p.Up(ctx); err != nil {
		return fmt.Errorf("sqlstore: migrate up: %w", err)
	}
	return nil
}

// MigrateDownAll rolls every migration back (tests prove Down works).
func MigrateDownAll(ctx context.Context, db *DB) error {
	p, err := provider(db)
	if err != nil {
		return err
	}
	if _, err := p.DownTo(ctx, 0); err != nil {
		return fmt.Errorf("sqlstore: migrate down: %w", err)
	}
	return nil
}

func provider(db *DB) (*goose.Provider, error) {
	dialect := goose.DialectMySQL
	if db.Dialect == SQLite {
		dialect = goose.DialectSQLite3
	}
	sub, err := migrations.For(string(db.Dialect))
	if err != nil {
		return nil, err
	}
	return goose.NewProvider(dialect, db.DB.DB, sub)
}

// MigrateUpTo applies the migrations up to version only (tests: a database
// an older Tandem left).
func MigrateUpTo(ctx context.Context, db *DB, version int64) error {
	p, err := provider(db)
	if err != nil {
		return err
	}
	if _, err := p.UpTo(ctx, version); err != nil {
		return fmt.Errorf("sqlstore: migrate up to %d: %w", version, err)
	}
	return nil
}
