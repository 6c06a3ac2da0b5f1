package sqlstore

import (
	"context"

	sq "github.com/Masterminds/squirrel"
	"github.com/jmoiron/sqlx"

	"tandem/core"
	"tandem/modules/messages"
)

var _ messages.Repository = (*MessageRepo)(nil)

// MessageRepo stores messages. A thread is read through idx_messages_scope
// (scope, created_at, id), a user's own messages through idx_messages_author
// (author_id, created_at, id), both newest first.
type MessageRepo struct{ db *DB }

func NewMessageRepo(db *DB) *MessageRepo { return &MessageRepo{db: db} }

var messageColumns = []string{"id", "scope", "author_id", "body", "created_at"}

type messageRow struct {
	ID        string `db:"id"`
	Scope     string `db:"scope"`
	AuthorID  string `db:"author_id"`
	Body      string `db:"body"`
	CreatedAt int64  `db:"created_at"`
}

func (r messageRow) message() messages.Message {
	return messages.Message{ID: r.ID, Scope: r.Scope, AuthorID: r.AuthorID, Body: r.Body,
		CreatedAt: core.FromMillis(r.CreatedAt)}
}

func (r *MessageRepo) Add(ctx context.Context, m messages.Message) error {
	return r.db.exec(ctx, r.db, r.db.sb.Insert("messages").Columns(messageColumns...).
		Values(m.ID, m.Scope, m.AuthorID, m.Body, m.CreatedAt.UnixMilli()))
}

func (r *MessageRepo) List(ctx context.Context, scope string, page core.Page) ([]messages.Message, string, error) {
	return r.page(ctx, sq.Eq{"scope": scope}, page)
}

func (r *MessageRepo) ByAuthor(ctx context.Context, authorID string, page core.Page) ([]messages.Message, string, error) {
	return r.page(ctx, sq.Eq{"author_id": authorID}, page)
}

// page reads one index range from the cursor down, with a keyset on
// (created_at, id); the cursor is the one messages.CursorAfter makes.
func (r *MessageRepo) page(ctx context.Context, where sq.Eq, page core.Page) ([]messages.Message, string, error) {
	b := r.db.sb.Select(messageColumns...).From("messages").Where(where)
	rows, next, err := newestFirst(ctx, r.db, b, page, func(row messageRow) core.TimeCursor {
		return messages.CursorAfter(row.message()).TimeCursor()
	})
	if err != nil {
		return nil, "", err
	}
	out := make([]messages.Message, len(rows))
	for i, row := range rows {
		out[i] = row.message()
	}
	return out, next, nil
}

// DeleteUser deletes by author, then the solo thread, in one transaction;
// each statement uses its own index.
func (r *MessageRepo) DeleteUser(ctx context.Context, userID string) error {
	return r.db.inTx(ctx, func(tx *sqlx.Tx) error {
		if err := r.db.exec(ctx, tx, r.db.sb.Delete("messages").Where(sq.Eq{"author_id": userID})); err != nil {
			return err
		}
		return r.db.exec(ctx, tx, r.db.sb.Delete("messages").Where(sq.Eq{"scope": messages.SoloScope(userID)}))
	})
}
