package sqlstore

import (
	"context"
	"time"

	sq "github.com/Masterminds/squirrel"
	"github.com/jmoiron/sqlx"

	"tandem/core"
	"tandem/modules/feedback"
)

var _ feedback.Repository = (*FeedbackRepo)(nil)

// FeedbackRepo stores feedback.
type FeedbackRepo struct{ db *DB }

func NewFeedbackRepo(db *DB) *FeedbackRepo { return &FeedbackRepo{db: db} }

var feedbackColumns = []string{"id", "user_id", "message", "created_at", "handled", "handled_at", "handled_by"}

type feedbackRow struct {
	ID        string `db:"id"`
	UserID    string `db:"user_id"`
	Message   string `db:"message"`
	CreatedAt int64  `db:"created_at"`
	Handled   bool   `db:"handled"`
	HandledAt int64  `db:"handled_at"`
	HandledBy string `db:"handled_by"`
}

func (r feedbackRow) feedback() feedback.Feedback {
	f := feedback.Feedback{ID: r.ID, UserID: r.UserID, Message: r.Message, CreatedAt: core.FromMillis(r.CreatedAt)}
	if r.Handled {
		f.HandledAt, f.HandledBy = core.FromMillis(r.HandledAt), r.HandledBy
	}
	return f
}

func (r *FeedbackRepo) Create(ctx context.Context, f feedback.Feedback) error {
	return r.db.exec(ctx, r.db, r.db.sb.Insert("feedback").Columns(feedbackColumns...).
		Values(f.ID, f.UserID, f.Message, f.CreatedAt.UnixMilli(), f.Handled(), handledMillis(f), f.HandledBy))
}

func handledMillis(f feedback.Feedback) int64 {
	if !f.Handled() {
		return 0
	}
	return f.HandledAt.UnixMilli()
}

// ListByState reads idx_feedback_handled (handled, created_at, id) from the
// cursor down.
func (r *FeedbackRepo) ListByState(ctx context.Context, handled bool, page core.Page) ([]feedback.Feedback, string, error) {
	return r.list(ctx, r.db.sb.Select(feedbackColumns...).From("feedback").Where(sq.Eq{"handled": handled}), page)
}

func (r *FeedbackRepo) Get(ctx context.Context, id string) (feedback.Feedback, error) {
	var row feedbackRow
	if err := r.db.get(ctx, r.db, &row, r.db.sb.Select(feedbackColumns...).From("feedback").Where(sq.Eq{"id": id})); err != nil {
		return feedback.Feedback{}, err
	}
	return row.feedback(), nil
}

// MarkHandled sets the mark only where none is (the first mark stays), then
// reads the row back; both in one transaction.
func (r *FeedbackRepo) MarkHandled(ctx context.Context, id, by string, at time.Time) (feedback.Feedback, error) {
	var row feedbackRow
	err := r.db.inTx(ctx, func(tx *sqlx.Tx) error {
		if err := r.db.exec(ctx, tx, r.db.sb.Update("feedback").
			SetMap(map[string]any{"handled": true, "handled_at": at.UnixMilli(), "handled_by": by}).
			Where(sq.Eq{"id": id, "handled": false})); err != nil {
			return err
		}
		return r.db.get(ctx, tx, &row, r.db.sb.Select(feedbackColumns...).From("feedback").Where(sq.Eq{"id": id}))
	})
	if err != nil {
		return feedback.Feedback{}, err
	}
	return row.feedback(), nil
}

// ListByUser reads idx_feedback_user from the cursor down.
func (r *FeedbackRepo) ListByUser(ctx context.Context, userID string, page core.Page) ([]feedback.Feedback, string, error) {
	return r.list(ctx, r.db.sb.Select(feedbackColumns...).From("feedback").Where(sq.Eq{"user_id": userID}), page)
}

// List reads idx_feedback_created from the cursor down. Without a WHERE,
// MySQL may plan a full scan and a sort of the whole table (it does on small
// tables); FORCE INDEX keeps the administrators' list an index walk of one
// page at any size. SQLite walks the index for this ORDER BY by itself.
func (r *FeedbackRepo) List(ctx context.Context, page core.Page) ([]feedback.Feedback, string, error) {
	from := "feedback"
	if r.db.Dialect == MySQL {
		from = "feedback FORCE INDEX (idx_feedback_created)"
	}
	return r.list(ctx, r.db.sb.Select(feedbackColumns...).From(from), page)
}

func (r *FeedbackRepo) list(ctx context.Context, b sq.SelectBuilder, page core.Page) ([]feedback.Feedback, string, error) {
	rows, next, err := newestFirst(ctx, r.db, b, page, func(row feedbackRow) core.TimeCursor {
		return core.TimeCursor{At: row.CreatedAt, ID: row.ID}
	})
	if err != nil {
		return nil, "", err
	}
	out := make([]feedback.Feedback, len(rows))
	for i, row := range rows {
		out[i] = row.feedback()
	}
	return out, next, nil
}

func (r *FeedbackRepo) DeleteByUser(ctx context.Context, userID string) error {
	return r.db.exec(ctx, r.db, r.db.sb.Delete("feedback").Where(sq.Eq{"user_id": userID}))
}
