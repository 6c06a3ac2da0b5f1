package sqlstore

import (
	"context"

	sq "github.com/Masterminds/squirrel"
	"github.com/jmoiron/sqlx"

	"tandem/core"
	"tandem/modules/advice"
)

var _ advice.Repository = (*AdviceRepo)(nil)

// AdviceRepo stores advice_dailies; the unique key (user, day) keeps one
// advice per user and date, even under races.
type AdviceRepo struct{ db *DB }

func NewAdviceRepo(db *DB) *AdviceRepo { return &AdviceRepo{db: db} }

var adviceColumns = []string{"id", "user_id", "day", "advice_id", "body", "theme", "created_at"}

type adviceRow struct {
	ID        string `db:"id"`
	UserID    string `db:"user_id"`
	Day       dbDate `db:"day"`
	AdviceID  string `db:"advice_id"`
	Body      string `db:"body"`
	Theme     string `db:"theme"`
	CreatedAt int64  `db:"created_at"`
}

func (r adviceRow) daily() advice.Daily {
	return advice.Daily{ID: r.ID, UserID: r.UserID, Date: r.Day.Date, AdviceID: r.AdviceID, Text: r.Body,
		Theme: advice.Theme(r.Theme), CreatedAt: core.FromMillis(r.CreatedAt)}
}

// Open locks the date (MySQL: the row, or the gap where it would go; SQLite
// transactions hold the write lock) and the nearby dates, then picks and
// inserts; a concurrent first open is a deadlock victim that re-runs (inTx),
// and a duplicate key that still slips through reads the winner's row.
func (r *AdviceRepo) Open(ctx context.Context, userID string, day core.Date, pick func(nearby []advice.Daily) (advice.Daily, error)) (advice.Daily, error) {
	var out advice.Daily
	err := r.db.inTx(ctx, func(tx *sqlx.Tx) error {
		d, err := r.on(ctx, tx, userID, day, r.db.forUpdate())
		if err == nil {
			out = d
			return nil
		}
		if !isNotFound(err) {
			return err
		}
		var rows []adviceRow
		b := r.db.sb.Select(adviceColumns...).From("advice_dailies").Where(sq.Eq{"user_id": userID}).
			Where(sq.GtOrEq{"day": dateArg(advice.NearbyFrom(day))}).
			Where(sq.LtOrEq{"day": dateArg(advice.NearbyTo(day))}).OrderBy("day")
		if s := r.db.forUpdate(); s != "" {
			b = b.Suffix(s)
		}
		if err := r.db.selectInto(ctx, tx, &rows, b); err != nil {
			return err
		}
		nearby := make([]advice.Daily, len(rows))
		for i, row := range rows {
			nearby[i] = row.daily()
		}
		d, err = pick(nearby)
		if err != nil {
			return err
		}
		d.UserID, d.Date = userID, day
		out = d
		return r.db.exec(ctx, tx, r.db.sb.Insert("advice_dailies").Columns(adviceColumns...).
			Values(d.ID, d.UserID, dateArg(d.Date), d.AdviceID, d.Text, string(d.Theme), d.CreatedAt.UnixMilli()))
	})
	if core.IsKind(err, core.KindConflict) {
		return r.on(ctx, r.db, userID, day, "")
	}
	return out, err
}

// on reads one date through uq_advice_dailies_day.
func (r *AdviceRepo) on(ctx context.Context, q sqlx.QueryerContext, userID string, day core.Date, suffix string) (advice.Daily, error) {
	var row adviceRow
	b := r.db.sb.Select(adviceColumns...).From("advice_dailies").Where(sq.Eq{"user_id": userID, "day": dateArg(day)})
	if suffix != "" {
		b = b.Suffix(suffix)
	}
	err := r.db.get(ctx, q, &row, b)
	return row.daily(), err
}

// ListByUser reads the user's prefix of uq_advice_dailies_day backwards.
func (r *AdviceRepo) ListByUser(ctx context.Context, userID string) ([]advice.Daily, error) {
	var rows []adviceRow
	if err := r.db.selectInto(ctx, r.db, &rows, r.db.sb.Select(adviceColumns...).From("advice_dailies").
		Where(sq.Eq{"user_id": userID}).OrderBy("day DESC")); err != nil {
		return nil, err
	}
	out := make([]advice.Daily, len(rows))
	for i, row := range rows {
		out[i] = row.daily()
	}
	return out, nil
}

func (r *AdviceRepo) DeleteByUser(ctx context.Context, userID string) error {
	return r.db.exec(ctx, r.db, r.db.sb.Delete("advice_dailies").Where(sq.Eq{"user_id": userID}))
}
