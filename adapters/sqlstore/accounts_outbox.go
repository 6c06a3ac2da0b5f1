package sqlstore

import (
	"context"
	"database/sql"
	"time"

	sq "github.com/Masterminds/squirrel"

	"tandem/modules/accounts"
)

// AccountRepo is also the accounts' mail outbox (accounts.Outbox): the
// table mail_outbox, filled by PutCode in the code's transaction.

var mailColumns = []string{"id", "user_id", "kind", "recipient", "subject", "body", "created_at", "not_after",
	"attempts", "next_attempt_at", "claimed_until", "claim"}

// mailMeta are the columns of a mail without its content (the log's view).
var mailMeta = []string{"id", "user_id", "kind", "created_at", "not_after", "attempts", "next_attempt_at"}

type mailRow struct {
	ID           string `db:"id"`
	UserID       string `db:"user_id"`
	Kind         string `db:"kind"`
	Recipient    string `db:"recipient"`
	Subject      string `db:"subject"`
	Body         string `db:"body"`
	CreatedAt    int64  `db:"created_at"`
	NotAfter     int64  `db:"not_after"`
	Attempts     int    `db:"attempts"`
	NextAttempt  int64  `db:"next_attempt_at"`
	ClaimedUntil int64  `db:"claimed_until"`
	Claim        string `db:"claim"`
}

func mails(rows []mailRow) []accounts.OutboxMail {
	out := make([]accounts.OutboxMail, len(rows))
	for i, row := range rows {
		out[i] = row.mail()
	}
	return out
}

// mailDue is the claimable mail at now; idx_mail_outbox_due serves it.
func mailDue(now time.Time) sq.And {
	at := now.UnixMilli()
	return sq.And{sq.LtOrEq{"next_attempt_at": at}, sq.Lt{"claimed_until": at}, sq.Gt{"not_after": at}}
}

func (r *AccountRepo) DueMail(ctx context.Context, now time.Time, limit int) ([]accounts.OutboxMail, error) {
	var rows []mailRow
	if err := r.db.selectInto(ctx, r.db, &rows, r.db.sb.Select(mailColumns...).From("mail_outbox").
		Where(mailDue(now)).OrderBy("next_attempt_at", "id").Limit(uint64(limit))); err != nil {
		return nil, err
	}
	return mails(rows), nil
}

// ClaimMail is one conditional update: of concurrent claims on a mail, the
// database lets exactly one change the row (the others' WHERE no longer
// holds), and each learns which it was from the rows affected. On a small
// table MySQL may plan it as a range over idx_mail_outbox_due or _expiry
// and lock every row there (deadlocking with the senders' deletes); FORCE
// INDEX keeps it to the one row.
func (r *AccountRepo) ClaimMail(ctx context.Context, id, claim string, now, until time.Time) (bool, error) {
	table := "mail_outbox"
	if r.db.Dialect == MySQL {
		table = "mail_outbox FORCE INDEX (PRIMARY)"
	}
	n, err := r.db.execN(ctx, r.db, r.db.sb.Update(table).
		Set("claim", claim).Set("claimed_until", until.UnixMilli()).
		Where(sq.Eq{"id": id}).Where(mailDue(now)))
	return n == 1, err
}

func (r *AccountRepo) RetryMail(ctx context.Context, id, claim string, attempts int, next time.Time) error {
	if claim == "" {
		return nil // an empty claim holds nothing
	}
	return r.db.exec(ctx, r.db, r.db.sb.Update("mail_outbox").
		Set("attempts", attempts).Set("next_attempt_at", next.UnixMilli()).
		Set("claimed_until", 0).Set("claim", "").
		Where(sq.Eq{"id": id, "claim": claim}))
}

func (r *AccountRepo) ForgetMail(ctx context.Context, id, claim string) error {
	if claim == "" {
		return nil
	}
	return r.db.exec(ctx, r.db, r.db.sb.Delete("mail_outbox").Where(sq.Eq{"id": id, "claim": claim}))
}

// DropExpiredMail reads the expired mail through idx_mail_outbox_expiry and
// deletes each by id (a mail's not_after never changes; no claim may have
// come meanwhile), so that of concurrent passes only the one whose delete
// took the row reports it. The delete names no indexed column but the
// primary key, so it locks that row alone.
func (r *AccountRepo) DropExpiredMail(ctx context.Context, now time.Time, limit int) ([]accounts.OutboxMail, error) {
	at := now.UnixMilli()
	expired := sq.And{sq.LtOrEq{"not_after": at}, sq.Lt{"claimed_until": at}}
	var rows []mailRow
	if err := r.db.selectInto(ctx, r.db, &rows, r.db.sb.Select(mailMeta...).From("mail_outbox").
		Where(expired).OrderBy("not_after").Limit(uint64(limit))); err != nil {
		return nil, err
	}
	var out []accounts.OutboxMail
	for _, row := range rows {
		n, err := r.db.execN(ctx, r.db, r.db.sb.Delete("mail_outbox").Where(sq.Eq{"id": row.ID}).
			Where(sq.Lt{"claimed_until": at}))
		if err != nil {
			return out, err
		}
		if n == 1 {
			out = append(out, row.mail())
		}
	}
	return out, nil
}

func (r *AccountRepo) PendingMail(ctx context.Context) (int, error) {
	var n int
	err := r.db.get(ctx, r.db, &n, r.db.sb.Select("COUNT(*)").From("mail_outbox"))
	return n, err
}

// OldestMail is when the oldest mail neither sent nor dropped was queued
// (the outbox age metric); false when the outbox is empty.
func (r *AccountRepo) OldestMail(ctx context.Context) (time.Time, bool, error) {
	var at sql.NullInt64
	if err := r.db.get(ctx, r.db, &at, r.db.sb.Select("MIN(created_at)").From("mail_outbox")); err != nil || !at.Valid {
		return time.Time{}, false, err
	}
	return time.UnixMilli(at.Int64), true, nil
}
