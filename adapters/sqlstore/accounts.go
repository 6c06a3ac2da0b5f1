package sqlstore

import (
	"context"
	"strings"
	"time"

	sq "github.com/Masterminds/squirrel"
	"github.com/jmoiron/sqlx"

	"tandem/core"
	"tandem/modules/accounts"
)

var (
	_ accounts.Repository = (*AccountRepo)(nil)
	_ accounts.Outbox     = (*AccountRepo)(nil)
)

// AccountRepo stores accounts, auth_codes, auth_tokens and mail_outbox.
type AccountRepo struct{ db *DB }

func NewAccountRepo(db *DB) *AccountRepo { return &AccountRepo{db: db} }

var accountColumns = []string{"id", "email", "password_hash", "verified", "is_admin", "display_name",
	"nickname", "timezone", "locale", "blocked", "created_at", "updated_at"}

type accountRow struct {
	ID           string `db:"id"`
	Email        string `db:"email"`
	PasswordHash string `db:"password_hash"`
	Verified     bool   `db:"verified"`
	IsAdmin      bool   `db:"is_admin"`
	DisplayName  string `db:"display_name"`
	Nickname     string `db:"nickname"`
	Timezone     string `db:"timezone"`
	Locale       string `db:"locale"`
	Blocked      bool   `db:"blocked"`
	CreatedAt    int64  `db:"created_at"`
	UpdatedAt    int64  `db:"updated_at"`
}

func (r accountRow) account() accounts.Account {
	return accounts.Account{ID: r.ID, Email: r.Email, PasswordHash: r.PasswordHash, Verified: r.Verified,
		Admin: r.IsAdmin, Profile: accounts.Profile{DisplayName: r.DisplayName, Nickname: r.Nickname, Timezone: r.Timezone,
			Locale: r.Locale},
		Blocked: r.Blocked, CreatedAt: core.FromMillis(r.CreatedAt), UpdatedAt: core.FromMillis(r.UpdatedAt)}
}

func (r *AccountRepo) Create(ctx context.Context, a accounts.Account) error {
	return r.insertAccount(ctx, r.db, a)
}

func (r *AccountRepo) insertAccount(ctx context.Context, e sqlx.ExecerContext, a accounts.Account) error {
	return r.db.exec(ctx, e, r.db.sb.Insert("accounts").Columns(accountColumns...).
		Values(a.ID, a.Email, a.PasswordHash, a.Verified, a.Admin, a.DisplayName, a.Nickname, a.Timezone, a.Locale,
			a.Blocked, a.CreatedAt.UnixMilli(), a.UpdatedAt.UnixMilli()))
}

func (r *AccountRepo) Get(ctx context.Context, id string) (accounts.Account, error) {
	return r.getBy(ctx, sq.Eq{"id": id})
}

// GetByEmail finds the address exactly. MySQL's collation holds look-alikes
// equal ("víctim" is "victim"), which handed one account to many addresses,
// each with its own login and mail counters; a look-alike is not found.
func (r *AccountRepo) GetByEmail(ctx context.Context, email string) (accounts.Account, error) {
	a, err := r.getBy(ctx, sq.Eq{"email": email})
	if err == nil && a.Email != email {
		return accounts.Account{}, core.NotFound("not_found", "memory.accountNotFound", "account not found")
	}
	return a, err
}

// GetMany reads the ids by the primary key, in one query.
func (r *AccountRepo) GetMany(ctx context.Context, ids []string) ([]accounts.Account, error) {
	out := []accounts.Account{}
	if len(ids) == 0 {
		return out, nil
	}
	var rows []accountRow
	if err := r.db.selectInto(ctx, r.db, &rows, r.db.sb.Select(accountColumns...).From("accounts").Where(sq.Eq{"id": ids})); err != nil {
		return nil, err
	}
	for _, row := range rows {
		out = append(out, row.account())
	}
	return out, nil
}

// Search reads uq_accounts_email over the prefix's range, from the cursor
// on: LIKE 'prefix%' is an index range on both dialects (MySQL's
// utf8mb4_bin; SQLite's NOCASE index, as its LIKE is blind to ASCII case
// and stored e-mails have none). FORCE INDEX keeps MySQL on that range,
// one page long, where on a small table it would scan and sort every match.
func (r *AccountRepo) Search(ctx context.Context, prefix string, page core.Page) ([]accounts.Account, string, error) {
	from := "accounts"
	if r.db.Dialect == MySQL {
		from = "accounts FORCE INDEX (uq_accounts_email)"
	}
	b := r.db.sb.Select(accountColumns...).From(from).Where("email LIKE ? ESCAPE '"+likeEscape+"'", likePrefix(prefix)).
		OrderBy("email").Limit(uint64(page.Size() + 1))
	if page.Cursor != "" {
		c, err := accounts.ParseSearchCursor(page.Cursor)
		if err != nil {
			return nil, "", err
		}
		b = b.Where(sq.Gt{"email": c.Email})
	}
	var rows []accountRow
	if err := r.db.selectInto(ctx, r.db, &rows, b); err != nil {
		return nil, "", err
	}
	as := make([]accounts.Account, len(rows))
	for i, row := range rows {
		as[i] = row.account()
	}
	as, next := accounts.SearchPage(as, page)
	return as, next, nil
}

