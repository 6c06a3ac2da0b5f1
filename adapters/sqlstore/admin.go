package sqlstore

import (
	"context"
	"time"

	sq "github.com/Masterminds/squirrel"

	"tandem/core"
	"tandem/modules/admin"
)

var (
	_ admin.AuditLog = (*AuditRepo)(nil)
	_ admin.Stats    = (*StatsRepo)(nil)
)

// AuditRepo stores the console's audit log.
type AuditRepo struct{ db *DB }

func NewAuditRepo(db *DB) *AuditRepo { return &AuditRepo{db: db} }

var auditColumns = []string{"id", "actor_id", "actor", "action", "target", "before_state", "after_state", "outcome", "at"}

type auditRow struct {
	ID      string `db:"id"`
	ActorID string `db:"actor_id"`
	Actor   string `db:"actor"`
	Action  string `db:"action"`
	Target  string `db:"target"`
	Before  string `db:"before_state"`
	After   string `db:"after_state"`
	Outcome string `db:"outcome"`
	At      int64  `db:"at"`
}

func (r auditRow) entry() admin.Entry {
	return admin.Entry{ID: r.ID, ActorID: r.ActorID, Actor: r.Actor, Action: r.Action, Target: r.Target,
		Before: r.Before, After: r.After, Outcome: admin.Outcome(r.Outcome), At: core.FromMillis(r.At)}
}

func (r *AuditRepo) Append(ctx context.Context, e admin.Entry) error {
	return r.db.exec(ctx, r.db, r.db.sb.Insert("audit_log").Columns(auditColumns...).
		Values(e.ID, e.ActorID, e.Actor, e.Action, e.Target, e.Before, e.After, string(e.Outcome), e.At.UnixMilli()))
}

func (r *AuditRepo) Complete(ctx context.Context, id string, outcome admin.Outcome, after string) error {
	// Matching on id alone: MySQL counts only changed rows, so a repeated
	// completion must not read as "not found"; existence is checked apart.
	n, err := r.db.execN(ctx, r.db, r.db.sb.Update("audit_log").
		SetMap(map[string]any{"outcome": string(outcome), "after_state": after}).Where(sq.Eq{"id": id}))
	if err != nil || n > 0 {
		return err
	}
	var one int
	return r.db.get(ctx, r.db, &one, r.db.sb.Select("1").From("audit_log").Where(sq.Eq{"id": id}))
}

// List reads idx_audit_log_at from the cursor down. As with the feedback
// list, MySQL may plan a scan and sort of a small table without a WHERE:
// FORCE INDEX keeps it an index walk of one page at any size.
func (r *AuditRepo) List(ctx context.Context, page core.Page) ([]admin.Entry, string, error) {
	from := "audit_log"
	if r.db.Dialect == MySQL {
		from = "audit_log FORCE INDEX (idx_audit_log_at)"
	}
	b := r.db.sb.Select(auditColumns...).From(from)
	if page.Cursor != "" {
		c, err := core.ParseTimeCursor(page.Cursor)
		if err != nil {
			return nil, "", err
		}
		b = b.Where(sq.Or{sq.Lt{"at": c.At}, sq.And{sq.Eq{"at": c.At}, sq.Lt{"id": c.ID}}})
	}
	var rows []auditRow
	if err := r.db.selectInto(ctx, r.db, &rows, b.OrderBy("at DESC", "id DESC").Limit(uint64(page.Size())+1)); err != nil {
		return nil, "", err
	}
	rows, next := core.CutPage(rows, page, func(row auditRow) string {
		return core.TimeCursor{At: row.At, ID: row.ID}.String()
	})
	out := make([]admin.Entry, len(rows))
	for i, row := range rows {
		out[i] = row.entry()
	}
	return out, next, nil
}

// StatsRepo counts for the console's overview.
type StatsRepo struct{ db *DB }

func NewStatsRepo(db *DB) *StatsRepo { return &StatsRepo{db: db} }

// Overview runs four counts: the first two walk the smallest index of their
// table, the others a range of idx_premium_active and idx_images_created.
func (r *StatsRepo) Overview(ctx context.Context, now, since time.Time) (admin.Overview, error) {
	var o admin.Overview
	counts := []struct {
		dst *int
		b   sq.SelectBuilder
	}{
		{&o.Users, r.db.sb.Select("COUNT(*)").From("accounts")},
		{&o.Couples, r.db.sb.Select("COUNT(*)").From("partnerships")},
		{&o.ActivePremium, r.db.sb.Select("COUNT(*)").From("premium_subscriptions").
			Where(sq.Eq{"is_active": true, "cancelled": false}).Where(sq.Gt{"end_date": now.UnixMilli()})},
		{&o.UploadsToday, r.db.sb.Select("COUNT(*)").From("images").Where(sq.GtOrEq{"created_at": since.UnixMilli()})},
	}
	for _, c := range counts {
		if err := r.db.get(ctx, r.db, c.dst, c.b); err != nil {
			return admin.Overview{}, err
		}
	}
	return o, nil
}
