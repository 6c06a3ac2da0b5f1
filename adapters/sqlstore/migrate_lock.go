package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"go.uber.org/zap"
)

// Migrations take turns: processes started together on one database (a
// rolling deploy, an autoscaler, three machines) would otherwise each run
// the same migrations and all but one fail on "table already exists". The
// first to take the lock migrates; the others wait for it, bounded by
// MigrateLockWait and logged, and then find the schema current.

// MigrateLockWait bounds the wait for another process's migrations.
const MigrateLockWait = 10 * time.Minute

// migrateLockName names the MySQL lock: one per database (GET_LOCK names
// are server-wide, and one server may hold several Tandem databases).
const migrateLockName = "tandem.migrate."

// lockPoll is how often a waiting process tries the lock again.
const lockPoll = 100 * time.Millisecond

// lockMigrations takes db's migration lock: GET_LOCK on MySQL, held by one
// connection set apart for it (a process that dies frees it with its
// connection), and on SQLite an flock(2) of a file beside the database (the
// kernel frees it with the process). unlock gives it back.
func lockMigrations(ctx context.Context, db *DB, log *zap.Logger) (unlock func() error, err error) {
	if log == nil {
		log = zap.NewNop()
	}
	switch {
	case db.Dialect == MySQL:
		return lockMySQL(ctx, db, log)
	case db.path != "":
		return lockFile(ctx, db.path+".migrate-lock", log)
	}
	return func() error { return nil }, nil
}

func lockMySQL(ctx context.Context, db *DB, log *zap.Logger) (func() error, error) {
	conn, err := db.DB.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("sqlstore: migration lock: %w", err)
	}
	var schema sql.NullString
	if err := conn.QueryRowContext(ctx, "SELECT DATABASE()").Scan(&schema); err != nil {
		conn.Close()
		return nil, fmt.Errorf("sqlstore: migration lock: %w", err)
	}
	name := migrateLockName + schema.String
	err = waitTurn(ctx, log, func() (bool, error) {
		var got sql.NullInt64
		if err := conn.QueryRowContext(ctx, "SELECT GET_LOCK(?, 0)", name).Scan(&got); err != nil {
			return false, fmt.Errorf("sqlstore: migration lock: %w", err)
		}
		return got.Valid && got.Int64 == 1, nil
	})
	if err != nil {
		conn.Close()
		return nil, err
	}
	return func() error {
		_, err := conn.ExecContext(context.WithoutCancel(ctx), "DO RELEASE_LOCK(?)", name)
		return errors.Join(err, conn.Close())
	}, nil
}

// waitTurn calls try until it takes the lock, every lockPoll, for at most
// MigrateLockWait; it logs once that it waits, and once when its turn came.
func waitTurn(ctx context.Context, log *zap.Logger, try func() (bool, error)) error {
	ctx, cancel := context.WithTimeout(ctx, MigrateLockWait)
	defer cancel()
	start := time.Now()
	for waited := false; ; waited = true {
		got, err := try()
		if err != nil || got {
			if waited && got {
				log.Info("migration lock taken: the schema is brought up to date", zap.Duration("waited", time.Since(start)))
			}
			return err
		}
		if !waited {
			log.Info("another process holds the migration lock: waiting for its migrations", zap.Duration("at_most", MigrateLockWait))
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("sqlstore: the migration lock was not free within %s: %w", MigrateLockWait, ctx.Err())
		case <-time.After(lockPoll):
		}
	}
}
