// This file holds DailyReminderRepo: the daily reminders (daily_reminders)
// and the days already reminded (daily_reminder_days).

package sqlstore

import (
	"context"
	"time"

	sq "github.com/Masterminds/squirrel"
	"github.com/jmoiron/sqlx"

	"tandem/core"
	"tandem/modules/notifications"
)

var _ notifications.DailyReminderRepository = (*DailyReminderRepo)(nil)

// DailyReminderRepo stores daily_reminders and daily_reminder_days.
type DailyReminderRepo struct{ db *DB }

func NewDailyReminderRepo(db *DB) *DailyReminderRepo { return &DailyReminderRepo{db: db} }

type dueReminderRow struct {
	UserID string `db:"user_id"`
	NextAt int64  `db:"next_at"`
}

func (r *DailyReminderRepo) ScheduleReminder(ctx context.Context, userID string, at time.Time) error {
	return r.db.exec(ctx, r.db, r.db.sb.Insert("daily_reminders").Columns("user_id", "next_at").
		Values(userID, at.UnixMilli()).Suffix(r.db.upsertColumns("user_id", "next_at")))
}

// DueReminders reads idx_daily_reminders_next up to now.
func (r *DailyReminderRepo) DueReminders(ctx context.Context, now time.Time, limit int) ([]notifications.DueReminder, error) {
	var rows []dueReminderRow
	if err := r.db.selectInto(ctx, r.db, &rows, r.db.sb.Select("user_id", "next_at").From("daily_reminders").
		Where(sq.LtOrEq{"next_at": now.UnixMilli()}).OrderBy("next_at", "user_id").Limit(uint64(limit))); err != nil {
		return nil, err
	}
	out := make([]notifications.DueReminder, len(rows))
	for i, row := range rows {
		out[i] = notifications.DueReminder{UserID: row.UserID, At: core.FromMillis(row.NextAt)}
	}
	return out, nil
}

func (r *DailyReminderRepo) MoveReminder(ctx context.Context, userID string, from, to time.Time) (bool, error) {
	n, err := r.db.execN(ctx, r.db, r.db.sb.Update("daily_reminders").Set("next_at", to.UnixMilli()).
		Where(sq.Eq{"user_id": userID, "next_at": from.UnixMilli()}))
	return n == 1, err
}

func (r *DailyReminderRepo) ClearReminder(ctx context.Context, userID string, at time.Time) (bool, error) {
	n, err := r.db.execN(ctx, r.db, r.db.sb.Delete("daily_reminders").
		Where(sq.Eq{"user_id": userID, "next_at": at.UnixMilli()}))
	return n == 1, err
}

// ClaimReminderDay inserts the (user, day) row; the primary key refuses a
// second one, whoever inserts it.
func (r *DailyReminderRepo) ClaimReminderDay(ctx context.Context, userID string, day core.Date, at time.Time) (bool, error) {
	err := r.db.exec(ctx, r.db, r.db.sb.Insert("daily_reminder_days").Columns("user_id", "day", "sent_at").
		Values(userID, dateArg(day), at.UnixMilli()))
	if core.IsKind(err, core.KindConflict) {
		return false, nil
	}
	return err == nil, err
}

func (r *DailyReminderRepo) PurgeReminderDays(ctx context.Context, before core.Date) (int, error) {
	return r.db.purgeInBatches(ctx, "daily_reminder_days", []string{"user_id", "day"}, sq.Lt{"day": dateArg(before)})
}

func (r *DailyReminderRepo) DeleteUserReminders(ctx context.Context, userID string) error {
	return r.db.inTx(ctx, func(tx *sqlx.Tx) error {
		for _, table := range []string{"daily_reminders", "daily_reminder_days"} {
			if err := r.db.exec(ctx, tx, r.db.sb.Delete(table).Where(sq.Eq{"user_id": userID})); err != nil {
				return err
			}
		}
		return nil
	})
}
