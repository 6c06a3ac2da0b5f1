package sqlstore

import (
	"context"
	"time"

	sq "github.com/Masterminds/squirrel"

	"tandem/core"
	"tandem/modules/idempotency"
)

var _ idempotency.Repository = (*IdempotencyRepo)(nil)

// IdempotencyRepo keeps the keys in idempotency_keys. A claim is one INSERT
// under the primary key (user_id, key_hash): of concurrent claims the
// database lets exactly one in. No transaction: a DELETE and an INSERT of
// one absent key in two MySQL transactions deadlock on the gap lock.
type IdempotencyRepo struct{ db *DB }

func NewIdempotencyRepo(db *DB) *IdempotencyRepo { return &IdempotencyRepo{db: db} }

type idempotencyRow struct {
	UserID      string `db:"user_id"`
	KeyHash     string `db:"key_hash"`
	ClaimID     string `db:"claim_id"`
	Fingerprint string `db:"fingerprint"`
	State       string `db:"state"`
	Status      int    `db:"status"`
	ContentType string `db:"content_type"`
	Body        []byte `db:"body"`
	CreatedAt   int64  `db:"created_at"`
	ExpiresAt   int64  `db:"expires_at"`
}

var idempotencyColumns = []string{"user_id", "key_hash", "claim_id", "fingerprint", "state", "status",
	"content_type", "body", "created_at", "expires_at"}

func (w idempotencyRow) record() idempotency.Record {
	return idempotency.Record{UserID: w.UserID, KeyHash: w.KeyHash, ClaimID: w.ClaimID, Fingerprint: w.Fingerprint,
		State: idempotency.State(w.State), Answer: idempotency.Answer{Status: w.Status, ContentType: w.ContentType, Body: w.Body},
		CreatedAt: time.UnixMilli(w.CreatedAt).UTC(), ExpiresAt: time.UnixMilli(w.ExpiresAt).UTC()}
}

// claimAttempts: a claim that met a record which was then released or
// purged before it could be read tries again, a few times at most.
const claimAttempts = 3

func (r *IdempotencyRepo) Claim(ctx context.Context, rec idempotency.Record, now time.Time) (idempotency.Record, bool, error) {
	ctx = idempotency.Unmarked(ctx) // the key's own writes never mark it
	key := sq.Eq{"user_id": rec.UserID, "key_hash": rec.KeyHash}
	for range claimAttempts {
		if err := r.db.exec(ctx, r.db, r.db.sb.Delete("idempotency_keys").Where(key).
			Where(sq.LtOrEq{"expires_at": now.UnixMilli()})); err != nil {
			return idempotency.Record{}, false, err
		}
		err := r.db.exec(ctx, r.db, r.db.sb.Insert("idempotency_keys").Columns(idempotencyColumns...).
			Values(rec.UserID, rec.KeyHash, rec.ClaimID, rec.Fingerprint, string(rec.State), 0, "", []byte{},
				rec.CreatedAt.UnixMilli(), rec.ExpiresAt.UnixMilli()))
		if err == nil {
			return idempotency.Record{}, true, nil
		}
		if !core.IsKind(err, core.KindConflict) {
			return idempotency.Record{}, false, err
		}
		var row idempotencyRow
		err = r.db.get(ctx, r.db, &row, r.db.sb.Select(idempotencyColumns...).From("idempotency_keys").Where(key))
		switch {
		case err == nil && row.ExpiresAt > now.UnixMilli():
			return row.record(), false, nil
		case err != nil && !isNotFound(err):
			return idempotency.Record{}, false, err
		}
	}
	return idempotency.Record{}, false, nil // still contended: in progress, as far as the caller can tell
}

func (r *IdempotencyRepo) Finish(ctx context.Context, rec idempotency.Record) error {
	ctx = idempotency.Unmarked(ctx) // the key's own writes never mark it
	body := rec.Answer.Body
	if body == nil {
		body = []byte{}
	}
	return r.db.execOne(ctx, r.db, r.db.sb.Update("idempotency_keys").
		Set("fingerprint", rec.Fingerprint).Set("state", string(rec.State)).Set("status", rec.Answer.Status).
		Set("content_type", rec.Answer.ContentType).Set("body", body).Set("expires_at", rec.ExpiresAt.UnixMilli()).
		Where(sq.Eq{"user_id": rec.UserID, "key_hash": rec.KeyHash, "claim_id": rec.ClaimID,
			"state": []string{string(idempotency.Running), string(idempotency.Committed)}}))
}

func (r *IdempotencyRepo) Renew(ctx context.Context, userID, keyHash, claimID string, expires time.Time) error {
	ctx = idempotency.Unmarked(ctx)
	return r.db.exec(ctx, r.db, r.db.sb.Update("idempotency_keys").Set("expires_at", expires.UnixMilli()).
		Where(sq.Eq{"user_id": userID, "key_hash": keyHash, "claim_id": claimID, "state": string(idempotency.Running)}))
}

func (r *IdempotencyRepo) Release(ctx context.Context, userID, keyHash, claimID string) error {
	ctx = idempotency.Unmarked(ctx) // the key's own writes never mark it
	return r.db.exec(ctx, r.db, r.db.sb.Delete("idempotency_keys").
		Where(sq.Eq{"user_id": userID, "key_hash": keyHash, "claim_id": claimID, "state": string(idempotency.Running)}))
}

func (r *IdempotencyRepo) DeleteUser(ctx context.Context, userID string) error {
	return r.db.exec(ctx, r.db, r.db.sb.Delete("idempotency_keys").Where(sq.Eq{"user_id": userID}))
}

func (r *IdempotencyRepo) Purge(ctx context.Context, before time.Time) (int, error) {
	return r.db.purgeInBatches(ctx, "idempotency_keys", []string{"user_id", "key_hash"}, sq.Lt{"expires_at": before.UnixMilli()})
}
