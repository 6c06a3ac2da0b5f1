package sqlstore

import (
	"context"

	sq "github.com/Masterminds/squirrel"

	"tandem/core"
	"tandem/modules/feedback"
)

var _ feedback.Repository = (*FeedbackRepo)(nil)

// FeedbackRepo stores feedback.
type FeedbackRepo struct{ db *DB }

func NewFeedbackRepo(db *DB) *FeedbackRepo { return &FeedbackRepo{db: db} }

var feedbackColumns = []string{"id", "user_id", "message", "created_at"}

type feedbackRow struct {
	ID        string `db:"id"`
	UserID    string `db:"user_id"`
	Message   string `db:"message"`
	CreatedAt int64  `db:"created_at"`
}

func (r feedbackRow) feedback() feedback.Feedback {
	return feedback.Feedback{ID: r.ID, UserID: r.UserID, Message: r.Message, CreatedAt: core.FromMillis(r.CreatedAt)}
}

func (r *FeedbackRepo) Create(ctx context.Context, f feedback.Feedback) error {
	return r.db.exec(ctx, r.db, r.db.sb.Insert("feedback").Columns(feedbackColumns...).
		Values(f.ID, f.UserID, f.Message, f.CreatedAt.UnixMilli()))
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
