// This file holds TicketRepo: the push tickets (push_tickets) whose
// receipts are checked later.

package sqlstore

import (
	"context"
	"crypto/rand"
	"time"

	sq "github.com/Masterminds/squirrel"

	"tandem/core"
	"tandem/modules/notifications"
)

var _ notifications.TicketRepository = (*TicketRepo)(nil)

// TicketRepo stores push_tickets.
type TicketRepo struct{ db *DB }

func NewTicketRepo(db *DB) *TicketRepo { return &TicketRepo{db: db} }

type ticketRow struct {
	ID       string `db:"id"`
	DeviceID string `db:"device_id"`
	SentAt   int64  `db:"sent_at"`
}

// AddTickets inserts every ticket in one statement; a stored id keeps its row.
func (r *TicketRepo) AddTickets(ctx context.Context, ts []notifications.Ticket) error {
	if len(ts) == 0 {
		return nil
	}
	b := r.db.sb.Insert("push_tickets").Columns("id", "device_id", "sent_at", "checked_at", "claim")
	for _, t := range ts {
		b = b.Values(t.ID, t.DeviceID, t.SentAt.UnixMilli(), t.SentAt.UnixMilli(), "")
	}
	return r.db.exec(ctx, r.db, b.Suffix(r.db.upsert("id", "id = id")))
}

// ClaimTickets reads the candidates through idx_push_tickets_checked, then
// takes them with one update that sets checked_at and this call's token
// only where checked_at is still due (so of two processes that read the
// same candidates, each row goes to one), and reads back by id those that
// carry the token.
func (r *TicketRepo) ClaimTickets(ctx context.Context, due, now time.Time, limit int) ([]notifications.Ticket, error) {
	var ids []string
	if err := r.db.selectInto(ctx, r.db, &ids, r.db.sb.Select("id").From("push_tickets").
		Where(sq.LtOrEq{"checked_at": due.UnixMilli()}).OrderBy("checked_at", "id").Limit(uint64(limit))); err != nil {
		return nil, err
	}
	if len(ids) == 0 {
		return nil, nil
	}
	token := rand.Text()
	if err := r.db.exec(ctx, r.db, r.db.sb.Update("push_tickets").Set("checked_at", now.UnixMilli()).Set("claim", token).
		Where(sq.Eq{"id": ids}).Where(sq.LtOrEq{"checked_at": due.UnixMilli()})); err != nil {
		return nil, err
	}
	var rows []ticketRow
	if err := r.db.selectInto(ctx, r.db, &rows, r.db.sb.Select("id", "device_id", "sent_at").From("push_tickets").
		Where(sq.Eq{"id": ids, "claim": token}).OrderBy("id")); err != nil {
		return nil, err
	}
	out := make([]notifications.Ticket, len(rows))
	for i, row := range rows {
		out[i] = notifications.Ticket{ID: row.ID, DeviceID: row.DeviceID, SentAt: core.FromMillis(row.SentAt)}
	}
	return out, nil
}

func (r *TicketRepo) DeleteTickets(ctx context.Context, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	return r.db.exec(ctx, r.db, r.db.sb.Delete("push_tickets").Where(sq.Eq{"id": ids}))
}
