package sqlstore

import (
	"context"
	"database/sql"
	"time"

	sq "github.com/Masterminds/squirrel"
	"github.com/jmoiron/sqlx"

	"tandem/core"
	"tandem/modules/passkeys"
)

var _ passkeys.Repository = (*PasskeyRepo)(nil)

// PasskeyRepo stores passkeys and their ceremonies' challenges
// (00037_passkeys: each query's index is named there).
type PasskeyRepo struct{ db *DB }

func NewPasskeyRepo(db *DB) *PasskeyRepo { return &PasskeyRepo{db: db} }

var passkeyColumns = []string{"id", "user_id", "credential_id", "public_key", "sign_count", "details", "created_at", "last_used_at"}

type passkeyRow struct {
	ID           string `db:"id"`
	UserID       string `db:"user_id"`
	CredentialID []byte `db:"credential_id"`
	PublicKey    []byte `db:"public_key"`
	SignCount    int64  `db:"sign_count"`
	Details      string `db:"details"`
	CreatedAt    int64  `db:"created_at"`
	LastUsedAt   int64  `db:"last_used_at"`
}

func (r passkeyRow) passkey() passkeys.Passkey {
	p := passkeys.Passkey{ID: r.ID, UserID: r.UserID, CredentialID: r.CredentialID, PublicKey: r.PublicKey,
		SignCount: uint32(r.SignCount), Details: []byte(r.Details), CreatedAt: core.FromMillis(r.CreatedAt)}
	if r.LastUsedAt != 0 {
		p.LastUsedAt = core.FromMillis(r.LastUsedAt)
	}
	return p
}

func notFoundPasskey(err error) error {
	if core.IsKind(err, core.KindNotFound) {
		return passkeys.NotFound()
	}
	return err
}

// Create counts the user's passkeys and inserts in one transaction (the
// count locks the user's index range on MySQL; SQLite's writes are one at
// a time); the unique credential id is the last guard.
func (r *PasskeyRepo) Create(ctx context.Context, p passkeys.Passkey, max int) error {
	err := r.db.inTx(ctx, func(tx *sqlx.Tx) error {
		var n int
		if err := r.db.get(ctx, tx, &n, r.db.sb.Select("COUNT(*)").From("passkeys").
			Where(sq.Eq{"user_id": p.UserID}).Suffix(r.db.forUpdate())); err != nil {
			return err
		}
		if n >= max {
			return passkeys.TooMany()
		}
		return r.db.exec(ctx, tx, r.db.sb.Insert("passkeys").Columns(passkeyColumns...).
			Values(p.ID, p.UserID, p.CredentialID, p.PublicKey, int64(p.SignCount), string(p.Details),
				p.CreatedAt.UnixMilli(), zeroMillis(p.LastUsedAt)))
	})
	if e := core.As(err); err != nil && e.Kind == core.KindConflict && e.Code == "conflict" {
		return core.As(passkeys.Exists()).Wrap(err)
	}
	return err
}

func (r *PasskeyRepo) List(ctx context.Context, userID string) ([]passkeys.Passkey, error) {
	var rows []passkeyRow
	if err := r.db.selectInto(ctx, r.db, &rows, r.db.sb.Select(passkeyColumns...).From("passkeys").
		Where(sq.Eq{"user_id": userID}).OrderBy("created_at", "id")); err != nil {
		return nil, err
	}
	out := make([]passkeys.Passkey, len(rows))
	for i, row := range rows {
		out[i] = row.passkey()
	}
	return out, nil
}

func (r *PasskeyRepo) ByCredential(ctx context.Context, credentialID []byte) (passkeys.Passkey, error) {
	var row passkeyRow
	if err := r.db.get(ctx, r.db, &row, r.db.sb.Select(passkeyColumns...).From("passkeys").
		Where(sq.Eq{"credential_id": credentialID})); err != nil {
		return passkeys.Passkey{}, notFoundPasskey(err)
	}
	return row.passkey(), nil
}

