package sqlstore

import (
	"context"
	"tandem/modules/idempotency"
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
	ctx = idempotency.Unmarked(ctx) // a counter is no part of the create a key guards
	err := r.db.inTx(ctx, func(tx *sqlx.Tx) error {
		if err := r.db.exec(ctx, tx, r.db.sb.Insert("throttle_counters").
			Columns("k", "bucket", "hits", "expires_at").
			Values(key, window.UnixMilli(), 1, expires.UnixMilli()).
			Suffix(r.db.upsert("k, bucket", "hits = hits + 1"))); err != nil {
			return err
		}
		return r.get(ctx, tx, key, window, &hits)
	})
	return hits, err
}

func (r *ThrottleRepo) Count(ctx context.Context, key string, window time.Time) (int, error) {
	var hits int
	err := r.get(ctx, r.db, key, window, &hits)
	if isNotFound(err) {
		return 0, nil
	}
	return hits, err
}

func (r *ThrottleRepo) get(ctx context.Context, q sqlx.QueryerContext, key string, window time.Time, hits *int) error {
	return r.db.get(ctx, q, hits, r.db.sb.Select("hits").From("throttle_counters").
		Where(sq.Eq{"k": key, "bucket": window.UnixMilli()}))
}

func (r *ThrottleRepo) Sub(ctx context.Context, key string, window time.Time) error {
	return r.db.exec(ctx, r.db, r.db.sb.Update("throttle_counters").Set("hits", sq.Expr("hits - 1")).
		Where(sq.Eq{"k": key, "bucket": window.UnixMilli()}).Where(sq.Gt{"hits": 0}))
}

func (r *ThrottleRepo) Clear(ctx context.Context, key string) error {
	return r.db.exec(ctx, r.db, r.db.sb.Delete("throttle_counters").Where(sq.Eq{"k": key}))
}

func (r *ThrottleRepo) Purge(ctx context.Context, before time.Time) (int, error) {
	return r.db.purgeInBatches(ctx, "throttle_counters", []string{"k", "bucket"}, sq.Lt{"expires_at": before.UnixMilli()})
}