// likeEscape escapes LIKE's wildcards in likePrefix: a character neither
// dialect's string literals treat specially, unlike '\' (MySQL's default,
// which SQLite's literals take as it is), so one statement serves both.
const likeEscape = "!"

// likePrefix is the LIKE pattern of the strings that start with prefix,
// its every character matching itself: '%', '_', the escape character
// (and '\', no escape once ESCAPE names another) included.
func likePrefix(prefix string) string {
	return strings.NewReplacer(likeEscape, likeEscape+likeEscape, "%", likeEscape+"%", "_", likeEscape+"_").Replace(prefix) + "%"
}

func (r *AccountRepo) getBy(ctx context.Context, where sq.Eq) (accounts.Account, error) {
	var row accountRow
	err := r.db.get(ctx, r.db, &row, r.db.sb.Select(accountColumns...).From("accounts").Where(where))
	return row.account(), err
}

func (r *AccountRepo) UpdateProfile(ctx context.Context, a accounts.Account) error {
	return r.db.execOne(ctx, r.db, r.db.sb.Update("accounts").
		Set("display_name", a.DisplayName).Set("nickname", a.Nickname).Set("timezone", a.Timezone).Set("locale", a.Locale).Set("updated_at", a.UpdatedAt.UnixMilli()).
		Where(sq.Eq{"id": a.ID}))
}

func (r *AccountRepo) SetAdmin(ctx context.Context, email string, admin bool) error {
	a, err := r.GetByEmail(ctx, email)
	if err != nil {
		return err
	}
	return r.db.exec(ctx, r.db, r.db.sb.Update("accounts").Set("is_admin", admin).Where(sq.Eq{"id": a.ID}))
}

func (r *AccountRepo) Delete(ctx context.Context, id string) ([]string, error) {
	var revoked []string
	err := r.db.inTx(ctx, func(tx *sqlx.Tx) error {
		var err error
		if revoked, err = r.tokenHashes(ctx, tx, id); err != nil {
			return err
		}
		if _, err := r.retireGrants(ctx, tx, sq.Eq{"user_id": id}, identityKey{}); err != nil {
			return err
		}
		for _, table := range []string{"auth_tokens", "auth_codes", "mail_outbox", "account_identities"} {
			if err := r.db.exec(ctx, tx, r.db.sb.Delete(table).Where(sq.Eq{"user_id": id})); err != nil {
				return err
			}
		}
		return r.db.execOne(ctx, tx, r.db.sb.Delete("accounts").Where(sq.Eq{"id": id}))
	})
	return revoked, err
}

func (r *AccountRepo) tokenHashes(ctx context.Context, q sqlx.QueryerContext, userID string) ([]string, error) {
	var hashes []string
	err := r.db.selectInto(ctx, q, &hashes, r.db.sb.Select("token_hash").From("auth_tokens").Where(sq.Eq{"user_id": userID}))
	return hashes, err
}

var codeColumns = []string{"user_id", "purpose", "code_hash", "expires_at", "attempts", "verified_at", "created_at",
	"proof_hash", "proof_expires_at"}

type codeRow struct {
	UserID     string `db:"user_id"`
	Purpose    string `db:"purpose"`
	CodeHash   string `db:"code_hash"`
	ExpiresAt  int64  `db:"expires_at"`
	Attempts   int    `db:"attempts"`
	VerifiedAt int64  `db:"verified_at"`
	CreatedAt  int64  `db:"created_at"`
	ProofHash  string `db:"proof_hash"`
	ProofExp   int64  `db:"proof_expires_at"`
}

func (r codeRow) code() accounts.Code {
	c := accounts.Code{UserID: r.UserID, Purpose: accounts.Purpose(r.Purpose), Hash: r.CodeHash,
		ExpiresAt: core.FromMillis(r.ExpiresAt), Attempts: r.Attempts, CreatedAt: core.FromMillis(r.CreatedAt),
		ProofHash: r.ProofHash}
	if r.VerifiedAt != 0 {
		c.VerifiedAt = core.FromMillis(r.VerifiedAt)
	}
	if r.ProofExp != 0 {
		c.ProofExpiresAt = core.FromMillis(r.ProofExp)
	}
	return c
}

