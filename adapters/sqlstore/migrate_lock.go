package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/pressly/goose/v3/lock"
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

// mysqlMigrateLock is a goose session locker on GET_LOCK: the lock belongs
// to the connection, so a process that dies mid-migration frees it.
type mysqlMigrateLock struct{ log *zap.Logger }

func (l mysqlMigrateLock) SessionLock(ctx context.Context, conn *sql.Conn) error {
	var schema sql.NullString
	if err := conn.QueryRowContext(ctx, "SELECT DATABASE()").Scan(&schema); err != nil {
		return fmt.Errorf("sqlstore: migration lock: %w", err)
	}
	name := migrateLockName + schema.String
	return waitTurn(ctx, l.log, func() (bool, error) {
		var got sql.NullInt64
		if err := conn.QueryRowContext(ctx, "SELECT GET_LOCK(?, 0)", name).Scan(&got); err != nil {
			return false, fmt.Errorf("sqlstore: migration lock: %w", err)
		}
		return got.Valid && got.Int64 == 1, nil
	})
}

func (l mysqlMigrateLock) SessionUnlock(ctx context.Context, conn *sql.Conn) error {
	var schema sql.NullString
	if err := conn.QueryRowContext(ctx, "SELECT DATABASE()").Scan(&schema); err != nil {
		return err
	}
	_, err := conn.ExecContext(ctx, "DO RELEASE_LOCK(?)", migrateLockName+schema.String)
	return err
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

// migrateLocker is the lock of db's migrations: GET_LOCK on MySQL, a file
// lock beside the database on SQLite (nil when there is no file).
func migrateLocker(db *DB, log *zap.Logger) (lockOption, error) {
	if log == nil {
		log = zap.NewNop()
	}
	switch {
	case db.Dialect == MySQL:
		return lockOption{session: mysqlMigrateLock{log: log}}, nil
	case db.path != "":
		return lockOption{locker: &fileMigrateLock{path: db.path + ".migrate-lock", log: log}}, nil
	}
	return lockOption{}, nil
}

type lockOption struct {
	session lock.SessionLocker
	locker  lock.Locker
}
