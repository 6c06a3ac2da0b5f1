package sqlstore

import (
	"context"

	sq "github.com/Masterminds/squirrel"
	"github.com/jmoiron/sqlx"

	"tandem/core"
	"tandem/modules/accounts"
)

// What administrators do to accounts from the console: the list, blocks,
// ending every session and a verification vouched for.

// List reads idx_accounts_created from the cursor down. FORCE INDEX keeps
// MySQL on that walk of one page, where on a small table it would scan
// and sort every account (as the feedback list).
func (r *AccountRepo) List(ctx context.Context, page core.Page) ([]accounts.Account, string, error) {
	from := "accounts"
	if r.db.Dialect == MySQL {
		from = "accounts FORCE INDEX (idx_accounts_created)"
	}
	rows, next, err := newestFirst(ctx, r.db, r.db.sb.Select(accountColumns...).From(from), page,
		func(row accountRow) core.TimeCursor { return core.TimeCursor{At: row.CreatedAt, ID: row.ID} })
	if err != nil {
		return nil, "", err
	}
	out := make([]accounts.Account, len(rows))
	for i, row := range rows {
		out[i] = row.account()
	}
	return out, next, nil
}

// SetBlocked holds the account's row (as every ending of ways in does),
// sets the flag and, for a block, revokes every token: a sign-in that
// raced the block either committed its token before (revoked here) or
// reads the block after.
func (r *AccountRepo) SetBlocked(ctx context.Context, userID string, blocked bool) ([]string, error) {
	var revoked []string
	err := r.db.inTx(ctx, func(tx *sqlx.Tx) error {
		revoked = nil
		if _, err := r.lockAccount(ctx, tx, sq.Eq{"id": userID}); err != nil {
			return err
		}
		if err := r.db.exec(ctx, tx, r.db.sb.Update("accounts").Set("blocked", blocked).Where(sq.Eq{"id": userID})); err != nil {
			return err
		}
		if !blocked {
			return nil
		}
		return r.revokeTokens(ctx, tx, userID, &revoked)
	})
	return revoked, err
}

func (r *AccountRepo) DeleteTokens(ctx context.Context, userID string) ([]string, error) {
	var revoked []string
	err := r.db.inTx(ctx, func(tx *sqlx.Tx) error {
		revoked = nil
		return r.revokeTokens(ctx, tx, userID, &revoked)
	})
	return revoked, err
}

// revokeTokens deletes every token of the user into *revoked, inside tx.
func (r *AccountRepo) revokeTokens(ctx context.Context, tx *sqlx.Tx, userID string, revoked *[]string) error {
	var err error
	if *revoked, err = r.tokenHashes(ctx, tx, userID); err != nil {
		return err
	}
	return r.db.exec(ctx, tx, r.db.sb.Delete("auth_tokens").Where(sq.Eq{"user_id": userID}))
}

// MarkVerified holds the account, verifies it and ends its earlier ways
// in, as a first verification by code does (UpdateCode's EndWaysIn).
func (r *AccountRepo) MarkVerified(ctx context.Context, userID string) (accounts.Removed, error) {
	var out accounts.Removed
	err := r.db.inTx(ctx, func(tx *sqlx.Tx) error {
		if _, err := r.lockAccount(ctx, tx, sq.Eq{"id": userID}); err != nil {
			return err
		}
		if err := r.db.exec(ctx, tx, r.db.sb.Update("accounts").Set("verified", true).Where(sq.Eq{"id": userID})); err != nil {
			return err
		}
		var err error
		out, _, err = r.endWaysIn(ctx, tx, userID, identityKey{})
		return err
	})
	return out, err
}