func (r *AccountRepo) PutCode(ctx context.Context, c accounts.Code, m accounts.OutboxMail) error {
	return r.db.inTx(ctx, func(tx *sqlx.Tx) error {
		if err := r.db.exec(ctx, tx, r.db.sb.Delete("auth_codes").
			Where(sq.Eq{"user_id": c.UserID, "purpose": string(c.Purpose)})); err != nil {
			return err
		}
		if err := r.db.exec(ctx, tx, r.db.sb.Insert("auth_codes").Columns(codeColumns...).
			Values(c.UserID, string(c.Purpose), c.Hash, c.ExpiresAt.UnixMilli(), 0, 0, c.CreatedAt.UnixMilli(), "", 0)); err != nil {
			return err
		}
		// The replaced code's mail is useless: it goes unless already sent.
		if err := r.db.exec(ctx, tx, r.db.sb.Delete("mail_outbox").
			Where(sq.Eq{"user_id": m.UserID, "kind": string(m.Kind)})); err != nil {
			return err
		}
		return r.db.exec(ctx, tx, r.db.sb.Insert("mail_outbox").Columns(mailColumns...).
			Values(m.ID, m.UserID, string(m.Kind), m.To, m.Subject, m.Text, m.CreatedAt.UnixMilli(),
				m.NotAfter.UnixMilli(), m.Attempts, m.NextAttemptAt.UnixMilli(), 0, ""))
	})
}

func (r mailRow) mail() accounts.OutboxMail {
	m := accounts.OutboxMail{ID: r.ID, UserID: r.UserID, Kind: accounts.Purpose(r.Kind),
		Mail:      accounts.Mail{To: r.Recipient, Subject: r.Subject, Text: r.Body},
		CreatedAt: core.FromMillis(r.CreatedAt), NotAfter: core.FromMillis(r.NotAfter), Attempts: r.Attempts,
		NextAttemptAt: core.FromMillis(r.NextAttempt), Claim: r.Claim}
	if r.ClaimedUntil != 0 {
		m.ClaimedUntil = core.FromMillis(r.ClaimedUntil)
	}
	return m
}

func (r *AccountRepo) GetCode(ctx context.Context, userID string, p accounts.Purpose) (accounts.Code, error) {
	var row codeRow
	err := r.db.get(ctx, r.db, &row, r.db.sb.Select(codeColumns...).From("auth_codes").
		Where(sq.Eq{"user_id": userID, "purpose": string(p)}))
	return row.code(), err
}

// UpdateCode holds the code's row, then the account's (FOR UPDATE on
// MySQL; SQLite's transactions are IMMEDIATE), so concurrent tries and
// spends of one code run one after the other, each on what the previous
// committed.
func (r *AccountRepo) UpdateCode(ctx context.Context, userID string, p accounts.Purpose, decide accounts.CodeDecision) (accounts.Removed, error) {
	var removed accounts.Removed
	err := r.db.inTx(ctx, func(tx *sqlx.Tx) error {
		removed = accounts.Removed{}
		where := sq.Eq{"user_id": userID, "purpose": string(p)}
		var code codeRow
		if err := r.db.get(ctx, tx, &code, r.db.sb.Select(codeColumns...).From("auth_codes").Where(where).
			Suffix(r.db.forUpdate())); err != nil {
			return err
		}
		var acc accountRow
		if err := r.db.get(ctx, tx, &acc, r.db.sb.Select(accountColumns...).From("accounts").
			Where(sq.Eq{"id": userID}).Suffix(r.db.forUpdate())); err != nil {
			return err
		}
		u, err := decide(code.code(), acc.account())
		if err != nil {
			return err
		}
		if err := r.writeCode(ctx, tx, where, u); err != nil {
			return err
		}
		return r.writeAccount(ctx, tx, userID, u, &removed)
	})
	return removed, err
}

// writeCode deletes or rewrites the code as u says.
func (r *AccountRepo) writeCode(ctx context.Context, tx *sqlx.Tx, where sq.Eq, u accounts.CodeUpdate) error {
	switch {
	case u.Consume:
		return r.db.execOne(ctx, tx, r.db.sb.Delete("auth_codes").Where(where))
	case u.Code != nil:
		c := u.Code
		return r.db.execOne(ctx, tx, r.db.sb.Update("auth_codes").Set("attempts", c.Attempts).
			Set("verified_at", zeroMillis(c.VerifiedAt)).Set("proof_hash", c.ProofHash).
			Set("proof_expires_at", zeroMillis(c.ProofExpiresAt)).Where(where))
	}
	return nil
}

