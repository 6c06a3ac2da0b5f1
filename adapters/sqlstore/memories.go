package sqlstore

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	sq "github.com/Masterminds/squirrel"
	"github.com/jmoiron/sqlx"

	"tandem/core"
	"tandem/modules/memories"
)

var _ memories.Repository = (*MemoryRepo)(nil)

// MemoryRepo stores memories. Every read of a user's memories goes through
// idx_memories_user_date (user_id, memory_date, created_at, id).
type MemoryRepo struct{ db *DB }

func NewMemoryRepo(db *DB) *MemoryRepo { return &MemoryRepo{db: db} }

var memoryColumns = []string{"id", "user_id", "title", "description", "memory_date", "images",
	"created_at", "updated_at"}

type memoryRow struct {
	ID          string `db:"id"`
	UserID      string `db:"user_id"`
	Title       string `db:"title"`
	Description string `db:"description"`
	Date        dbDate `db:"memory_date"`
	Images      string `db:"images"`
	CreatedAt   int64  `db:"created_at"`
	UpdatedAt   int64  `db:"updated_at"`
}

func (r memoryRow) memory() (memories.Memory, error) {
	m := memories.Memory{ID: r.ID, UserID: r.UserID, Title: r.Title, Description: r.Description, Date: r.Date.Date,
		CreatedAt: core.FromMillis(r.CreatedAt), UpdatedAt: core.FromMillis(r.UpdatedAt)}
	if err := json.Unmarshal([]byte(r.Images), &m.Images); err != nil {
		return memories.Memory{}, fmt.Errorf("sqlstore: memory %s images: %w", r.ID, err)
	}
	if m.Images == nil {
		m.Images = []string{}
	}
	return m, nil
}

func memoryValues(m memories.Memory) ([]any, error) {
	images := m.Images
	if images == nil {
		images = []string{}
	}
	b, err := json.Marshal(images)
	if err != nil {
		return nil, fmt.Errorf("sqlstore: memory images: %w", err)
	}
	return []any{m.ID, m.UserID, m.Title, m.Description, dateArg(m.Date), string(b),
		m.CreatedAt.UnixMilli(), m.UpdatedAt.UnixMilli()}, nil
}

func rowsToMemories(rows []memoryRow) ([]memories.Memory, error) {
	out := make([]memories.Memory, len(rows))
	for i, row := range rows {
		m, err := row.memory()
		if err != nil {
			return nil, core.Internal(err)
		}
		out[i] = m
	}
	return out, nil
}

// Create counts the owner's memories and inserts in one transaction that
// first takes the owner's memory_owners row (lockOwner), so the creates of
// one user run one after another and none can pass max.
func (r *MemoryRepo) Create(ctx context.Context, m memories.Memory, room core.Room) error {
	v, err := memoryValues(m)
	if err != nil {
		return core.Internal(err)
	}
	insert := r.db.sb.Insert("memories").Columns(memoryColumns...).Values(v...)
	if room == nil {
		return r.db.exec(ctx, r.db, insert)
	}
	return r.db.inTx(ctx, func(tx *sqlx.Tx) error {
		if err := lockOwner(ctx, r.db, tx, "memory_owners", m.UserID); err != nil {
			return err
		}
		var n int64
		if err := r.db.get(ctx, tx, &n, r.db.sb.Select("COUNT(*)").From("memories").
			Where(sq.Eq{"user_id": m.UserID})); err != nil {
			return err
		}
		if err := room.Allows(n); err != nil {
			return err
		}
		return r.db.exec(ctx, tx, insert)
	})
}

func (r *MemoryRepo) Get(ctx context.Context, userID, id string) (memories.Memory, error) {
	return r.get(ctx, r.db, userID, id, "")
}

