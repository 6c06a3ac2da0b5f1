package sqlstore

import (
	"context"
	"time"

	sq "github.com/Masterminds/squirrel"
	"github.com/jmoiron/sqlx"

	"tandem/modules/throttle"
)

var _ throttle.Repository = (*ThrottleRepo)(nil)

// ThrottleRepo keeps fixed-window counters in throttle_counters.
type ThrottleRepo struct{ db *DB }

func NewThrottleRepo(db *DB) *ThrottleRepo { return &ThrottleRepo{db: db} }

func (r *ThrottleRepo) Add(ctx context.Context, key string, window, expires time.Time) (int, error) {
	var hits int
	err := r.db.inTx(ctx, func(tx *sqlx.Tx) error {
		q, args, err := r.db.sb.Insert("throttle_counters").
			Columns("k", "bucket", "hits", "expires_at").
			Values(key, window.UnixMilli(), 1, expires.UnixMilli()).
			Suffix(r.db.upsert("k, bucket", "hits = hits + 1")).ToSql()
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, q, args...); err != nil {
			return mapErr(err)
		}
		return r.get(ctx, tx, key, window, &hits)
	})
	return hits, err
}

func (r *ThrottleRepo) Count(ctx context.Context, key string, window time.Time) (int, error) {
	var hits int
	err := r.get(ctx, r.db, key, window, &hits)
	if err != nil && isNotFound(err) {
		return 0, nil
	}
	return hits, err
}

func (r *ThrottleRepo) get(ctx context.Context, q sqlx.QueryerContext, key string, window time.Time, hits *int) error {
	query, args, err := r.db.sb.Select("hits").From("throttle_counters").
		Where(sq.Eq{"k": key, "bucket": window.UnixMilli()}).ToSql()
	if err != nil {
		return err
	}
	return mapErr(sqlx.GetContext(ctx, q, hits, query, args...))
}

func (r *ThrottleRepo) Clear(ctx context.Context, key string) error {
	q, args, err := r.db.sb.Delete("throttle_counters").Where(sq.Eq{"k": key}).ToSql()
	if err != nil {
		return err
	}
	_, err = r.db.ExecContext(ctx, q, args...)
	return mapErr(err)
}

func (r *ThrottleRepo) Purge(ctx context.Context, before time.Time) (int, error) {
	q, args, err := r.db.sb.Delete("throttle_counters").Where(sq.Lt{"expires_at": before.UnixMilli()}).ToSql()
	if err != nil {
		return 0, err
	}
	res, err := r.db.ExecContext(ctx, q, args...)
	if err != nil {
		return 0, mapErr(err)
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}
