package sqlstore

import (
	"context"

	sq "github.com/Masterminds/squirrel"
	"github.com/jmoiron/sqlx"

	"tandem/core"
	"tandem/modules/moods"
)

var _ moods.Repository = (*MoodRepo)(nil)

// MoodRepo stores moods. Every read goes through uq_moods_user_date
// (user_id, mood_date), the key that also makes a user's day one row.
type MoodRepo struct{ db *DB }

func NewMoodRepo(db *DB) *MoodRepo { return &MoodRepo{db: db} }

var moodColumns = []string{"id", "user_id", "mood_date", "mood", "note", "partnership_id", "created_at", "updated_at"}

type moodRow struct {
	ID            string `db:"id"`
	UserID        string `db:"user_id"`
	Date          dbDate `db:"mood_date"`
	Mood          string `db:"mood"`
	Note          string `db:"note"`
	PartnershipID string `db:"partnership_id"`
	CreatedAt     int64  `db:"created_at"`
	UpdatedAt     int64  `db:"updated_at"`
}

func (r moodRow) mood() moods.Mood {
	return moods.Mood{ID: r.ID, UserID: r.UserID, Date: r.Date.Date, Level: moods.Level(r.Mood), Note: r.Note,
		PartnershipID: r.PartnershipID, CreatedAt: core.FromMillis(r.CreatedAt), UpdatedAt: core.FromMillis(r.UpdatedAt)}
}

// Put is one upsert on the (user_id, mood_date) key, which the database
// serialises (of two concurrent first check-ins, one inserts and the other
// updates its row), and a read of the row in the same transaction: the
// upsert holds the row's lock until the commit, so the read sees this put's
// row (a plain read: its snapshot begins after the upsert, and a locking
// one would only wait behind the upsert's lock).
func (r *MoodRepo) Put(ctx context.Context, m moods.Mood, made func(moods.Mood)) (moods.Mood, error) {
	var out moods.Mood
	err := r.db.inTx(ctx, func(tx *sqlx.Tx) error {
		if err := r.db.exec(ctx, tx, r.db.sb.Insert("moods").Columns(moodColumns...).
			Values(m.ID, m.UserID, dateArg(m.Date), string(m.Level), m.Note, m.PartnershipID,
				m.CreatedAt.UnixMilli(), m.UpdatedAt.UnixMilli()).
			Suffix(r.db.upsertColumns("user_id, mood_date", "mood", "note", "partnership_id", "updated_at"))); err != nil {
			return err
		}
		var row moodRow
		if err := r.db.get(ctx, tx, &row, r.db.sb.Select(moodColumns...).From("moods").
			Where(sq.Eq{"user_id": m.UserID, "mood_date": m.Date.String()})); err != nil {
			return err
		}
		out = row.mood()
		if made != nil {
			made(out)
		}
		return nil
	})
	return out, err
}

// Range reads one range of the key.
func (r *MoodRepo) Range(ctx context.Context, userID, partnershipID string, from, to core.Date) ([]moods.Mood, error) {
	b := r.db.sb.Select(moodColumns...).From("moods").
		Where(sq.Eq{"user_id": userID}).
		Where(sq.GtOrEq{"mood_date": from.String()}).
		Where(sq.LtOrEq{"mood_date": to.String()})
	if partnershipID != "" {
		b = b.Where(sq.Eq{"partnership_id": partnershipID})
	}
	var rows []moodRow
	if err := r.db.selectInto(ctx, r.db, &rows, b.OrderBy("mood_date")); err != nil {
		return nil, err
	}
	out := make([]moods.Mood, len(rows))
	for i, row := range rows {
		out[i] = row.mood()
	}
	return out, nil
}

// On reads one point of the key per day asked.
func (r *MoodRepo) On(ctx context.Context, keys []moods.DayKey) ([]moods.Mood, error) {
	days := sq.Or{}
	for _, k := range keys {
		where := sq.Eq{"user_id": k.UserID, "mood_date": k.Date.String()}
		if k.PartnershipID != "" {
			where["partnership_id"] = k.PartnershipID
		}
		days = append(days, where)
	}
	var rows []moodRow
	if err := r.db.selectInto(ctx, r.db, &rows, r.db.sb.Select(moodColumns...).From("moods").Where(days)); err != nil {
		return nil, err
	}
	out := make([]moods.Mood, len(rows))
	for i, row := range rows {
		out[i] = row.mood()
	}
	return out, nil
}

func (r *MoodRepo) DeleteByUser(ctx context.Context, userID string) error {
	return r.db.exec(ctx, r.db, r.db.sb.Delete("moods").Where(sq.Eq{"user_id": userID}))
}