// writeAccount applies the account's part of u: verified, a new password
// (revoking every token), the earlier ways in ended, a new token; what
// went into *removed.
func (r *AccountRepo) writeAccount(ctx context.Context, tx *sqlx.Tx, userID string, u accounts.CodeUpdate, removed *accounts.Removed) error {
	if u.Verify && u.PasswordHash == "" {
		if err := r.db.execOne(ctx, tx, r.db.sb.Update("accounts").Set("verified", true).
			Where(sq.Eq{"id": userID})); err != nil {
			return err
		}
	}
	if u.PasswordHash != "" {
		if err := r.setPassword(ctx, tx, userID, u.PasswordHash, u.At, &removed.Sessions, u.Verify); err != nil {
			return err
		}
	}
	if u.EndWaysIn {
		ended, _, err := r.endWaysIn(ctx, tx, userID, identityKey{})
		if err != nil {
			return err
		}
		removed.Add(ended)
	}
	if u.Token == nil {
		return nil
	}
	return r.insertToken(ctx, tx, *u.Token)
}

func (r *AccountRepo) ClearPendingPassword(ctx context.Context, userID string) error {
	return r.db.exec(ctx, r.db, r.db.sb.Update("accounts").Set("password_hash", "").
		Where(sq.Eq{"id": userID, "verified": false}))
}

func (r *AccountRepo) SetPassword(ctx context.Context, userID, hash string, now time.Time, t accounts.Token) ([]string, error) {
	var revoked []string
	err := r.db.inTx(ctx, func(tx *sqlx.Tx) error {
		if err := r.setPassword(ctx, tx, userID, hash, now, &revoked, false); err != nil {
			return err
		}
		return r.insertToken(ctx, tx, t)
	})
	return revoked, err
}

// setPassword sets the password (and verified, for a reset: the code proved
// the mailbox) and revokes every token of the account into *revoked,
// inside tx.
func (r *AccountRepo) setPassword(ctx context.Context, tx *sqlx.Tx, userID, hash string, now time.Time, revoked *[]string, verify bool) error {
	q := r.db.sb.Update("accounts").Set("password_hash", hash).Set("updated_at", now.UnixMilli())
	if verify {
		q = q.Set("verified", true)
	}
	if err := r.db.execOne(ctx, tx, q.Where(sq.Eq{"id": userID})); err != nil {
		return err
	}
	var err error
	if *revoked, err = r.tokenHashes(ctx, tx, userID); err != nil {
		return err
	}
	return r.db.exec(ctx, tx, r.db.sb.Delete("auth_tokens").Where(sq.Eq{"user_id": userID}))
}

var tokenColumns = []string{"id", "token_hash", "user_id", "user_agent", "created_at", "expires_at", "last_used_at"}

type tokenRow struct {
	ID         string `db:"id"`
	Hash       string `db:"token_hash"`
	UserID     string `db:"user_id"`
	UserAgent  string `db:"user_agent"`
	CreatedAt  int64  `db:"created_at"`
	ExpiresAt  int64  `db:"expires_at"`
	LastUsedAt int64  `db:"last_used_at"`
}

func (r tokenRow) token() accounts.Token {
	t := accounts.Token{ID: r.ID, Hash: r.Hash, UserID: r.UserID, UserAgent: r.UserAgent,
		CreatedAt: core.FromMillis(r.CreatedAt), ExpiresAt: core.FromMillis(r.ExpiresAt)}
	if r.LastUsedAt != 0 {
		t.LastUsedAt = core.FromMillis(r.LastUsedAt)
	}
	return t
}

func (r *AccountRepo) CreateToken(ctx context.Context, t accounts.Token, decide func([]accounts.Token) []string) ([]string, error) {
	var revoked []string
	err := r.db.inTx(ctx, func(tx *sqlx.Tx) error {
		if err := r.insertToken(ctx, tx, t); err != nil {
			return err
		}
		// The index (user_id, created_at) serves the read.
		var rows []tokenRow
		if err := r.db.selectInto(ctx, tx, &rows, r.db.sb.Select(tokenColumns...).From("auth_tokens").
			Where(sq.Eq{"user_id": t.UserID}).Where(sq.NotEq{"token_hash": t.Hash})); err != nil {
			return err
		}
		others := make([]accounts.Token, len(rows))
		for i, row := range rows {
			others[i] = row.token()
		}
		if revoked = decide(others); len(revoked) == 0 {
			return nil
		}
		return r.db.exec(ctx, tx, r.db.sb.Delete("auth_tokens").Where(sq.Eq{"token_hash": revoked}))
	})
	return revoked, err
}

