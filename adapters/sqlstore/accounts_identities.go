package sqlstore

import (
	"context"
	"time"

	sq "github.com/Masterminds/squirrel"
	"github.com/jmoiron/sqlx"

	"tandem/core"
	"tandem/modules/accounts"
)

// account_identities: the primary key (provider, subject) answers a
// sign-in; idx_account_identities_user (user_id, provider) the account's
// list, its unlink and its deletion.

var identityColumns = []string{"provider", "subject", "user_id", "email", "created_at"}

// identityInsert are the columns of a new identity: its sealed grant too,
// which no read but retireGrants's takes.
var identityInsert = []string{"provider", "subject", "user_id", "email", "created_at", "refresh_token"}

type identityRow struct {
	Provider  string `db:"provider"`
	Subject   string `db:"subject"`
	UserID    string `db:"user_id"`
	Email     string `db:"email"`
	CreatedAt int64  `db:"created_at"`
}

func (r identityRow) identity() accounts.Identity {
	return accounts.Identity{Provider: r.Provider, Subject: r.Subject, UserID: r.UserID, Email: r.Email,
		CreatedAt: core.FromMillis(r.CreatedAt)}
}

// SignIn holds the identity's row (or, on MySQL, the gap where it would
// be) and the e-mail's account, runs decide and writes its update in the
// same transaction. Two first sign-ins of one subject: the second waits,
// or loses a deadlock and runs again, and then sees the first's identity;
// the primary key is the last guard (core.KindConflict).
func (r *AccountRepo) SignIn(ctx context.Context, provider, subject, email string, decide accounts.SignInDecision) (accounts.SignInUpdate, error) {
	var u accounts.SignInUpdate
	err := r.db.inTx(ctx, func(tx *sqlx.Tx) error {
		var st accounts.SignInState
		var id identityRow
		err := r.db.get(ctx, tx, &id, r.db.sb.Select(identityColumns...).From("account_identities").
			Where(sq.Eq{"provider": provider, "subject": subject}).Suffix(r.db.forUpdate()))
		switch {
		case err == nil:
			ident := id.identity()
			st.Identity = &ident
			a, err := r.lockAccount(ctx, tx, sq.Eq{"id": id.UserID})
			if err != nil && !core.IsKind(err, core.KindNotFound) {
				return err
			}
			if err == nil {
				st.Linked = &a
			}
		case !core.IsKind(err, core.KindNotFound):
			return err
		}
		if email != "" {
			a, err := r.lockAccount(ctx, tx, sq.Eq{"email": email})
			switch {
			case err == nil && a.Email == email: // exact: MySQL's collation holds look-alikes equal
				st.ByEmail = &a
			case err != nil && !core.IsKind(err, core.KindNotFound):
				return err
			}
		}
		if u, err = decide(st); err != nil {
			return err
		}
		return r.writeSignIn(ctx, tx, provider, subject, st.Identity != nil, &u)
	})
	if err != nil {
		return accounts.SignInUpdate{}, err
	}
	return u, nil
}

func (r *AccountRepo) lockAccount(ctx context.Context, tx *sqlx.Tx, where sq.Eq) (accounts.Account, error) {
	var row accountRow
	err := r.db.get(ctx, tx, &row, r.db.sb.Select(accountColumns...).From("accounts").Where(where).Suffix(r.db.forUpdate()))
	return row.account(), err
}

// writeSignIn writes u for the identity (provider, subject), linked
// before when linked. A take-over ends every way in but the identity it
// links again, whose grant stays with it unless u brings another.
func (r *AccountRepo) writeSignIn(ctx context.Context, tx *sqlx.Tx, provider, subject string, linked bool, u *accounts.SignInUpdate) (err error) {
	a := u.Account
	grant := u.RefreshToken
	if u.Create {
		if err := r.insertAccount(ctx, tx, a); err != nil {
			return err
		}
	}
	if u.TakeOver {
		if err := r.db.execOne(ctx, tx, r.db.sb.Update("accounts").Set("verified", true).Set("password_hash", "").
			Set("updated_at", a.UpdatedAt.UnixMilli()).Where(sq.Eq{"id": a.ID})); err != nil {
			return err
		}
		if err := r.db.exec(ctx, tx, r.db.sb.Delete("auth_codes").
			Where(sq.Eq{"user_id": a.ID, "purpose": string(accounts.PurposeVerify)})); err != nil {
			return err
		}
		keep := identityKey{}
		if linked {
			keep = identityKey{provider, subject}
		}
		var kept string
		if u.Removed, kept, err = r.endWaysIn(ctx, tx, a.ID, keep); err != nil {
			return err
		}
		if grant == "" {
			grant = kept
		}
	}
	if l := u.Link; l != nil {
		return r.db.exec(ctx, tx, r.db.sb.Insert("account_identities").Columns(identityInsert...).
			Values(l.Provider, l.Subject, l.UserID, l.Email, l.CreatedAt.UnixMilli(), grant))
	}
	if grant != "" {
		return r.db.exec(ctx, tx, r.db.sb.Update("account_identities").Set("refresh_token", grant).
			Where(sq.Eq{"provider": provider, "subject": subject}))
	}
	return nil
}

// identityKey names one identity; the zero key none.
type identityKey struct{ provider, subject string }

// retireGrants queues for revocation, inside tx, the grant of each identity
// that where selects, which the caller then deletes; keep's grant is not
// queued but returned (that identity is linked again).
func (r *AccountRepo) retireGrants(ctx context.Context, tx *sqlx.Tx, where sq.Eq, keep identityKey) (string, error) {
	var rows []struct {
		Provider string `db:"provider"`
		Subject  string `db:"subject"`
		UserID   string `db:"user_id"`
		Grant    string `db:"refresh_token"`
	}
	if err := r.db.selectInto(ctx, tx, &rows, r.db.sb.Select("provider", "subject", "user_id", "refresh_token").
		From("account_identities").Where(where).Where(sq.NotEq{"refresh_token": ""})); err != nil {
		return "", err
	}
	var kept string
	for _, row := range rows {
		if (identityKey{row.Provider, row.Subject}) == keep {
			kept = row.Grant
			continue
		}
		if err := r.queueRevocation(ctx, tx, accounts.RevocationOf(row.Provider, row.Subject, row.UserID, row.Grant)); err != nil {
			return "", err
		}
	}
	return kept, nil
}

func (r *AccountRepo) Identities(ctx context.Context, userID string) ([]accounts.Identity, error) {
	return r.identities(ctx, r.db, userID, false)
}

func (r *AccountRepo) identities(ctx context.Context, q sqlx.QueryerContext, userID string, lock bool) ([]accounts.Identity, error) {
	b := r.db.sb.Select(identityColumns...).From("account_identities").Where(sq.Eq{"user_id": userID}).
		OrderBy("created_at", "provider")
	if lock {
		b = b.Suffix(r.db.forUpdate())
	}
	var rows []identityRow
	if err := r.db.selectInto(ctx, q, &rows, b); err != nil {
		return nil, err
	}
	out := make([]accounts.Identity, len(rows))
	for i, row := range rows {
		out[i] = row.identity()
	}
	return out, nil
}

// SpendIDToken inserts the token's hash: the primary key refuses a second
// use (core.KindConflict, from mapErr).
func (r *AccountRepo) SpendIDToken(ctx context.Context, tokenHash string, expires time.Time) error {
	return r.db.exec(ctx, r.db, r.db.sb.Insert("id_token_uses").Columns("token_hash", "expires_at").
		Values(tokenHash, expires.UnixMilli()))
}