func (r *PasskeyRepo) RecordUse(ctx context.Context, id string, decide passkeys.UseDecision) (passkeys.Passkey, error) {
	var out passkeys.Passkey
	err := r.db.inTx(ctx, func(tx *sqlx.Tx) error {
		var row passkeyRow
		if err := r.db.get(ctx, tx, &row, r.db.sb.Select(passkeyColumns...).From("passkeys").
			Where(sq.Eq{"id": id}).Suffix(r.db.forUpdate())); err != nil {
			return notFoundPasskey(err)
		}
		p, err := decide(row.passkey())
		if err != nil {
			return err
		}
		out = p
		return r.db.execOne(ctx, tx, r.db.sb.Update("passkeys").Set("sign_count", int64(p.SignCount)).
			Set("details", string(p.Details)).Set("last_used_at", zeroMillis(p.LastUsedAt)).Where(sq.Eq{"id": id}))
	})
	return out, err
}

func (r *PasskeyRepo) Delete(ctx context.Context, userID, id string) error {
	return notFoundPasskey(r.db.execOne(ctx, r.db, r.db.sb.Delete("passkeys").Where(sq.Eq{"id": id, "user_id": userID})))
}

func (r *PasskeyRepo) DeleteByUser(ctx context.Context, userID string) error {
	return r.db.inTx(ctx, func(tx *sqlx.Tx) error {
		if err := r.db.exec(ctx, tx, r.db.sb.Delete("passkeys").Where(sq.Eq{"user_id": userID})); err != nil {
			return err
		}
		return r.db.exec(ctx, tx, r.db.sb.Delete("passkey_challenges").Where(sq.Eq{"user_id": userID}))
	})
}

var challengeColumns = []string{"id", "user_id", "purpose", "session", "expires_at"}

type challengeRow struct {
	ID        string         `db:"id"`
	UserID    sql.NullString `db:"user_id"`
	Purpose   string         `db:"purpose"`
	Session   string         `db:"session"`
	ExpiresAt int64          `db:"expires_at"`
}

func (r *PasskeyRepo) CreateChallenge(ctx context.Context, c passkeys.Challenge) error {
	user := sql.NullString{String: c.UserID, Valid: c.UserID != ""}
	return r.db.exec(ctx, r.db, r.db.sb.Insert("passkey_challenges").Columns(challengeColumns...).
		Values(c.ID, user, string(c.Purpose), string(c.Session), c.ExpiresAt.UnixMilli()))
}

// TakeChallenge commits a spent challenge's delete even when the decision
// refuses it (an expired one), and returns the refusal after.
func (r *PasskeyRepo) TakeChallenge(ctx context.Context, id string, decide passkeys.ChallengeDecision) (passkeys.Challenge, error) {
	var (
		out     passkeys.Challenge
		refusal error
	)
	err := r.db.inTx(ctx, func(tx *sqlx.Tx) error {
		refusal = nil
		var row challengeRow
		if err := r.db.get(ctx, tx, &row, r.db.sb.Select(challengeColumns...).From("passkey_challenges").
			Where(sq.Eq{"id": id}).Suffix(r.db.forUpdate())); err != nil {
			if core.IsKind(err, core.KindNotFound) {
				return passkeys.NoChallenge()
			}
			return err
		}
		out = passkeys.Challenge{ID: row.ID, UserID: row.UserID.String, Purpose: passkeys.Purpose(row.Purpose),
			Session: []byte(row.Session), ExpiresAt: core.FromMillis(row.ExpiresAt)}
		spend, err := decide(out)
		if !spend {
			return err
		}
		refusal = err
		return r.db.execOne(ctx, tx, r.db.sb.Delete("passkey_challenges").Where(sq.Eq{"id": id}))
	})
	if err != nil {
		return passkeys.Challenge{}, err
	}
	if refusal != nil {
		return passkeys.Challenge{}, refusal
	}
	return out, nil
}

func (r *PasskeyRepo) PurgeChallenges(ctx context.Context, now time.Time) error {
	return r.db.exec(ctx, r.db, r.db.sb.Delete("passkey_challenges").Where(sq.LtOrEq{"expires_at": now.UnixMilli()}))
}