func (r *AccountRepo) insertToken(ctx context.Context, e sqlx.ExecerContext, t accounts.Token) error {
	return r.db.exec(ctx, e, r.db.sb.Insert("auth_tokens").Columns(tokenColumns...).
		Values(t.ID, t.Hash, t.UserID, t.UserAgent, t.CreatedAt.UnixMilli(), t.ExpiresAt.UnixMilli(), 0))
}

type sessionRow struct {
	UserID     string `db:"user_id"`
	Email      string `db:"email"`
	IsAdmin    bool   `db:"is_admin"`
	Verified   bool   `db:"verified"`
	Blocked    bool   `db:"blocked"`
	CreatedAt  int64  `db:"created_at"`
	ExpiresAt  int64  `db:"expires_at"`
	LastUsedAt int64  `db:"last_used_at"`
}

func (r *AccountRepo) Session(ctx context.Context, tokenHash string) (accounts.Session, error) {
	var row sessionRow
	err := r.db.get(ctx, r.db, &row, r.db.sb.Select("t.user_id", "a.email", "a.is_admin", "a.verified", "a.blocked", "t.created_at", "t.expires_at", "t.last_used_at").
		From("auth_tokens t").Join("accounts a ON a.id = t.user_id").Where(sq.Eq{"t.token_hash": tokenHash}))
	return accounts.Session{UserID: row.UserID, Email: row.Email, Admin: row.IsAdmin, Verified: row.Verified,
		Blocked: row.Blocked, SignedInAt: core.FromMillis(row.CreatedAt), ExpiresAt: core.FromMillis(row.ExpiresAt), LastUsedAt: core.FromMillis(row.LastUsedAt)}, err
}

func (r *AccountRepo) TouchToken(ctx context.Context, tokenHash string, at time.Time) error {
	return r.db.exec(ctx, r.db, r.db.sb.Update("auth_tokens").Set("last_used_at", at.UnixMilli()).
		Where(sq.Eq{"token_hash": tokenHash}))
}

func (r *AccountRepo) DeleteToken(ctx context.Context, tokenHash string) error {
	return r.db.exec(ctx, r.db, r.db.sb.Delete("auth_tokens").Where(sq.Eq{"token_hash": tokenHash}))
}

func (r *AccountRepo) Tokens(ctx context.Context, userID string) ([]accounts.Token, error) {
	var rows []tokenRow
	if err := r.db.selectInto(ctx, r.db, &rows, r.db.sb.Select(tokenColumns...).From("auth_tokens").
		Where(sq.Eq{"user_id": userID}).OrderBy("created_at DESC", "id DESC")); err != nil {
		return nil, err
	}
	out := make([]accounts.Token, len(rows))
	for i, row := range rows {
		out[i] = row.token()
	}
	return out, nil
}

func (r *AccountRepo) DeleteSession(ctx context.Context, userID, sessionID string) (string, error) {
	var hash string
	err := r.db.inTx(ctx, func(tx *sqlx.Tx) error {
		if err := r.db.get(ctx, tx, &hash, r.db.sb.Select("token_hash").From("auth_tokens").
			Where(sq.Eq{"id": sessionID, "user_id": userID})); err != nil {
			return err
		}
		return r.db.exec(ctx, tx, r.db.sb.Delete("auth_tokens").Where(sq.Eq{"token_hash": hash}))
	})
	return hash, err
}

func (r *AccountRepo) Purge(ctx context.Context, now time.Time) (int, error) {
	at := now.UnixMilli()
	tokens, err := r.db.purgeInBatches(ctx, "auth_tokens", []string{"token_hash"}, sq.Lt{"expires_at": at})
	if err != nil {
		return 0, err
	}
	codes, err := r.db.purgeInBatches(ctx, "auth_codes", []string{"user_id", "purpose"},
		sq.And{sq.Lt{"expires_at": at}, sq.Lt{"proof_expires_at": at}})
	if err != nil {
		return 0, err
	}
	// The Sender drops such mail first and logs it; this is the net under it.
	mail, err := r.db.purgeInBatches(ctx, "mail_outbox", []string{"id"},
		sq.And{sq.Lt{"not_after": at}, sq.Lt{"claimed_until": at}})
	if err != nil {
		return 0, err
	}
	used, err := r.db.purgeInBatches(ctx, "id_token_uses", []string{"token_hash"}, sq.Lt{"expires_at": at})
	return tokens + codes + mail + used, err
}