func (r *MemoryRepo) get(ctx context.Context, q sqlx.QueryerContext, userID, id, suffix string) (memories.Memory, error) {
	b := r.db.sb.Select(memoryColumns...).From("memories").Where(sq.Eq{"id": id, "user_id": userID})
	if suffix != "" {
		b = b.Suffix(suffix)
	}
	var row memoryRow
	if err := r.db.get(ctx, q, &row, b); err != nil {
		return memories.Memory{}, err
	}
	m, err := row.memory()
	if err != nil {
		return memories.Memory{}, core.Internal(err)
	}
	return m, nil
}

// List reads one range of the index, newest date first, with a keyset on
// (memory_date, created_at, id) for the pages.
func (r *MemoryRepo) List(ctx context.Context, userID string, span memories.Span, page core.Page) ([]memories.Memory, string, error) {
	b := r.db.sb.Select(memoryColumns...).From("memories").
		Where(sq.Eq{"user_id": userID}).
		Where(sq.GtOrEq{"memory_date": span.From.String()}).
		Where(sq.LtOrEq{"memory_date": span.To.String()})
	if page.Cursor != "" {
		c, err := memories.ParseCursor(page.Cursor)
		if err != nil {
			return nil, "", err
		}
		d := c.Date.String()
		b = b.Where(sq.Or{
			sq.Lt{"memory_date": d},
			sq.And{sq.Eq{"memory_date": d}, sq.Lt{"created_at": c.CreatedAt}},
			sq.And{sq.Eq{"memory_date": d}, sq.Eq{"created_at": c.CreatedAt}, sq.Lt{"id": c.ID}},
		})
	}
	var rows []memoryRow
	if err := r.db.selectInto(ctx, r.db, &rows, b.OrderBy("memory_date DESC", "created_at DESC", "id DESC").
		Limit(uint64(page.Size()+1))); err != nil {
		return nil, "", err
	}
	ms, err := rowsToMemories(rows)
	if err != nil {
		return nil, "", err
	}
	ms, next := memories.PageOf(ms, page)
	return ms, next, nil
}

func (r *MemoryRepo) Count(ctx context.Context, userID string, date core.Date) (int, error) {
	var n int
	err := r.db.get(ctx, r.db, &n, r.db.sb.Select("COUNT(*)").From("memories").
		Where(sq.Eq{"user_id": userID, "memory_date": date.String()}))
	return n, err
}

// memoryUpdated are the columns an Update may change: all but the key, the
// owner and created_at.
var memoryUpdated = []string{"title", "description", "memory_date", "images", "updated_at"}

func (r *MemoryRepo) Update(ctx context.Context, userID, id string, fn func(m *memories.Memory) error) (memories.Memory, error) {
	var out memories.Memory
	err := r.db.inTx(ctx, func(tx *sqlx.Tx) error {
		m, err := r.get(ctx, tx, userID, id, r.db.forUpdate())
		if err != nil {
			return err
		}
		old := m
		if err := fn(&m); err != nil {
			return err
		}
		m.ID, m.UserID, m.CreatedAt = old.ID, old.UserID, old.CreatedAt
		v, err := memoryValues(m)
		if err != nil {
			return core.Internal(err)
		}
		set := make(map[string]any, len(memoryUpdated))
		for i, col := range memoryColumns {
			if slices.Contains(memoryUpdated, col) {
				set[col] = v[i]
			}
		}
		out = m
		return r.db.execOne(ctx, tx, r.db.sb.Update("memories").SetMap(set).Where(sq.Eq{"id": id}))
	})
	return out, err
}

func (r *MemoryRepo) Delete(ctx context.Context, userID, id string) error {
	return r.db.execOne(ctx, r.db, r.db.sb.Delete("memories").Where(sq.Eq{"id": id, "user_id": userID}))
}

func (r *MemoryRepo) DeleteByUser(ctx context.Context, userID string) error {
	return r.db.inTx(ctx, func(tx *sqlx.Tx) error {
		if err := r.db.exec(ctx, tx, r.db.sb.Delete("memories").Where(sq.Eq{"user_id": userID})); err != nil {
			return err
		}
		return r.db.exec(ctx, tx, r.db.sb.Delete("memory_owners").Where(sq.Eq{"user_id": userID}))
	})
}
