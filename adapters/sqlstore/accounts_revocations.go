package sqlstore

import (
	"context"
	"time"

	sq "github.com/Masterminds/squirrel"
	"github.com/jmoiron/sqlx"

	"tandem/core"
	"tandem/modules/accounts"
)

// AccountRepo is also the queue of grants to revoke (accounts.Revocations):
// the table provider_revocations, filled in the transactions that remove
// identities (retireGrants) and emptied by the Revoker, with leases as the
// mail outbox is.

var _ accounts.Revocations = (*AccountRepo)(nil)

var revocationColumns = []string{"id", "provider", "subject", "user_id", "token", "attempts", "next_attempt_at",
	"claimed_until", "claim"}

type revocationRow struct {
	ID           string `db:"id"`
	Provider     string `db:"provider"`
	Subject      string `db:"subject"`
	UserID       string `db:"user_id"`
	Token        string `db:"token"`
	Attempts     int    `db:"attempts"`
	NextAttempt  int64  `db:"next_attempt_at"`
	ClaimedUntil int64  `db:"claimed_until"`
	Claim        string `db:"claim"`
}

func (r revocationRow) revocation() accounts.Revocation {
	rv := accounts.Revocation{ID: r.ID, Provider: r.Provider, Subject: r.Subject, UserID: r.UserID, Token: r.Token,
		Attempts: r.Attempts, Claim: r.Claim}
	if r.NextAttempt != 0 {
		rv.NextAttemptAt = core.FromMillis(r.NextAttempt)
	}
	if r.ClaimedUntil != 0 {
		rv.ClaimedUntil = core.FromMillis(r.ClaimedUntil)
	}
	return rv
}

func millisOrZero(rv accounts.Revocation) int64 {
	if rv.NextAttemptAt.IsZero() {
		return 0
	}
	return rv.NextAttemptAt.UnixMilli()
}

// queueRevocation inserts rv through e (a transaction or the pool); a
// revocation with its id waiting already is left as it is.
func (r *AccountRepo) queueRevocation(ctx context.Context, e sqlx.ExecerContext, rv accounts.Revocation) error {
	return r.db.exec(ctx, e, r.db.sb.Insert("provider_revocations").Columns(revocationColumns...).
		Values(rv.ID, rv.Provider, rv.Subject, rv.UserID, rv.Token, rv.Attempts, millisOrZero(rv), 0, "").
		Suffix(r.db.upsert("id", "id = id")))
}

func (r *AccountRepo) QueueRevocation(ctx context.Context, rv accounts.Revocation) error {
	return r.queueRevocation(ctx, r.db, rv)
}

// revocationDue is the claimable revocation at now;
// idx_provider_revocations_due serves it.
func revocationDue(now int64) sq.And {
	return sq.And{sq.LtOrEq{"next_attempt_at": now}, sq.Lt{"claimed_until": now}}
}

func (r *AccountRepo) DueRevocations(ctx context.Context, now time.Time, limit int) ([]accounts.Revocation, error) {
	var rows []revocationRow
	if err := r.db.selectInto(ctx, r.db, &rows, r.db.sb.Select(revocationColumns...).From("provider_revocations").
		Where(revocationDue(now.UnixMilli())).OrderBy("next_attempt_at", "id").Limit(uint64(limit))); err != nil {
		return nil, err
	}
	out := make([]accounts.Revocation, len(rows))
	for i, row := range rows {
		out[i] = row.revocation()
	}
	return out, nil
}

// ClaimRevocation is one conditional update, as ClaimMail is (FORCE INDEX
// for the same reason: one row locked, never a range).
func (r *AccountRepo) ClaimRevocation(ctx context.Context, id, claim string, now, until time.Time) (bool, error) {
	table := "provider_revocations"
	if r.db.Dialect == MySQL {
		table = "provider_revocations FORCE INDEX (PRIMARY)"
	}
	n, err := r.db.execN(ctx, r.db, r.db.sb.Update(table).
		Set("claim", claim).Set("claimed_until", until.UnixMilli()).
		Where(sq.Eq{"id": id}).Where(revocationDue(now.UnixMilli())))
	return n == 1, err
}

func (r *AccountRepo) RetryRevocation(ctx context.Context, id, claim string, attempts int, next time.Time) error {
	if claim == "" {
		return nil // an empty claim holds nothing
	}
	return r.db.exec(ctx, r.db, r.db.sb.Update("provider_revocations").
		Set("attempts", attempts).Set("next_attempt_at", millisOrZero(accounts.Revocation{NextAttemptAt: next})).
		Set("claimed_until", 0).Set("claim", "").
		Where(sq.Eq{"id": id, "claim": claim}))
}

func (r *AccountRepo) ForgetRevocation(ctx context.Context, id, claim string) error {
	if claim == "" {
		return nil
	}
	return r.db.exec(ctx, r.db, r.db.sb.Delete("provider_revocations").Where(sq.Eq{"id": id, "claim": claim}))
}

func (r *AccountRepo) PendingRevocations(ctx context.Context) (int, error) {
	var n int
	err := r.db.get(ctx, r.db, &n, r.db.sb.Select("COUNT(*)").From("provider_revocations"))
	return n, err
}
