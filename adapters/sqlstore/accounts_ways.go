package sqlstore

import (
	"context"

	sq "github.com/Masterminds/squirrel"
	"github.com/jmoiron/sqlx"

	"tandem/modules/accounts"
)

// The ways in to an account span auth_tokens, account_identities and
// passkeys: each ending or removal holds the account's row first (FOR
// UPDATE on MySQL; SQLite's transactions are IMMEDIATE), so a removal, a
// sign-in's take-over and a proof of the same account run one after the
// other. Each table's user_id index serves its part.

func (r *AccountRepo) EndWaysIn(ctx context.Context, userID string) (accounts.Removed, error) {
	var out accounts.Removed
	err := r.db.inTx(ctx, func(tx *sqlx.Tx) error {
		if _, err := r.lockAccount(ctx, tx, sq.Eq{"id": userID}); err != nil {
			return err
		}
		var err error
		out, _, err = r.endWaysIn(ctx, tx, userID, identityKey{})
		return err
	})
	return out, err
}

// endWaysIn revokes every token, unlinks every identity (their grants
// queued for revocation, but keep's, returned: it is linked again) and
// removes every passkey and begun passkey ceremony of the user, inside tx.
func (r *AccountRepo) endWaysIn(ctx context.Context, tx *sqlx.Tx, userID string, keep identityKey) (accounts.Removed, string, error) {
	var out accounts.Removed
	var err error
	if out.Sessions, err = r.tokenHashes(ctx, tx, userID); err != nil {
		return out, "", err
	}
	if err := r.db.selectInto(ctx, tx, &out.Providers, r.db.sb.Select("provider").From("account_identities").
		Where(sq.Eq{"user_id": userID}).OrderBy("created_at", "provider")); err != nil {
		return out, "", err
	}
	kept, err := r.retireGrants(ctx, tx, sq.Eq{"user_id": userID}, keep)
	if err != nil {
		return out, "", err
	}
	n, err := r.db.execN(ctx, tx, r.db.sb.Delete("passkeys").Where(sq.Eq{"user_id": userID}))
	if err != nil {
		return out, "", err
	}
	out.Passkeys = int(n)
	for _, table := range []string{"auth_tokens", "account_identities", "passkey_challenges"} {
		if err := r.db.exec(ctx, tx, r.db.sb.Delete(table).Where(sq.Eq{"user_id": userID})); err != nil {
			return out, "", err
		}
	}
	return out, kept, nil
}

// RemoveWayIn holds the account, its identities and its passkeys while
// decide looks at them, so two removals of an account's last two ways in
// cannot both pass.
func (r *AccountRepo) RemoveWayIn(ctx context.Context, userID string, w accounts.WayIn, decide accounts.WayDecision) error {
	return r.db.inTx(ctx, func(tx *sqlx.Tx) error {
		a, err := r.lockAccount(ctx, tx, sq.Eq{"id": userID})
		if err != nil {
			return err
		}
		ids, err := r.identities(ctx, tx, userID, true)
		if err != nil {
			return err
		}
		var keys []string
		if err := r.db.selectInto(ctx, tx, &keys, r.db.sb.Select("id").From("passkeys").
			Where(sq.Eq{"user_id": userID}).Suffix(r.db.forUpdate())); err != nil {
			return err
		}
		if err := decide(a, ids, keys); err != nil {
			return err
		}
		if w.Passkey != "" {
			return r.db.execOne(ctx, tx, r.db.sb.Delete("passkeys").Where(sq.Eq{"id": w.Passkey, "user_id": userID}))
		}
		way := sq.Eq{"user_id": userID, "provider": w.Provider}
		if _, err := r.retireGrants(ctx, tx, way, identityKey{}); err != nil {
			return err
		}
		return r.db.exec(ctx, tx, r.db.sb.Delete("account_identities").Where(way))
	})
}

func (r *AccountRepo) QueueMail(ctx context.Context, m accounts.OutboxMail) error {
	return r.db.exec(ctx, r.db, r.db.sb.Insert("mail_outbox").Columns(mailColumns...).
		Values(m.ID, m.UserID, string(m.Kind), m.To, m.Subject, m.Text, m.CreatedAt.UnixMilli(),
			m.NotAfter.UnixMilli(), m.Attempts, m.NextAttemptAt.UnixMilli(), 0, ""))
}
