package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	sq "github.com/Masterminds/squirrel"
	"github.com/go-sql-driver/mysql"
	"github.com/jmoiron/sqlx"

	"tandem/core"
	"tandem/modules/idempotency"
)

// txAttempts bounds the re-runs of a deadlock victim.
const txAttempts = 8

// inTx runs fn in one transaction: commit when fn returns nil, roll back on an
// error or a panic. On SQLite it is IMMEDIATE (see openSQLite) and shared:
// fn runs in a savepoint of the next group commit (groupCommit). When MySQL
// rolls it back as a deadlock victim (or, on MariaDB with snapshot isolation,
// because a row changed under it) it runs again after a short random pause,
// so fn must only assign what it computes, never accumulate across runs.
// The changes the write carries (core.WriteWithChanges) are inserted in
// the same transaction, after fn.
func (d *DB) inTx(ctx context.Context, fn func(tx *sqlx.Tx) error) error {
	p := idempotency.PendingFrom(ctx)
	if p != nil {
		fn = d.marking(ctx, p, fn)
	}
	ch := core.PendingChangesFrom(ctx)
	if ch != nil {
		fn = d.recording(ctx, ch, fn)
	}
	err := d.inTxRetried(ctx, fn)
	d.full.note(err)
	if err == nil && p != nil {
		p.MarkCommitted()
	}
	if err == nil && ch != nil {
		ch.MarkRecorded()
	}
	return err
}

// marking is fn that also marks the request's claimed Idempotency-Key
// committed, in fn's own transaction: the create and the mark commit
// together, or neither. A claim no longer running (released by a request
// that answered 503 while this write waited on a cut database, or taken
// over after its lease) refuses the write: a retry may be running it.
func (d *DB) marking(ctx context.Context, p *idempotency.Pending, fn func(tx *sqlx.Tx) error) func(tx *sqlx.Tx) error {
	return func(tx *sqlx.Tx) error {
		if err := fn(tx); err != nil {
			return err
		}
		err := d.execOne(ctx, tx, d.sb.Update("idempotency_keys").Set("state", string(idempotency.Committed)).
			Set("expires_at", p.KeepUntil.UnixMilli()).
			Where(sq.Eq{"user_id": p.UserID, "key_hash": p.KeyHash, "claim_id": p.ClaimID, "state": string(idempotency.Running)}))
		if isNotFound(err) {
			return core.Unavailable("unavailable", "sqlstore.requestIdempotencyKeyWasReleased", "this request's Idempotency-Key was released meanwhile; retry")
		}
		return err
	}
}

func (d *DB) inTxRetried(ctx context.Context, fn func(tx *sqlx.Tx) error) error {
	for attempt := 1; ; attempt++ {
		err := d.inTxOnce(ctx, fn)
		if err == nil || attempt == txAttempts || !retryable(err) {
			return err
		}
		pause := time.Duration(attempt)*time.Millisecond + rand.N(5*time.Millisecond)
		select {
		case <-ctx.Done():
			return err
		case <-time.After(pause):
		}
	}
}

func retryable(err error) bool {
	var me *mysql.MySQLError
	return errors.As(err, &me) && (me.Number == 1213 || me.Number == 1020) // deadlock; record changed since read
}

func (d *DB) inTxOnce(ctx context.Context, fn func(tx *sqlx.Tx) error) (err error) {
	if d.writes != nil {
		return d.inGroupTx(ctx, fn)
	}
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
